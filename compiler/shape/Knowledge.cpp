// Building Knowledge from `where` clauses, rewriting and simplifying under
// it, and interval bounds (see Knowledge.h for the overall scheme). The
// Fourier-Motzkin refutation lives in Fourier.cpp.
//
// Interval arithmetic widens instead of overflowing: an end that does not
// fit in 64 bits becomes unbounded (or the extreme value on the safe side),
// which only loses precision.
#include "compiler/shape/Knowledge.h"

#include <algorithm>
#include <deque>
#include <limits>

#include "compiler/shape/Checked.h"

namespace linnet::shape::detail {
namespace {

using i128 = __int128;
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::optional<int64_t> clampLo(i128 v) {
  if (v < kMin) return std::nullopt;
  return v > kMax ? kMax : static_cast<int64_t>(v);
}

std::optional<int64_t> clampHi(i128 v) {
  if (v > kMax) return std::nullopt;
  return v < kMin ? kMin : static_cast<int64_t>(v);
}

// An end of an interval: -1 is minus infinity, +1 plus infinity.
struct End {
  int infinite = 0;
  i128 value = 0;
  int sign() const { return infinite ? infinite : (value > 0) - (value < 0); }
  bool operator<(const End& o) const {
    if (infinite != o.infinite) return infinite < o.infinite;
    return infinite == 0 && value < o.value;
  }
};

End times(const End& a, const End& b) {
  if (!a.infinite && !b.infinite) return {0, a.value * b.value};  // fits: both within 64 bits
  int s = a.sign() * b.sign();
  return s == 0 ? End{0, 0} : End{s, 0};
}

Interval add(const Interval& a, const Interval& b) {
  Interval out;
  if (a.lo && b.lo) out.lo = clampLo(i128{*a.lo} + *b.lo);
  if (a.hi && b.hi) out.hi = clampHi(i128{*a.hi} + *b.hi);
  return out;
}

Interval multiply(const Interval& a, const Interval& b) {
  End ends[2][2] = {{a.lo ? End{0, *a.lo} : End{-1, 0}, a.hi ? End{0, *a.hi} : End{1, 0}},
                    {b.lo ? End{0, *b.lo} : End{-1, 0}, b.hi ? End{0, *b.hi} : End{1, 0}}};
  End lo{1, 0}, hi{-1, 0};
  for (const End& x : ends[0])
    for (const End& y : ends[1]) {
      End p = times(x, y);
      if (p < lo) lo = p;
      if (hi < p) hi = p;
    }
  Interval out;
  if (lo.infinite == 0) out.lo = clampLo(lo.value);
  if (hi.infinite == 0) out.hi = clampHi(hi.value);
  return out;
}

Interval point(int64_t v) { return Interval{v, v}; }

std::optional<int64_t> floorDivOpt(std::optional<int64_t> v, int64_t k) {
  int64_t q = 0;
  if (!v || checked::floorDiv(*v, k, q)) return std::nullopt;
  return q;
}

}  // namespace

Interval intersect(const Interval& a, const Interval& b) {
  Interval out = a;
  if (b.lo && (!out.lo || *b.lo > *out.lo)) out.lo = b.lo;
  if (b.hi && (!out.hi || *b.hi < *out.hi)) out.hi = b.hi;
  return out;
}

DimExpr rebuild(const Atom& a, std::vector<DimExpr> ops) {
  switch (a.kind()) {
    case AtomKind::FloorDiv:
      return DimExpr::floorDiv(ops[0], ops[1]);
    case AtomKind::Mod:
      return DimExpr::mod(ops[0], ops[1]);
    case AtomKind::Min:
      return DimExpr::minOf(std::move(ops));
    case AtomKind::Max:
      return DimExpr::maxOf(std::move(ops));
    case AtomKind::Symbol:
    case AtomKind::PackRank:
    case AtomKind::PackElements:
    case AtomKind::Quotient:
      break;
  }
  return a.expr();
}

namespace {

// Rebuilds `e` with every atom mapped through `f`.
template <typename F>
DimExpr mapAtoms(const DimExpr& e, F&& f) {
  if (e.overflowed()) return e;
  DimExpr out = DimExpr::constant(e.constantTerm());
  for (const Term& t : e.terms()) {
    DimExpr product = DimExpr::constant(t.coefficient);
    for (const Factor& factor : t.monomial) {
      DimExpr v = f(factor.atom);
      for (uint32_t i = 0; i < factor.power; ++i) product = product * v;
    }
    out = out + product;
  }
  return out;
}

bool isPlainComposite(const Atom& a) { return a.isComposite() && a.kind() != AtomKind::Quotient; }

// Whether x / c is exact and fits (INT64_MIN / -1 does not).
bool exactlyDivisible(int64_t x, int64_t c) {
  if (c == 0) return false;
  if (c == -1) return x != kMin;
  return x % c == 0;
}

// Splits n == (c * m) * q + r, where q collects the terms of n divisible by
// the term c * m (m may be empty: a constant divisor).
void splitByTerm(const DimExpr& n, int64_t c, const Monomial& m, DimExpr& q, DimExpr& r) {
  std::vector<Term> qt, rt;
  for (const Term& t : n.terms()) {
    Monomial rest;
    bool divisible = exactlyDivisible(t.coefficient, c);
    size_t j = 0;
    for (const Factor& f : t.monomial) {
      if (j < m.size() && m[j].atom == f.atom) {
        if (f.power < m[j].power) divisible = false;
        if (f.power > m[j].power) rest.push_back(Factor{f.atom, f.power - m[j].power});
        ++j;
      } else {
        rest.push_back(f);
      }
    }
    if (j != m.size()) divisible = false;
    if (divisible)
      qt.push_back(Term{t.coefficient / c, rest});
    else
      rt.push_back(t);
  }
  int64_t k = n.constantTerm();
  bool constantDivisible = m.empty() && exactlyDivisible(k, c);
  q = DimExpr::fromTerms(std::move(qt), constantDivisible ? k / c : 0);
  r = DimExpr::fromTerms(std::move(rt), constantDivisible ? 0 : k);
}

}  // namespace

DimExpr replaceAtom(const DimExpr& e, const Atom& from, const DimExpr& to) {
  return mapAtoms(e, [&](const Atom& a) -> DimExpr {
    if (a == from) return to;
    if (!isPlainComposite(a)) return a.expr();
    std::vector<DimExpr> ops;
    for (const DimExpr& op : a.operands()) ops.push_back(replaceAtom(op, from, to));
    return rebuild(a, std::move(ops));
  });
}

// ---- Rewriting -------------------------------------------------------------

DimExpr Knowledge::rewriteAtom(const Atom& a) const {
  DimExpr current = a.expr();
  if (isPlainComposite(a)) {
    std::vector<DimExpr> ops;
    for (const DimExpr& op : a.operands()) ops.push_back(rewrite(op));
    current = rebuild(a, std::move(ops));
  }
  if (auto atom = current.asAtom()) {
    auto it = rules_.find(*atom);
    if (it != rules_.end()) return it->second;
  }
  return current;
}

DimExpr Knowledge::rewriteOnce(const DimExpr& e) const {
  return mapAtoms(e, [&](const Atom& a) { return rewriteAtom(a); });
}

DimExpr Knowledge::rewrite(const DimExpr& e) const {
  if (rules_.empty()) return e;
  DimExpr current = e;
  for (int i = 0; i < 8; ++i) {
    DimExpr next = rewriteOnce(current);
    if (next == current) break;
    current = next;
  }
  return current;
}

DimExpr Knowledge::simplifyAtom(const Atom& a, int depth) const {
  std::vector<DimExpr> ops;
  for (const DimExpr& op : a.operands()) ops.push_back(simplify(op, depth));
  DimExpr r = rewrite(rebuild(a, std::move(ops)));
  auto atom = r.asAtom();
  if (!atom || !isPlainComposite(*atom)) return r;
  const auto& o = atom->operands();
  switch (atom->kind()) {
    case AtomKind::FloorDiv:
    case AtomKind::Mod: {
      const DimExpr& n = o[0];
      const DimExpr& d = o[1];
      // The divisor as one term c * m.
      int64_t c = d.constantTerm();
      Monomial m;
      if (d.terms().size() == 1 && c == 0) {
        c = d.terms()[0].coefficient;
        m = d.terms()[0].monomial;
      } else if (!d.terms().empty() || c == 0) {
        return r;
      }
      DimExpr q, rem;
      splitByTerm(n, c, m, q, rem);
      bool isDiv = atom->kind() == AtomKind::FloorDiv;
      // (d * q) % d == 0 for every d, 0 included.
      if (!isDiv && rem.isZero()) return DimExpr::constant(0);
      if (!proveNonNegative(d - DimExpr::constant(1), depth + 1)) return r;
      if (rem.isZero()) return isDiv ? q : rem;
      if (proveNonNegative(rem, depth + 1) &&
          proveNonNegative(d - DimExpr::constant(1) - rem, depth + 1))
        return isDiv ? q : rem;
      return r;
    }
    case AtomKind::Min:
    case AtomKind::Max: {
      bool isMin = atom->kind() == AtomKind::Min;
      // a <= b for min (a dominates b); b <= a for max.
      auto beats = [&](const DimExpr& x, const DimExpr& y) {
        return proveNonNegative(isMin ? y - x : x - y, depth + 1);
      };
      std::vector<DimExpr> kept;
      for (const DimExpr& op : o) {
        if (std::any_of(kept.begin(), kept.end(), [&](const DimExpr& k) { return beats(k, op); }))
          continue;
        std::erase_if(kept, [&](const DimExpr& k) { return beats(op, k); });
        kept.push_back(op);
      }
      if (kept.size() == o.size()) return r;
      return rewrite(isMin ? DimExpr::minOf(std::move(kept)) : DimExpr::maxOf(std::move(kept)));
    }
    case AtomKind::Symbol:
    case AtomKind::PackRank:
    case AtomKind::PackElements:
    case AtomKind::Quotient:
      break;
  }
  return r;
}

DimExpr Knowledge::simplify(const DimExpr& e, int depth) const {
  if (depth > kMaxDepth) return rewrite(e);
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    auto it = simplifyMemo_.find(e);
    if (it != simplifyMemo_.end() && it->second[depth]) return *it->second[depth];
  }
  DimExpr result = simplifyUncached(e, depth);
  std::lock_guard<std::mutex> lock(memoMutex_);
  simplifyMemo_[e][depth] = result;
  return result;
}

