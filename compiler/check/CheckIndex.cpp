// Indexing and slicing outside index notation (spec §5.8): `layers[0]` on a
// block array, and on tensors (components address the leading axes, or the
// trailing ones after `...`; unaddressed axes are kept) integer indices (compile-time ones not
// refuted, see constantIndexInRange; runtime integer scalars read a position), slices with compile-time
// non-negative bounds and a positive constant step, and one `...`. An access
// that needs index notation is E2209: a tensor of positions (a gather), or a
// component addressing an axis of a pack. `*pack` components belong to
// notation (the resolver reports them outside it).
#include <fmt/format.h>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::check {

namespace {

bool isCompileInt(const Type& t) {
  return t.kind() == TypeKind::CompileInt || t.kind() == TypeKind::IntLiteral;
}

}  // namespace

// Spec §5.8 asks no proof that a compile-time index is in range, and §4.8
// lets an operation impose constraints stronger than non-negative extents:
// a position the `where` clauses neither prove nor refute is the function's
// requirement (`0 < S` for `x[0]` on `[S]`), checked where the generics are
// bound; one refuted for every binding (`x[3]` on `[2]`, `x[S]` on `[S]`,
// `x[0]` under `where S == 0`) is E2209. docs/checker.md, "Constant indices".
// A dimension the code builds (a shape literal's, `iota`'s length, a
// generic argument) that the `where` clauses do not prove non-negative: a
// requirement of the function, like a compile-time index's (a call whose
// dims make it negative is refused before it runs, rather than sizing a
// buffer from it). One negative for every binding is E2208 at the caller.
void Checker::requireNonNegative(const shape::DimExpr& d, Span span) {
  if (!scope_ || !scope_->out || facts().provablyNonNegative(d)) return;
  scope_->out->requirements.push_back(
      WhereClause{d, shape::Relation::GreaterEqual, shape::DimExpr::constant(0), span, "dimension"});
}

bool Checker::constantIndexInRange(const shape::DimExpr& value, const shape::DimExpr& extent, Span span) {
  shape::Proof nonNegative = facts().provablyNonNegative(value);
  shape::Proof inRange = facts().provablyLess(value, extent);
  if (nonNegative && inRange) return true;
  shape::Proof negative = facts().provablyNegative(value);
  shape::Proof beyond = facts().provablyLessEqual(extent, value);
  bool refuted = negative || beyond;
  if (!refuted && scope_ && scope_->out) {
    if (!nonNegative)
      scope_->out->requirements.push_back(
          WhereClause{value, shape::Relation::GreaterEqual, shape::DimExpr::constant(0), span});
    if (!inRange)
      scope_->out->requirements.push_back(WhereClause{value, shape::Relation::Less, extent, span});
    return true;
  }
  if (refuted) {
    auto d = diagnostics_.emit(DiagnosticKind::IndexPastAxis, span, value.str(), extent.str());
    d.label(negative ? "this index is negative for every value of the generics"
                     : "this index is past the axis for every value of the generics");
    if (auto c = extent.constantValue())
      d.note(*c > 0 ? fmt::format("valid positions are 0 to {}", *c - 1) : "the axis is empty");
    else
      d.note(fmt::format("valid positions are 0 to `{} - 1`", extent.str()));
  } else {
    // Only without a function to record the requirement in.
    auto d = diagnostics_.emit(DiagnosticKind::IndexOutOfRange, span, value.str(), extent.str());
    d.label("this index may be out of range");
    const shape::Proof& failed = !nonNegative ? nonNegative : inRange;
    if (!failed.suggestion.empty()) d.help(fmt::format("add `where {}`", failed.suggestion));
  }
  return false;
}

