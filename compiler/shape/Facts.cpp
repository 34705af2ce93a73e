// The public queries of Facts (see Facts.h), built on Knowledge: each query
// is reduced to `p == 0`, `p != 0` or `p >= 0` for one polynomial p, and a
// failed query gets a reason and, when one exists, a suggested `where`
// clause. Suggestions are checked, not guessed: a divisibility clause
// (`H % Heads == 0`) is offered only if adding it to a copy of the facts
// makes the query provable, and a query that is provably false gets no
// suggestion at all (asking the user to assume `3 == 4` would not help).
#include "compiler/shape/Facts.h"

#include <algorithm>

#include "compiler/shape/Knowledge.h"

namespace linnet::shape {
namespace {

std::string relationText(const DimExpr& lhs, Relation rel, const DimExpr& rhs) {
  return lhs.str() + " " + std::string(spelling(rel)) + " " + rhs.str();
}

bool hasAtoms(const DimExpr& e) { return !e.terms().empty(); }

DimExpr elementCount(const Shape& s) {
  DimExpr product = DimExpr::constant(1);
  for (const ShapeDim& d : s) {
    if (const auto* e = std::get_if<DimExpr>(&d))
      product = product * *e;
    else
      product = product * DimExpr::packElements(std::get<Pack>(d));
  }
  return product;
}

}  // namespace

bool holds(Relation r, int64_t lhs, int64_t rhs) {
  switch (r) {
    case Relation::Equal: return lhs == rhs;
    case Relation::NotEqual: return lhs != rhs;
    case Relation::Less: return lhs < rhs;
    case Relation::LessEqual: return lhs <= rhs;
    case Relation::Greater: return lhs > rhs;
    case Relation::GreaterEqual: return lhs >= rhs;
  }
  return false;
}

std::string_view spelling(Relation r) {
  switch (r) {
    case Relation::Equal: return "==";
    case Relation::NotEqual: return "!=";
    case Relation::Less: return "<";
    case Relation::LessEqual: return "<=";
    case Relation::Greater: return ">";
    case Relation::GreaterEqual: return ">=";
  }
  return "?";
}

Facts::Facts() {
  std::vector<FactUse> uses;
  knowledge_ = detail::Knowledge::build({}, uses);
}

FactUse Facts::add(const DimExpr& lhs, Relation rel, const DimExpr& rhs) {
  clauses_.push_back(Clause{lhs, rel, rhs});
  std::vector<detail::Clause> clauses;
  for (const Clause& c : clauses_) clauses.push_back(detail::Clause{c.lhs, c.rel, c.rhs});
  std::vector<FactUse> uses;
  knowledge_ = detail::Knowledge::build(clauses, uses);
  return uses.back();
}

bool Facts::inconsistent() const { return knowledge_->inconsistent(); }

DimExpr Facts::simplify(const DimExpr& e) const {
  if (e.overflowed()) return e;
  DimExpr simplified = knowledge_->simplify(e, 0);
  DimExpr named = knowledge_->restoreNames(simplified);
  // Restoring names only multiplies out what simplification produced; if
  // that overflows, the unsimplified input is still a correct answer.
  if (simplified.overflowed() || named.overflowed()) return e;
  return named;
}

Proof Facts::prove(const DimExpr& lhs, Relation rel, const DimExpr& rhs, bool withSuggestion) const {
  if (lhs.overflowed() || rhs.overflowed())
    return Proof{false, "a dimension overflowed 64-bit integer arithmetic", ""};
  const detail::Knowledge& k = *knowledge_;
  const DimExpr one = DimExpr::constant(1);
  DimExpr difference = lhs - rhs;
  bool proved = false;
  switch (rel) {
    case Relation::Equal:
      proved = k.simplify(difference, 0).isZero() ||
               (k.proveNonNegative(difference, 0) && k.proveNonNegative(-difference, 0));
      break;
    case Relation::NotEqual: proved = k.proveNonZero(difference, 0); break;
    case Relation::Less: proved = k.proveNonNegative(rhs - lhs - one, 0); break;
    case Relation::LessEqual: proved = k.proveNonNegative(rhs - lhs, 0); break;
    case Relation::Greater: proved = k.proveNonNegative(lhs - rhs - one, 0); break;
    case Relation::GreaterEqual: proved = k.proveNonNegative(lhs - rhs, 0); break;
  }
  if (difference.overflowed()) proved = false;
  if (proved) return Proof{true, "", ""};
  Proof failed;
  failed.reason = "cannot prove `" + relationText(lhs, rel, rhs) + "`";
  if (rel == Relation::Equal && !difference.overflowed())
    failed.reason += ": the difference `" + simplify(difference).str() + "` is not provably 0";
  if (withSuggestion) failed.suggestion = suggestFor(lhs, rel, rhs);
  return failed;
}

std::string Facts::suggestFor(const DimExpr& lhs, Relation rel, const DimExpr& rhs) const {
  if (!hasAtoms(lhs) && !hasAtoms(rhs)) return "";
  // A provably false relation cannot be fixed by assuming it.
  Relation opposite = Relation::Equal;
  switch (rel) {
    case Relation::Equal: opposite = Relation::NotEqual; break;
    case Relation::NotEqual: opposite = Relation::Equal; break;
    case Relation::Less: opposite = Relation::GreaterEqual; break;
    case Relation::LessEqual: opposite = Relation::Greater; break;
    case Relation::Greater: opposite = Relation::LessEqual; break;
    case Relation::GreaterEqual: opposite = Relation::Less; break;
  }
  if (prove(lhs, opposite, rhs, false).proved) return "";
  // Divisions in the user's expressions: would exactness, a positive
  // divisor, or both make it provable?
  std::vector<Atom> atoms;
  lhs.collectAtoms(atoms);
  rhs.collectAtoms(atoms);
  const DimExpr zero = DimExpr::constant(0);
  auto helps = [&](const std::vector<Clause>& extra) {
    Facts more = *this;
    for (const Clause& c : extra) more.add(c.lhs, c.rel, c.rhs);
    return more.prove(lhs, rel, rhs, false).proved;
  };
  int tried = 0;
  for (const Atom& a : atoms) {
    if (a.kind() != AtomKind::FloorDiv && a.kind() != AtomKind::Mod) continue;
    if (++tried > 4) break;
    const DimExpr& n = a.operands()[0];
    const DimExpr& d = a.operands()[1];
    DimExpr remainder = DimExpr::mod(n, d);
    Clause exact{remainder, Relation::Equal, zero};
    Clause positive{d, Relation::Greater, zero};
    std::string exactText = remainder.str() + " == 0";
    std::string positiveText = d.str() + " > 0";
    bool canBeExact = !remainder.isConstant();
    bool canBePositive = !d.isConstant() && !prove(d, Relation::Greater, zero, false).proved;
    if (canBeExact && helps({exact})) return exactText;
    if (canBePositive && helps({positive})) return positiveText;
    if (canBeExact && canBePositive && helps({exact, positive}))
      return exactText + ", " + positiveText;
  }
  return relationText(lhs, rel, rhs);
}

Proof Facts::provablyHolds(const DimExpr& lhs, Relation rel, const DimExpr& rhs) const {
  return prove(lhs, rel, rhs, true);
}
Proof Facts::provablyEqual(const DimExpr& a, const DimExpr& b) const {
  return prove(a, Relation::Equal, b, true);
}
Proof Facts::provablyNotEqual(const DimExpr& a, const DimExpr& b) const {
  return prove(a, Relation::NotEqual, b, true);
}
Proof Facts::provablyPositive(const DimExpr& d) const {
  return prove(d, Relation::Greater, DimExpr::constant(0), true);
}
Proof Facts::provablyNonNegative(const DimExpr& d) const {
  return prove(d, Relation::GreaterEqual, DimExpr::constant(0), true);
}
Proof Facts::provablyNegative(const DimExpr& d) const {
  // Used to report E2208; there is nothing to suggest.
  return prove(d, Relation::Less, DimExpr::constant(0), false);
}
Proof Facts::provablyLess(const DimExpr& a, const DimExpr& b) const {
  return prove(a, Relation::Less, b, true);
}
Proof Facts::provablyLessEqual(const DimExpr& a, const DimExpr& b) const {
  return prove(a, Relation::LessEqual, b, true);
}

Proof Facts::equalElementCount(const Shape& a, const Shape& b) const {
  DimExpr ca = elementCount(a), cb = elementCount(b);
  Proof p = prove(ca, Relation::Equal, cb, true);
  if (!p.proved)
    p.reason = "cannot prove that " + str(a) + " and " + str(b) +
               " have the same number of elements (`" + ca.str() + "` vs `" + cb.str() + "`)";
  return p;
}

BroadcastResult Facts::broadcastCompatible(const Shape& a, const Shape& b) const {
  BroadcastResult out;
  Shape reversed;
  size_t i = a.size(), j = b.size();
  while (i > 0 && j > 0) {
    const auto* x = std::get_if<DimExpr>(&a[i - 1]);
    const auto* y = std::get_if<DimExpr>(&b[j - 1]);
    if (!x || !y) {
      // The same pack at the same place from the right aligns with itself
      // axis by axis, whatever its length (`[*S]` with `[2, *S]`).
      const auto* px = std::get_if<Pack>(&a[i - 1]);
      const auto* py = std::get_if<Pack>(&b[j - 1]);
      if (px && py && px->id == py->id) {
        reversed.push_back(a[i - 1]);
        --i;
        --j;
        continue;
      }
      // Otherwise a pack has unknown length: only identical remaining
      // prefixes align.
      bool same = i == j;
      for (size_t k = 0; same && k < i; ++k) {
        const auto* px = std::get_if<Pack>(&a[k]);
        const auto* py = std::get_if<Pack>(&b[k]);
        if (px || py)
          same = px && py && px->id == py->id;
        else
          same = prove(std::get<DimExpr>(a[k]), Relation::Equal, std::get<DimExpr>(b[k]), false).proved;
      }
      if (!same) {
        out.reason = "cannot align " + str(a) + " with " + str(b) +
                     " for broadcasting: a shape pack has an unknown number of axes";
        return out;
      }
      break;
    }
    // §4.6: a dim broadcasts when it is provably exactly 1, from the same
    // facts as any other proof (§4.4), not only when it is spelled `1`
    // (the lowering pins such an axis to 1: Lowerer::pinProvenOnes).
    auto one = [this](const DimExpr& e) {
      return e.constantValue() == int64_t{1} || prove(e, Relation::Equal, DimExpr::constant(1), false).proved;
    };
    if (one(*x)) {
      reversed.push_back(*y);
    } else if (one(*y) || prove(*x, Relation::Equal, *y, false).proved) {
      reversed.push_back(*x);
    } else {
      out.axisA = i - 1;
      out.axisB = j - 1;
      out.reason = "dimensions `" + x->str() + "` and `" + y->str() +
                   "` are not provably equal and neither is 1";
      out.suggestion = suggestFor(*x, Relation::Equal, *y);
      return out;
    }
    --i;
    --j;
  }
  const Shape& longer = i > 0 ? a : b;
  size_t rest = std::max(i, j);
  out.shape.assign(longer.begin(), longer.begin() + static_cast<std::ptrdiff_t>(rest));
  out.shape.insert(out.shape.end(), reversed.rbegin(), reversed.rend());
  out.compatible = true;
  return out;
}

DimExpr Facts::sliceExtent(const std::optional<DimExpr>& start, const std::optional<DimExpr>& stop,
                           const std::optional<DimExpr>& step, const DimExpr& extent) const {
  DimExpr from = start.value_or(DimExpr::constant(0));
  DimExpr to = stop.value_or(extent);
  DimExpr by = step.value_or(DimExpr::constant(1));
  DimExpr n = DimExpr::min(to, extent) - from;
  DimExpr length = simplify(DimExpr::max(DimExpr::constant(0), DimExpr::floorDiv(n + by - DimExpr::constant(1), by)));
  if (!length.overflowed()) return length;
  // `+ by - 1` overflows for a step near 2^63 (`x[0:10:2^63 - 1]` has one
  // element); (n - 1) / by + 1 is the same count for every n and step >= 1,
  // kept second since the first is the form written in types.
  return simplify(
      DimExpr::max(DimExpr::constant(0), DimExpr::floorDiv(n - DimExpr::constant(1), by) + DimExpr::constant(1)));
}

}  // namespace linnet::shape