DimExpr Knowledge::simplifyUncached(const DimExpr& e, int depth) const {
  DimExpr current = rewrite(e);
  for (int pass = 0; pass < 3; ++pass) {
    DimExpr next = rewrite(mapAtoms(current, [&](const Atom& a) {
      return isPlainComposite(a) ? simplifyAtom(a, depth) : a.expr();
    }));
    if (next == current) break;
    current = next;
  }
  return current;
}

DimExpr Knowledge::restoreNames(const DimExpr& e) const {
  DimExpr current = e;
  for (auto it = quotients_.rbegin(); it != quotients_.rend(); ++it) {
    const QuotientDef& def = *it;
    // d * Q -> n, where d is one term c * m.
    const DimExpr& d = def.d;
    int64_t c = d.constantTerm();
    Monomial m;
    if (d.terms().size() == 1 && c == 0) {
      c = d.terms()[0].coefficient;
      m = d.terms()[0].monomial;
    }
    bool oneTerm = d.terms().empty() ? c != 0 : d.terms().size() == 1 && d.constantTerm() == 0;
    Monomial dq = m;
    dq.push_back(Factor{def.quotient, 1});
    for (int round = 0; oneTerm && round < 8 && !current.overflowed(); ++round) {
      DimExpr q, r;
      splitByTerm(current, c, DimExpr::fromTerms({Term{1, dq}}, 0).terms()[0].monomial, q, r);
      if (q.isZero()) break;
      current = q * def.n + r;
    }
    current = replaceAtom(current, def.quotient, DimExpr::floorDiv(def.n, def.d));
  }
  return current;
}

