// End-to-end tests of the CPU pipeline: each module is compiled to a shared
// object, loaded, and its entries called through `linnet_entry_<name>` with
// descriptors built here; results are checked against plain C++ and freed
// with free(), as the runtime does.
#include <cmath>
#include <cstdlib>
#include <limits>

#include <gtest/gtest.h>

#include "test/unit/codegen/CodegenTestUtil.h"

namespace linnet::codegen::testing {
namespace {

#define ASSERT_COMPILED(m) ASSERT_TRUE((m).ok()) << (m).error()

TEST(CodegenEntry, RmsNormWithDynamicDim) {
  CompiledModule m(R"mlir(
    func.func @rms(%n: index, %x: tensor<?x8xf32>) -> tensor<?x8xf32> attributes {linnet.entry = "rms"} {
      %sq = linnet.binary <mul> %x, %x : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
      %s = linnet.reduce <sum> %sq {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
      %c8 = arith.constant dense<8.0> : tensor<f32>
      %eps = arith.constant dense<1.0e-5> : tensor<f32>
      %m = linnet.binary <div> %s, %c8 : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
      %e = linnet.binary <add> %m, %eps : tensor<?xf32>, tensor<f32> -> tensor<?xf32>
      %r = linnet.unary <rsqrt> %e : tensor<?xf32> -> tensor<?xf32>
      %r1 = linnet.reshape %r dims(%n) : tensor<?xf32> to tensor<?x1xf32>
      %y = linnet.binary <mul> %x, %r1 : tensor<?x8xf32>, tensor<?x1xf32> -> tensor<?x8xf32>
      return %y : tensor<?x8xf32>
    })mlir");
  ASSERT_COMPILED(m);
  EntryFn rms = m.entry("rms");
  ASSERT_NE(rms, nullptr);
  // Only the entry symbols are exported.
  EXPECT_EQ(m.symbol("_mlir_ciface_rms"), nullptr);
  EXPECT_EQ(m.symbol("rms"), nullptr);

  int64_t n = 5;
  std::vector<float> x(n * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37f * i) * (1 + i % 3);
  auto xd = view<2>(x, {n, 8});
  MemRef<float, 2> result;
  void* slots[] = {&result, &n, &xd};
  rms(slots);
  ASSERT_EQ(result.sizes[0], n);
  ASSERT_EQ(result.sizes[1], 8);
  for (int64_t r = 0; r < n; ++r) {
    float ss = 0;
    for (int c = 0; c < 8; ++c) ss += x[r * 8 + c] * x[r * 8 + c];
    float scale = 1.0f / std::sqrt(ss / 8 + 1e-5f);
    for (int c = 0; c < 8; ++c)
      EXPECT_NEAR(result.at(r * 8 + c), x[r * 8 + c] * scale, 1e-5f) << r << "," << c;
  }
  free(result.allocated);
}

TEST(CodegenEntry, MatmulBf16InputsF32AccumulationTwoResults) {
  CompiledModule m(R"mlir(
    func.func @mm(%m: index, %a: tensor<?x16xbf16>, %b: tensor<16x8xbf16>) -> (tensor<?x8xf32>, tensor<?x8xbf16>) attributes {linnet.entry = "matmul"} {
      %r = linnet.notation ins(%a, %b : tensor<?x16xbf16>, tensor<16x8xbf16>) extents(%m) attributes {
          extents = array<i64: -9223372036854775808, 8, 16>,
          indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>],
          output_dims = array<i64: 0, 1>, reduction = #linnet.reduction<sum>} {
      ^bb0(%i: index, %j: index, %k: index, %x: bf16, %y: bf16):
        %xf = arith.extf %x : bf16 to f32
        %yf = arith.extf %y : bf16 to f32
        %p = arith.mulf %xf, %yf : f32
        linnet.yield %p : f32
      } : tensor<?x8xf32>
      %h = linnet.cast %r : tensor<?x8xf32> to tensor<?x8xbf16>
      return %r, %h : tensor<?x8xf32>, tensor<?x8xbf16>
    })mlir");
  ASSERT_COMPILED(m);
  EntryFn mm = m.entry("matmul");
  ASSERT_NE(mm, nullptr);
  int64_t rows = 3;
  std::vector<uint16_t> a(rows * 16), b(16 * 8);
  for (size_t i = 0; i < a.size(); ++i) a[i] = toBF16(0.25f * static_cast<float>(i % 7) - 0.5f);
  for (size_t i = 0; i < b.size(); ++i) b[i] = toBF16(0.125f * static_cast<float>(i % 5) - 0.3f);
  auto ad = view<2>(a, {rows, 16});
  auto bd = view<2>(b, {16, 8});
  struct {
    MemRef<float, 2> f32;
    MemRef<uint16_t, 2> bf16;
  } results;
  static_assert(sizeof(results) == 2 * (3 + 4) * 8, "descriptors are laid out consecutively");
  void* slots[] = {&results, &rows, &ad, &bd};
  mm(slots);
  ASSERT_EQ(results.f32.sizes[0], rows);
  ASSERT_EQ(results.bf16.sizes[1], 8);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < 16; ++k) acc += fromBF16(a[i * 16 + k]) * fromBF16(b[k * 8 + j]);
      EXPECT_NEAR(results.f32.at(i * 8 + j), acc, 1e-4f);
      EXPECT_EQ(results.bf16.at(i * 8 + j), toBF16(results.f32.at(i * 8 + j)));
    }
  free(results.f32.allocated);
  free(results.bf16.allocated);
}

