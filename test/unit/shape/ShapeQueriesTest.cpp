// Tests for the shape-level queries of Facts: broadcasting (E2207), reshape
// element counts (E2203) and slice extents, with and without `where` facts.
#include <gtest/gtest.h>

#include "ShapeTestUtil.h"

namespace linnet::shape {
namespace {

using testing::c;
using testing::div;
using testing::mod;
using testing::Names;

// ---- Broadcasting ----------------------------------------------------------------

TEST(BroadcastTest, TrailingAxesMatch) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({B, S, H}, {H});
  ASSERT_TRUE(r.compatible) << r.reason;
  EXPECT_EQ(str(r.shape), "[B, S, H]");
  r = none.broadcastCompatible({H}, {B, S, H});
  ASSERT_TRUE(r.compatible);
  EXPECT_EQ(str(r.shape), "[B, S, H]");
}

TEST(BroadcastTest, OnesStretch) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({B, c(1), H}, {S, c(1)});
  ASSERT_TRUE(r.compatible) << r.reason;
  EXPECT_EQ(str(r.shape), "[B, S, H]");
  r = none.broadcastCompatible({c(1)}, {c(1)});
  ASSERT_TRUE(r.compatible);
  EXPECT_EQ(str(r.shape), "[1]");
}

TEST(BroadcastTest, ScalarsBroadcast) {
  Names n;
  Facts none;
  BroadcastResult r = none.broadcastCompatible({}, {n("B"), n("H")});
  ASSERT_TRUE(r.compatible);
  EXPECT_EQ(str(r.shape), "[B, H]");
}

TEST(BroadcastTest, EqualUpToNormalization) {
  Names n;
  DimExpr H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({c(3) * H}, {H + c(2) * H});
  ASSERT_TRUE(r.compatible);
  EXPECT_EQ(str(r.shape), "[3 * H]");
}

TEST(BroadcastTest, MismatchReportsThePair) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({B, S, H}, {S, B, H});
  EXPECT_FALSE(r.compatible);
  EXPECT_EQ(r.axisA, 1u);
  EXPECT_EQ(r.axisB, 1u);
  EXPECT_EQ(r.reason, "dimensions `S` and `B` are not provably equal and neither is 1");
  EXPECT_EQ(r.suggestion, "S == B");
}

TEST(BroadcastTest, ProvablyDifferentGetsNoSuggestion) {
  Names n;
  DimExpr H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({H}, {H + c(1)});
  EXPECT_FALSE(r.compatible);
  EXPECT_EQ(r.suggestion, "");
  r = none.broadcastCompatible({c(2)}, {c(3)});
  EXPECT_FALSE(r.compatible);
  EXPECT_EQ(r.axisA, 0u);
}

TEST(BroadcastTest, SymbolicOneProvenByFacts) {
  Names n;
  DimExpr N = n("N"), H = n("H");
  Facts facts;
  facts.add(N, Relation::Equal, c(1));
  // Spec 4.6: a dim broadcasts when the compiler can prove it is exactly 1,
  // from the declared constraints as any proof (4.4); the design digest's
  // "literally 1" is narrower than the specification.
  BroadcastResult r = facts.broadcastCompatible({N}, {H});
  EXPECT_TRUE(r.compatible);
  // One that only may be 1 does not.
  Facts maybe;
  maybe.add(N, Relation::LessEqual, c(1));
  EXPECT_FALSE(maybe.broadcastCompatible({N}, {H}).compatible);
}

TEST(BroadcastTest, EqualityFromFacts) {
  Names n;
  DimExpr N = n("N"), M = n("M");
  Facts facts;
  facts.add(N, Relation::Equal, M);
  BroadcastResult r = facts.broadcastCompatible({c(4), N}, {M});
  ASSERT_TRUE(r.compatible) << r.reason;
  EXPECT_EQ(str(r.shape), "[4, N]");
}

TEST(BroadcastTest, PacksAlignOnlyWithThemselves) {
  Names n;
  Pack S = n.pack("S");
  DimExpr B = n("B"), H = n("H");
  Facts none;
  BroadcastResult r = none.broadcastCompatible({S, H}, {H});
  ASSERT_TRUE(r.compatible) << r.reason;
  EXPECT_EQ(str(r.shape), "[*S, H]");
  r = none.broadcastCompatible({S, H}, {S, c(1)});
  ASSERT_TRUE(r.compatible) << r.reason;
  EXPECT_EQ(str(r.shape), "[*S, H]");
  r = none.broadcastCompatible({S, H}, {B, H});
  EXPECT_FALSE(r.compatible);
  EXPECT_FALSE(r.axisA.has_value());
  EXPECT_NE(r.reason.find("shape pack"), std::string::npos);
}

// ---- Reshape element counts -------------------------------------------------------