// ---- Bounds ----------------------------------------------------------------

Interval Knowledge::structuralBounds(const Atom& a) const {
  const Interval nonNegative{0, std::nullopt};
  switch (a.kind()) {
    case AtomKind::Symbol:
    case AtomKind::PackRank:
    case AtomKind::PackElements:
      return nonNegative;
    case AtomKind::Quotient:
      return a.knownNonNegative() ? nonNegative : Interval{};
    case AtomKind::FloorDiv:
    case AtomKind::Mod: {
      Interval n = bounds(a.operands()[0]);
      Interval d = bounds(a.operands()[1]);
      auto k = a.operands()[1].constantValue();
      bool isDiv = a.kind() == AtomKind::FloorDiv;
      if (k && *k > 0) {
        if (isDiv) return Interval{floorDivOpt(n.lo, *k), floorDivOpt(n.hi, *k)};
        if (n.nonNegative() && n.hi && *n.hi < *k) return n;
        return Interval{0, *k - 1};
      }
      if (!n.nonNegative() || !d.nonNegative()) return Interval{};
      // With 0 <= n and 0 <= d: 0 <= n / d <= n and 0 <= n % d <= n.
      Interval out{0, n.hi};
      if (!isDiv && d.lo && *d.lo >= 1 && d.hi) out = intersect(out, Interval{0, *d.hi - 1});
      if (isDiv && d.lo && *d.lo >= 1 && n.hi) out.hi = *n.hi / *d.lo;
      return out;
    }
    case AtomKind::Min:
    case AtomKind::Max: {
      bool isMin = a.kind() == AtomKind::Min;
      Interval out = bounds(a.operands()[0]);
      for (size_t i = 1; i < a.operands().size(); ++i) {
        Interval b = bounds(a.operands()[i]);
        // For min: lo is the least lo (unbounded if any is), hi the least hi.
        auto pick = [](std::optional<int64_t> x, std::optional<int64_t> y, bool least,
                       bool unboundedWins) -> std::optional<int64_t> {
          if (!x || !y) return unboundedWins ? std::nullopt : (x ? x : y);
          return least ? std::min(*x, *y) : std::max(*x, *y);
        };
        out.lo = pick(out.lo, b.lo, isMin, isMin);
        out.hi = pick(out.hi, b.hi, isMin, !isMin);
      }
      return out;
    }
  }
  return Interval{};
}

