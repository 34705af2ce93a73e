// Knowledge: the solver's internal form of a list of `where` facts, and the
// proof procedures over it. Not part of the public API (Facts.h is).
//
// Facts become three things:
//   - rewrite rules atom -> expression, applied bottom-up until nothing
//     changes: a solved equality (`A == B * 2` gives A -> 2 * B), and for a
//     divisibility fact `N % D == 0` a fresh exact-quotient atom Q with
//     `N % D -> 0`, `N / D -> Q` and the equality `N == D * Q` (which
//     usually solves for a symbol of N: H -> Heads * Q);
//   - linear inequalities `p >= 0` over monomials (an equality that solves
//     for nothing is kept as two);
//   - disequalities `p != 0`.
// Rule keys and values are kept fully rewritten (a key whose operands change
// is re-normalized; a key that stops being an atom turns back into an
// equality), so one bottom-up pass usually reaches the normal form.
//
// proveNonNegative(p) decides `p >= 0` soundly but incompletely: constant
// folding, interval bounds per atom (propagated from the inequalities), then
// refutation of `p <= -1` by Fourier-Motzkin elimination over the monomials
// as variables, with axioms for the atoms involved (floor division and
// remainder bounds, min/max operand bounds, McCormick bounds for products)
// and case splits on min/max. Every step is a valid implication over the
// integers, and elimination over the rationals only loses completeness.
// All work is bounded (depth, variables, rows); hitting a bound means "not
// proved".
#pragma once

#include <array>
#include <climits>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/shape/DimExpr.h"
#include "compiler/shape/Facts.h"

namespace linnet::shape::detail {

// Integer interval; an unset end is unbounded.
struct Interval {
  std::optional<int64_t> lo, hi;
  bool nonNegative() const { return lo && *lo >= 0; }
};

Interval intersect(const Interval& a, const Interval& b);

// Bounds on recursion through simplification and axioms.
inline constexpr int kMaxDepth = 3;

struct Clause {
  DimExpr lhs;
  Relation rel;
  DimExpr rhs;
};

class Knowledge {
 public:
  // Derives the knowledge from `clauses` in order; `uses` receives how each
  // clause was used (one entry per clause).
  static std::shared_ptr<const Knowledge> build(const std::vector<Clause>& clauses,
                                                std::vector<FactUse>& uses);

  bool inconsistent() const { return inconsistent_; }

  // Applies the rewrite rules to a fixpoint.
  DimExpr rewrite(const DimExpr& e) const;
  // rewrite() plus the rules with provable side conditions: exact and
  // bounded division, remainder, and dominated min/max operands.
  DimExpr simplify(const DimExpr& e, int depth) const;
  // Replaces exact-quotient atoms by the user's spelling (`Heads * Q` back
  // to `H`, a lone Q to `H / Heads`).
  DimExpr restoreNames(const DimExpr& e) const;

  Interval bounds(const DimExpr& e) const;
  Interval atomBounds(const Atom& a) const;

  bool proveNonNegative(const DimExpr& e, int depth) const;  // Fourier.cpp
  // `e != 0` by constants, parity, recorded disequalities, or sign.
  bool proveNonZero(const DimExpr& e, int depth) const;

  const std::vector<DimExpr>& inequalities() const { return nonNegative_; }

 private:
  class Builder;
  friend class Builder;

  bool proveNonNegativeUncached(const DimExpr& e, int depth) const;  // Fourier.cpp
  DimExpr simplifyUncached(const DimExpr& e, int depth) const;
  DimExpr rewriteOnce(const DimExpr& e) const;
  DimExpr rewriteAtom(const Atom& a) const;
  DimExpr simplifyAtom(const Atom& a, int depth) const;
  Interval structuralBounds(const Atom& a) const;

  bool inconsistent_ = false;
  std::unordered_map<Atom, DimExpr, AtomHash> rules_;
  std::vector<DimExpr> nonNegative_;  // each p >= 0
  std::vector<DimExpr> nonZero_;      // each p != 0
  std::unordered_map<Atom, Interval, AtomHash> propagated_;
  struct QuotientDef {
    Atom quotient;
    DimExpr n, d;
  };
  std::vector<QuotientDef> quotients_;

  // Memo tables: the same sub-questions recur at every level of the
  // recursion. A proof found with any budget stays a proof; a failure is
  // reused for the same or a smaller budget (a larger depth). Guarded by a
  // mutex because copies of one Facts share this object.
  struct ProofMemo {
    bool proved = false;
    int failedAtDepth = INT_MAX;
  };
  mutable std::mutex memoMutex_;
  mutable std::unordered_map<DimExpr, ProofMemo, DimExprHash> proofMemo_;
  mutable std::unordered_map<DimExpr, std::array<std::optional<DimExpr>, kMaxDepth + 1>,
                             DimExprHash>
      simplifyMemo_;
};

// Rebuilds a composite atom of `kind` from new operands through the
// canonicalizing constructors.
DimExpr rebuild(const Atom& a, std::vector<DimExpr> operands);
// Replaces every occurrence of atom `from` (also inside composite atoms).
DimExpr replaceAtom(const DimExpr& e, const Atom& from, const DimExpr& to);

}  // namespace linnet::shape::detail