TEST(CodegenEntry, GatherThroughTensorExtract) {
  CompiledModule m(R"mlir(
    func.func @gather(%s: index, %table: tensor<10x4xf32>, %ids: tensor<?xi32>) -> tensor<?x4xf32> attributes {linnet.entry = "gather"} {
      %r = linnet.notation ins(%ids : tensor<?xi32>) extents(%s) attributes {
          extents = array<i64: -9223372036854775808, 4>,
          indexing_maps = [affine_map<(s, h) -> (s)>],
          output_dims = array<i64: 0, 1>, reduction = #linnet.reduction<none>} {
      ^bb0(%i: index, %h: index, %id: i32):
        %idx = arith.index_cast %id : i32 to index
        %v = tensor.extract %table[%idx, %h] : tensor<10x4xf32>
        linnet.yield %v : f32
      } : tensor<?x4xf32>
      return %r : tensor<?x4xf32>
    })mlir");
  ASSERT_COMPILED(m);
  int64_t s = 6;
  std::vector<float> table(40);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) * 1.5f;
  std::vector<int32_t> ids{3, 0, 9, 3, 7, 1};
  auto td = view<2>(table, {10, 4});
  auto id = view<1>(ids, {s});
  MemRef<float, 2> result;
  void* slots[] = {&result, &s, &td, &id};
  m.entry("gather")(slots);
  for (int64_t i = 0; i < s; ++i)
    for (int64_t h = 0; h < 4; ++h) EXPECT_EQ(result.at(i * 4 + h), table[ids[i] * 4 + h]);
  free(result.allocated);
}

TEST(CodegenEntry, Reductions) {
  CompiledModule m(R"mlir(
    func.func @red(%n: index, %x: tensor<?x3xi32>, %y: tensor<?x3xi16>) -> (tensor<3xi32>, tensor<?xi32>, tensor<i1>) attributes {linnet.entry = "red"} {
      %max = linnet.reduce <max> %x {axes = array<i64: 0>} : tensor<?x3xi32> -> tensor<3xi32>
      %sum = linnet.reduce <sum> %y {axes = array<i64: 1>} : tensor<?x3xi16> -> tensor<?xi32>
      %zero = arith.constant dense<0> : tensor<i32>
      %neg = linnet.binary <lt> %x, %zero : tensor<?x3xi32>, tensor<i32> -> tensor<?x3xi1>
      %any = linnet.reduce <any> %neg {axes = array<i64: 0, 1>} : tensor<?x3xi1> -> tensor<i1>
      return %max, %sum, %any : tensor<3xi32>, tensor<?xi32>, tensor<i1>
    })mlir");
  ASSERT_COMPILED(m);
  int64_t n = 4;
  std::vector<int32_t> x{-5, 2, -7, -1, 9, -8, -3, 4, -9, -2, 0, -6};
  std::vector<int16_t> y{30000, 30000, 30000, -1, -2, -3, 7, 8, 9, 0, 0, 1};
  auto xd = view<2>(x, {n, 3});
  auto yd = view<2>(y, {n, 3});
  struct {
    MemRef<int32_t, 1> max;
    MemRef<int32_t, 1> sum;
    MemRef<bool, 0> any;
  } r;
  void* slots[] = {&r, &n, &xd, &yd};
  m.entry("red")(slots);
  EXPECT_EQ(r.max.values(), (std::vector<int32_t>{-1, 9, -6}));
  EXPECT_EQ(r.sum.values(), (std::vector<int32_t>{90000, -6, 24, 1}));
  EXPECT_TRUE(r.any.aligned[r.any.offset]);
  free(r.max.allocated);
  free(r.sum.allocated);
  free(r.any.allocated);
}

