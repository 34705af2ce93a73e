// GenericValues: generic values, their checks, and the evaluation of the
// checker's types under them.
#include "compiler/bind/GenericValues.h"

#include <functional>
#include <map>

#include <charconv>
#include <set>

#include <fmt/format.h>

#include "compiler/parse/ASTPrinter.h"
#include "runtime/artifact/ShapeMatch.h"

namespace linnet::bind {

std::string BoundValue::text() const {
  if (dim) return std::to_string(*dim);
  if (dtype) return std::string(ast::scalarTypeName(*dtype));
  return "?";
}

namespace {

bool isFloat(ast::ScalarType t) {
  using ast::ScalarType;
  return t == ScalarType::F16 || t == ScalarType::BF16 || t == ScalarType::F32 || t == ScalarType::F64;
}
bool isInteger(ast::ScalarType t) { return !isFloat(t) && t != ast::ScalarType::Bool; }

}  // namespace

std::string dtypeViolation(ast::GenericKind kind, ast::ScalarType type) {
  switch (kind) {
    case ast::GenericKind::DType: return "";
    case ast::GenericKind::Numeric: return type == ast::ScalarType::Bool ? "`bool` is not Numeric" : "";
    case ast::GenericKind::Integer: return isInteger(type) ? "" : "it is not an Integer dtype";
    case ast::GenericKind::Float: return isFloat(type) ? "" : "it is not a Float dtype";
    case ast::GenericKind::Dim:
    case ast::GenericKind::Shape: return "not a dtype generic";
  }
  return "";
}

shape::Values dimValues(const ast::BlockItem& block, const GenericBindings& bindings) {
  shape::Values values;
  for (const ast::GenericParam& g : block.generics) {
    auto it = bindings.find(g.name.name);
    if (it != bindings.end() && it->second.dim) values.dims[check::symbolIdOf(g)] = *it->second.dim;
  }
  return values;
}

std::optional<int64_t> evaluateDim(const shape::DimExpr& dim, const shape::Values& values) {
  return shape::evaluate(dim, values).value;
}

std::vector<std::optional<int64_t>> evaluateShape(const check::Type& tensor, const shape::Values& values) {
  std::vector<std::optional<int64_t>> shape;
  for (const shape::ShapeDim& d : tensor.shape()) {
    const auto* dim = std::get_if<shape::DimExpr>(&d);
    shape.push_back(dim ? evaluateDim(*dim, values) : std::nullopt);
  }
  return shape;
}

std::optional<ast::ScalarType> evaluateDType(const check::DType& dtype, const GenericBindings& bindings) {
  if (!dtype.isGeneric()) return dtype.scalar;
  auto it = bindings.find(dtype.generic->name.name);
  if (it == bindings.end()) return std::nullopt;
  return it->second.dtype;
}

namespace {

// NAME=VALUE, both non-empty (MalformedBinding otherwise), NAME not in
// `seen` (DuplicateBinding otherwise: which one would win is a guess).
bool splitBind(const std::string& bind, std::string& name, std::string& value, std::set<std::string>& seen,
               DiagnosticEmitter& diagnostics) {
  size_t eq = bind.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == bind.size()) {
    diagnostics.emit(DiagnosticKind::MalformedBinding, Span{}, bind);
    return false;
  }
  name = bind.substr(0, eq);
  value = bind.substr(eq + 1);
  if (!seen.insert(name).second) {
    diagnostics.emit(DiagnosticKind::DuplicateBinding, Span{}, name);
    return false;
  }
  return true;
}

}  // namespace

