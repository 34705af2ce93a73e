// Tests for compiler/shape/DimExpr: the canonical normal form (identities
// that must hold without any facts), structural equality and hashing,
// overflow reported as a value, instantiation and evaluation.
#include "compiler/shape/DimExpr.h"

#include <gtest/gtest.h>

#include <limits>
#include <unordered_set>

#include "ShapeTestUtil.h"

namespace linnet::shape {
namespace {

using testing::c;
using testing::div;
using testing::max;
using testing::min;
using testing::mod;
using testing::Names;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

TEST(DimExprTest, DefaultIsZero) {
  DimExpr zero;
  EXPECT_TRUE(zero.isZero());
  EXPECT_EQ(zero, c(0));
  EXPECT_EQ(zero.constantValue(), 0);
}

TEST(DimExprTest, ThreeHIsHPlusTwoH) {
  Names n;
  DimExpr H = n("H");
  EXPECT_EQ(c(3) * H, H + c(2) * H);
  EXPECT_EQ((c(3) * H).hash(), (H + c(2) * H).hash());
}

TEST(DimExprTest, AdditionIsCommutativeAndAssociative) {
  Names n;
  DimExpr a = n("A"), b = n("B"), d = n("D");
  EXPECT_EQ(a + b, b + a);
  EXPECT_EQ((a + b) + d, a + (b + d));
  EXPECT_EQ(a * b, b * a);
  EXPECT_EQ((a * b) * d, a * (b * d));
}

TEST(DimExprTest, MultiplicationDistributes) {
  Names n;
  DimExpr a = n("A"), b = n("B"), k = n("C");
  EXPECT_EQ((a + b) * k, a * k + b * k);
  EXPECT_EQ((a + c(1)) * (a - c(1)), a * a - c(1));
}

TEST(DimExprTest, SubtractionCancels) {
  Names n;
  DimExpr a = n("A"), b = n("B");
  EXPECT_TRUE((a + b - a - b).isZero());
  EXPECT_EQ(a - a, c(0));
  EXPECT_EQ(-(-a), a);
}

TEST(DimExprTest, ConstantFolding) {
  EXPECT_EQ(c(2) + c(3), c(5));
  EXPECT_EQ(c(6) * c(7), c(42));
  EXPECT_EQ(div(c(7), c(2)), c(3));
  EXPECT_EQ(mod(c(7), c(2)), c(1));
  EXPECT_EQ(min(c(3), c(9)), c(3));
  EXPECT_EQ(max(c(3), c(9)), c(9));
}

TEST(DimExprTest, FloorDivisionAndRemainderOfNegativeConstants) {
  // Floor semantics: the remainder has the sign of the divisor.
  EXPECT_EQ(div(c(-7), c(2)), c(-4));
  EXPECT_EQ(mod(c(-7), c(2)), c(1));
  EXPECT_EQ(div(c(7), c(-2)), c(-4));
  EXPECT_EQ(mod(c(7), c(-2)), c(-1));
}

TEST(DimExprTest, TruncatingDivisionIsTheValuesDivision) {
  // As values divide (docs/dialect.md): toward zero, the remainder with the
  // dividend's sign, total on a zero divisor and on MIN / -1.
  auto q = [](int64_t a, int64_t b) { return DimExpr::truncatingDivision(c(a), c(b), false); };
  auto r = [](int64_t a, int64_t b) { return DimExpr::truncatingDivision(c(a), c(b), true); };
  EXPECT_EQ(q(-7, 2), c(-3));
  EXPECT_EQ(r(-7, 2), c(-1));
  EXPECT_EQ(q(7, -2), c(-3));
  EXPECT_EQ(r(7, -2), c(1));
  EXPECT_EQ(q(7, 0), c(-1));
  EXPECT_EQ(r(7, 0), c(7));
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(q(kMin, -1), c(kMin));
  EXPECT_EQ(r(kMin, -1), c(0));
  // Operands that cannot be negative keep the floor division shapes use.
  Names n;
  DimExpr N = n("N"), M = n("M");
  EXPECT_EQ(DimExpr::truncatingDivision(N, c(4), false), div(N, c(4)));
  EXPECT_EQ(DimExpr::truncatingDivision(N, M, true), mod(N, M));
  // Others evaluate to the truncated quotient for every sign.
  for (int64_t a : {-9, -8, -1, 0, 3, 10})
    for (int64_t b : {-3, -1, 2, 5}) {
      Values v;
      v.dims[n.id("N")] = a + 9;
      v.dims[n.id("M")] = b + 3;
      DimExpr x = N - c(9), y = M - c(3);
      Evaluation got = evaluate(DimExpr::truncatingDivision(x, y, false), v);
      Evaluation rem = evaluate(DimExpr::truncatingDivision(x, y, true), v);
      ASSERT_TRUE(got && rem) << a << " / " << b << ": " << got.error << rem.error;
      EXPECT_EQ(*got.value, a / b) << a << " / " << b;
      EXPECT_EQ(*rem.value, a % b) << a << " % " << b;
    }
}

TEST(DimExprTest, DivisionByOneAndModuloOne) {
  Names n;
  DimExpr x = n("X") + n("Y") * n("Z");
  EXPECT_EQ(div(x, c(1)), x);
  EXPECT_EQ(mod(x, c(1)), c(0));
  EXPECT_EQ(div(x, c(-1)), -x);
}

TEST(DimExprTest, ExactConstantDivision) {
  Names n;
  DimExpr x = n("X");
  EXPECT_EQ(div(c(4) * x, c(4)), x);
  EXPECT_EQ(mod(c(4) * x, c(4)), c(0));
  EXPECT_EQ(div(c(4) * x + c(8), c(4)), x + c(2));
}

TEST(DimExprTest, DivisionSplitsOffMultiples) {
  Names n;
  DimExpr x = n("X"), y = n("Y");
  // (k * x + r) / k == x + r / k for every integer x.
  EXPECT_EQ(div(c(4) * x + c(6), c(4)), x + c(1));
  EXPECT_EQ(div(c(3) * x, c(2)), x + div(x, c(2)));
  EXPECT_EQ(div(c(2) * x + y, c(2)), x + div(y, c(2)));
  EXPECT_EQ(mod(c(2) * x + y, c(2)), mod(y, c(2)));
  EXPECT_EQ(mod(c(5) * x + c(7), c(5)), c(2));
}

TEST(DimExprTest, DivisionDividesOutCommonFactors) {
  Names n;
  DimExpr x = n("X"), d = n("D");
  EXPECT_EQ(div(c(2) * x + c(2), c(4)), div(x + c(1), c(2)));
  EXPECT_EQ(mod(c(2) * x, c(4)), c(2) * mod(x, c(2)));
  EXPECT_EQ(div(c(6) * x, c(4) * d), div(c(3) * x, c(2) * d));
}

TEST(DimExprTest, NestedConstantDivisionsMerge) {
  Names n;
  DimExpr x = n("X");
  EXPECT_EQ(div(div(x, c(2)), c(3)), div(x, c(6)));
  EXPECT_EQ(mod(mod(x, c(6)), c(3)), mod(x, c(3)));
}

TEST(DimExprTest, SymbolicDivisionStaysOpaqueWithoutFacts) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  DimExpr q = div(H, Heads);
  ASSERT_TRUE(q.asAtom().has_value());
  EXPECT_EQ(q.asAtom()->kind(), AtomKind::FloorDiv);
  EXPECT_NE(q * Heads, H);
  // x % x is 0 for every x (0 % 0 is 0 under the solver's convention).
  EXPECT_EQ(mod(H, H), c(0));
  EXPECT_EQ(div(c(0), Heads), c(0));
}

TEST(DimExprTest, DivisionByZeroIsKeptForTheChecker) {
  Names n;
  DimExpr x = n("X");
  EXPECT_FALSE(div(x, c(0)).isConstant());
  EXPECT_FALSE(div(c(5), c(0)).isConstant());
  EXPECT_FALSE(mod(c(5), c(0)).isConstant());
}

TEST(DimExprTest, MinMaxNormalize) {
  Names n;
  DimExpr a = n("A"), b = n("B"), d = n("D");
  EXPECT_EQ(min(a, b), min(b, a));
  EXPECT_EQ(max(a, a), a);
  EXPECT_EQ(min(a, a + c(1)), a);
  EXPECT_EQ(max(a, a + c(1)), a + c(1));
  EXPECT_EQ(min(a, min(b, d)), min(min(a, b), d));
  EXPECT_EQ(min(c(3), min(a, c(5))), min(a, c(3)));
}

TEST(DimExprTest, EqualityIsStructuralAcrossSeparateConstruction) {
  Names n;
  DimExpr e1 = div(n("H"), n("Heads")) * c(2) + n("B");
  DimExpr e2 = n("B") + c(2) * div(n("H"), n("Heads"));
  EXPECT_EQ(e1, e2);
  std::unordered_set<DimExpr> set{e1};
  EXPECT_TRUE(set.count(e2));
}

TEST(DimExprTest, OrderingIsTotalAndDeterministic) {
  Names n;
  DimExpr a = n("A"), b = n("B");
  EXPECT_TRUE(a < b || b < a);
  EXPECT_EQ((a <=> a), std::strong_ordering::equal);
  EXPECT_EQ((a + b).terms()[0].monomial[0].atom.name(), "A");
}

TEST(DimExprTest, SymbolsAreIdentifiedById) {
  EXPECT_EQ(DimExpr::symbol(7, "N"), DimExpr::symbol(7, "N"));
  EXPECT_NE(DimExpr::symbol(7, "N"), DimExpr::symbol(8, "N"));
}

TEST(DimExprTest, OverflowInAdditionIsReported) {
  DimExpr big = c(kMax);
  EXPECT_TRUE((big + c(1)).overflowed());
  EXPECT_FALSE((big + c(0)).overflowed());
  EXPECT_TRUE((c(kMin) - c(1)).overflowed());
}

TEST(DimExprTest, OverflowInMultiplicationAndNegationIsReported) {
  Names n;
  EXPECT_TRUE((c(kMax) * c(2)).overflowed());
  EXPECT_TRUE((-c(kMin)).overflowed());
  EXPECT_TRUE((c(int64_t{1} << 40) * n("H") * c(int64_t{1} << 40)).overflowed());
  EXPECT_TRUE(div(c(kMin), c(-1)).overflowed());
}

// A product with more than kMaxProductTerms term products is the overflow
// value: expanding (A0 + ... + A9)^12, as a fuzzed dimension did, would build
// about 300000 terms, one multiplication at a time. (A0 + ... + A9)^5 needs
// 715 * 10 products in its last step; small products stay exact.
TEST(DimExprTest, ProductsTooLargeToExpandAreOverflow) {
  Names n;
  DimExpr sum;
  for (int i = 0; i < 10; ++i) sum = sum + n("A" + std::to_string(i));
  DimExpr power = c(1);
  for (int k = 0; k < 5; ++k) power = power * sum;
  EXPECT_TRUE(power.overflowed());
  EXPECT_TRUE((power * sum).overflowed());
  DimExpr A = n("A0"), B = n("A1");
  EXPECT_EQ((A + B) * (A + B), A * A + c(2) * A * B + B * B);
  EXPECT_FALSE((sum * sum * sum).overflowed());  // 220 terms
}

TEST(DimExprTest, OverflowPropagates) {
  Names n;
  DimExpr bad = c(kMax) + c(1);
  EXPECT_TRUE((bad + n("H")).overflowed());
  EXPECT_TRUE((bad * c(0)).overflowed());
  EXPECT_TRUE(div(n("H"), bad).overflowed());
  EXPECT_TRUE(min(bad, n("H")).overflowed());
  EXPECT_EQ(bad.str(), "<overflow>");
}

TEST(DimExprTest, CollectAtomsAndMentions) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  DimExpr e = div(H, Heads) * n("B");
  std::vector<Atom> atoms;
  e.collectAtoms(atoms);
  EXPECT_EQ(atoms.size(), 4u);  // B, H / Heads, H, Heads
  EXPECT_TRUE(e.mentions(*H.asAtom()));
  EXPECT_FALSE(e.mentions(*n("S").asAtom()));
}