TEST(CodegenEntry, SlicesWithStepsAndDroppedAxes) {
  CompiledModule m(R"mlir(
    func.func @sl(%n: index, %k: index, %x: tensor<?x8xf32>) -> (tensor<?x3xf32>, tensor<6xf32>) attributes {linnet.entry = "slice"} {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %a = linnet.slice %x[%c1, %c0] sizes(%k) {steps = array<i64: 2, 3>} : tensor<?x8xf32> -> tensor<?x3xf32>
      %b = linnet.slice %x[%c2, %c2] {dropped_axes = array<i64: 0>, steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<6xf32>
      return %a, %b : tensor<?x3xf32>, tensor<6xf32>
    })mlir");
  ASSERT_COMPILED(m);
  int64_t n = 6, k = 2;
  std::vector<float> x(n * 8);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  auto xd = view<2>(x, {n, 8});
  struct {
    MemRef<float, 2> a;
    MemRef<float, 1> b;
  } r;
  void* slots[] = {&r, &n, &k, &xd};
  m.entry("slice")(slots);
  ASSERT_EQ(r.a.sizes[0], k);
  EXPECT_EQ(r.a.values(), (std::vector<float>{8, 11, 14, 24, 27, 30}));
  EXPECT_EQ(r.b.values(), (std::vector<float>{18, 19, 20, 21, 22, 23}));
  free(r.a.allocated);
  free(r.b.allocated);
}

TEST(CodegenEntry, ConcatCumsumIotaPermute) {
  CompiledModule m(R"mlir(
    func.func @misc(%n: index, %a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> (tensor<?x5xf32>, tensor<5x?xf32>, tensor<?xi64>) attributes {linnet.entry = "misc"} {
      %c = linnet.concat %a, %b {axis = 1 : i64} : tensor<?x2xf32>, tensor<?x3xf32> -> tensor<?x5xf32>
      %s = linnet.cumsum %c {axis = 1 : i64} : tensor<?x5xf32>
      %t = linnet.permute %s [1, 0] : tensor<?x5xf32> -> tensor<5x?xf32>
      %i = linnet.iota dims(%n) : tensor<?xi64>
      return %c, %t, %i : tensor<?x5xf32>, tensor<5x?xf32>, tensor<?xi64>
    })mlir");
  ASSERT_COMPILED(m);
  int64_t n = 2;
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40, 50, 60};
  auto ad = view<2>(a, {n, 2});
  auto bd = view<2>(b, {n, 3});
  struct {
    MemRef<float, 2> concat;
    MemRef<float, 2> cumsumT;
    MemRef<int64_t, 1> iota;
  } r;
  void* slots[] = {&r, &n, &ad, &bd};
  m.entry("misc")(slots);
  EXPECT_EQ(r.concat.values(), (std::vector<float>{1, 2, 10, 20, 30, 3, 4, 40, 50, 60}));
  // cumsum rows: [1 3 13 33 63], [3 7 47 97 157]; transposed.
  EXPECT_EQ(r.cumsumT.values(), (std::vector<float>{1, 3, 3, 7, 13, 47, 33, 97, 63, 157}));
  EXPECT_EQ(r.iota.values(), (std::vector<int64_t>{0, 1}));
  free(r.concat.allocated);
  free(r.cumsumT.allocated);
  free(r.iota.allocated);
}

TEST(CodegenEntry, MathApproximationsAndSaturatingCasts) {
  CompiledModule m(R"mlir(
    func.func @math(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi8>) attributes {linnet.entry = "math"} {
      %e = linnet.unary <exp> %x : tensor<8xf32> -> tensor<8xf32>
      %t = linnet.unary <tanh> %x : tensor<8xf32> -> tensor<8xf32>
      %s = linnet.unary <sin> %x : tensor<8xf32> -> tensor<8xf32>
      %i = linnet.cast %x : tensor<8xf32> to tensor<8xi32>
      %u = linnet.cast %x {result_is_unsigned} : tensor<8xf32> to tensor<8xi8>
      return %e, %t, %s, %i, %u : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>, tensor<8xi8>
    })mlir");
  ASSERT_COMPILED(m);
  std::vector<float> x{-3.7f, -0.5f, 0.0f, 0.25f, 1.0f, 3.7f, 2.5e9f, -2.5e9f};
  auto xd = view<1>(x, {8});
  struct {
    MemRef<float, 1> exp, tanh, sin;
    MemRef<int32_t, 1> i32;
    MemRef<uint8_t, 1> u8;
  } r;
  void* slots[] = {&r, &xd};
  m.entry("math")(slots);
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(r.exp.at(i), std::exp(x[i]), 2e-6f * std::exp(x[i])) << x[i];
    EXPECT_NEAR(r.tanh.at(i), std::tanh(x[i]), 2e-6f) << x[i];
    EXPECT_NEAR(r.sin.at(i), std::sin(x[i]), 2e-6f) << x[i];
  }
  EXPECT_EQ(r.i32.values(), (std::vector<int32_t>{-3, 0, 0, 0, 1, 3, std::numeric_limits<int32_t>::max(),
                                                  std::numeric_limits<int32_t>::min()}));
  EXPECT_EQ(r.u8.values(), (std::vector<uint8_t>{0, 0, 0, 0, 1, 3, 255, 0}));
  for (void* p : {(void*)r.exp.allocated, (void*)r.tanh.allocated, (void*)r.sin.allocated,
                  (void*)r.i32.allocated, (void*)r.u8.allocated})
    free(p);
}

