// With `tensors`, before bufferization: a call's result that the private
// callee always returns as one of its tensor arguments (through a cast or
// not) is that operand's value, so its uses take the operand; signatures
// stay, and a result that is an argument on one path only is kept. A value
// returned twice is returned the second time as a copy.
// RUN: %linnet-opt %s '-linnet-forward-argument-results=tensors=true' | FileCheck %s

// CHECK-LABEL: func.func private @keep(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
func.func private @keep(%state: tensor<2xf32>, %x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  return %x, %state : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func private @widen(%arg0: tensor<2xf32>) -> tensor<?xf32>
func.func private @widen(%x: tensor<2xf32>) -> tensor<?xf32> {
  %c = tensor.cast %x : tensor<2xf32> to tensor<?xf32>
  return %c : tensor<?xf32>
}

// CHECK-LABEL: func.func private @sometimes(%arg0: i1, %arg1: tensor<2xf32>) -> tensor<2xf32>
func.func private @sometimes(%p: i1, %x: tensor<2xf32>) -> tensor<2xf32> {
  %r = scf.if %p -> tensor<2xf32> {
    scf.yield %x : tensor<2xf32>
  } else {
    %e = tensor.empty() : tensor<2xf32>
    scf.yield %e : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @entry(
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<2xf32>, %[[X:[a-z0-9]+]]: tensor<2xf32>, %[[P:[a-z0-9]+]]: i1
// CHECK: call @keep(%[[S]], %[[X]])
// CHECK: %[[W:.*]] = tensor.cast %[[X]] : tensor<2xf32> to tensor<?xf32>
// CHECK: %[[SOME:.*]] = call @sometimes(%[[P]], %[[X]])
// CHECK: return %[[X]], %[[S]], %[[W]], %[[SOME]]
func.func @entry(%s: tensor<2xf32>, %x: tensor<2xf32>, %p: i1) -> (tensor<2xf32>, tensor<2xf32>, tensor<?xf32>, tensor<2xf32>) {
  %a:2 = call @keep(%s, %x) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  %w = call @widen(%x) : (tensor<2xf32>) -> tensor<?xf32>
  %some = call @sometimes(%p, %x) : (i1, tensor<2xf32>) -> tensor<2xf32>
  return %a#0, %a#1, %w, %some : tensor<2xf32>, tensor<2xf32>, tensor<?xf32>, tensor<2xf32>
}

// The same value returned twice: the second is a copy.
// CHECK-LABEL: func.func private @twice(
// CHECK: %[[V:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2xf32>
// CHECK: %[[C:.*]] = linalg.copy ins(%[[V]] : tensor<2xf32>) outs(%[[E]] : tensor<2xf32>)
// CHECK: return %[[V]], %[[C]]
func.func private @twice(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %v = tensor.empty() : tensor<2xf32>
  return %v, %v : tensor<2xf32>, tensor<2xf32>
}
