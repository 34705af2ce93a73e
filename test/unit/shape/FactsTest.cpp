// Tests for compiler/shape/Facts: how `where` clauses are recorded, what the
// solver proves from them (equalities, divisibility, bounds, disequalities)
// and, just as important, what it must not prove, with the reasons and
// suggested `where` clauses a failed query carries.
#include "compiler/shape/Facts.h"

#include <gtest/gtest.h>

#include "ShapeTestUtil.h"

namespace linnet::shape {
namespace {

using testing::c;
using testing::div;
using testing::max;
using testing::min;
using testing::mod;
using testing::Names;

// ---- The issue's required cases --------------------------------------------

TEST(FactsTest, ThreeHEqualsHPlusTwoH) {
  Names n;
  Facts none;
  DimExpr H = n("H");
  EXPECT_TRUE(none.provablyEqual(c(3) * H, H + c(2) * H));
}

TEST(FactsTest, ExactHeadSplitNeedsDivisibility) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  DimExpr lhs = div(H, Heads) * Heads;
  Facts none;
  Proof p = none.provablyEqual(lhs, H);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "H % Heads == 0");
  EXPECT_NE(p.reason.find("Heads * (H / Heads) == H"), std::string::npos) << p.reason;

  Facts facts;
  EXPECT_EQ(facts.add(mod(H, Heads), Relation::Equal, c(0)), FactUse::Divisibility);
  EXPECT_TRUE(facts.provablyEqual(lhs, H));
  EXPECT_TRUE(facts.provablyEqual(mod(H, Heads), c(0)));
}

TEST(FactsTest, PositivityAloneDoesNotMakeDivisionExact) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts facts;
  facts.add(Heads, Relation::Greater, c(0));
  Proof p = facts.provablyEqual(div(H, Heads) * Heads, H);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "H % Heads == 0");
  // What does hold: (H / Heads) * Heads <= H.
  EXPECT_TRUE(facts.provablyLessEqual(div(H, Heads) * Heads, H));
}

TEST(FactsTest, BatchPlusPIsNotPPlusBatchPlusOne) {
  Names n;
  DimExpr Batch = n("Batch"), P = n("P");
  Facts none;
  Proof eq = none.provablyEqual(Batch + P, P + Batch + c(1));
  EXPECT_FALSE(eq);
  EXPECT_EQ(eq.suggestion, "");  // provably false: nothing to assume
  EXPECT_TRUE(none.provablyNotEqual(Batch + P, P + Batch + c(1)));
  EXPECT_TRUE(none.provablyEqual(Batch + P, P + Batch));
}

TEST(FactsTest, DivisorPositivityFromWhere) {
  Names n;
  DimExpr Heads = n("Heads");
  Facts none;
  Proof p = none.provablyPositive(Heads);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "Heads > 0");
  EXPECT_EQ(p.reason, "cannot prove `Heads > 0`");

  Facts facts;
  EXPECT_EQ(facts.add(Heads, Relation::Greater, c(0)), FactUse::Bound);
  EXPECT_TRUE(facts.provablyPositive(Heads));
  EXPECT_TRUE(facts.provablyPositive(Heads * Heads));
  EXPECT_TRUE(facts.provablyPositive(c(2) * Heads - c(1)));
}

TEST(FactsTest, IndexBoundsWithFacts) {
  Names n;
  DimExpr I = n("I"), N = n("N"), D = n("D");
  Facts facts;
  facts.add(I, Relation::Less, N);
  facts.add(N, Relation::LessEqual, D);
  EXPECT_TRUE(facts.provablyLess(I, D));
  EXPECT_TRUE(facts.provablyLessEqual(c(0), I));
  EXPECT_TRUE(facts.provablyLess(I + c(1), D + c(1)));
  EXPECT_FALSE(facts.provablyLess(I + c(1), D));
  Facts none;
  Proof p = none.provablyLess(I, D);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "I < D");
}