Interval Knowledge::atomBounds(const Atom& a) const {
  Interval s = structuralBounds(a);
  auto it = propagated_.find(a);
  return it == propagated_.end() ? s : intersect(s, it->second);
}

Interval Knowledge::bounds(const DimExpr& e) const {
  if (e.overflowed()) return Interval{};
  Interval total = point(e.constantTerm());
  for (const Term& t : e.terms()) {
    Interval m = point(1);
    for (const Factor& f : t.monomial) {
      Interval b = atomBounds(f.atom);
      for (uint32_t i = 0; i < f.power; ++i) m = multiply(m, b);
    }
    total = add(total, multiply(m, point(t.coefficient)));
  }
  return total;
}

bool Knowledge::proveNonZero(const DimExpr& e, int depth) const {
  DimExpr p = simplify(e, depth);
  if (p.overflowed()) return false;
  if (auto c = p.constantValue()) return *c != 0;
  // g * x + c is never 0 when g does not divide c.
  int64_t g = 0;
  for (const Term& t : p.terms())
    if (checked::gcd(g, t.coefficient, g)) g = 1;
  if (g > 1 && p.constantTerm() % g != 0) return true;
  DimExpr flat = rewrite(e);
  for (const DimExpr& nz : nonZero_)
    for (const DimExpr& candidate : {p, flat})
      if (candidate == nz || candidate == -nz) return true;
  return proveNonNegative(p - DimExpr::constant(1), depth) ||
         proveNonNegative(-p - DimExpr::constant(1), depth);
}

