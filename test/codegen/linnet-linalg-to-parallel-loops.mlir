// linnet-linalg-to-parallel-loops: linalg ops on buffers become loops; a
// large op's leading parallel loops (not the innermost one) also become an
// scf.parallel chosen by an scf.if on the iteration count; reductions stay
// sequential scf.for inside; small ops stay sequential only.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops -canonicalize | FileCheck %s
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=min-work=0 | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A large elementwise op: static, so the condition folds to the parallel
// version over rows; the row's columns are a sequential (vectorized) loop.
// CHECK-LABEL: func @large_elementwise
// CHECK-NOT: scf.if
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %[[J:.*]] =
// CHECK: arith.mulf
// CHECK-NOT: scf.parallel
// OFF-LABEL: func @large_elementwise
// OFF-NOT: scf.parallel
func.func @large_elementwise(%a: memref<1024x1024xf32>, %b: memref<1024x1024xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<1024x1024xf32>) outs(%b : memref<1024x1024xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// A small op stays on one thread.
// CHECK-LABEL: func @small_elementwise
// CHECK-NOT: scf.parallel
// CHECK-NOT: scf.if
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.mulf
func.func @small_elementwise(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// A row reduction: rows in parallel, each row's sum in order in an scf.for.
// CHECK-LABEL: func @row_sum
// CHECK: scf.parallel (%[[I:.*]]) =
// CHECK: scf.for %[[K:.*]] =
// CHECK: arith.addf
func.func @row_sum(%a: memref<512x512xf32>, %s: memref<512xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<512x512xf32>) outs(%s : memref<512xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %acc, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// A reduction over the outer dimension is never parallel.
// CHECK-LABEL: func @column_sum
// CHECK-NOT: scf.parallel
func.func @column_sum(%a: memref<512x512xf32>, %s: memref<512xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #row],
                  iterator_types = ["reduction", "parallel"]}
      ins(%a : memref<512x512xf32>) outs(%s : memref<512xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %0 = arith.addf %acc, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// Dynamic shapes: the choice is made at run time, the sequential nest kept
// in the else branch.
// CHECK-LABEL: func @dynamic
// CHECK: %[[C65536:.*]] = arith.constant 65536 : index
// CHECK: arith.cmpi sge, %{{.*}}, %[[C65536]]
// CHECK: scf.if
// CHECK: scf.parallel
// CHECK: } else {
// CHECK: scf.for
// CHECK: scf.for
func.func @dynamic(%a: memref<?x?xf32>, %b: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<?x?xf32>) outs(%b : memref<?x?xf32>) {
  ^bb0(%x: f32, %y: f32):
    %0 = arith.mulf %x, %x : f32
    linalg.yield %0 : f32
  }
  return
}

// The program's own loops (state, generate) are not linalg ops: untouched.
// CHECK-LABEL: func @program_loop
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
func.func @program_loop(%buf: memref<1048576xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %buf[%i] : memref<1048576xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %buf[%i] : memref<1048576xf32>
  }
  return
}
