// linnet-lower-vectors: a reduction loop whose carried accumulator only
// feeds one multi-reduction per trip (a product along K, 4 rows at a time)
// carries the unreduced lanes instead: combined lane by lane in the loop
// (masked-off lanes as the neutral element), reduced once after it. No
// horizontal reduction is left inside the loop.
// RUN: %linnet-opt %s -linnet-lower-vectors -canonicalize | FileCheck %s

// CHECK-LABEL: func @rows_dot
// CHECK: memref.alloc
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: vector.reduction
// CHECK: arith.addf {{.*}} : vector<4x16xf32>
// CHECK: scf.yield
// CHECK-COUNT-4: vector.reduction <add>
// CHECK: vector.store
func.func @rows_dot(%w: memref<4x64xf32>, %x: memref<64xf32>) -> memref<4xf32> {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<4xf32>
  scf.for %k = %c0 to %c64 step %c16 {
    %a = vector.transfer_read %w[%c0, %k], %pad {in_bounds = [true, true]} : memref<4x64xf32>, vector<4x16xf32>
    %b = vector.transfer_read %x[%k], %pad {in_bounds = [true]} : memref<64xf32>, vector<16xf32>
    %bb = vector.broadcast %b : vector<16xf32> to vector<4x16xf32>
    %p = arith.mulf %a, %bb : vector<4x16xf32>
    %s = vector.transfer_read %acc[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
    %r = vector.multi_reduction <add>, %p, %s [1] : vector<4x16xf32> to vector<4xf32>
    vector.transfer_write %r, %acc[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  }
  return %acc : memref<4xf32>
}

// A masked max over a dynamic extent (the vectorizer's tile of a row-wise
// max): the masked-off lanes are -inf in the carried lanes.
// CHECK-LABEL: func @masked_row_max
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<4x16xf32>
// CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
// CHECK-NOT: vector.reduction
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[NEG]] : vector<4x16xi1>, vector<4x16xf32>
// CHECK: arith.maximumf {{.*}} : vector<4x16xf32>
// CHECK: scf.yield
// CHECK-COUNT-4: vector.reduction <maximumf>
#row = affine_map<(d0)[s0] -> (-d0 + s0, 16)>
func.func @masked_row_max(%x: memref<4x?xf32>) -> memref<4xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %acc = memref.alloc() : memref<4xf32>
  %n = memref.dim %x, %c1 : memref<4x?xf32>
  scf.for %k = %c0 to %n step %c16 {
    %left = affine.min #row(%k)[%n]
    %tile = memref.subview %x[0, %k] [4, %left] [1, 1] : memref<4x?xf32> to memref<4x?xf32, strided<[?, 1], offset: ?>>
    %m = vector.create_mask %c4, %left : vector<4x16xi1>
    %v = vector.mask %m { vector.transfer_read %tile[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x?xf32, strided<[?, 1], offset: ?>>, vector<4x16xf32> } : vector<4x16xi1> -> vector<4x16xf32>
    %s = vector.transfer_read %acc[%c0], %pad {in_bounds = [true]} : memref<4xf32>, vector<4xf32>
    %r = vector.mask %m { vector.multi_reduction <maximumf>, %v, %s [1] : vector<4x16xf32> to vector<4xf32> } : vector<4x16xi1> -> vector<4xf32>
    vector.transfer_write %r, %acc[%c0] {in_bounds = [true]} : vector<4xf32>, memref<4xf32>
  }
  return %acc : memref<4xf32>
}
