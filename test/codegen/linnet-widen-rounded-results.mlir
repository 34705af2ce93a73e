// linnet-widen-rounded-results: a bf16 result that every consumer only
// widens to f32, and some consumer reads more than once per element (a
// matrix product's activations), is stored as f32, still rounded to bf16:
// the producer yields extf of its bf16 value, the consumers drop their extf.
// RUN: %linnet-opt %s -linnet-widen-rounded-results | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>

// CHECK-LABEL: func @norm_then_product
// CHECK: %[[N:.*]] = linalg.generic
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[S:.*]] = arith.mulf %[[R]], %{{.*}} : bf16
// CHECK: %[[E:.*]] = arith.extf %[[S]] : bf16 to f32
// CHECK: linalg.yield %[[E]] : f32
// CHECK: -> tensor<4x64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[N]], %{{.*}} : tensor<4x64xf32>, tensor<32x64xbf16>)
// CHECK: ^bb0(%[[A:[a-z_0-9]+]]: f32, %[[B:[a-z_0-9]+]]: bf16, %{{.*}}: f32):
// CHECK: %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: arith.mulf %[[A]], %[[BW]] : f32
func.func @norm_then_product(%h: tensor<4x64xf32>, %scale: tensor<4x64xbf16>, %w: tensor<32x64xbf16>) -> tensor<4x32xf32> {
  %e = tensor.empty() : tensor<4x64xbf16>
  %n = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %scale : tensor<4x64xf32>, tensor<4x64xbf16>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%a: f32, %s: bf16, %out: bf16):
    %r = arith.truncf %a : f32 to bf16
    %m = arith.mulf %r, %s : bf16
    linalg.yield %m : bf16
  } -> tensor<4x64xbf16>
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%o : tensor<4x32xf32>) -> tensor<4x32xf32>
  %p = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%n, %w : tensor<4x64xbf16>, tensor<32x64xbf16>) outs(%init : tensor<4x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %p : tensor<4x32xf32>
}

// Read once per element (an elementwise consumer): left as bf16.
// CHECK-LABEL: func @elementwise_consumer
// CHECK: } -> tensor<4x64xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
func.func @elementwise_consumer(%h: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xbf16>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x64xf32>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x64xbf16>
  %f = tensor.empty() : tensor<4x64xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n : tensor<4x64xbf16>) outs(%f : tensor<4x64xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %x = arith.extf %a : bf16 to f32
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<4x64xf32>
  return %w : tensor<4x64xf32>
}

// A consumer that computes on the bf16 element itself, or a use that is
// not a generic (here the function's result), keeps the bf16 result.
// CHECK-LABEL: func @other_uses
// CHECK: } -> tensor<4x64xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x64xbf16>, tensor<32x64xbf16>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : bf16
// CHECK: } -> tensor<4x64xbf16>
// CHECK: return {{.*}} tensor<4x64xbf16>
func.func @other_uses(%h: tensor<4x64xf32>, %w: tensor<32x64xbf16>) -> (tensor<4x32xbf16>, tensor<4x64xbf16>) {
  %e = tensor.empty() : tensor<4x64xbf16>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x64xf32>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x64xbf16>
  %zero = arith.constant 0.0 : bf16
  %o = tensor.empty() : tensor<4x32xbf16>
  %init = linalg.fill ins(%zero : bf16) outs(%o : tensor<4x32xbf16>) -> tensor<4x32xbf16>
  %p = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%n, %w : tensor<4x64xbf16>, tensor<32x64xbf16>) outs(%init : tensor<4x32xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %acc: bf16):
    %m = arith.mulf %a, %b : bf16
    %s = arith.addf %acc, %m : bf16
    linalg.yield %s : bf16
  } -> tensor<4x32xbf16>
  %n2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h : tensor<4x64xf32>) outs(%e : tensor<4x64xbf16>) {
  ^bb0(%a: f32, %out: bf16):
    %r = arith.truncf %a : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4x64xbf16>
  %zf = arith.constant 0.0 : f32
  %of = tensor.empty() : tensor<4x32xf32>
  %initf = linalg.fill ins(%zf : f32) outs(%of : tensor<4x32xf32>) -> tensor<4x32xf32>
  %q = linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%n2, %w : tensor<4x64xbf16>, tensor<32x64xbf16>) outs(%initf : tensor<4x32xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %m = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x32xf32>
  return %p, %n2 : tensor<4x32xbf16>, tensor<4x64xbf16>
}