TEST(FactsTest, ConstantIndexBounds) {
  Names n;
  DimExpr S = n("S");
  Facts facts;
  facts.add(S, Relation::GreaterEqual, c(4));
  EXPECT_TRUE(facts.provablyLess(c(3), S));
  EXPECT_FALSE(facts.provablyLess(c(4), S));
  EXPECT_TRUE(facts.provablyLess(S - c(1), S));
  Facts none;
  EXPECT_TRUE(none.provablyLess(c(2), c(3)));
  EXPECT_FALSE(none.provablyLess(c(3), c(3)));
}

// ---- Equalities and substitution --------------------------------------------

TEST(FactsTest, EqualitySubstitutesALoneSymbol) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts facts;
  EXPECT_EQ(facts.add(A, Relation::Equal, B * c(2)), FactUse::Substitution);
  EXPECT_TRUE(facts.provablyEqual(A, c(2) * B));
  EXPECT_TRUE(facts.provablyEqual(div(A, c(2)), B));
  EXPECT_TRUE(facts.provablyEqual(mod(A, c(2)), c(0)));
  EXPECT_EQ(facts.simplify(A + B).str(), "3 * B");
}

TEST(FactsTest, EqualityWithSymbolOnTheRight) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts facts;
  facts.add(B * c(2), Relation::Equal, A);
  EXPECT_TRUE(facts.provablyEqual(A, B + B));
}

TEST(FactsTest, EqualityChains) {
  Names n;
  DimExpr A = n("A"), B = n("B"), C = n("C");
  Facts facts;
  facts.add(A, Relation::Equal, B);
  facts.add(B, Relation::Equal, C + c(1));
  EXPECT_TRUE(facts.provablyEqual(A, C + c(1)));
  EXPECT_TRUE(facts.provablyPositive(A));  // B >= 0 gave nothing, but A = C + 1 >= 1
}

TEST(FactsTest, SubstitutionKeepsNonNegativity) {
  Names n;
  DimExpr A = n("A"), B = n("B"), C = n("C");
  Facts facts;
  facts.add(A, Relation::Equal, B - C);  // A >= 0, so C <= B
  EXPECT_TRUE(facts.provablyLessEqual(C, B));
}

TEST(FactsTest, NonLinearEqualityKeptAsBounds) {
  Names n;
  DimExpr A = n("A"), B = n("B"), C = n("C");
  Facts facts;
  EXPECT_EQ(facts.add(A * B, Relation::Equal, c(2) * C * C), FactUse::Bound);
  EXPECT_TRUE(facts.provablyEqual(A * B - C * C, C * C));
}

TEST(FactsTest, EqualityBetweenSymbolsBothWays) {
  Names n;
  DimExpr N = n("N"), M = n("M");
  Facts facts;
  facts.add(N, Relation::LessEqual, M);
  facts.add(M, Relation::LessEqual, N);
  EXPECT_TRUE(facts.provablyEqual(N, M));
  EXPECT_TRUE(facts.provablyEqual(N * c(3), M + M + N));
}

TEST(FactsTest, EqualityOfADivision) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads"), D = n("D");
  Facts facts;
  facts.add(div(H, Heads), Relation::Equal, D);
  EXPECT_TRUE(facts.provablyEqual(D * c(2), div(H, Heads) * c(2)));
  // It says nothing about exactness.
  EXPECT_FALSE(facts.provablyEqual(D * Heads, H));
}

// ---- Divisibility -------------------------------------------------------------

TEST(FactsTest, DivisibilitySimplifiesDivisionAndRemainder) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  facts.add(Heads, Relation::Greater, c(0));
  EXPECT_EQ(facts.simplify(div(H, Heads) * Heads).str(), "H");
  EXPECT_EQ(facts.simplify(mod(H, Heads)), c(0));
  EXPECT_EQ(facts.simplify(div(H, Heads)).str(), "H / Heads");
  EXPECT_EQ(facts.simplify(div(H, Heads) * Heads * c(2)).str(), "2 * H");
  EXPECT_TRUE(facts.provablyEqual(mod(H + Heads, Heads), c(0)));
  EXPECT_TRUE(facts.provablyEqual(div(H + Heads, Heads), div(H, Heads) + c(1)));
}