// ---- Building ----------------------------------------------------------------

class Knowledge::Builder {
 public:
  explicit Builder(Knowledge& k) : k_(k) {}

  void run(const std::vector<Clause>& clauses, std::vector<FactUse>& uses);

 private:
  struct Pending {
    DimExpr p;  // p == 0
    std::optional<Atom> preferred;
    size_t clause = 0;
    bool derived = false;
  };

  FactUse equality(const Pending& e);
  std::optional<std::pair<Atom, int64_t>> chooseSolvedAtom(const DimExpr& p,
                                                           const std::optional<Atom>& preferred);
  void addRule(const Atom& key, const DimExpr& value);
  void propagate();

  Knowledge& k_;
  std::deque<Pending> queue_;
};

void Knowledge::Builder::run(const std::vector<Clause>& clauses, std::vector<FactUse>& uses) {
  uses.assign(clauses.size(), FactUse::Unusable);
  struct Other {
    DimExpr p;
    bool nonZero;  // p != 0, else p >= 0
    size_t clause;
  };
  std::vector<Other> others;
  const DimExpr one = DimExpr::constant(1);
  for (size_t i = 0; i < clauses.size(); ++i) {
    const Clause& c = clauses[i];
    auto lone = [](const DimExpr& e) -> std::optional<Atom> {
      auto a = e.asAtom();
      if (a && a->kind() == AtomKind::Symbol) return a;
      return std::nullopt;
    };
    DimExpr p;
    switch (c.rel) {
      case Relation::Equal:
        p = c.lhs - c.rhs;
        if (!p.overflowed())
          queue_.push_back(Pending{p, lone(c.lhs) ? lone(c.lhs) : lone(c.rhs), i, false});
        continue;
      case Relation::NotEqual: p = c.lhs - c.rhs; break;
      case Relation::GreaterEqual: p = c.lhs - c.rhs; break;
      case Relation::Greater: p = c.lhs - c.rhs - one; break;
      case Relation::LessEqual: p = c.rhs - c.lhs; break;
      case Relation::Less: p = c.rhs - c.lhs - one; break;
    }
    if (!p.overflowed()) others.push_back(Other{p, c.rel == Relation::NotEqual, i});
  }
  // Equalities first, so the inequalities are stated over what remains.
  size_t budget = 8 * clauses.size() + 32;
  while (!queue_.empty() && budget-- > 0) {
    Pending e = queue_.front();
    queue_.pop_front();
    FactUse use = equality(e);
    if (!e.derived) uses[e.clause] = use;
  }
  std::vector<DimExpr> nonNegative;
  for (const DimExpr& p : k_.nonNegative_) nonNegative.push_back(k_.rewrite(p));
  k_.nonNegative_.clear();
  for (const DimExpr& p : nonNegative) {
    if (auto c = p.constantValue()) {
      if (*c < 0) k_.inconsistent_ = true;
    } else if (!p.overflowed()) {
      k_.nonNegative_.push_back(p);
    }
  }
  for (const Other& o : others) {
    DimExpr p = k_.rewrite(o.p);
    FactUse& use = uses[o.clause];
    if (p.overflowed()) {
      use = FactUse::Unusable;
    } else if (auto c = p.constantValue()) {
      bool holds = o.nonZero ? *c != 0 : *c >= 0;
      use = holds ? FactUse::Redundant : FactUse::Contradiction;
      if (!holds) k_.inconsistent_ = true;
    } else {
      (o.nonZero ? k_.nonZero_ : k_.nonNegative_).push_back(p);
      use = o.nonZero ? FactUse::Disequality : FactUse::Bound;
    }
  }
  propagate();
  // p != 0 and p >= 0 give p >= 1 (and likewise for p <= 0).
  std::vector<DimExpr> tightened;
  for (const DimExpr& p : k_.nonZero_) {
    if (k_.proveNonNegative(p, 1))
      tightened.push_back(p - one);
    else if (k_.proveNonNegative(-p, 1))
      tightened.push_back(-p - one);
  }
  if (!tightened.empty()) {
    k_.nonNegative_.insert(k_.nonNegative_.end(), tightened.begin(), tightened.end());
    propagate();
  }
  std::sort(k_.nonNegative_.begin(), k_.nonNegative_.end());
  k_.nonNegative_.erase(std::unique(k_.nonNegative_.begin(), k_.nonNegative_.end()),
                        k_.nonNegative_.end());
  // Answers memoized while the knowledge was incomplete may be weaker than
  // what the final knowledge proves.
  k_.proofMemo_.clear();
  k_.simplifyMemo_.clear();
}