std::optional<EntryTypeBindings> parseEntryTypeBinds(const std::vector<const ast::FunctionItem*>& entries,
                                                     const ast::BlockItem* root, std::string_view rootName,
                                                     const std::vector<std::string>& binds,
                                                     DiagnosticEmitter& diagnostics,
                                                     EntryPackBindings* packs) {
  EntryTypeBindings bindings;
  bool ok = true;
  std::set<std::string> seen;
  for (const std::string& bind : binds) {
    std::string name, value;
    if (!splitBind(bind, name, value, seen, diagnostics)) {
      ok = false;
      continue;
    }
    std::vector<const ast::GenericParam*> generics;
    bool runTimeDim = false, pack = false;
    for (const ast::FunctionItem* fn : entries) {
      for (const ast::GenericParam& g : fn->generics) {
        if (g.name.name != name) continue;
        if (g.isPack) pack = true;
        else if (g.constraint == ast::GenericKind::Dim) runTimeDim = true;
        else generics.push_back(&g);
      }
    }
    if (pack && packs) {
      // The number of axes; the axes themselves stay dims of each call.
      int64_t length = -1;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (ec != std::errc() || end != value.data() + value.size() || length < 0 || length > 16) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, "Shape", value,
                         "a shape pack of an entry is bound to its number of axes, 0 to 16");
        ok = false;
        continue;
      }
      (*packs)[name] = length;
      if (generics.empty()) continue;
    }
    if (generics.empty()) {
      auto d = diagnostics.emit(DiagnosticKind::UnknownBinding, Span{}, name, rootName);
      if (runTimeDim)
        d.help(fmt::format("`{}` is a dimension of an entry, fixed by each call: bind it when running "
                           "(`linnet run ... --bind {}` or a call's \"bind\")",
                           name, bind));
      else
        d.help((!root || root->generics.empty() ? std::string("the root block has no generics")
                                                : "the root block's generics are " + ast::printGenericParams(root->generics)) +
               "; an entry's type generics can be bound too");
      ok = false;
      continue;
    }
    std::optional<ast::ScalarType> dtype = ast::scalarTypeFromName(value);
    for (const ast::GenericParam* g : generics) {
      std::string kind(ast::genericKindName(g->constraint));
      std::string why = dtype ? dtypeViolation(g->constraint, *dtype) : "it is not a scalar dtype";
      if (!why.empty()) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value, why);
        ok = false;
        dtype.reset();
        break;
      }
    }
    if (dtype) bindings[name] = *dtype;
  }
  if (!ok) return std::nullopt;
  return bindings;
}

std::optional<int64_t> parseRootDim(std::string_view text) {
  int64_t number = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end != text.data() + text.size() || number < 0 || number > rt::kMaxDim)
    return std::nullopt;
  return number;
}

std::optional<GenericBindings> parseBindOverrides(const ast::BlockItem& block,
                                                  std::string_view blockName,
                                                  const std::vector<std::string>& binds,
                                                  DiagnosticEmitter& diagnostics) {
  GenericBindings bindings;
  bool ok = true;
  std::set<std::string> seen;
  for (const std::string& bind : binds) {
    std::string name, value;
    if (!splitBind(bind, name, value, seen, diagnostics)) {
      ok = false;
      continue;
    }
    const ast::GenericParam* generic = nullptr;
    for (const ast::GenericParam& g : block.generics)
      if (g.name.name == name) generic = &g;
    if (!generic) {
      diagnostics.emit(DiagnosticKind::UnknownBinding, Span{}, name, blockName)
          .help("the root block's generics are " + ast::printGenericParams(block.generics));
      ok = false;
      continue;
    }
    std::string kind(ast::genericKindName(generic->constraint));
    BoundValue bound;
    if (generic->constraint == ast::GenericKind::Shape) {
      diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                       "shape packs cannot be bound from the command line");
      ok = false;
      continue;
    }
    if (generic->constraint == ast::GenericKind::Dim) {
      std::optional<int64_t> number = parseRootDim(value);
      if (!number) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                         fmt::format("a dimension is an integer from 0 to {}", rt::kMaxDim));
        ok = false;
        continue;
      }
      bound.dim = *number;
    } else {
      std::optional<ast::ScalarType> dtype = ast::scalarTypeFromName(value);
      if (!dtype) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                         "it is not a scalar dtype");
        ok = false;
        continue;
      }
      std::string why = dtypeViolation(generic->constraint, *dtype);
      if (!why.empty()) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value, why);
        ok = false;
        continue;
      }
      bound.dtype = dtype;
    }
    bindings[name] = bound;
  }
  if (!ok) return std::nullopt;
  return bindings;
}

