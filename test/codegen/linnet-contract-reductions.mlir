// linnet-contract-reductions: the multiply-adds of a reduction may fuse
// (fastmath<contract>, which the target machine needs on both to make one
// FMA); elementwise arithmetic, also an elementwise part inside a
// reduction's body, keeps no flag and rounds each operation (spec 13.6).
// RUN: %linnet-opt %s -linnet-contract-reductions | FileCheck %s

#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>

// CHECK-LABEL: func @dot
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> {linnet.reduction_product} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func @dot(%a: tensor<8xf32>, %b: tensor<8xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// `sum[i] (x[i] * y[i] - 1.0)`: only the accumulating add.
// CHECK-LABEL: func @shifted_sum
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.subf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
func.func @shifted_sum(%a: tensor<8xf32>, %b: tensor<8xf32>, %init: tensor<f32>) -> tensor<f32> {
  %one = arith.constant 1.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id, #all], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.subf %p, %one : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func @elementwise
// CHECK-NOT: fastmath
// CHECK: return
func.func @elementwise(%a: tensor<8xf32>, %b: tensor<8xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %q = arith.subf %p, %one : f32
    linalg.yield %q : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// A loop's accumulator, through an add chain and a select of masked lanes.
// CHECK-LABEL: func @loop
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> {linnet.reduction_product} : vector<16xf32>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> {linnet.reduction_product} : vector<16xf32>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT: arith.select
func.func @loop(%x: vector<16xf32>, %y: vector<16xf32>, %m: vector<16xi1>, %n: index) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (vector<16xf32>) {
    %p = arith.mulf %x, %y : vector<16xf32>
    %s = arith.addf %acc, %p : vector<16xf32>
    %p2 = arith.mulf %y, %y : vector<16xf32>
    %s2 = arith.addf %s, %p2 : vector<16xf32>
    %k = arith.select %m, %s2, %acc : vector<16xi1>, vector<16xf32>
    scf.yield %k : vector<16xf32>
  }
  return %r : vector<16xf32>
}

// A reduction's product once its combiner is lowered: the add of a product
// marked as a reduction's is the reduction's; the add of an elementwise
// product is not, nor that of a math expansion's product, which carries
// `contract` of its own (`exp(x) * y + c` rounds its sum).
// CHECK-LABEL: func @lowered
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK: arith.mulf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<16xf32>
// CHECK-NEXT: arith.addf %{{.*}}, %{{.*}} : vector<16xf32>
func.func @lowered(%x: vector<16xf32>, %y: vector<16xf32>, %c: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %p = arith.mulf %x, %y fastmath<contract> {linnet.reduction_product} : vector<16xf32>
  %s = arith.addf %c, %p : vector<16xf32>
  %q = arith.mulf %x, %x : vector<16xf32>
  %t = arith.addf %q, %c : vector<16xf32>
  %e = arith.mulf %y, %y fastmath<contract> : vector<16xf32>
  %u = arith.addf %e, %c : vector<16xf32>
  return %s, %t, %u : vector<16xf32>, vector<16xf32>, vector<16xf32>
}