FactUse Knowledge::Builder::equality(const Pending& e) {
  DimExpr p = k_.rewrite(e.p);
  if (p.overflowed()) return FactUse::Unusable;
  if (p.isZero()) return FactUse::Redundant;
  if (p.isConstant()) {
    k_.inconsistent_ = true;
    return FactUse::Contradiction;
  }
  // c * (N % D) == 0: D divides N.
  if (p.constantTerm() == 0 && p.terms().size() == 1 && p.terms()[0].monomial.size() == 1 &&
      p.terms()[0].monomial[0].power == 1 &&
      p.terms()[0].monomial[0].atom.kind() == AtomKind::Mod) {
    Atom modAtom = p.terms()[0].monomial[0].atom;
    DimExpr n = modAtom.operands()[0];
    DimExpr d = modAtom.operands()[1];
    bool nonNegative = k_.bounds(n).nonNegative() && k_.bounds(d).nonNegative();
    DimExpr q = DimExpr::quotient(k_.quotients_.size(), n, d, nonNegative);
    k_.quotients_.push_back(QuotientDef{*q.asAtom(), n, d});
    addRule(modAtom, DimExpr::constant(0));
    DimExpr division = k_.rewrite(DimExpr::floorDiv(n, d));
    if (auto a = division.asAtom(); a && isPlainComposite(*a) && !k_.rules_.count(*a))
      addRule(*a, q);
    else
      queue_.push_front(Pending{division - q, std::nullopt, e.clause, true});
    queue_.push_front(Pending{n - d * q, std::nullopt, e.clause, true});
    return FactUse::Divisibility;
  }
  if (auto solved = chooseSolvedAtom(p, e.preferred)) {
    const auto& [atom, coefficient] = *solved;
    // p == c * atom + rest with c == +-1, so atom == -c * rest.
    DimExpr value = coefficient == 1 ? atom.expr() - p : p + atom.expr();
    if (atom.knownNonNegative()) k_.nonNegative_.push_back(value);
    addRule(atom, value);
    return FactUse::Substitution;
  }
  k_.nonNegative_.push_back(p);
  k_.nonNegative_.push_back(-p);
  return FactUse::Bound;
}

std::optional<std::pair<Atom, int64_t>> Knowledge::Builder::chooseSolvedAtom(
    const DimExpr& p, const std::optional<Atom>& preferred) {
  auto rank = [](const Atom& a) {
    switch (a.kind()) {
      case AtomKind::Symbol: return 0;
      case AtomKind::PackRank:
      case AtomKind::PackElements: return 1;
      default: return 2;
    }
  };
  std::optional<std::pair<Atom, int64_t>> best;
  const auto& terms = p.terms();
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& t = terms[i];
    if ((t.coefficient != 1 && t.coefficient != -1) || t.monomial.size() != 1 ||
        t.monomial[0].power != 1)
      continue;
    const Atom& a = t.monomial[0].atom;
    bool elsewhere = false;
    for (size_t j = 0; j < terms.size() && !elsewhere; ++j)
      if (j != i) elsewhere = DimExpr::fromTerms({terms[j]}, 0).mentions(a);
    if (elsewhere) continue;
    if (!best) {
      best = {a, t.coefficient};
      continue;
    }
    const Atom& b = best->first;
    bool better = rank(a) < rank(b) ||
                  (rank(a) == rank(b) && !(preferred && b == *preferred) &&
                   ((preferred && a == *preferred) || b < a));
    if (better) best = {a, t.coefficient};
  }
  return best;
}