namespace {

// The clause as written: the checker's DimExprs print in canonical form.
const ast::Constraint* writtenClause(const ast::BlockItem& block, Span span) {
  for (const ast::Constraint& constraint : block.where)
    if (constraint.span.file == span.file && constraint.span.begin == span.begin &&
        constraint.span.end == span.end)
      return &constraint;
  return nullptr;
}

// Whether every generic `e` names has a value in `values` (a clause naming
// one that does not is checked later, where it gets one).
bool namesOnlyBound(const shape::DimExpr& e, const shape::Values& values) {
  std::vector<shape::Atom> atoms;
  e.collectAtoms(atoms);
  for (const shape::Atom& a : atoms) {
    if (a.kind() == shape::AtomKind::Symbol && !values.dims.count(a.id())) return false;
    if ((a.kind() == shape::AtomKind::PackRank || a.kind() == shape::AtomKind::PackElements) &&
        !values.packs.count(a.id()))
      return false;
  }
  return true;
}

// Why `values` break `clause`: nullopt when it holds, or names a generic
// without a value (it is checked later, where that has one); else the values
// that make it false, or why it cannot be evaluated (a zero divisor, an
// overflow: with every name known, it does not hold either).
std::optional<std::string> brokenBy(const check::WhereClause& clause, const shape::Values& values) {
  if (!namesOnlyBound(clause.lhs, values) || !namesOnlyBound(clause.rhs, values)) return std::nullopt;
  shape::Evaluation lhs = shape::evaluate(clause.lhs, values);
  shape::Evaluation rhs = shape::evaluate(clause.rhs, values);
  if (!lhs) return lhs.error;
  if (!rhs) return rhs.error;
  if (shape::holds(clause.relation, *lhs.value, *rhs.value)) return std::nullopt;
  // The generics' values first (`with H = 64, Heads = 3`): the sides alone
  // (`1 == 0`) do not say which binding broke it.
  std::map<std::string, int64_t> named;
  std::function<void(const shape::DimExpr&)> collect = [&](const shape::DimExpr& e) {
    std::vector<shape::Atom> atoms;
    e.collectAtoms(atoms);
    for (const shape::Atom& a : atoms) {
      if (a.kind() == shape::AtomKind::Symbol && values.dims.count(a.id())) named[a.name()] = values.dims.at(a.id());
      if (a.isComposite())
        for (const shape::DimExpr& operand : a.operands()) collect(operand);
    }
  };
  collect(clause.lhs);
  collect(clause.rhs);
  // As the checker words it (test/check/where-false-for-values.linnet).
  std::string with;
  for (const auto& [name, value] : named)
    with += fmt::format("{}`{} = {}`", with.empty() ? "with " : ", ", name, value);
  std::string sides = fmt::format("{} {} {}", *lhs.value, shape::spelling(clause.relation), *rhs.value);
  if (with.empty()) return sides + " is false";
  return fmt::format("{} it is `{}`, which is false", with, sides);
}

}  // namespace

bool checkWhereClauses(const check::CheckedBlock& block, std::string_view blockName,
                       const GenericBindings& bindings, DiagnosticEmitter& diagnostics) {
  shape::Values values = dimValues(*block.item, bindings);
  bool ok = true;
  for (const check::WhereClause& clause : block.where) {
    std::optional<std::string> why = brokenBy(clause, values);
    if (!why) continue;
    std::string relation(shape::spelling(clause.relation));
    const ast::Constraint* written = writtenClause(*block.item, clause.span);
    std::string text = written ? ast::printExpr(written->lhs) + " " + relation + " " + ast::printExpr(written->rhs)
                               : clause.lhs.str() + " " + relation + " " + clause.rhs.str();
    diagnostics.emit(DiagnosticKind::BindingViolatesWhere, Span{}, text, blockName)
        .secondary(clause.span, "declared here")
        .note(*why);
    ok = false;
  }
  return ok;
}

bool checkRequirements(const check::CheckedProgram& program, const ast::BlockItem& block,
                       std::string_view blockName, const GenericBindings& bindings,
                       DiagnosticEmitter& diagnostics) {
  shape::Values values = dimValues(block, bindings);
  bool ok = true;
  for (const ast::Item* item : block.body) {
    auto* fn = ast::as<ast::FunctionItem>(item);
    const check::CheckedFunction* checked = fn ? program.functionOf(fn) : nullptr;
    if (!checked) continue;
    for (const check::WhereClause& clause : checked->requirements) {
      // One naming a generic bound later (an entry's dims) is the entry's.
      std::optional<std::string> why = brokenBy(clause, values);
      if (!why) continue;
      std::string relation(shape::spelling(clause.relation));
      diagnostics.emit(DiagnosticKind::BindingViolatesIndex, Span{}, clause.lhs.str(),
                       std::string(blockName) + "." + fn->name.name,
                       clause.lhs.str() + " " + relation + " " + clause.rhs.str(), clause.what)
          .secondary(clause.span, fmt::format("this {}", clause.what))
          .note(*why);
      ok = false;
    }
  }
  return ok;
}

}  // namespace linnet::bind
