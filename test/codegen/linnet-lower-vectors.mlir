// linnet-lower-vectors: an accumulator read and written at one invariant
// place of a local buffer in a reduction loop is carried in a register;
// masked reductions become a select of the neutral element; what is left
// is 1-D loads, stores and arithmetic. A buffer that may alias (a function
// argument) or that the loop also reads elsewhere keeps its loads/stores.
// RUN: %linnet-opt %s -linnet-lower-vectors -canonicalize | FileCheck %s

// CHECK-LABEL: func @accumulator
// CHECK: memref.alloc
// CHECK: %[[INIT:.*]] = vector.load
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (vector<16xf32>)
// CHECK-NOT: vector.store
// CHECK: arith.addf {{.*}} : vector<16xf32>
// CHECK: scf.yield
// CHECK: vector.store {{.*}} : memref<16xf32>, vector<16xf32>
func.func @accumulator(%w: memref<16x16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16xf32>
  %view = memref.subview %acc[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>
  scf.for %k = %c0 to %c16 step %c1 {
    %row = memref.subview %w[%k, 0] [1, 16] [1, 1] : memref<16x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %x = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<1x16xf32>
    %a = vector.transfer_read %view[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1]>>, vector<16xf32>
    %x1 = vector.shape_cast %x : vector<1x16xf32> to vector<16xf32>
    %s = arith.addf %a, %x1 : vector<16xf32>
    vector.transfer_write %s, %view[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1]>>
  }
  return %acc : memref<16xf32>
}

// A prefetch in the loop (of a row-blocked product's rows) writes
// nothing: the accumulator is still carried.
// CHECK-LABEL: func @accumulator_beside_prefetch
// CHECK: scf.for {{.*}} iter_args(
// CHECK: memref.prefetch
// CHECK-NOT: vector.store
// CHECK: scf.yield
func.func @accumulator_beside_prefetch(%w: memref<16x16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c15 = arith.constant 15 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  %acc = memref.alloc() : memref<16xf32>
  %view = memref.subview %acc[0] [16] [1] : memref<16xf32> to memref<16xf32, strided<[1]>>
  scf.for %k = %c0 to %c16 step %c1 {
    %ahead = arith.addi %k, %c1 : index
    %next = arith.minsi %ahead, %c15 : index
    memref.prefetch %w[%next, %c0], read, locality<3>, data : memref<16x16xf32>
    %row = memref.subview %w[%k, 0] [1, 16] [1, 1] : memref<16x16xf32> to memref<1x16xf32, strided<[16, 1], offset: ?>>
    %x = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[16, 1], offset: ?>>, vector<1x16xf32>
    %a = vector.transfer_read %view[%c0], %pad {in_bounds = [true]} : memref<16xf32, strided<[1]>>, vector<16xf32>
    %x1 = vector.shape_cast %x : vector<1x16xf32> to vector<16xf32>
    %s = arith.addf %a, %x1 : vector<16xf32>
    vector.transfer_write %s, %view[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1]>>
  }
  return %acc : memref<16xf32>
}

// The accumulator is a function argument, which another argument may
// alias: it stays in memory.
// CHECK-LABEL: func @argument_accumulator
// CHECK: scf.for
// CHECK: vector.load
// CHECK: vector.store
func.func @argument_accumulator(%w: memref<16x16xf32>, %acc: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c16 step %c1 {
    %x = vector.transfer_read %w[%k, %c0], %pad {in_bounds = [true]} : memref<16x16xf32>, vector<16xf32>
    %a = vector.transfer_read %acc[%c0], %pad {in_bounds = [true]} : memref<16xf32>, vector<16xf32>
    %s = arith.addf %a, %x : vector<16xf32>
    vector.transfer_write %s, %acc[%c0] {in_bounds = [true]} : vector<16xf32>, memref<16xf32>
  }
  return
}

// A masked max-reduction: masked-off lanes become -inf.
// CHECK-LABEL: func @masked_max
// CHECK: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<16xf32>
// CHECK: %[[KEPT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NEG]] : vector<16xi1>, vector<16xf32>
// CHECK: vector.reduction <maximumf>, %[[KEPT]]
// CHECK-NOT: vector.mask
func.func @masked_max(%v: vector<16xf32>, %n: index, %acc: f32) -> f32 {
  %m = vector.create_mask %n : vector<16xi1>
  %r = vector.mask %m { vector.reduction <maximumf>, %v, %acc : vector<16xf32> into f32 } : vector<16xi1> -> f32
  return %r : f32
}
