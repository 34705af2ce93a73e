// linnet-fuse-elementwise: an elementwise producer is fused into its
// consumer when each of its elements is still computed once (the consumer
// indexes it with every loop), or when it is a single cast; a norm feeding
// a matrix product stays a separate op (fused, it would run once per
// output feature).
// RUN: %linnet-opt %s -linnet-fuse-elementwise | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#w = affine_map<(d0, d1) -> (d0, d1)>
#x = affine_map<(d0, d1) -> (d1)>
#y = affine_map<(d0, d1) -> (d0)>

// Two elementwise ops: one op.
// CHECK-LABEL: func @chain
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
func.func @chain(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.exp %x : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%0 : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %1 : tensor<64xf32>
}

// A scaled input (not a cast) feeding a matrix-vector product is read once
// per output row: not fused. A cast of the input is fused.
// CHECK-LABEL: func @norm_then_matvec
// CHECK: %[[N:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: math.rsqrt
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} ins(%{{.*}}, %[[N]] :
// CHECK-NOT: math.rsqrt
// CHECK: arith.extf
func.func @norm_then_matvec(%w: tensor<32x64xbf16>, %a: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %s : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %r = math.rsqrt %t : f32
    %m = arith.mulf %x, %r : f32
    linalg.yield %m : f32
  } -> tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32xf32>) -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %n : tensor<32x64xbf16>, tensor<64xf32>) outs(%acc : tensor<32xf32>) {
  ^bb0(%p: bf16, %q: f32, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %m = arith.mulf %pe, %q : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %y : tensor<32xf32>
}

// CHECK-LABEL: func @cast_then_matvec
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NOT: linalg.generic
func.func @cast_then_matvec(%w: tensor<32x64xbf16>, %a: tensor<64xbf16>) -> tensor<32xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<64xbf16>) outs(%e : tensor<64xf32>) {
  ^bb0(%x: bf16, %o: f32):
    %r = arith.extf %x : bf16 to f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<32xf32>) -> tensor<32xf32>
  %y = linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %c : tensor<32x64xbf16>, tensor<64xf32>) outs(%acc : tensor<32xf32>) {
  ^bb0(%p: bf16, %q: f32, %o: f32):
    %pe = arith.extf %p : bf16 to f32
    %m = arith.mulf %pe, %q : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %y : tensor<32xf32>
}
