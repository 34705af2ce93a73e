// Tests for the DimExpr printer: canonical forms read the way a user writes
// them, in the user's names, with minimal parentheses that still parse back
// to the same value under Linnet's precedence.
#include <gtest/gtest.h>

#include <limits>

#include "ShapeTestUtil.h"

namespace linnet::shape {
namespace {

using testing::c;
using testing::div;
using testing::max;
using testing::min;
using testing::mod;
using testing::Names;

TEST(PrinterTest, ConstantsAndSymbols) {
  Names n;
  EXPECT_EQ(c(0).str(), "0");
  EXPECT_EQ(c(42).str(), "42");
  EXPECT_EQ(c(-3).str(), "-3");
  EXPECT_EQ(n("Batch").str(), "Batch");
  EXPECT_EQ(c(std::numeric_limits<int64_t>::min()).str(), "-9223372036854775808");
}

TEST(PrinterTest, CoefficientsComeFirst) {
  Names n;
  DimExpr H = n("H"), Batch = n("Batch");
  EXPECT_EQ((c(3) * H).str(), "3 * H");
  EXPECT_EQ((Batch * c(2)).str(), "2 * Batch");
  EXPECT_EQ((H + c(2) * H).str(), "3 * H");
}

TEST(PrinterTest, SumsInDeclarationOrder) {
  Names n;
  DimExpr Batch = n("Batch"), P = n("P");
  EXPECT_EQ((P + Batch).str(), "Batch + P");
  EXPECT_EQ((P + Batch + c(1)).str(), "Batch + P + 1");
}

TEST(PrinterTest, SubtractionReadsNaturally) {
  Names n;
  DimExpr S = n("S"), T = n("T");
  EXPECT_EQ((S - c(1)).str(), "S - 1");
  EXPECT_EQ((c(1) - S).str(), "1 - S");
  EXPECT_EQ((T - S).str(), "T - S");
  EXPECT_EQ((-S).str(), "-S");
  EXPECT_EQ((-S - c(2)).str(), "-S - 2");
  EXPECT_EQ((S - c(2) * T).str(), "S - 2 * T");
}

TEST(PrinterTest, DivisionChains) {
  Names n;
  DimExpr H = n("H"), Heads = n("Heads");
  EXPECT_EQ(div(H, Heads).str(), "H / Heads");
  EXPECT_EQ(div(div(H, Heads), c(2)).str(), "H / Heads / 2");
  EXPECT_EQ(div(H, Heads * c(2)).str(), "H / (2 * Heads)");
  EXPECT_EQ(mod(H, Heads).str(), "H % Heads");
}

TEST(PrinterTest, ParenthesesOnlyWherePrecedenceNeedsThem) {
  Names n;
  DimExpr A = n("A"), B = n("B"), H = n("H"), Heads = n("Heads");
  EXPECT_EQ(div(A + B, c(2)).str(), "(A + B) / 2");
  EXPECT_EQ(div(H, A + B).str(), "H / (A + B)");
  EXPECT_EQ((div(H, Heads) * Heads).str(), "Heads * (H / Heads)");
  EXPECT_EQ((c(2) * div(H, Heads)).str(), "2 * (H / Heads)");
  EXPECT_EQ((A * (B + c(1))).str(), "A * B + A");
  EXPECT_EQ((div(H, Heads) + A).str(), "A + H / Heads");
}

TEST(PrinterTest, NegatedDivisionIsParenthesized) {
  Names n;
  DimExpr H = n("H");
  // `-H / 2` would be `(-H) / 2`, a different value.
  EXPECT_EQ((-div(H, c(2))).str(), "-(H / 2)");
  EXPECT_EQ((c(1) - div(H, c(2))).str(), "1 - H / 2");
}

TEST(PrinterTest, ProductsAndPowers) {
  Names n;
  DimExpr B = n("B"), S = n("S"), H = n("H");
  EXPECT_EQ((B * S * H).str(), "B * S * H");
  EXPECT_EQ((H * H + c(2) * H + c(1)).str(), "H * H + 2 * H + 1");
}

TEST(PrinterTest, MinMaxNest) {
  Names n;
  DimExpr A = n("A"), B = n("B"), D = n("D");
  EXPECT_EQ(min(A, B).str(), "min(A, B)");
  EXPECT_EQ(max(c(0), A - c(1)).str(), "max(0, A - 1)");
  EXPECT_EQ(min(A, min(B, D)).str(), "min(A, min(B, D))");
}

TEST(PrinterTest, Shapes) {
  Names n;
  Shape s{n("B"), n.pack("S"), c(3) * n("H")};
  EXPECT_EQ(str(s), "[B, *S, 3 * H]");
  EXPECT_EQ(str(Shape{}), "[]");
}

}  // namespace
}  // namespace linnet::shape