TEST(DimExprTest, PackMeasures) {
  Names n;
  Pack s = n.pack("S");
  EXPECT_EQ(DimExpr::packRank(s).str(), "len(*S)");
  EXPECT_EQ(DimExpr::packElements(s).str(), "prod(*S)");
  EXPECT_NE(DimExpr::packRank(s), DimExpr::packElements(s));
}

TEST(InstantiateTest, SubstitutesSymbolsAndRecanonicalizes) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Bindings b;
  b.dims[n.id("H")] = c(4096);
  b.dims[n.id("Heads")] = c(32);
  EXPECT_EQ(instantiate(div(H, Heads), b), c(128));
  EXPECT_EQ(instantiate(c(3) * H + Heads, b), c(3 * 4096 + 32));
}

TEST(InstantiateTest, SymbolicBindings) {
  Names n;
  DimExpr N = n("N"), B = n("B");
  Bindings b;
  b.dims[n.id("N")] = c(2) * B;
  EXPECT_EQ(instantiate(N + N, b), c(4) * B);
  EXPECT_EQ(instantiate(div(N, c(2)), b), B);
  EXPECT_EQ(instantiate(n("Other"), b), n("Other"));
}

TEST(InstantiateTest, PacksBecomeRanksAndProducts) {
  Names n;
  Pack s = n.pack("S"), t = n.pack("T");
  DimExpr B = n("B"), Sq = n("Seq");
  Bindings b;
  b.packs[s.id] = Shape{B, Sq, t};
  EXPECT_EQ(instantiate(DimExpr::packRank(s), b), c(2) + DimExpr::packRank(t));
  EXPECT_EQ(instantiate(DimExpr::packElements(s), b), B * Sq * DimExpr::packElements(t));
  Shape shape = instantiate(Shape{s, n("H")}, b);
  EXPECT_EQ(str(shape), "[B, Seq, *T, H]");
}

