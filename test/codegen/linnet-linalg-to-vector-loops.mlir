// linnet-linalg-to-parallel-loops with vector-length: an op whose innermost
// loop every operand indexes contiguously (or not at all) becomes tile
// loops over vectors, masked where the extent is not a multiple; ops that
// divide integers, move i1, read strided or are short stay scalar loops.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=vector-length=16 -canonicalize | FileCheck %s
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=vector-length=0 -canonicalize | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// Dynamic extent: vectors of 16, the last one masked.
// CHECK-LABEL: func @dynamic_exp
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c16
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[M:.*]] = vector.create_mask %[[N]] : vector<16xi1>
// CHECK: vector.mask %[[M]] { vector.transfer_read
// CHECK: math.exp %{{.*}} : vector<16xf32>
// CHECK: vector.mask %[[M]] { vector.transfer_write
// OFF-LABEL: func @dynamic_exp
// OFF-NOT: vector.
func.func @dynamic_exp(%a: memref<?xf32>, %b: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = math.exp %x : f32
    linalg.yield %0 : f32
  }
  return
}

// An operand that does not read the innermost loop (a per-row scale) is
// read as a broadcast (a permutation map with a constant 0).
// CHECK-LABEL: func @broadcasts
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: vector.transfer_read {{.*}} permutation_map = {{.*}} vector<1x16xf32>
// CHECK: arith.mulf {{.*}} : vector<1x16xf32>
func.func @broadcasts(%a: memref<8x64xf32>, %r: memref<8xf32>, %b: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %r : memref<8x64xf32>, memref<8xf32>) outs(%b : memref<8x64xf32>) {
  ^bb0(%x: f32, %s: f32, %y: f32):
    %0 = arith.mulf %x, %s : f32
    linalg.yield %0 : f32
  }
  return
}

// An innermost reduction sums each vector into the accumulator.
// CHECK-LABEL: func @row_sum
// CHECK: vector.multi_reduction <add>
func.func @row_sum(%a: memref<8x64xf32>, %b: memref<8xf32>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xf32>) outs(%b : memref<8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.addf %x, %y : f32
    linalg.yield %0 : f32
  }
  return
}

// Integer division would trap in masked-off lanes (an unguarded divisor;
// linnet-guarded-division.mlir has the guarded ones): scalar loops.
// CHECK-LABEL: func @integer_division
// CHECK-NOT: vector.
// CHECK: arith.divsi {{.*}} : i32
func.func @integer_division(%a: memref<?xi32>, %b: memref<?xi32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<?xi32>) outs(%b : memref<?xi32>) {
  ^bb0(%x: i32, %y: i32):
    %0 = arith.divsi %y, %x : i32
    linalg.yield %0 : i32
  }
  return
}

// i1 lanes would be bit-packed in a vector load: scalar loops.
// CHECK-LABEL: func @booleans
// CHECK-NOT: vector.
// CHECK: arith.xori {{.*}} : i1
func.func @booleans(%a: memref<64xi1>, %b: memref<64xi1>) {
  %true = arith.constant true
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xi1>) outs(%b : memref<64xi1>) {
  ^bb0(%x: i1, %y: i1):
    %0 = arith.xori %x, %true : i1
    linalg.yield %0 : i1
  }
  return
}

// A transpose reads the innermost loop with a stride: scalar loops.
// CHECK-LABEL: func @transpose
// CHECK-NOT: vector.
// CHECK: memref.load
func.func @transpose(%a: memref<64x64xf32>, %b: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x64xf32>) outs(%b : memref<64x64xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}

// A reduction into bf16 would need bf16 vector reductions: scalar loops.
// CHECK-LABEL: func @bf16_reduction
// CHECK-NOT: vector.
func.func @bf16_reduction(%a: memref<8x64xbf16>, %b: memref<8xbf16>) {
  linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<8x64xbf16>) outs(%b : memref<8xbf16>) {
  ^bb0(%x: bf16, %y: bf16):
    %0 = arith.maximumf %x, %y : bf16
    linalg.yield %0 : bf16
  }
  return
}