TEST(CodegenEntry, ReturnedArgumentIsAFreshAllocation) {
  CompiledModule m(R"mlir(
    func.func @ident(%n: index, %x: tensor<?x4xf32>, %s: tensor<f32>) -> (tensor<?x4xf32>, tensor<f32>) attributes {linnet.entry = "ident"} {
      return %x, %s : tensor<?x4xf32>, tensor<f32>
    })mlir");
  ASSERT_COMPILED(m);
  int64_t n = 3;
  std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, s{42};
  auto xd = view<2>(x, {n, 4});
  auto sd = scalarView(s);
  struct {
    MemRef<float, 2> x;
    MemRef<float, 0> s;
  } r;
  void* slots[] = {&r, &n, &xd, &sd};
  m.entry("ident")(slots);
  EXPECT_NE(r.x.allocated, x.data());
  EXPECT_NE(r.s.allocated, s.data());
  EXPECT_EQ(r.x.values(), x);
  EXPECT_EQ(r.s.aligned[r.s.offset], 42);
  free(r.x.allocated);
  free(r.s.allocated);
}

TEST(CodegenEntry, AliasingResultsAreSeparateAllocations) {
  CompiledModule m(R"mlir(
    func.func @twice(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>) attributes {linnet.entry = "twice"} {
      %y = linnet.unary <neg> %x : tensor<2x3xf32> -> tensor<2x3xf32>
      %z = linnet.reshape %y : tensor<2x3xf32> to tensor<6xf32>
      return %y, %y, %z, %x, %x : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<2x3xf32>, tensor<2x3xf32>
    })mlir");
  ASSERT_COMPILED(m);
  std::vector<float> x{1, 2, 3, 4, 5, 6};
  auto xd = view<2>(x, {2, 3});
  struct {
    MemRef<float, 2> y1, y2;
    MemRef<float, 1> z;
    MemRef<float, 2> x1, x2;
  } r;
  void* slots[] = {&r, &xd};
  m.entry("twice")(slots);
  std::vector<void*> pointers{r.y1.allocated, r.y2.allocated, r.z.allocated, r.x1.allocated,
                              r.x2.allocated, x.data()};
  for (size_t i = 0; i < pointers.size(); ++i)
    for (size_t j = i + 1; j < pointers.size(); ++j) EXPECT_NE(pointers[i], pointers[j]) << i << "," << j;
  std::vector<float> negated{-1, -2, -3, -4, -5, -6};
  EXPECT_EQ(r.y1.values(), negated);
  EXPECT_EQ(r.y2.values(), negated);
  EXPECT_EQ(r.z.values(), negated);
  EXPECT_EQ(r.x2.values(), x);
  for (void* p : {(void*)r.y1.allocated, (void*)r.y2.allocated, (void*)r.z.allocated,
                  (void*)r.x1.allocated, (void*)r.x2.allocated})
    free(p);
}

}  // namespace
}  // namespace linnet::codegen::testing