TEST(EvaluateTest, EvaluatesBoundExpressions) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  Values v;
  v.dims[n.id("H")] = 4096;
  v.dims[n.id("Heads")] = 32;
  EXPECT_EQ(evaluate(div(H, Heads) * c(3) + min(H, Heads), v).value, 128 * 3 + 32);
  EXPECT_EQ(evaluate(mod(H + c(5), Heads), v).value, 5);
  EXPECT_EQ(evaluate(max(H - c(5000), c(0)), v).value, 0);
}

TEST(EvaluateTest, ReportsUnboundZeroDivisorAndOverflow) {
  Names n;
  DimExpr H = n("H"), D = n("D");
  Values v;
  v.dims[n.id("H")] = kMax;
  v.dims[n.id("D")] = 0;
  Evaluation unbound = evaluate(n("Missing"), v);
  EXPECT_FALSE(unbound);
  EXPECT_NE(unbound.error.find("Missing"), std::string::npos);
  Evaluation zero = evaluate(div(H, D), v);
  EXPECT_FALSE(zero);
  EXPECT_NE(zero.error.find("division by zero"), std::string::npos);
  Evaluation overflow = evaluate(H + c(1), v);
  EXPECT_FALSE(overflow);
  EXPECT_NE(overflow.error.find("overflow"), std::string::npos);
  EXPECT_FALSE(evaluate(H * H, v));
}

TEST(EvaluateTest, PackValues) {
  Names n;
  Pack s = n.pack("S");
  Values v;
  v.packs[s.id] = {2, 3, 4};
  EXPECT_EQ(evaluate(DimExpr::packRank(s), v).value, 3);
  EXPECT_EQ(evaluate(DimExpr::packElements(s), v).value, 24);
}

}  // namespace
}  // namespace linnet::shape