TEST(ElementCountTest, HeadSplitNeedsDivisibility) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H"), Heads = n("Heads");
  Shape from{B, S, H};
  Shape to{B, S, Heads, div(H, Heads)};
  Facts none;
  Proof p = none.equalElementCount(from, to);
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "H % Heads == 0");
  EXPECT_NE(p.reason.find("[B, S, H] and [B, S, Heads, H / Heads]"), std::string::npos) << p.reason;

  Facts facts;
  facts.add(mod(H, Heads), Relation::Equal, c(0));
  EXPECT_TRUE(facts.equalElementCount(from, to));
  EXPECT_TRUE(facts.equalElementCount(to, from));
}

TEST(ElementCountTest, MergingAxes) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H");
  Facts none;
  EXPECT_TRUE(none.equalElementCount({B, S, H}, {B * S, H}));
  EXPECT_TRUE(none.equalElementCount({B, S, H}, {B * S * H}));
  EXPECT_TRUE(none.equalElementCount({c(2), c(3)}, {c(6)}));
  EXPECT_TRUE(none.equalElementCount({}, {c(1), c(1)}));
  EXPECT_FALSE(none.equalElementCount({B, S}, {B, H}));
  EXPECT_FALSE(none.equalElementCount({c(2), c(3)}, {c(5)}));
}

TEST(ElementCountTest, WithEqualityFacts) {
  Names n;
  DimExpr H = n("H"), A = n("A"), Bs = n("Bs");
  Facts facts;
  facts.add(H, Relation::Equal, A * Bs);
  EXPECT_TRUE(facts.equalElementCount({H}, {A, Bs}));
}

TEST(ElementCountTest, Packs) {
  Names n;
  Pack S = n.pack("S"), T = n.pack("T");
  DimExpr H = n("H"), A = n("A"), Bv = n("Bv");
  Facts facts;
  facts.add(H, Relation::Equal, A * Bv);
  EXPECT_TRUE(facts.equalElementCount({S, H}, {S, A, Bv}));
  EXPECT_FALSE(facts.equalElementCount({S, H}, {T, H}));
  Proof p = facts.equalElementCount({S}, {T});
  EXPECT_FALSE(p);
  EXPECT_EQ(p.suggestion, "prod(*S) == prod(*T)");
}

TEST(ElementCountTest, DivisionByConstant) {
  Names n;
  DimExpr H = n("H");
  Facts facts;
  facts.add(mod(H, c(2)), Relation::Equal, c(0));
  EXPECT_TRUE(facts.equalElementCount({H}, {div(H, c(2)), c(2)}));
  Facts none;
  EXPECT_EQ(none.equalElementCount({H}, {div(H, c(2)), c(2)}).suggestion, "H % 2 == 0");
}

// ---- Slice extents -------------------------------------------------------------------

TEST(SliceExtentTest, FullSlice) {
  Names n;
  DimExpr D = n("D");
  Facts none;
  EXPECT_EQ(none.sliceExtent(std::nullopt, std::nullopt, std::nullopt, D), D);
  EXPECT_EQ(none.sliceExtent(c(0), D, c(1), D), D);
}

TEST(SliceExtentTest, DropFirst) {
  Names n;
  DimExpr S = n("S");
  Facts none;
  EXPECT_EQ(none.sliceExtent(c(1), std::nullopt, std::nullopt, S).str(), "max(0, S - 1)");
  Facts facts;
  facts.add(S, Relation::GreaterEqual, c(1));
  EXPECT_EQ(facts.sliceExtent(c(1), std::nullopt, std::nullopt, S).str(), "S - 1");
}

TEST(SliceExtentTest, ConstantWindow) {
  Names n;
  DimExpr D = n("D");
  Facts facts;
  facts.add(D, Relation::GreaterEqual, c(8));
  EXPECT_EQ(facts.sliceExtent(c(0), c(4), std::nullopt, D), c(4));
  EXPECT_EQ(facts.sliceExtent(c(2), c(10), c(3), c(16)), c(3));
  Facts none;
  EXPECT_EQ(none.sliceExtent(c(0), c(4), std::nullopt, D).str(), "min(4, D)");
  EXPECT_EQ(none.sliceExtent(c(5), c(4), std::nullopt, c(16)), c(0));
}

TEST(SliceExtentTest, Strides) {
  Names n;
  DimExpr D = n("D");
  Facts none;
  EXPECT_EQ(none.sliceExtent(std::nullopt, std::nullopt, c(2), D).str(), "(D + 1) / 2");
  EXPECT_EQ(none.sliceExtent(c(0), c(7), c(2), c(100)), c(4));
  Facts even;
  even.add(mod(D, c(2)), Relation::Equal, c(0));
  EXPECT_EQ(even.sliceExtent(std::nullopt, std::nullopt, c(2), D).str(), "D / 2");
}

TEST(SliceExtentTest, SymbolicBounds) {
  Names n;
  DimExpr D = n("D"), K = n("K");
  Facts facts;
  facts.add(K, Relation::LessEqual, D);
  EXPECT_EQ(facts.sliceExtent(std::nullopt, K, std::nullopt, D), K);
  EXPECT_EQ(facts.sliceExtent(K, std::nullopt, std::nullopt, D).str(), "D - K");
}

}  // namespace
}  // namespace linnet::shape