TEST(FactsTest, DivisibilityByAConstant) {
  Names n;
  DimExpr H = n("H");
  Facts facts;
  facts.add(mod(H, c(64)), Relation::Equal, c(0));
  EXPECT_TRUE(facts.provablyEqual(div(H, c(64)) * c(64), H));
  EXPECT_TRUE(facts.provablyEqual(mod(H + c(1), c(64)), c(1)));
  EXPECT_TRUE(facts.provablyEqual(mod(H, c(32)), c(0)));
  EXPECT_TRUE(facts.provablyEqual(div(H, c(32)), c(2) * div(H, c(64))));
  EXPECT_FALSE(facts.provablyEqual(mod(H, c(128)), c(0)));
}

TEST(FactsTest, DivisibilityThenEqualityOfTheDivisor) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads"), K = n("K");
  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  facts.add(Heads, Relation::Equal, c(2) * K);
  EXPECT_TRUE(facts.provablyEqual(div(H, Heads) * Heads, H));
  EXPECT_TRUE(facts.provablyEqual(div(H, c(2) * K) * c(2) * K, H));
}

TEST(FactsTest, DivisibilityOfAProduct) {
  Names n;
  DimExpr A = n("A"), B = n("B"), C = n("C");
  Facts facts;
  facts.add(mod(A * B, C), Relation::Equal, c(0));
  EXPECT_TRUE(facts.provablyEqual(div(A * B, C) * C, A * B));
  EXPECT_TRUE(facts.provablyEqual(mod(A * B, C), c(0)));
}

TEST(FactsTest, NestedHeadSplit) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  facts.add(mod(div(H, Heads), c(2)), Relation::Equal, c(0));
  DimExpr half = div(div(H, Heads), c(2));
  EXPECT_EQ(half.str(), "H / Heads / 2");
  EXPECT_TRUE(facts.provablyEqual(half * c(2) * Heads, H));
}

TEST(FactsTest, BoundedDivisionWithAPositiveDivisor) {
  Names n;
  DimExpr X = n("X"), R = n("R"), D = n("D");
  Facts facts;
  facts.add(D, Relation::Greater, c(0));
  facts.add(R, Relation::Less, D);
  EXPECT_TRUE(facts.provablyEqual(div(D * X + R, D), X));
  EXPECT_TRUE(facts.provablyEqual(mod(D * X + R, D), R));
  EXPECT_TRUE(facts.provablyEqual(div(D, D), c(1)));
  EXPECT_TRUE(facts.provablyEqual(div(D * X, D), X));
  Facts none;
  EXPECT_FALSE(none.provablyEqual(div(D * X, D), X));  // D could be 0
  EXPECT_TRUE(none.provablyEqual(mod(D * X, D), c(0)));
}

TEST(FactsTest, BoundedConstantDivision) {
  Names n;
  DimExpr X = n("X"), Y = n("Y");
  Facts none;
  // (4 * X + Y % 4) / 4 == X because 0 <= Y % 4 < 4.
  EXPECT_TRUE(none.provablyEqual(div(c(4) * X + mod(Y, c(4)), c(4)), X));
  Facts facts;
  facts.add(Y, Relation::Less, c(3));
  EXPECT_TRUE(facts.provablyEqual(div(c(3) * X + Y, c(3)), X));
  EXPECT_TRUE(facts.provablyEqual(mod(Y, c(3)), Y));
}

// ---- Bounds -------------------------------------------------------------------

