// Knowledge::proveNonNegative: proves `p >= 0` by refuting `p <= -1`.
//
// Each distinct non-constant monomial (`H`, `B * S`, `H / Heads`) becomes a
// variable of a linear system. Into the system go: the negated goal; the
// facts that share a variable with it (transitively); and axioms for each
// variable, all of them true for every integer assignment that satisfies
// the facts:
//   - interval bounds of the atom or product (symbols are >= 0);
//   - `q = n / d` with d >= 1: d * q <= n <= d * q + d - 1;
//   - `r = n % d` with d >= 1: 0 <= r <= d - 1 and r = n - d * (n / d);
//     with n, d >= 0 (d may be 0): 0 <= n / d <= n and 0 <= n % d <= n;
//   - `min(a, b) <= a, b`, `max(a, b) >= a, b`;
//   - products x * r: the four McCormick inequalities from the bounds of x
//     and r, e.g. (x - lx) * (r - lr) >= 0.
// Min/max atoms in the goal are split into cases (min(a, b) = a with a <= b,
// or = b with b <= a); the goal is proved when every case is infeasible.
// Infeasibility is decided by Fourier-Motzkin elimination over the
// rationals, with each derived row divided by the gcd of its coefficients
// and its constant rounded down (valid because all variables are integers).
// Rows whose arithmetic would overflow are dropped, and the work is capped;
// both only make the prover answer "not proved" more often.
#include <algorithm>
#include <deque>
#include <map>

#include "compiler/shape/Checked.h"
#include "compiler/shape/Knowledge.h"

namespace linnet::shape::detail {
namespace {

constexpr size_t kMaxVariablesWithAxioms = 40;
constexpr size_t kMaxRows = 3000;
constexpr size_t kMaxCases = 16;
constexpr size_t kMaxProductSplits = 3;

using Coefficients = std::vector<std::pair<uint32_t, int64_t>>;  // sorted by variable

// sum(coefficients * variables) + constant >= 0
struct Row {
  Coefficients coefficients;
  int64_t constant = 0;
};

struct MonomialLess {
  bool operator()(const Monomial& a, const Monomial& b) const { return compareMonomials(a, b) < 0; }
};

// Divides by the gcd of the coefficients, rounding the constant down.
void tighten(Row& row) {
  int64_t g = 0;
  for (const auto& [v, c] : row.coefficients)
    if (checked::gcd(g, c, g)) return;
  if (g <= 1) return;
  for (auto& [v, c] : row.coefficients) c /= g;
  int64_t q = 0;
  checked::floorDiv(row.constant, g, q);  // g > 1: cannot overflow
  row.constant = q;
}

// b * p + a * n where p has +a and n has -b at `variable`; nullopt on overflow.
std::optional<Row> combine(const Row& p, const Row& n, uint32_t variable) {
  auto coefficientOf = [&](const Row& r) {
    for (const auto& [v, c] : r.coefficients)
      if (v == variable) return c;
    return int64_t{0};
  };
  // n's coefficient may be i64's minimum, whose negation overflows.
  int64_t a = coefficientOf(p), b = 0, g = 0;
  if (checked::neg(coefficientOf(n), b) || b <= 0 || checked::gcd(a, b, g)) return std::nullopt;
  a /= g;
  b /= g;
  Row out;
  size_t i = 0, j = 0;
  const auto& x = p.coefficients;
  const auto& y = n.coefficients;
  while (i < x.size() || j < y.size()) {
    uint32_t v;
    int64_t cx = 0, cy = 0;
    if (j == y.size() || (i < x.size() && x[i].first < y[j].first)) {
      v = x[i].first;
      cx = x[i++].second;
    } else if (i == x.size() || y[j].first < x[i].first) {
      v = y[j].first;
      cy = y[j++].second;
    } else {
      v = x[i].first;
      cx = x[i++].second;
      cy = y[j++].second;
    }
    int64_t sx = 0, sy = 0, sum = 0;
    if (checked::mul(b, cx, sx) || checked::mul(a, cy, sy) || checked::add(sx, sy, sum))
      return std::nullopt;
    if (sum != 0) out.coefficients.emplace_back(v, sum);
  }
  int64_t sx = 0, sy = 0;
  if (checked::mul(b, p.constant, sx) || checked::mul(a, n.constant, sy) ||
      checked::add(sx, sy, out.constant))
    return std::nullopt;
  tighten(out);
  return out;
}

// Keeps the tightest row per coefficient vector. Returns true when some row
// is a contradiction (no variables, negative constant).
bool deduplicate(std::vector<Row>& rows) {
  std::map<Coefficients, int64_t> best;
  for (Row& r : rows) {
    if (r.coefficients.empty()) {
      if (r.constant < 0) return true;
      continue;
    }
    auto [it, inserted] = best.emplace(r.coefficients, r.constant);
    if (!inserted) it->second = std::min(it->second, r.constant);
  }
  rows.clear();
  for (auto& [c, k] : best) rows.push_back(Row{c, k});
  return false;
}

bool fourierMotzkinInfeasible(std::vector<Row> rows) {
  for (Row& r : rows) tighten(r);
  if (deduplicate(rows)) return true;
  while (!rows.empty()) {
    std::map<uint32_t, std::pair<size_t, size_t>> signs;  // variable -> (#positive, #negative)
    for (const Row& r : rows)
      for (const auto& [v, c] : r.coefficients) (c > 0 ? signs[v].first : signs[v].second)++;
    // Eliminate the variable that creates the fewest new rows.
    uint32_t pick = 0;
    std::optional<long long> bestCost;
    for (const auto& [v, s] : signs) {
      long long cost = static_cast<long long>(s.first) * static_cast<long long>(s.second) -
                       static_cast<long long>(s.first + s.second);
      if (!bestCost || cost < *bestCost) {
        bestCost = cost;
        pick = v;
      }
    }
    std::vector<Row> positive, negative, next;
    for (Row& r : rows) {
      int64_t c = 0;
      for (const auto& [v, k] : r.coefficients)
        if (v == pick) c = k;
      (c > 0 ? positive : c < 0 ? negative : next).push_back(std::move(r));
    }
    for (const Row& p : positive)
      for (const Row& n : negative) {
        if (auto row = combine(p, n, pick)) next.push_back(std::move(*row));
        if (next.size() > kMaxRows) return false;
      }
    if (deduplicate(next)) return true;
    rows = std::move(next);
  }
  return false;
}

class Refutation {
 public:
  Refutation(const Knowledge& k, int depth)
      : k_(k), depth_(depth), factUsed_(k.inequalities().size(), false) {}

