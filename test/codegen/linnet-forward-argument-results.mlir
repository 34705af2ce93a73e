// linnet-forward-argument-results drops a private function's results that are
// one of its buffer arguments (directly or through a cast); each call's use
// reads the operand it passed. Public functions (entries) keep their ABI, and
// a result that is an argument on one path only is kept.
// RUN: %linnet-opt %s -linnet-forward-argument-results | FileCheck %s

// CHECK-LABEL: func.func private @layer(%arg0: memref<4xf32>, %arg1: memref<4xf32>) -> memref<4xf32>
// CHECK: return %{{.*}} : memref<4xf32>
func.func private @layer(%state: memref<4xf32>, %x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %fresh = memref.alloc() : memref<4xf32>
  memref.copy %x, %fresh : memref<4xf32> to memref<4xf32>
  memref.copy %x, %state : memref<4xf32> to memref<4xf32>
  return %fresh, %state : memref<4xf32>, memref<4xf32>
}

// CHECK-LABEL: func.func private @cast_back(%arg0: memref<4xf32>) {
// CHECK: return{{$}}
func.func private @cast_back(%state: memref<4xf32>) -> memref<?xf32> {
  %c = memref.cast %state : memref<4xf32> to memref<?xf32>
  return %c : memref<?xf32>
}

// CHECK-LABEL: func.func private @sometimes(%arg0: i1, %arg1: memref<4xf32>) -> memref<4xf32>
func.func private @sometimes(%p: i1, %state: memref<4xf32>) -> memref<4xf32> {
  cf.cond_br %p, ^a, ^b
^a:
  return %state : memref<4xf32>
^b:
  %fresh = memref.alloc() : memref<4xf32>
  return %fresh : memref<4xf32>
}

// CHECK-LABEL: func.func @entry(%arg0: memref<4xf32>, %arg1: memref<4xf32>) -> memref<4xf32>
// CHECK: %[[Y:.*]] = call @layer(%arg0, %arg1) : (memref<4xf32>, memref<4xf32>) -> memref<4xf32>
// CHECK: call @cast_back(%arg0) : (memref<4xf32>) -> ()
// CHECK: %[[C:.*]] = memref.cast %arg0 : memref<4xf32> to memref<?xf32>
// CHECK: memref.copy %arg0, %arg1
// CHECK: memref.copy %[[C]], %[[C]]
// CHECK: return %arg0
func.func @entry(%state: memref<4xf32>, %x: memref<4xf32>) -> memref<4xf32> {
  %y:2 = call @layer(%state, %x) : (memref<4xf32>, memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  %z = call @cast_back(%state) : (memref<4xf32>) -> memref<?xf32>
  memref.copy %y#1, %x : memref<4xf32> to memref<4xf32>
  memref.copy %z, %z : memref<?xf32> to memref<?xf32>
  return %state : memref<4xf32>
}
