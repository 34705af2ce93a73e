// The checker on kernels: the types it records for a kernel's body (tiles,
// `program_id`, the memory a `load` or `store` names), a kernel's signature,
// and one diagnostic per broken kernel rule.
#include <gtest/gtest.h>

#include "compiler/check/Checker.h"
#include "test/unit/check/CheckRun.h"

namespace linnet::check {
namespace {

using testutil::CheckRun;

constexpr const char* kRowKernel = R"(module m

kernel row_scale<R: Dim, C: Dim, B: Dim>(
    x: Tensor[R, C; f32],
    s: f32,
) -> (y: Tensor[R, C; f32], n: Tensor[R; i32]) grid(R)
where B >= C {
    let row = program_id(0)
    let cols = iota<i32>(B)
    let inside = cols < C
    let tile = load(x[row, cols], inside, 0.0)
    let scaled = tile * s
    store(y[row, cols], scaled, inside)
    atomic_add(n[row], 1)
}

op scale_rows<R: Dim, C: Dim>(
    x: Tensor[R, C; f32],
    s: f32,
) -> (Tensor[R, C; f32], Tensor[R; i32]) kernel row_scale<R, C, 64> {
    let n[r] = sum[c] cast<i32>(x[r, c] == x[r, c])
    return (x * s, n)
}
)";

TEST(KernelTest, RecordsTileTypes) {
  auto run = CheckRun::fromText(kRowKernel);
  ASSERT_EQ(run->codes(), "");
  EXPECT_EQ(run->let("row_scale", "row"), "i32");
  EXPECT_EQ(run->let("row_scale", "cols"), "Tensor[B; i32]");
  EXPECT_EQ(run->let("row_scale", "inside"), "Tensor[B; bool]");
  EXPECT_EQ(run->let("row_scale", "tile"), "Tensor[B; f32]");
  EXPECT_EQ(run->let("row_scale", "scaled"), "Tensor[B; f32]");

  // `load(x[row, cols], ...)`: the base is the tensor in memory, the indexed
  // expression the tile it reads.
  const ast::FunctionItem* k = run->function("row_scale");
  ASSERT_NE(k, nullptr);
  auto* let = ast::as<ast::LetStmt>(k->body[3]);
  ASSERT_NE(let, nullptr);
  auto* load = ast::as<ast::CallExpr>(let->value);
  ASSERT_NE(load, nullptr);
  auto* target = ast::as<ast::IndexExpr>(load->args[0].value);
  ASSERT_NE(target, nullptr);
  EXPECT_EQ(run->typeOf(target), "Tensor[B; f32]");
  EXPECT_EQ(run->typeOf(target->base), "Tensor[R, C; f32]");

  // `store(...)` is a statement: Unit; its target is the tile it writes.
  auto* store = ast::as<ast::KernelCallStmt>(k->body[5]);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(run->typeOf(store->call), "()");
  EXPECT_EQ(run->typeOf(store->call->args[0].value), "Tensor[B; f32]");
  auto* atomic = ast::as<ast::KernelCallStmt>(k->body[6]);
  ASSERT_NE(atomic, nullptr);
  EXPECT_EQ(run->typeOf(atomic->call->args[0].value), "i32");
}

TEST(KernelTest, SignatureHasTheResults) {
  auto run = CheckRun::fromText(kRowKernel);
  ASSERT_EQ(run->codes(), "");
  const Signature* sig = run->checked.signatureOf(run->function("row_scale"));
  ASSERT_NE(sig, nullptr);
  EXPECT_TRUE(sig->complete);
  EXPECT_EQ(str(sig->result), "(Tensor[R, C; f32], Tensor[R; i32])");
  ASSERT_EQ(sig->params.size(), 2u);
  EXPECT_EQ(str(sig->params[1]), "f32");
  EXPECT_NE(run->checked.functionOf(run->function("row_scale")), nullptr);
}

TEST(KernelTest, EachBrokenRuleIsOneError) {
  struct Case {
    const char* body;  // the body of `kernel k(x: Tensor[8; f32]) -> y: Tensor[8; f32] grid(1)`
    const char* code;
  };
  const Case cases[] = {
      {"let a = x", "E2127"},                                          // memory read
      {"let a = y", "E2127"},                                          // result as a value
      {"let i = iota<i32>(8)\n store(y[i], load(x[i]))\n atomic_max(y[i], 0.0)", "E2127"},
      {"let i = iota<i32>(8)\n store(x[i], load(x[i]))", "E2127"},      // writes a parameter
      {"let i = iota<i32>(8)\n let v = load(y[i])", "E2127"},          // reads a result
      {"let v = load(x[0:4])", "E2127"},                               // a slice
      {"let v = load(x[1.5])", "E2127"},                               // a float index
      {"let v = load(x[0], 1)", "E2114"},                              // mask not bool
      {"let i = iota<i32>(8)\n store(y[i], 1.0, iota<i32>(4) < 2)", "E2202"},  // mask shape
      {"let i = iota<i32>(8)\n store(y[i], cast<f64>(load(x[i])))", "E2101"},  // value dtype
      {"let v = load(x[0, 0])", "E2204"},                              // rank
      {"let a = program_id(2)", "E2210"},                              // not a grid axis
      {"let i = iota<i32>(8)\n let a = store(y[i], 1.0)", "E2127"},    // store as a value
      {"let i = iota<i32>(8)\n return load(x[i])", "E2127"},           // return
  };
  for (const Case& c : cases) {
    std::string text = std::string("module m\n\nkernel k(x: Tensor[8; f32]) -> y: Tensor[8; f32] "
                                   "grid(1) {\n ") +
                       c.body + "\n}\n";
    auto run = CheckRun::fromText(text);
    EXPECT_EQ(run->codes(), std::string(c.code) + "\n") << c.body;
  }
}

}  // namespace
}  // namespace linnet::check
