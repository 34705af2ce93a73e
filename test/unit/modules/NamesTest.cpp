// The fixed name tables: prelude (spec §2.3), keywords and reserved words
// (spec §1.4), kernel builtins, identifiers.
#include <gtest/gtest.h>

#include "compiler/modules/Names.h"

namespace linnet::modules {
namespace {

TEST(Names, Prelude) {
  for (const char* name :
       {"bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
        "Tensor", "Dim", "Shape", "DType", "Numeric", "Integer", "Float", "cast", "reshape",
        "permute", "broadcast_to", "concat", "pad", "iota", "fill", "cumsum", "gather", "scatter",
        "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "abs", "min", "max", "shl", "shr",
        "select"})
    EXPECT_TRUE(isPreludeName(name)) << name;
  // Library ops and reduction keywords are not prelude names.
  for (const char* name : {"linear", "softmax", "sum", "prod", "any", "all", "axis", "i4", "load"})
    EXPECT_FALSE(isPreludeName(name)) << name;
  PreludeKind kind;
  ASSERT_TRUE(isPreludeName("f32", &kind));
  EXPECT_EQ(kind, PreludeKind::ScalarType);
  ASSERT_TRUE(isPreludeName("Numeric", &kind));
  EXPECT_EQ(kind, PreludeKind::Constraint);
  ASSERT_TRUE(isPreludeName("Tensor", &kind));
  EXPECT_EQ(kind, PreludeKind::TensorType);
  ASSERT_TRUE(isPreludeName("select", &kind));
  EXPECT_EQ(kind, PreludeKind::Function);
}

TEST(Names, KeywordsAndReservedWords) {
  EXPECT_TRUE(isKeyword("module"));
  EXPECT_TRUE(isKeyword("kernel"));
  EXPECT_TRUE(isKeyword("yield"));
  EXPECT_TRUE(isKeyword("extern"));
  EXPECT_FALSE(isKeyword("grad"));
  EXPECT_FALSE(isKeyword("sum"));
  EXPECT_TRUE(isReservedWord("async"));
  EXPECT_TRUE(isReservedWord("device"));
  EXPECT_FALSE(isReservedWord("random"));
  EXPECT_FALSE(isReservedWord("kernel"));
}

TEST(Names, Identifiers) {
  EXPECT_TRUE(isIdentifier("a"));
  EXPECT_TRUE(isIdentifier("_x9"));
  EXPECT_TRUE(isIdentifier("Phi3"));
  EXPECT_FALSE(isIdentifier(""));
  EXPECT_FALSE(isIdentifier("9a"));
  EXPECT_FALSE(isIdentifier("my-model"));
  EXPECT_FALSE(isIdentifier("caf\xC3\xA9"));
}

TEST(Names, KernelBuiltins) {
  for (const char* name : {"program_id", "load", "store", "atomic_add", "atomic_max", "atomic_min"})
    EXPECT_TRUE(isKernelBuiltin(name)) << name;
  EXPECT_FALSE(isKernelBuiltin("grid"));
}

}  // namespace
}  // namespace linnet::modules
