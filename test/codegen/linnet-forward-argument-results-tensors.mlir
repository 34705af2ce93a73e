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
// CHECK: %[[R:.*]] = scf.if
// CHECK: %[[RC:.*]] = linalg.copy ins(%[[R]] : tensor<2xf32>)
// CHECK: return %[[RC]]
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

// A result choosing on data between two arguments, or an argument and a
// value that is not its in-place update, is returned as a copy (`@sometimes`
// above too); one choosing between fresh values, or between an argument and
// its own update (a cache written or not), is not.
// CHECK-LABEL: func.func private @chosen(
// CHECK: %[[S:.*]] = arith.select
// CHECK: %[[F:.*]] = arith.select
// CHECK: %[[C:.*]] = linalg.copy ins(%[[S]] : tensor<2xf32>)
// CHECK-NOT: linalg.copy
// CHECK: return %[[C]], %[[F]]
func.func private @chosen(%h: tensor<2xf32>, %x: tensor<2xf32>, %c: i1) -> (tensor<2xf32>, tensor<2xf32>) {
  %s = arith.select %c, %h, %x : tensor<2xf32>
  %a = tensor.empty() : tensor<2xf32>
  %b = tensor.empty() : tensor<2xf32>
  %f = arith.select %c, %a, %b : tensor<2xf32>
  return %s, %f : tensor<2xf32>, tensor<2xf32>
}

// CHECK-LABEL: func.func private @maybe_written(
// CHECK-NOT: linalg.copy
// CHECK: return
func.func private @maybe_written(%cache: tensor<4xf32>, %v: tensor<1xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    %w = tensor.insert_slice %v into %cache[0] [1] [1] : tensor<1xf32> into tensor<4xf32>
    scf.yield %w : tensor<4xf32>
  } else {
    scf.yield %cache : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