TEST(FactsTest, LowerBoundsTransfer) {
  Names n;
  DimExpr N = n("N"), M = n("M");
  Facts facts;
  facts.add(N, Relation::GreaterEqual, c(2));
  facts.add(M, Relation::GreaterEqual, N);
  EXPECT_TRUE(facts.provablyPositive(M));
  EXPECT_TRUE(facts.provablyLessEqual(c(4), N * M));
  EXPECT_TRUE(facts.provablyLessEqual(c(4), N * N));
  EXPECT_FALSE(facts.provablyLessEqual(c(5), N * N));
}

TEST(FactsTest, TransitiveInequalities) {
  Names n;
  DimExpr A = n("A"), B = n("B"), C = n("C");
  Facts facts;
  facts.add(A, Relation::Less, B);
  facts.add(B, Relation::Less, C);
  EXPECT_TRUE(facts.provablyLess(A + c(1), C));
  EXPECT_TRUE(facts.provablyLessEqual(A + c(2), C));
  EXPECT_FALSE(facts.provablyLess(A + c(2), C));
  EXPECT_TRUE(facts.provablyNotEqual(A, C));
}

TEST(FactsTest, ProductsGrowWithPositiveFactors) {
  Names n;
  DimExpr I = n("I"), N = n("N"), M = n("M");
  Facts facts;
  facts.add(I, Relation::Less, N);
  facts.add(M, Relation::GreaterEqual, c(1));
  EXPECT_TRUE(facts.provablyLess(I, N * M));
  Facts weaker;
  weaker.add(I, Relation::Less, N);
  EXPECT_FALSE(weaker.provablyLess(I, N * M));  // M could be 0
}

TEST(FactsTest, RemainderAndQuotientBounds) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts none;
  EXPECT_TRUE(none.provablyLess(mod(H, c(4)), c(4)));
  EXPECT_TRUE(none.provablyLessEqual(div(H, Heads), H));
  EXPECT_TRUE(none.provablyLessEqual(mod(H, Heads), H));
  EXPECT_FALSE(none.provablyLess(mod(H, Heads), Heads));  // Heads could be 0
  Facts facts;
  facts.add(Heads, Relation::Greater, c(0));
  EXPECT_TRUE(facts.provablyLess(mod(H, Heads), Heads));
  EXPECT_TRUE(facts.provablyLessEqual(div(H, Heads) * Heads, H));
}

TEST(FactsTest, NonNegativityOfSymbols) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts none;
  EXPECT_TRUE(none.provablyNonNegative(A * B + A));
  EXPECT_TRUE(none.provablyNonNegative(div(A, c(3))));
  EXPECT_TRUE(none.provablyNonNegative(min(A, B)));
  Proof p = none.provablyNonNegative(A - B);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "A - B >= 0");
}

TEST(FactsTest, NegativeDimensions) {
  Names n;
  DimExpr S = n("S"), T = n("T");
  Facts none;
  EXPECT_TRUE(none.provablyNegative(c(-1)));
  EXPECT_TRUE(none.provablyNegative(-S - c(1)));
  EXPECT_FALSE(none.provablyNegative(S - T));
  EXPECT_FALSE(none.provablyNegative(-S));  // S may be 0
  Facts facts;
  facts.add(T, Relation::Greater, S);
  EXPECT_TRUE(facts.provablyNegative(S - T));
  EXPECT_EQ(facts.provablyNegative(S).suggestion, "");
}

TEST(FactsTest, DisequalityFacts) {
  Names n;
  DimExpr N = n("N"), M = n("M");
  Facts facts;
  EXPECT_EQ(facts.add(N, Relation::NotEqual, c(0)), FactUse::Disequality);
  facts.add(N, Relation::NotEqual, M);
  EXPECT_TRUE(facts.provablyPositive(N));  // N >= 0 and N != 0
  EXPECT_TRUE(facts.provablyNotEqual(M, N));
  EXPECT_FALSE(facts.provablyNotEqual(M, c(0)));
}

