// linnet-approximate-math by element type: f64 transcendentals become libm
// calls (a vector one lane at a time), f64 sqrt/rsqrt/abs stay math ops for
// convert-math-to-llvm (instructions); f32 sin/cos reduce their argument in
// f64 (no math op left); bf16 math is computed in f32 and rounded back.
// RUN: %linnet-opt %s -linnet-approximate-math | FileCheck %s

// CHECK-DAG: func.func private @exp(f64) -> f64
// CHECK-DAG: func.func private @tanh(f64) -> f64
// CHECK-DAG: func.func private @sin(f64) -> f64

// CHECK-LABEL: func @f64_scalars
// CHECK: call @exp(%{{.*}}) : (f64) -> f64
// CHECK: call @tanh(%{{.*}}) : (f64) -> f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK-NOT: arith.extf
func.func @f64_scalars(%x: f64) -> (f64, f64, f64) {
  %0 = math.exp %x : f64
  %1 = math.tanh %x : f64
  %2 = math.sqrt %x : f64
  return %0, %1, %2 : f64, f64, f64
}

// CHECK-LABEL: func @f64_vectors
// CHECK-NOT: arith.extf
// CHECK-COUNT-4: call @sin(%{{.*}}) : (f64) -> f64
// CHECK: math.rsqrt %{{.*}} : vector<4xf64>
// CHECK: math.absf %{{.*}} : vector<4xf64>
func.func @f64_vectors(%x: vector<4xf64>) -> (vector<4xf64>, vector<4xf64>, vector<4xf64>) {
  %0 = math.sin %x : vector<4xf64>
  %1 = math.rsqrt %x : vector<4xf64>
  %2 = math.absf %x : vector<4xf64>
  return %0, %1, %2 : vector<4xf64>, vector<4xf64>, vector<4xf64>
}

// CHECK-LABEL: func @f32_sin_cos
// CHECK-NOT: math.sin
// CHECK-NOT: math.cos
// CHECK: arith.extf %{{.*}} : vector<16xf32> to vector<16xf64>
// CHECK: arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK: return
func.func @f32_sin_cos(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %0 = math.sin %x : vector<16xf32>
  %1 = math.cos %x : vector<16xf32>
  return %0, %1 : vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func @bf16_exp
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK-NOT: math.exp
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
func.func @bf16_exp(%x: vector<16xbf16>) -> vector<16xbf16> {
  %0 = math.exp %x : vector<16xbf16>
  return %0 : vector<16xbf16>
}
