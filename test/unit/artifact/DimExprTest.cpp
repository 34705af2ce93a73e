// Dim expressions: grammar, floor semantics, overflow and hostile input.
#include "runtime/artifact/DimExpr.h"

#include <gtest/gtest.h>

#include <limits>

namespace linnet::rt {
namespace {

std::int64_t eval(std::string_view text, const DimEnv &env = {}) {
  Expected<DimExpr> expr = DimExpr::parse(text);
  EXPECT_TRUE(expr.ok()) << (expr.ok() ? "" : expr.message());
  Expected<std::int64_t> value = expr->evaluate(env);
  EXPECT_TRUE(value.ok()) << (value.ok() ? "" : value.message());
  return value.ok() ? *value : -999;
}

std::string evalError(std::string_view text, const DimEnv &env = {}) {
  Expected<DimExpr> expr = DimExpr::parse(text);
  if (!expr)
    return expr.message();
  Expected<std::int64_t> value = expr->evaluate(env);
  EXPECT_FALSE(value.ok());
  return value.ok() ? "" : value.message();
}

TEST(DimExprTest, Arithmetic) {
  EXPECT_EQ(eval("32064"), 32064);
  EXPECT_EQ(eval("S", {{"S", 7}}), 7);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 3 - 2"), 5);
  EXPECT_EQ(eval("H / Heads", {{"H", 3072}, {"Heads", 32}}), 96);
  EXPECT_EQ(eval("-3 + 5"), 2);
  EXPECT_EQ(eval("--3"), 3);
  EXPECT_EQ(eval("  B*(S+1)  ", {{"B", 2}, {"S", 3}}), 8);
}

TEST(DimExprTest, FloorDivisionAndModulo) {
  EXPECT_EQ(eval("7 / 2"), 3);
  EXPECT_EQ(eval("-7 / 2"), -4);
  EXPECT_EQ(eval("7 / -2"), -4);
  EXPECT_EQ(eval("-7 / -2"), 3);
  EXPECT_EQ(eval("-7 % 2"), 1);
  EXPECT_EQ(eval("7 % -2"), -1);
  EXPECT_EQ(eval("6 % 3"), 0);
  EXPECT_EQ(eval("(1 - 8) / 2"), -4);
}

// The extent of a slice whose step is near 2^63: the sum passes 64 bits, the
// quotient does not (it was refused as an overflow).
TEST(DimExprTest, QuotientOfASumPastSixtyFourBits) {
  EXPECT_EQ(eval("(N + 9223372036854775806) / 9223372036854775807", {{"N", 3}}), 1);
  EXPECT_EQ(eval("(N + 9223372036854775806) / 9223372036854775807", {{"N", 0}}), 0);
  EXPECT_EQ(eval("(N - 9223372036854775807) / 9223372036854775807", {{"N", -9}}), -2);
  EXPECT_NE(evalError("(N + 9223372036854775807) / 1", {{"N", 1}}).find("overflows"), std::string::npos);
  EXPECT_NE(evalError("(N + 1) / 0", {{"N", 1}}).find("divides by zero"), std::string::npos);
}

TEST(DimExprTest, MinAndMax) {
  EXPECT_EQ(eval("max(0, N - 1)", {{"N", 0}}), 0);
  EXPECT_EQ(eval("max(0, N - 1)", {{"N", 5}}), 4);
  EXPECT_EQ(eval("min(3, 7)"), 3);
  EXPECT_EQ(eval("min(S, 4, T)", {{"S", 9}, {"T", 2}}), 2);
  EXPECT_EQ(eval("max(-5, -(3), 2 * 2, 1)"), 4);
  EXPECT_EQ(eval("min(A, max(B, C))", {{"A", 10}, {"B", 3}, {"C", 6}}), 6);
  EXPECT_EQ(eval("2 * max ( 1 , 2 ) + min(4, 5) % 3"), 5);
  EXPECT_EQ(eval("-max(1, 2)"), -2);
  EXPECT_EQ(eval("max(N)", {{"N", 8}}), 8);
  // A dim may be called `min` or `max`: only a name followed by `(` is a call.
  EXPECT_EQ(eval("min + max", {{"min", 1}, {"max", 2}}), 3);
  Expected<DimExpr> expr = DimExpr::parse("max(0, N - 1) + min(B, N)");
  ASSERT_TRUE(expr.ok()) << expr.message();
  EXPECT_EQ(expr->names(), (std::vector<std::string>{"B", "N"}));
  EXPECT_FALSE(expr->asName());
  EXPECT_NE(evalError("max(1, X)").find("`X` is not bound"), std::string::npos);
  EXPECT_NE(evalError("max(1, 9223372036854775807 + 1)").find("overflows"), std::string::npos);
  EXPECT_NE(evalError("max()").find("`max` needs at least one operand"), std::string::npos);
  EXPECT_NE(evalError("max(1, )").find("unexpected `)`"), std::string::npos);
  EXPECT_NE(evalError("max(1, 2").find("expected `,` or `)`"), std::string::npos);
  EXPECT_NE(evalError("max(1 2)").find("expected `,` or `)`"), std::string::npos);
  EXPECT_NE(evalError("len(*S)").find("`len` is not a function"), std::string::npos);
  EXPECT_NE(evalError("prod(*S)").find("`prod` is not a function"), std::string::npos);
  EXPECT_NE(evalError("f(1)").find("`f` is not a function"), std::string::npos);
}

// Every spelling compiler/shape's printer (DimExpr::str) can give an entry's
// shape: sums, products, floor division and modulo (also of quotient atoms,
// printed `n / d`), negated leading divisions, nested min/max.
TEST(DimExprTest, CompilerSpellings) {
  DimEnv env{{"B", 2}, {"S", 7}, {"H", 12}, {"Heads", 4}};
  EXPECT_EQ(eval("3 * H", env), 36);
  EXPECT_EQ(eval("H / Heads / 2", env), 1);
  EXPECT_EQ(eval("B * (H / Heads)", env), 6);
  EXPECT_EQ(eval("1 - S", env), -6);
  EXPECT_EQ(eval("-(H / Heads) + S", env), 4);
  EXPECT_EQ(eval("(S + 1) % Heads", env), 0);
  EXPECT_EQ(eval("S * S * B - 2 * S", env), 84);
  EXPECT_EQ(eval("min(S, max(B, H - 1))", env), 7);
  EXPECT_EQ(eval("max(0, S - 8) + 2 * min(B, S)", env), 4);
  EXPECT_EQ(eval("B * max(0, S - 1)", env), 12);
}

TEST(DimExprTest, Errors) {
  EXPECT_NE(evalError("1 / 0").find("divides by zero"), std::string::npos);
  EXPECT_NE(evalError("1 % (2 - 2)").find("divides by zero"), std::string::npos);
  EXPECT_NE(evalError("9223372036854775807 + 1").find("overflows"), std::string::npos);
  EXPECT_NE(evalError("4294967296 * 4294967296").find("overflows"), std::string::npos);
  EXPECT_NE(evalError("99999999999999999999").find("too large"), std::string::npos);
  EXPECT_NE(evalError("X + 1").find("`X` is not bound"), std::string::npos);
  EXPECT_NE(evalError("(1 + 2").find("expected `)`"), std::string::npos);
  EXPECT_NE(evalError("1 +").find("expected a number"), std::string::npos);
  EXPECT_NE(evalError("").find("expected a number"), std::string::npos);
  EXPECT_NE(evalError("1 2").find("unexpected"), std::string::npos);
  EXPECT_NE(evalError("a.b").find("unexpected"), std::string::npos);
  EXPECT_NE(evalError("S$").find("unexpected"), std::string::npos);
}

TEST(DimExprTest, HostileInputIsBounded) {
  EXPECT_NE(evalError(std::string(2000, '(')).find("longer than"), std::string::npos);
  EXPECT_NE(evalError(std::string(100, '(') + "1" + std::string(100, ')')).find("nested"), std::string::npos);
  EXPECT_NE(evalError(std::string(100, '-') + "1").find("nested"), std::string::npos);
  std::string chain = "1";
  for (int i = 0; i < 200; ++i)
    chain += "+1";
  EXPECT_NE(evalError(chain).find("nested"), std::string::npos);
  std::string calls;
  for (int i = 0; i < 100; ++i)
    calls += "max(1, ";
  EXPECT_NE(evalError(calls + "1" + std::string(100, ')')).find("nested"), std::string::npos);
  // Many operands are one level, however many there are.
  std::string wide = "max(0";
  for (int i = 1; i < 200; ++i)
    wide += ", " + std::to_string(i);
  EXPECT_EQ(eval(wide + ")"), 199);
}

TEST(DimExprTest, NamesAndAsName) {
  Expected<DimExpr> expr = DimExpr::parse("B * S + B");
  ASSERT_TRUE(expr.ok());
  EXPECT_EQ(expr->names(), (std::vector<std::string>{"B", "S"}));
  EXPECT_FALSE(expr->asName());
  Expected<DimExpr> name = DimExpr::parse(" S ");
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(name->asName(), "S");
  EXPECT_EQ(DimExpr::constant(-5).evaluate({}).value(), -5);
  EXPECT_EQ(DimExpr::constant(std::numeric_limits<std::int64_t>::min()).evaluate({}).value(),
            std::numeric_limits<std::int64_t>::min());
}

} // namespace
} // namespace linnet::rt
