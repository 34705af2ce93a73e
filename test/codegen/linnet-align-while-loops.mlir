// linnet-align-while-loops makes an scf.while's condition forward every
// before-region argument again, in order, where canonicalization dropped one
// the after region does not read; the after region takes it as an unused
// argument and results keep their meaning. One-shot bufferization then keeps
// each carried tensor in one buffer (no copy per iteration).
// RUN: %linnet-opt %s -linnet-align-while-loops | FileCheck %s
// RUN: %linnet-opt %s -linnet-align-while-loops -one-shot-bufferize=bufferize-function-boundaries | FileCheck %s --check-prefix=BUF

// CHECK-LABEL: func.func @loop
// CHECK: %[[W:.*]]:3 = scf.while (%[[F:.*]] = %{{.*}}, %[[S:.*]] = %{{.*}}, %[[N:.*]] = %{{.*}}) : (i1, tensor<8xf32>, i32) -> (i1, tensor<8xf32>, i32)
// CHECK: scf.condition(%[[F]]) %[[F]], %[[S]], %[[N]] : i1, tensor<8xf32>, i32
// CHECK: ^bb0(%{{.*}}: i1, %[[S2:.*]]: tensor<8xf32>, %[[N2:.*]]: i32):
// CHECK: tensor.insert %{{.*}} into %[[S2]]
// CHECK: return %[[W]]#1, %[[W]]#2
// BUF-LABEL: func.func @loop
// BUF-NOT: memref.alloc
// BUF-NOT: memref.copy
// BUF: return
func.func @loop(%state: tensor<8xf32>, %n: i32) -> (tensor<8xf32>, i32) {
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %c4 = arith.constant 4 : i32
  %v = arith.constant 1.0 : f32
  %r:2 = scf.while (%running = %true, %s = %state, %i = %n) : (i1, tensor<8xf32>, i32) -> (tensor<8xf32>, i32) {
    scf.condition(%running) %s, %i : tensor<8xf32>, i32
  } do {
  ^bb0(%s2: tensor<8xf32>, %i2: i32):
    %k = arith.index_cast %i2 : i32 to index
    %w = tensor.insert %v into %s2[%k] : tensor<8xf32>
    %next = arith.addi %i2, %c1 : i32
    %go = arith.cmpi slt, %next, %c4 : i32
    scf.yield %go, %w, %next : i1, tensor<8xf32>, i32
  }
  return %r#0, %r#1 : tensor<8xf32>, i32
}
