// Round trip of every `linnet` op through the printer and the parser.
// RUN: %linnet-opt %s | %linnet-opt | FileCheck %s

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<?x8xf32>, %b: tensor<8xf32>, %i: tensor<4xi32>, %c: tensor<?x8xi1>) -> tensor<?x8xf32> {
  // CHECK: linnet.binary <add> %{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %0 = linnet.binary <add> %a, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  // CHECK: linnet.binary <lt> %{{.*}} {is_unsigned} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi1>
  %1 = linnet.binary <lt> %i, %i {is_unsigned} : tensor<4xi32>, tensor<4xi32> -> tensor<4xi1>
  // CHECK: linnet.unary <exp> %{{.*}} : tensor<?x8xf32> -> tensor<?x8xf32>
  %2 = linnet.unary <exp> %0 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: linnet.cast %{{.*}} : tensor<4xi32> to tensor<4xbf16>
  %3 = linnet.cast %i : tensor<4xi32> to tensor<4xbf16>
  // CHECK: linnet.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8xi1>, tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %4 = linnet.select %c, %2, %b : tensor<?x8xi1>, tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %4 : tensor<?x8xf32>
}

// CHECK-LABEL: func @shapes
func.func @shapes(%x: tensor<?x8xf32>, %n: index, %s: index) -> tensor<?x4xf32> {
  // CHECK: linnet.broadcast_to %{{.*}} dims(%{{.*}}) : tensor<?x8xf32> to tensor<?x?x8xf32>
  %0 = linnet.broadcast_to %x dims(%n, %n) : tensor<?x8xf32> to tensor<?x?x8xf32>
  // CHECK: linnet.reshape %{{.*}} dims(%{{.*}}) : tensor<?x8xf32> to tensor<?x2x4xf32>
  %1 = linnet.reshape %x dims(%n) : tensor<?x8xf32> to tensor<?x2x4xf32>
  // CHECK: linnet.permute %{{.*}} [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  %2 = linnet.permute %x [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  // CHECK: linnet.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  %3 = linnet.concat %x, %x {axis = 1 : i64} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  // CHECK: linnet.slice %{{.*}}[%{{.*}}, %{{.*}}] sizes(%{{.*}}) {steps = array<i64: 1, 2>} : tensor<?x8xf32> -> tensor<?x4xf32>
  %4 = linnet.slice %x[%s, %s] sizes(%n) {steps = array<i64: 1, 2>} : tensor<?x8xf32> -> tensor<?x4xf32>
  // CHECK: linnet.slice %{{.*}}[%{{.*}}, %{{.*}}] {dropped_axes = array<i64: 0>, steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<8xf32>
  %5 = linnet.slice %x[%s, %s] {dropped_axes = array<i64: 0>, steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<8xf32>
  return %4 : tensor<?x4xf32>
}

// CHECK-LABEL: func @creation_and_reductions
func.func @creation_and_reductions(%n: index, %v: tensor<f32>, %x: tensor<?x8xf32>) -> tensor<?xf32> {
  // CHECK: linnet.iota dims(%{{.*}}) : tensor<?xi32>
  %0 = linnet.iota dims(%n) : tensor<?xi32>
  // CHECK: linnet.fill %{{.*}} dims(%{{.*}}) : tensor<f32> -> tensor<?x8xf32>
  %1 = linnet.fill %v dims(%n) : tensor<f32> -> tensor<?x8xf32>
  // CHECK: linnet.cumsum %{{.*}} {axis = 1 : i64} : tensor<?x8xf32>
  %2 = linnet.cumsum %1 {axis = 1 : i64} : tensor<?x8xf32>
  // CHECK: linnet.reduce <max> %{{.*}} {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
  %3 = linnet.reduce <max> %2 {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
  return %3 : tensor<?xf32>
}

// CHECK-LABEL: func @notation
func.func @notation(%a: tensor<?x64xf32>, %b: tensor<64x128xf32>, %m: index) -> tensor<?x128xf32> {
  // CHECK: linnet.notation ins(%{{.*}}, %{{.*}} : tensor<?x64xf32>, tensor<64x128xf32>) extents(%{{.*}}) attributes
  // CHECK-SAME: reduction = #linnet.reduction<sum>
  // CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: f32, %{{.*}}: f32):
  // CHECK: linnet.yield %{{.*}} : f32
  // CHECK: } : tensor<?x128xf32>
  %r = linnet.notation ins(%a, %b : tensor<?x64xf32>, tensor<64x128xf32>) extents(%m)
         attributes {extents = array<i64: -9223372036854775808, 128, 64>,
          indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>],
          output_dims = array<i64: 0, 1>, reduction = #linnet.reduction<sum>} {
  ^bb0(%i: index, %j: index, %k: index, %x: f32, %y: f32):
    %p = arith.mulf %x, %y : f32
    linnet.yield %p : f32
  } : tensor<?x128xf32>
  return %r : tensor<?x128xf32>
}
