// Matrix products whose weights' rows lie in order, w[.., k, o] (attention's
// probabilities times values, `matmul` of a row-major matrix), with
// vector-length on linnet-linalg-to-parallel-loops: the result is kept in
// registers over all of k, in blocks of up to 12 tokens x 3 vectors of rows
// (24 accumulators at 16 lanes), each step loading the block's row vectors
// of w[k] once, widened where they are narrower, and broadcasting each
// token's x[t, k] against them. Blocks of 8, 4, then 1 token where there are
// 3 vectors; the last panel is masked where the rows end inside it. Threads
// share the weights' batch points and the panels.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 min-work=1024" -canonicalize | FileCheck %s
// Without vectors, plain loops.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops -canonicalize | FileCheck %s --check-prefix=SCALAR
// SCALAR-NOT: vector.

#p = affine_map<(h, q, d, k) -> (h, q, k)>
#v = affine_map<(h, q, d, k) -> (h, k, d)>
#r = affine_map<(h, q, d, k) -> (h, q, d)>

// Attention's mix per head: 96 rows, two panels of 3 vectors; the heads and
// panels shared by threads; blocks of 8, 4, then 1 query.
// CHECK-LABEL: func @mix
// CHECK: scf.if
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c4, %c96) step (%c1, %c48) {
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c8 {
// CHECK-COUNT-24: vector.load %{{.*}} : memref<4x?x96xf32>, vector<16xf32>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-COUNT-3: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: memref.load %{{.*}} : memref<4x?x?xf32>
// CHECK: vector.broadcast %{{.*}} : f32 to vector<16xf32>
// CHECK-COUNT-3: arith.mulf
// CHECK: scf.yield
// CHECK-COUNT-24: vector.store %{{.*}} : memref<4x?x96xf32>, vector<16xf32>
// CHECK: step %c4 {
// CHECK: iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: step %c1 {
// CHECK: iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-NOT: vector.maskedload
// CHECK: } else {
func.func @mix(%p: memref<4x?x?xf32>, %v: memref<4x?x96xbf16>, %out: memref<4x?x96xf32>) {
  linalg.generic {indexing_maps = [#p, #v, #r], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<4x?x?xf32>, memref<4x?x96xbf16>) outs(%out : memref<4x?x96xf32>) {
  ^bb0(%a: f32, %b: bf16, %acc: f32):
    %be = arith.extf %b : bf16 to f32
    %m = arith.mulf %a, %be : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>

// 40 rows: one panel of 3 vectors, the last one masked (loads of the result
// and of b, stores of the result); one panel, so one thread.
// CHECK-LABEL: func @matmul_rows40
// CHECK: vector.constant_mask [8] : vector<16xi1>
// CHECK: vector.maskedload %{{.*}} : memref<?x40xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK: scf.for
// CHECK: vector.maskedload %{{.*}} : memref<24x40xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
// CHECK-NOT: arith.extf
// CHECK: vector.maskedstore %{{.*}} : memref<?x40xf32>, vector<16xi1>, vector<16xf32>
func.func @matmul_rows40(%x: memref<?x24xf32>, %w: memref<24x40xf32>, %out: memref<?x40xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x24xf32>, memref<24x40xf32>) outs(%out : memref<?x40xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  }
  return
}

#x1 = affine_map<(o, k) -> (k)>
#w1 = affine_map<(o, k) -> (k, o)>
#o1 = affine_map<(o, k) -> (o)>

// One token (a vector times a matrix): a single block, no token loop.
// CHECK-LABEL: func @vector_matrix
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: memref.load %{{.*}} : memref<64xf32>
func.func @vector_matrix(%x: memref<64xf32>, %w: memref<64x48xbf16>, %out: memref<48xf32>) {
  linalg.generic {indexing_maps = [#x1, #w1, #o1], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : memref<64xf32>, memref<64x48xbf16>) outs(%out : memref<48xf32>) {
  ^bb0(%l: f32, %r: bf16, %acc: f32):
    %re = arith.extf %r : bf16 to f32
    %m = arith.mulf %l, %re : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// Not a multiply-add (the product is scaled): d moves innermost and
// vectorizes with the result as its accumulator (interchangeForVectors).
// CHECK-LABEL: func @scaled
// CHECK-NOT: iter_args
// CHECK: vector.transfer_read
func.func @scaled(%x: memref<?x24xf32>, %w: memref<24x40xf32>, %out: memref<?x40xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x24xf32>, memref<24x40xf32>) outs(%out : memref<?x40xf32>) {
  ^bb0(%l: f32, %r: f32, %acc: f32):
    %m = arith.mulf %l, %r : f32
    %two = arith.constant 2.0 : f32
    %m2 = arith.mulf %m, %two : f32
    %s = arith.addf %m2, %acc : f32
    linalg.yield %s : f32
  }
  return
}