  void require(const DimExpr& p) {  // p >= 0
    if (p.overflowed()) return;     // dropping a constraint is always sound
    Row row;
    row.constant = p.constantTerm();
    for (const Term& t : p.terms()) row.coefficients.emplace_back(variable(t.monomial), t.coefficient);
    std::sort(row.coefficients.begin(), row.coefficients.end());
    rows_.push_back(std::move(row));
  }
  void requireZero(const DimExpr& p) {
    require(p);
    require(-p);
  }

  bool infeasible() {
    while (!pending_.empty()) {
      uint32_t v = pending_.front();
      pending_.pop_front();
      // A copy: adding rows may add variables and move vars_.
      const Monomial m = vars_[v];
      addFacts(m);
      if (m.size() == 1 && m[0].power == 1)
        atomAxioms(m[0].atom);
      else
        productAxioms(m);
    }
    return fourierMotzkinInfeasible(rows_);
  }

 private:
  uint32_t variable(const Monomial& m) {
    auto [it, inserted] = index_.emplace(m, static_cast<uint32_t>(vars_.size()));
    if (inserted) {
      vars_.push_back(m);
      if (vars_.size() <= kMaxVariablesWithAxioms) pending_.push_back(it->second);
    }
    return it->second;
  }

  void addFacts(const Monomial& m) {
    const auto& facts = k_.inequalities();
    for (size_t i = 0; i < facts.size(); ++i) {
      if (factUsed_[i]) continue;
      for (const Term& t : facts[i].terms())
        if (t.monomial == m) {
          factUsed_[i] = true;
          require(facts[i]);
          break;
        }
    }
  }

  bool atLeastOne(const DimExpr& d) const {
    return k_.proveNonNegative(d - DimExpr::constant(1), depth_ + 1);
  }

  void requireBounds(const DimExpr& x, const Interval& b) {
    if (b.lo) require(x - DimExpr::constant(*b.lo));
    if (b.hi) require(DimExpr::constant(*b.hi) - x);
  }

