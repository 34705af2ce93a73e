// linnet-linalg-to-parallel-loops with vector-length on reductions:
// - rows per pass: a reduction with a static parallel loop outside its
//   innermost one (a multiple of 4) is vectorized 4 rows at a time, the
//   shared operand read once per 4 rows (vector<4x16> tiles);
// - cache tiles: with parallel loops outside the rows too (tokens), the op
//   first runs over tiles of 32 rows x 8 tokens, the tile loops threaded;
// - interchange: a reduction read with a stride whose result's last axis
//   is contiguous gets that axis innermost and vectorizes along it.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=vector-length=16 -canonicalize | FileCheck %s

#w3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#x3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#o3 = affine_map<(d0, d1, d2) -> (d0, d2)>

// A matrix-vector product as partial lanes (a product whose lanes are a
// parallel loop): rows 4 at a time, the vector's lanes broadcast to the 4 rows.
// CHECK-LABEL: func @matvec_partial
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c4
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : memref<4x1x16xf32, {{.*}}>, vector<4x1x16xf32>
// CHECK: vector.transfer_read {{.*}} : memref<1x16xf32, {{.*}}>, vector<4x1x16xf32>
// CHECK: arith.addf %{{.*}} : vector<4x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<4x16xf32>
func.func @matvec_partial(%w: memref<64x16x16xf32>, %x: memref<16x16xf32>, %out: memref<64x16xf32>) {
  linalg.generic {indexing_maps = [#w3, #x3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%w, %x : memref<64x16x16xf32>, memref<16x16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

#wt = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#xt = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#ot = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>

// A matrix product's partial lanes over a dynamic number of tokens: tiles
// of 8 tokens x 32 rows (threaded), inside them 4 rows per pass.
// CHECK-LABEL: func @matmul_partial
// CHECK: scf.if
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%{{.*}}, %c64) step (%c8, %c32)
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK: vector.transfer_read {{.*}} vector<1x4x1x16xf32>
func.func @matmul_partial(%w: memref<64x16x16xf32>, %x: memref<?x16x16xf32>, %out: memref<?x64x16xf32>) {
  linalg.generic {indexing_maps = [#wt, #xt, #ot], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%w, %x : memref<64x16x16xf32>, memref<?x16x16xf32>) outs(%out : memref<?x64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

#p = affine_map<(d0, d1, d2) -> (d0, d2)>
#v = affine_map<(d0, d1, d2) -> (d2, d1)>
#r = affine_map<(d0, d1, d2) -> (d0, d1)>

// Probabilities times values, sum over k of p[q, k] * v[k, d]: the reduction
// k is innermost but v reads it with a stride; d moves innermost and the op
// vectorizes along it (v and the result contiguous, p broadcast).
// CHECK-LABEL: func @probs_times_values
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: vector.transfer_read {{.*}} : memref<1x16xf32, strided<[32, 1], {{.*}}>>, vector<1x1x16xf32>
// CHECK: arith.mulf %{{.*}} : vector<1x1x16xf32>
func.func @probs_times_values(%p: memref<?x64xf32>, %v: memref<64x32xf32>, %out: memref<?x32xf32>) {
  linalg.generic {indexing_maps = [#p, #v, #r], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %v : memref<?x64xf32>, memref<64x32xf32>) outs(%out : memref<?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
