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
