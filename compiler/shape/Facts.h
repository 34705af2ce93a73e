// Facts: what the `where` clauses of one declaration say about its symbolic
// dimensions, and the queries the type checker asks about dimensions under
// those facts. A query answers with a Proof: proved, or not proved with a
// reason and, where one exists, a suggestion — the `where` clause (in the
// user's names, without the keyword) that would make it provable.
//
// Soundness contract: a query is proved only if it holds for every
// assignment of integers to the atoms in which symbols and pack measures are
// non-negative and every added fact holds (with `x / 0 == 0`, `x % 0 == x`,
// see DimExpr.h). "Not proved" is always allowed. Facts the solver cannot use
// are ignored, which only makes it prove less. Divisor positivity is not
// implied by anything else: the checker asks provablyPositive for each
// divisor it converts (E2205), including divisors in `where` clauses.
//
// Facts is a value: copying it is cheap (derived knowledge is shared and
// immutable apart from guarded memo tables) and adding to a copy leaves the
// original alone. Queries may run concurrently on one Facts and its copies;
// add() must not run concurrently with anything else on the same object.
// Queries are bounded in work (see Knowledge.h) and take well under a
// millisecond on typical model shapes.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/shape/DimExpr.h"

namespace linnet::shape {

namespace detail {
class Knowledge;
}

enum class Relation : uint8_t { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual };
std::string_view spelling(Relation r);  // "==", "!=", "<", ...
bool holds(Relation r, int64_t lhs, int64_t rhs);  // `lhs r rhs` on two values

// How add() recorded a fact.
enum class FactUse : uint8_t {
  Substitution,   // solved for one symbol or atom (`A == B * 2`: A := 2 * B)
  Divisibility,   // `N % D == 0`: N / D is exact
  Bound,          // an inequality (or an equality kept as two)
  Disequality,    // `A != B`
  Redundant,      // always true (`A + 1 > A`)
  Contradiction,  // always false (`1 == 2`); ignored, see inconsistent()
  Unusable,       // overflowed while normalizing; ignored
};

struct Proof {
  bool proved = false;
  std::string reason;      // why not, when not proved
  std::string suggestion;  // a `where` clause that would help; may be empty
  explicit operator bool() const { return proved; }
};

struct BroadcastResult {
  bool compatible = false;
  Shape shape;  // the broadcast result shape, when compatible
  // When not compatible: the failing pair's positions in `a` and `b`
  // (unset when a pack made the alignment unknown).
  std::optional<size_t> axisA, axisB;
  std::string reason;
  std::string suggestion;
};

class Facts {
 public:
  Facts();

  // Records `lhs rel rhs`. Later facts may refine earlier ones; every call
  // re-derives the knowledge from all clauses so far (they are few).
  FactUse add(const DimExpr& lhs, Relation rel, const DimExpr& rhs);
  size_t size() const { return clauses_.size(); }
  // Whether some fact was found to contradict the others (it was ignored).
  bool inconsistent() const;

  // The canonical form of `e` with the facts applied: substitutions, exact
  // divisions, and min/max/div/mod rules whose side conditions are provable.
  // Printed in the user's names (exact quotients print as `H / Heads`).
  DimExpr simplify(const DimExpr& e) const;

  Proof provablyEqual(const DimExpr& a, const DimExpr& b) const;
  Proof provablyNotEqual(const DimExpr& a, const DimExpr& b) const;
  Proof provablyPositive(const DimExpr& d) const;     // d > 0 (divisors, E2205)
  Proof provablyNonNegative(const DimExpr& d) const;  // d >= 0
  Proof provablyNegative(const DimExpr& d) const;     // d < 0 (E2208)
  Proof provablyLess(const DimExpr& a, const DimExpr& b) const;       // a < b
  Proof provablyLessEqual(const DimExpr& a, const DimExpr& b) const;  // a <= b
  // Any relation, e.g. a callee's instantiated `where` clause (E2206).
  Proof provablyHolds(const DimExpr& lhs, Relation rel, const DimExpr& rhs) const;

  // reshape: the products of the dims (packs contribute `prod(*S)`) are
  // provably equal (E2203).
  Proof equalElementCount(const Shape& a, const Shape& b) const;
  // Right-aligned broadcasting: each aligned pair provably equal or one side
  // provably 1 (literally or by the facts); a trailing run of packs aligns
  // only with the same packs.
  BroadcastResult broadcastCompatible(const Shape& a, const Shape& b) const;
  // Extent of `x[start:stop:step]` on an axis of extent `extent`:
  // max(0, (min(stop, extent) - start + step - 1) / step), defaults 0,
  // extent, 1; simplified as far as the facts allow (`x[1:]` on `S` with
  // `S >= 1` is `S - 1`).
  DimExpr sliceExtent(const std::optional<DimExpr>& start, const std::optional<DimExpr>& stop,
                      const std::optional<DimExpr>& step, const DimExpr& extent) const;

 private:
  struct Clause {
    DimExpr lhs;
    Relation rel;
    DimExpr rhs;
  };
  Proof prove(const DimExpr& lhs, Relation rel, const DimExpr& rhs, bool withSuggestion) const;
  std::string suggestFor(const DimExpr& lhs, Relation rel, const DimExpr& rhs) const;

  std::vector<Clause> clauses_;
  std::shared_ptr<const detail::Knowledge> knowledge_;
};

}  // namespace linnet::shape
