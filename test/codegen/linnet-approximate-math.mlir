// linnet-approximate-math replaces transcendental math by polynomials (plain
// arith), so no libm call stops LLVM's loop vectorizer.
// RUN: %linnet-opt %s -linnet-approximate-math | FileCheck %s

// CHECK-LABEL: func @exp_tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: arith.mulf
// CHECK: return
func.func @exp_tanh(%x: f32) -> (f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.tanh %x : f32
  return %0, %1 : f32, f32
}