  void atomAxioms(const Atom& a) {
    const DimExpr x = a.expr();
    const DimExpr one = DimExpr::constant(1);
    requireBounds(x, k_.atomBounds(a));
    const auto& ops = a.operands();
    switch (a.kind()) {
      case AtomKind::FloorDiv:
      case AtomKind::Mod: {
        const DimExpr& n = ops[0];
        const DimExpr& d = ops[1];
        bool isDiv = a.kind() == AtomKind::FloorDiv;
        auto k = d.constantValue();
        if ((k && *k > 0) || (!k && atLeastOne(d))) {
          if (isDiv) {
            require(n - d * x);
            require(d * x + d - one - n);
          } else {
            require(x);
            require(d - one - x);
            requireZero(x - n + d * DimExpr::floorDiv(n, d));
          }
        }
        if (k_.bounds(n).nonNegative() && k_.bounds(d).nonNegative()) {
          require(x);
          require(n - x);
        }
        break;
      }
      case AtomKind::Min:
        for (const DimExpr& op : ops) require(op - x);
        break;
      case AtomKind::Max:
        for (const DimExpr& op : ops) require(x - op);
        break;
      case AtomKind::Symbol:
      case AtomKind::PackRank:
      case AtomKind::PackElements:
      case AtomKind::Quotient:
        break;
    }
  }

  void productAxioms(const Monomial& m) {
    const DimExpr whole = monomialExpr(m);
    requireBounds(whole, k_.bounds(whole));
    for (size_t i = 0; i < m.size() && i < kMaxProductSplits; ++i) {
      Monomial rest = m;
      if (--rest[i].power == 0) rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
      const DimExpr x = m[i].atom.expr();
      const DimExpr r = monomialExpr(rest);
      Interval bx = k_.atomBounds(m[i].atom), br = k_.bounds(r);
      auto c = [](int64_t v) { return DimExpr::constant(v); };
      // (x - lx)(r - lr) >= 0, (ux - x)(ur - r) >= 0, (x - lx)(ur - r) >= 0, (ux - x)(r - lr) >= 0
      if (bx.lo && br.lo) require(whole - c(*br.lo) * x - c(*bx.lo) * r + c(*bx.lo) * c(*br.lo));
      if (bx.hi && br.hi) require(whole - c(*br.hi) * x - c(*bx.hi) * r + c(*bx.hi) * c(*br.hi));
      if (bx.lo && br.hi) require(c(*br.hi) * x + c(*bx.lo) * r - c(*bx.lo) * c(*br.hi) - whole);
      if (bx.hi && br.lo) require(c(*br.lo) * x + c(*bx.hi) * r - c(*bx.hi) * c(*br.lo) - whole);
    }
  }

  const Knowledge& k_;
  int depth_;
  std::vector<Monomial> vars_;
  std::map<Monomial, uint32_t, MonomialLess> index_;
  std::vector<Row> rows_;
  std::deque<uint32_t> pending_;
  std::vector<bool> factUsed_;
};

}  // namespace

bool Knowledge::proveNonNegative(const DimExpr& goal, int depth) const {
  {
    std::lock_guard<std::mutex> lock(memoMutex_);
    auto it = proofMemo_.find(goal);
    if (it != proofMemo_.end() && (it->second.proved || it->second.failedAtDepth <= depth))
      return it->second.proved;
  }
  bool proved = proveNonNegativeUncached(goal, depth);
  std::lock_guard<std::mutex> lock(memoMutex_);
  ProofMemo& memo = proofMemo_[goal];
  if (proved)
    memo.proved = true;
  else
    memo.failedAtDepth = std::min(memo.failedAtDepth, depth);
  return proved;
}

bool Knowledge::proveNonNegativeUncached(const DimExpr& goal, int depth) const {
  if (goal.overflowed()) return false;
  DimExpr g = simplify(goal, depth);
  if (g.overflowed()) return false;
  if (auto c = g.constantValue()) return *c >= 0;
  if (bounds(g).nonNegative()) return true;
  if (depth > kMaxDepth) return false;

  // Case splits on the min/max atoms of the goal, as many as fit the cap.
  std::vector<Atom> atoms, splits;
  g.collectAtoms(atoms);
  size_t cases = 1;
  for (const Atom& a : atoms) {
    if (a.kind() != AtomKind::Min && a.kind() != AtomKind::Max) continue;
    if (cases * a.operands().size() > kMaxCases) continue;
    cases *= a.operands().size();
    splits.push_back(a);
  }
  for (size_t c = 0; c < cases; ++c) {
    Refutation r(*this, depth);
    r.require(-g - DimExpr::constant(1));
    size_t code = c;
    for (const Atom& s : splits) {
      const auto& ops = s.operands();
      size_t choice = code % ops.size();
      code /= ops.size();
      r.requireZero(s.expr() - ops[choice]);
      for (size_t j = 0; j < ops.size(); ++j) {
        if (j == choice) continue;
        r.require(s.kind() == AtomKind::Min ? ops[j] - ops[choice] : ops[choice] - ops[j]);
      }
    }
    if (!r.infeasible()) return false;
  }
  return true;
}

}  // namespace linnet::shape::detail