void Knowledge::Builder::addRule(const Atom& key, const DimExpr& value) {
  k_.rules_[key] = value;
  // Keep every rule fully rewritten by the others.
  for (int round = 0; round < 4; ++round) {
    std::vector<std::pair<Atom, DimExpr>> entries(k_.rules_.begin(), k_.rules_.end());
    std::sort(entries.begin(), entries.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    std::unordered_map<Atom, DimExpr, AtomHash> next;
    bool changed = false;
    for (const auto& [k, v] : entries) {
      DimExpr keyExpr = k.expr();
      if (isPlainComposite(k)) {
        std::vector<DimExpr> ops;
        for (const DimExpr& op : k.operands()) ops.push_back(k_.rewrite(op));
        keyExpr = rebuild(k, std::move(ops));
      }
      DimExpr v2 = k_.rewrite(v);
      if (keyExpr != k.expr() || v2 != v) changed = true;
      auto ka = keyExpr.asAtom();
      if (ka && !v2.mentions(*ka)) {
        auto [it, inserted] = next.emplace(*ka, v2);
        if (!inserted && it->second != v2)
          queue_.push_back(Pending{v2 - it->second, std::nullopt, 0, true});
      } else {
        queue_.push_back(Pending{keyExpr - v2, std::nullopt, 0, true});
      }
    }
    k_.rules_ = std::move(next);
    if (!changed) break;
  }
}

void Knowledge::Builder::propagate() {
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (const DimExpr& p : k_.nonNegative_) {
      const auto& terms = p.terms();
      std::vector<Interval> termBounds;
      for (const Term& t : terms) termBounds.push_back(k_.bounds(DimExpr::fromTerms({t}, 0)));
      for (size_t j = 0; j < terms.size(); ++j) {
        const Term& t = terms[j];
        if (t.monomial.size() != 1 || t.monomial[0].power != 1) continue;
        // c * a >= -(rest) >= -hi(rest).
        i128 restHi = p.constantTerm();
        bool bounded = true;
        for (size_t i = 0; i < terms.size() && bounded; ++i) {
          if (i == j) continue;
          if (!termBounds[i].hi) bounded = false;
          else restHi += *termBounds[i].hi;
        }
        if (!bounded) continue;
        const Atom& a = t.monomial[0].atom;
        Interval derived;
        i128 c = t.coefficient;
        if (c > 0) {
          i128 x = -restHi;
          i128 q = x / c;
          if (x % c != 0 && x > 0) ++q;
          derived.lo = clampLo(q);
        } else {
          i128 d = -c;
          i128 q = restHi / d;
          if (restHi % d != 0 && restHi < 0) --q;
          derived.hi = clampHi(q);
        }
        Interval before = k_.atomBounds(a);
        Interval after = intersect(before, derived);
        if (after.lo != before.lo || after.hi != before.hi) {
          auto it = k_.propagated_.find(a);
          k_.propagated_[a] = it == k_.propagated_.end() ? derived : intersect(it->second, derived);
          changed = true;
        }
        if (after.lo && after.hi && *after.lo > *after.hi) k_.inconsistent_ = true;
      }
    }
    if (!changed) break;
  }
}

std::shared_ptr<const Knowledge> Knowledge::build(const std::vector<Clause>& clauses,
                                                  std::vector<FactUse>& uses) {
  auto k = std::make_shared<Knowledge>();
  Builder(*k).run(clauses, uses);
  return k;
}

}  // namespace linnet::shape::detail
