// Type: construction, dtype classes, the two printers, instantiation.
#include <gtest/gtest.h>

#include "compiler/check/Type.h"

namespace linnet::check {
namespace {

ast::GenericParam generic(const char* name, uint32_t offset, ast::GenericKind kind,
                          bool pack = false) {
  ast::GenericParam g;
  g.name.name = name;
  g.name.span = Span{1, offset, offset + 1};
  g.constraint = kind;
  g.isPack = pack;
  return g;
}

TEST(TypeTest, PrintsTensorsInTheUsersGenerics) {
  auto b = generic("B", 1, ast::GenericKind::Dim);
  auto s = generic("S", 2, ast::GenericKind::Dim);
  auto h = generic("H", 3, ast::GenericKind::Dim);
  auto t = generic("T", 4, ast::GenericKind::Float);
  Type x = Type::tensor({dimSymbol(b), dimSymbol(s), shape::DimExpr::constant(3) * dimSymbol(h)},
                        DType::ofGeneric(&t));
  EXPECT_EQ(str(x), "Tensor[B, S, 3 * H; T]");
  EXPECT_EQ(compactStr(x), "T[B, S, 3 * H]");
  Type ids = Type::tensor({dimSymbol(b), dimSymbol(s)}, DType::of(ast::ScalarType::I32));
  EXPECT_EQ(compactStr(ids), "i32[B, S]");
  EXPECT_EQ(str(Type::scalar(DType::of(ast::ScalarType::F32))), "f32");
  EXPECT_EQ(str(Type::optional(ids)), "Tensor[B, S; i32]?");
  EXPECT_EQ(str(Type::tuple({ids, Type::scalar(DType::of(ast::ScalarType::Bool))})),
            "(Tensor[B, S; i32], bool)");
}

TEST(TypeTest, PrintsPacks) {
  auto s = generic("S", 1, ast::GenericKind::Shape, true);
  auto n = generic("N", 2, ast::GenericKind::Dim);
  Type x = Type::tensor({packOf(s), dimSymbol(n)}, DType::of(ast::ScalarType::BF16));
  EXPECT_EQ(str(x), "Tensor[*S, N; bf16]");
  EXPECT_TRUE(x.hasPack());
  EXPECT_FALSE(x.rank().has_value());
}

TEST(TypeTest, DTypeClassesFollowGenericBounds) {
  auto f = generic("T", 1, ast::GenericKind::Float);
  auto any = generic("U", 2, ast::GenericKind::DType);
  EXPECT_TRUE(isFloat(DType::ofGeneric(&f)));
  EXPECT_TRUE(isNumeric(DType::ofGeneric(&f)));
  EXPECT_FALSE(isNumeric(DType::ofGeneric(&any)));
  EXPECT_TRUE(satisfies(DType::ofGeneric(&f), ast::GenericKind::Numeric));
  EXPECT_FALSE(satisfies(DType::ofGeneric(&any), ast::GenericKind::Float));
  EXPECT_FALSE(satisfies(DType::of(ast::ScalarType::Bool), ast::GenericKind::Numeric));
  EXPECT_TRUE(satisfies(DType::of(ast::ScalarType::U8), ast::GenericKind::Integer));
}

TEST(TypeTest, InstantiatesDimsPacksAndDTypes) {
  auto s = generic("S", 1, ast::GenericKind::Shape, true);
  auto in = generic("In", 2, ast::GenericKind::Dim);
  auto t = generic("T", 3, ast::GenericKind::Float);
  auto b = generic("B", 10, ast::GenericKind::Dim);
  auto h = generic("H", 11, ast::GenericKind::Dim);
  Type pattern = Type::tensor({packOf(s), dimSymbol(in)}, DType::ofGeneric(&t));
  Substitution subst;
  subst.shapes.packs[symbolIdOf(s)] = {dimSymbol(b)};
  subst.shapes.dims[symbolIdOf(in)] = shape::DimExpr::constant(2) * dimSymbol(h);
  subst.dtypes[&t] = DType::of(ast::ScalarType::F16);
  EXPECT_EQ(str(instantiate(pattern, subst)), "Tensor[B, 2 * H; f16]");
}

// `t = t.optionalInner()` assigns a part of `t` to `t`: the part must be
// copied before the old value, which owns it, is released (a sub-block's
// optional type crashed the binder this way).
TEST(TypeTest, AssignsItsOwnPart) {
  auto b = generic("B", 1, ast::GenericKind::Dim);
  Type inner = Type::tuple({Type::tensor({dimSymbol(b)}, DType::of(ast::ScalarType::F32)),
                            Type::scalar(DType::of(ast::ScalarType::I32))});
  Type t = Type::optional(inner);
  t = t.optionalInner();
  EXPECT_EQ(str(t), "(Tensor[B; f32], i32)");
  Type nested = Type::tuple({Type::optional(inner), inner});
  nested = nested.elements().front();
  EXPECT_EQ(str(nested), "(Tensor[B; f32], i32)?");
}

}  // namespace
}  // namespace linnet::check