TEST(FactsTest, ParityProvesDisequality) {
  Names n;
  DimExpr X = n("X"), Y = n("Y");
  Facts none;
  EXPECT_TRUE(none.provablyNotEqual(c(2) * X, c(2) * Y + c(1)));
  EXPECT_FALSE(none.provablyNotEqual(c(2) * X, c(2) * Y + c(2)));
}

// ---- min / max ------------------------------------------------------------------

TEST(FactsTest, MinMaxWithOrderedOperands) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts facts;
  facts.add(A, Relation::LessEqual, B);
  EXPECT_EQ(facts.simplify(min(A, B)), A);
  EXPECT_EQ(facts.simplify(max(A, B)), B);
  EXPECT_TRUE(facts.provablyEqual(min(A, B) + max(A, B), A + B));
  Facts none;
  EXPECT_EQ(none.simplify(max(c(0), A)), A);
  EXPECT_EQ(none.simplify(min(c(0), A)), c(0));
  EXPECT_FALSE(none.provablyEqual(min(A, B), A));
}

TEST(FactsTest, MinMaxCaseSplits) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts none;
  EXPECT_TRUE(none.provablyEqual(min(A, B) + max(A, B), A + B));
  EXPECT_TRUE(none.provablyLessEqual(min(A, B), max(A, B)));
  EXPECT_TRUE(none.provablyLessEqual(min(A, B), A));
  EXPECT_TRUE(none.provablyLessEqual(A, max(A, B)));
  EXPECT_FALSE(none.provablyLess(min(A, B), max(A, B)));
}

// ---- Fact bookkeeping ------------------------------------------------------------

TEST(FactsTest, RedundantAndContradictoryFacts) {
  Names n;
  DimExpr A = n("A");
  Facts facts;
  EXPECT_EQ(facts.add(A + c(1), Relation::Greater, A), FactUse::Redundant);
  EXPECT_FALSE(facts.inconsistent());
  EXPECT_EQ(facts.add(c(1), Relation::Equal, c(2)), FactUse::Contradiction);
  EXPECT_TRUE(facts.inconsistent());
  // The contradiction is ignored, not used to prove everything.
  EXPECT_FALSE(facts.provablyEqual(A, c(7)));
}

TEST(FactsTest, OverflowingFactsAreUnusable) {
  Names n;
  DimExpr A = n("A");
  DimExpr big = c(std::numeric_limits<int64_t>::max());
  Facts facts;
  EXPECT_EQ(facts.add(A, Relation::Equal, big + c(1)), FactUse::Unusable);
  EXPECT_FALSE(facts.provablyEqual(A, c(0)));
  Proof p = facts.provablyEqual(big * c(2), big * c(2));
  EXPECT_FALSE(p);
  EXPECT_NE(p.reason.find("overflow"), std::string::npos);
}

// A coefficient of i64's minimum has no negation: Fourier-Motzkin drops the
// row instead of negating it (found by check_fuzzer; UBSan in the sanitized
// unit tests reports the overflow).
TEST(FactsTest, MostNegativeCoefficientIsNeverNegated) {
  Names n;
  DimExpr A = n("A"), B = n("B");
  Facts facts;
  facts.add(c(std::numeric_limits<int64_t>::min()) * A + B, Relation::GreaterEqual, c(0));
  EXPECT_FALSE(facts.provablyEqual(A, B));
  EXPECT_FALSE(facts.provablyLess(B, A));
}

TEST(FactsTest, CopiesAreIndependent) {
  Names n;
  DimExpr A = n("A");
  Facts base;
  Facts more = base;
  more.add(A, Relation::Greater, c(0));
  EXPECT_TRUE(more.provablyPositive(A));
  EXPECT_FALSE(base.provablyPositive(A));
  EXPECT_EQ(base.size(), 0u);
  EXPECT_EQ(more.size(), 1u);
}