Type Checker::checkIndex(const ast::IndexExpr* e) {
  Type base = checkExpr(e->base);
  if (base.kind() == TypeKind::BlockArray) {
    if (e->components.size() != 1 || e->components[0].kind != ast::IndexComponentKind::Expr) {
      diagnostics_.emit(DiagnosticKind::InvalidSlice, e->span,
                        fmt::format("a block array takes one index, found `{}`", ast::printExpr(e)))
          .label("one compile-time integer selects one block")
          .help("iterate over the blocks with `static for`");
      return Type::error();
    }
    const ast::Expr* index = e->components[0].value;
    Type t = checkExpr(index);
    auto value = dimOf(module(), index);
    if (t.isError()) return t;
    if (!isCompileInt(t) || !value) {
      diagnostics_.emit(DiagnosticKind::NotCompileTime, index->span, str(t))
          .label("a block array is indexed by a compile-time integer")
          .help("iterate over it with `static for`");
      return Type::error();
    }
    shape::Proof inRange = facts().provablyLess(*value, base.arrayCount());
    shape::Proof nonNegative = facts().provablyNonNegative(*value);
    if (!inRange || !nonNegative) {
      auto d = diagnostics_.emit(DiagnosticKind::IndexOutOfRange, index->span, value->str(),
                                 base.arrayCount().str());
      d.label("this index may be out of range");
      if (!inRange && !inRange.suggestion.empty()) d.help(fmt::format("add `where {}`", inRange.suggestion));
      return Type::error();
    }
    return Type::block(base.blockInstance());
  }
  if (!base.isTensor()) {
    if (!base.isError()) {
      auto d = diagnostics_.emit(DiagnosticKind::InvalidOperand, e->base->span, "[]", str(base));
      d.label(fmt::format("`{}` cannot be indexed", str(base)));
      if (base.kind() == TypeKind::Optional) d.help("`match` it first: `some(v) => v[...]`");
    }
    return Type::error();
  }
  const shape::Shape& shape = base.shape();
  // Components address axes from the front until `...`, then from the back.
  size_t ellipses = 0, addressed = 0;
  for (const ast::IndexComponent& c : e->components) {
    if (c.kind == ast::IndexComponentKind::Pack) {
      diagnostics_.emit(DiagnosticKind::InvalidSlice, c.span,
                        "a pack index is valid only inside index notation")
          .label("not an index of this access")
          .help("write the access in index notation: `let y[*s] = x[*s]`");
      return Type::error();
    }
    if (c.kind == ast::IndexComponentKind::Ellipsis) ++ellipses;
    else ++addressed;
  }
  if (ellipses > 1) {
    diagnostics_.emit(DiagnosticKind::InvalidSlice, e->span, "`...` may appear only once")
        .label("more than one `...`");
    return Type::error();
  }
  // Fewer components than axes keep the trailing axes (`x[i]` on [N, M] is
  // [M]). A component cannot address an axis of a pack: how many axes the
  // pack holds is not known (E2209).
  auto packAxis = [&](size_t k, const shape::Pack& pack) {
    diagnostics_.emit(DiagnosticKind::InvalidSlice, e->components[k].span,
                      fmt::format("this component addresses an axis of the pack `*{}` in `{}`",
                                  pack.name, str(base)))
        .label(fmt::format("`*{}` may hold any number of axes", pack.name))
        .help("address the axes after the pack from the end (`x[..., i]`), or write the access "
              "in index notation with a pack index (`let y[*s] = x[*s, i]`)");
    return Type::error();
  };
  if (base.hasPack() && ellipses == 0) {
    for (size_t k = 0; k < e->components.size(); ++k) {
      if (k >= shape.size()) return Type::error();
      if (auto* pack = std::get_if<shape::Pack>(&shape[k])) return packAxis(k, *pack);
    }
  }
  if (!base.hasPack() && addressed > shape.size()) {
    diagnostics_.emit(DiagnosticKind::RankMismatch, e->span, str(base), shape.size(), addressed)
        .label(fmt::format("{} ind{} for {} ax{}", addressed, addressed == 1 ? "ex" : "ices",
                           shape.size(), shape.size() == 1 ? "is" : "es"))
        .help("remove the extra indices");
    return Type::error();
  }
  // Map each component to its axis.
  std::vector<size_t> axisOf(e->components.size(), 0);
  size_t front = 0;
  size_t i = 0;
  for (; i < e->components.size() && e->components[i].kind != ast::IndexComponentKind::Ellipsis; ++i)
    axisOf[i] = front++;
  size_t tail = e->components.size() - i - (i < e->components.size() ? 1 : 0);
  if (tail > shape.size() || front > shape.size() - tail) {
    // More components than the axes outside a pack (without one, more
    // than the rank is reported above).
    diagnostics_.emit(DiagnosticKind::RankMismatch, e->span, str(base), shape.size(), addressed)
        .label("more components than the axes around the pack")
        .help("a pack may hold no axis: address only the axes written beside it");
    return Type::error();
  }
  for (size_t j = 0; j < tail; ++j) axisOf[e->components.size() - tail + j] = shape.size() - tail + j;
  for (size_t k = 0; k < e->components.size(); ++k) {
    if (e->components[k].kind == ast::IndexComponentKind::Ellipsis) continue;
    if (auto* pack = std::get_if<shape::Pack>(&shape[axisOf[k]])) return packAxis(k, *pack);
  }

  std::vector<bool> removed(shape.size(), false);
  shape::Shape result = shape;
  bool error = false;
  auto checkBound = [&](const ast::Expr* x, bool isIndex, const shape::DimExpr& extent) -> std::optional<shape::DimExpr> {
    Type t = checkExpr(x);
    if (t.isError()) {
      error = true;
      return std::nullopt;
    }
    auto value = isCompileInt(t) ? dimOf(module(), x) : std::nullopt;
    if (!value) {
      if (isIndex && t.isScalar() && isInteger(t.dtype())) return std::nullopt;  // runtime index
      if (isIndex && t.isTensor() && !t.isScalar() && isInteger(t.dtype())) {
        diagnostics_.emit(DiagnosticKind::InvalidSlice, x->span,
                          fmt::format("an index outside index notation is one position, found `{}`",
                                      str(t)))
            .label(fmt::format("this is `{}`", str(t)))
            .help("gather with index notation: `let g[b, j] = x[ids[b], j]`");
        error = true;
        return std::nullopt;
      }
      diagnostics_.emit(DiagnosticKind::InvalidSlice, x->span,
                        isIndex ? fmt::format("an index must be an integer, found `{}`", str(t))
                                : fmt::format("slice bounds must be compile-time integers, found `{}`", str(t)))
          .label(fmt::format("this is `{}`", str(t)));
      error = true;
      return std::nullopt;
    }
    if (auto c = value->constantValue(); c && *c < 0) {
      diagnostics_.emit(DiagnosticKind::InvalidSlice, x->span,
                        fmt::format("negative {} `{}`", isIndex ? "index" : "slice bound", *c))
          .label("negative positions are not allowed")
          // The magnitude in unsigned arithmetic: `-*c` overflows for i64's minimum.
          .help(fmt::format("count from the end explicitly: `{} - {}`", extent.str(),
                            0 - static_cast<uint64_t>(*c)));
      error = true;
      return std::nullopt;
    }
    if (isIndex) {
      if (!constantIndexInRange(*value, extent, x->span)) {
        error = true;
        return std::nullopt;
      }
      return value;
    }
    // A slice bound past the axis is clamped (`Facts::sliceExtent`); only a
    // negative one is invalid.
    shape::Proof nonNegative = facts().provablyNonNegative(*value);
    if (!nonNegative) {
      auto d = diagnostics_.emit(DiagnosticKind::IndexOutOfRange, x->span, value->str(), extent.str());
      d.label("this index may be out of range");
      if (!nonNegative.suggestion.empty()) d.help(fmt::format("add `where {}`", nonNegative.suggestion));
      error = true;
      return std::nullopt;
    }
    return value;
  };
  for (size_t k = 0; k < e->components.size(); ++k) {
    const ast::IndexComponent& c = e->components[k];
    switch (c.kind) {
      case ast::IndexComponentKind::Ellipsis:
      case ast::IndexComponentKind::Pack:
        break;
      case ast::IndexComponentKind::Expr: {
        const shape::DimExpr& extent = std::get<shape::DimExpr>(shape[axisOf[k]]);
        checkBound(c.value, true, extent);
        removed[axisOf[k]] = true;
        break;
      }
      case ast::IndexComponentKind::Slice: {
        const shape::DimExpr& extent = std::get<shape::DimExpr>(shape[axisOf[k]]);
        std::optional<shape::DimExpr> start, stop, step;
        if (c.start) start = checkBound(c.start, false, extent);
        if (c.stop) stop = checkBound(c.stop, false, extent);
        if (c.step) {
          Type t = checkExpr(c.step);
          auto v = isCompileInt(t) ? constantArg(c.step) : std::nullopt;
          if (!t.isError() && (!v || *v <= 0)) {
            diagnostics_.emit(DiagnosticKind::InvalidSlice, c.step->span,
                              "the step of a slice must be a positive constant")
                .label("not a positive constant");
            error = true;
          }
          if (v && *v > 0) step = shape::DimExpr::constant(*v);
          else error = true;
        }
        if (error) break;
        if ((c.start && !start) || (c.stop && !stop)) {
          error = true;
          break;
        }
        result[axisOf[k]] = facts().sliceExtent(start, stop, step, extent);
        break;
      }
    }
  }
  if (error) return Type::error();
  shape::Shape kept;
  for (size_t a = 0; a < result.size(); ++a)
    if (!removed[a]) kept.push_back(result[a]);
  return base.withShape(std::move(kept));
}

}  // namespace linnet::check