TEST(FactsTest, ProvablyHoldsForCalleeConstraints) {
  Names n;
  DimExpr H = n("H"), N = n("N");
  // Callee `where H % N == 0, N > 0` instantiated with H = 4096, N = 32.
  Facts none;
  EXPECT_TRUE(none.provablyHolds(mod(c(4096), c(32)), Relation::Equal, c(0)));
  EXPECT_TRUE(none.provablyHolds(c(32), Relation::Greater, c(0)));
  // Instantiated with a caller's own generics, under the caller's facts.
  Facts caller;
  caller.add(mod(H, N), Relation::Equal, c(0));
  caller.add(N, Relation::GreaterEqual, c(1));
  EXPECT_TRUE(caller.provablyHolds(mod(c(2) * H, N), Relation::Equal, c(0)));
  EXPECT_TRUE(caller.provablyHolds(N, Relation::Greater, c(0)));
  Proof p = none.provablyHolds(mod(H, N), Relation::Equal, c(0));
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "H % N == 0");
}

TEST(FactsTest, SuggestsPositivityWhenThatIsWhatIsMissing) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts none;
  Proof p = none.provablyEqual(div(H * Heads, Heads), H);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "Heads > 0");
}

TEST(FactsTest, PackRankFacts) {
  Names n;
  Pack S = n.pack("S");
  DimExpr rank = DimExpr::packRank(S);
  Facts facts;
  EXPECT_EQ(facts.add(rank, Relation::Equal, c(2)), FactUse::Substitution);
  EXPECT_TRUE(facts.provablyEqual(rank + c(1), c(3)));
  EXPECT_TRUE(facts.provablyLess(c(1), rank));
  Facts none;
  EXPECT_TRUE(none.provablyNonNegative(rank));
  EXPECT_TRUE(none.provablyNonNegative(DimExpr::packElements(S)));
  EXPECT_FALSE(none.provablyPositive(DimExpr::packElements(S)));
}

TEST(FactsTest, SimplifyIsIdempotent) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads"), S = n("S"), A = n("A");
  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  facts.add(Heads, Relation::Greater, c(0));
  facts.add(S, Relation::GreaterEqual, c(1));
  facts.add(A, Relation::Equal, c(2) * S);
  for (const DimExpr& e : {div(H, Heads) * Heads, div(H, Heads) + A, max(c(0), S - c(1)),
                           div(div(H, Heads), c(2)) * S, mod(H + c(3) * Heads, Heads)}) {
    DimExpr once = facts.simplify(e);
    EXPECT_EQ(facts.simplify(once), once) << e.str() << " -> " << once.str();
    EXPECT_TRUE(facts.provablyEqual(once, e)) << e.str() << " -> " << once.str();
  }
}

TEST(FactsTest, SimplifyKeepsTheUsersNames) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  facts.add(mod(div(H, Heads), c(2)), Relation::Equal, c(0));
  EXPECT_EQ(facts.simplify(div(div(H, Heads), c(2))).str(), "H / Heads / 2");
  EXPECT_EQ(facts.simplify(H).str(), "H");
  EXPECT_EQ(facts.simplify(H + Heads).str(), "H + Heads");
}

TEST(FactsTest, EvaluateAgreesWithInstantiate) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads"), S = n("S");
  DimExpr e = max(c(0), div(min(S, H) - c(1) + Heads, Heads)) * mod(H, Heads + c(1));
  Values v;
  Bindings b;
  for (auto [name, value] : {std::pair{"H", 96}, {"Heads", 12}, {"S", 40}}) {
    v.dims[n.id(name)] = value;
    b.dims[n.id(name)] = c(value);
  }
  Evaluation direct = evaluate(e, v);
  ASSERT_TRUE(direct);
  EXPECT_EQ(instantiate(e, b), c(*direct.value));
  EXPECT_EQ(*direct.value, ((40 - 1 + 12) / 12) * (96 % 13));
}

}  // namespace
}  // namespace linnet::shape
