// The lowering of each `linnet` op by convert-linnet-to-linalg.
// RUN: %linnet-opt %s -convert-linnet-to-linalg -split-input-file | FileCheck %s

// A broadcast operand is read through a map of the result's loops; a static
// 1 against a larger dimension reads index 0.
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL0:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @binary
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[D]]) : tensor<?x8xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]], #[[ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: outs(%[[E]] : tensor<?x8xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic {indexing_maps = [#[[ID2]], #[[COL0]], #[[ID2]]]
// CHECK: arith.divsi
// CHECK: arith.cmpi ult
// CHECK: arith.shrui
func.func @binary(%a: tensor<?x8xf32>, %b: tensor<8xf32>, %i: tensor<?x8xi32>, %j: tensor<?x1xi32>) -> (tensor<?x8xf32>, tensor<?x8xi32>, tensor<?x8xi1>, tensor<?x8xi32>) {
  %0 = linnet.binary <add> %a, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %1 = linnet.binary <div> %i, %j : tensor<?x8xi32>, tensor<?x1xi32> -> tensor<?x8xi32>
  %2 = linnet.binary <lt> %i, %i {is_unsigned} : tensor<?x8xi32>, tensor<?x8xi32> -> tensor<?x8xi1>
  %3 = linnet.binary <shr> %i, %i {is_unsigned} : tensor<?x8xi32>, tensor<?x8xi32> -> tensor<?x8xi32>
  return %0, %1, %2, %3 : tensor<?x8xf32>, tensor<?x8xi32>, tensor<?x8xi1>, tensor<?x8xi32>
}

// -----

// CHECK-LABEL: func @unary_select_broadcast
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.generic
// CHECK: arith.select
// CHECK: tensor.empty(%arg3) : tensor<?x4xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
func.func @unary_select_broadcast(%x: tensor<4xf32>, %c: tensor<4xi1>, %s: tensor<f32>, %n: index) -> (tensor<4xf32>, tensor<?x4xf32>) {
  %0 = linnet.unary <tanh> %x : tensor<4xf32> -> tensor<4xf32>
  %1 = linnet.select %c, %0, %s : tensor<4xi1>, tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = linnet.broadcast_to %1 dims(%n) : tensor<4xf32> to tensor<?x4xf32>
  return %1, %2 : tensor<4xf32>, tensor<?x4xf32>
}

// -----

// float -> int saturates: NaN and out-of-range inputs are selected around
// the conversion, which LLVM leaves undefined for them.
// CHECK-LABEL: func @cast
// CHECK: arith.fptosi
// CHECK: arith.cmpf oge
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf uno
// CHECK: arith.select
// CHECK: arith.select
// CHECK: arith.select
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to bf16
func.func @cast(%x: tensor<4xf32>, %u: tensor<4xi8>) -> (tensor<4xi32>, tensor<4xbf16>) {
  %0 = linnet.cast %x : tensor<4xf32> to tensor<4xi32>
  %1 = linnet.cast %u {is_unsigned} : tensor<4xi8> to tensor<4xbf16>
  return %0, %1 : tensor<4xi32>, tensor<4xbf16>
}

// -----

// CHECK-LABEL: func @reshape
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: tensor.expand_shape %arg0 {{\[\[}}0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %arg2, %c4 : tensor<2xindex>
// CHECK: tensor.reshape %arg1(%[[SHAPE]])
func.func @reshape(%x: tensor<2x3xf32>, %y: tensor<?x8xf32>, %n: index) -> (tensor<6xf32>, tensor<2x3x1xf32>, tensor<?x4xf32>) {
  %0 = linnet.reshape %x : tensor<2x3xf32> to tensor<6xf32>
  %1 = linnet.reshape %x : tensor<2x3xf32> to tensor<2x3x1xf32>
  %2 = linnet.reshape %y dims(%n) : tensor<?x8xf32> to tensor<?x4xf32>
  return %0, %1, %2 : tensor<6xf32>, tensor<2x3x1xf32>, tensor<?x4xf32>
}

// -----

// One dynamic type to the same type is still a reshape (`[A, B]` to `[B, A]`
// swaps the extents); only a static shape to itself is the input.
// CHECK-LABEL: func @reshape_same_dynamic_type
// CHECK: %[[SHAPE:.*]] = tensor.from_elements %arg2, %arg1 : tensor<2xindex>
// CHECK: tensor.reshape %arg0(%[[SHAPE]])
// CHECK-NOT: tensor.reshape
// CHECK: return
func.func @reshape_same_dynamic_type(%x: tensor<?x?xf32>, %a: index, %b: index, %s: tensor<2x3xf32>) -> (tensor<?x?xf32>, tensor<2x3xf32>) {
  %0 = linnet.reshape %x dims(%b, %a) : tensor<?x?xf32> to tensor<?x?xf32>
  %1 = linnet.reshape %s : tensor<2x3xf32> to tensor<2x3xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<2x3xf32>
}

// -----

// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func @permute
// CHECK: %[[D:.*]] = tensor.dim %arg0, %c0
// CHECK: tensor.empty(%[[D]]) : tensor<8x?xf32>
// CHECK: linalg.generic {indexing_maps = [#[[T]], #{{.*}}]
func.func @permute(%x: tensor<?x8xf32>) -> tensor<8x?xf32> {
  %0 = linnet.permute %x [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
  return %0 : tensor<8x?xf32>
}

// -----

// CHECK-LABEL: func @concat
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x5xf32>
// CHECK: %[[A:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [%{{.*}}, 2] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %[[A]][0, 2] [%{{.*}}, 3] [1, 1]
func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x3xf32>) -> tensor<?x5xf32> {
  %0 = linnet.concat %a, %b {axis = 1 : i64} : tensor<?x2xf32>, tensor<?x3xf32> -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func @slice
// CHECK: tensor.extract_slice %arg0[%arg1, %arg1] [%arg2, 3] [2, 3] : tensor<?x8xf32> to tensor<?x3xf32>
// An indexed axis is dropped by a collapse, not by a rank-reducing slice
// (whose dropped axes canonicalization would re-infer from the types).
// CHECK: %[[ROW:.*]] = tensor.extract_slice %arg0[%arg1, %arg1] [1, 8] [1, 1] : tensor<?x8xf32> to tensor<1x8xf32>
// CHECK: tensor.collapse_shape %[[ROW]] {{\[}}[0, 1]] : tensor<1x8xf32> into tensor<8xf32>
func.func @slice(%x: tensor<?x8xf32>, %i: index, %n: index) -> (tensor<?x3xf32>, tensor<8xf32>) {
  %0 = linnet.slice %x[%i, %i] sizes(%n) {steps = array<i64: 2, 3>} : tensor<?x8xf32> -> tensor<?x3xf32>
  %1 = linnet.slice %x[%i, %i] {dropped_axes = array<i64: 0>, steps = array<i64: 1, 1>} : tensor<?x8xf32> -> tensor<8xf32>
  return %0, %1 : tensor<?x3xf32>, tensor<8xf32>
}

// -----

// CHECK-DAG: #[[SCALAR:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func @iota_fill
// CHECK: linalg.generic
// CHECK: linalg.index 0
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: linalg.generic {indexing_maps = [#[[SCALAR]], #{{.*}}]
func.func @iota_fill(%n: index, %v: tensor<f32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = linnet.iota dims(%n) : tensor<?xf32>
  %1 = linnet.fill %v dims(%n) : tensor<f32> -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func @cumsum
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1
// CHECK: scf.for %[[I:.*]] = %c1{{.*}} to %[[N]] step %c1{{.*}} iter_args(%[[ACC:.*]] = %arg0)
// CHECK: tensor.extract_slice %[[ACC]]
// CHECK: tensor.extract_slice %[[ACC]][0, %[[I]]]
// CHECK: arith.addf
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][0, %[[I]]]
func.func @cumsum(%x: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %0 = linnet.cumsum %x {axis = 1 : i64} : tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// A reduction starts from its identity and extends narrower elements.
// CHECK-LABEL: func @reduce
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: linalg.fill ins(%[[MIN]] : i32)
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.extsi %{{.*}} : i16 to i32
// CHECK: arith.maxsi
func.func @reduce(%x: tensor<?x3xi16>) -> tensor<3xi32> {
  %0 = linnet.reduce <max> %x {axes = array<i64: 0>} : tensor<?x3xi16> -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @matmul
// CHECK: %[[E:.*]] = tensor.empty(%arg2) : tensor<?x128xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]]
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: outs(%[[Z]] : tensor<?x128xf32>)
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]]
// CHECK: linalg.yield %[[S]]
func.func @matmul(%a: tensor<?x64xf32>, %b: tensor<64x128xf32>, %m: index) -> tensor<?x128xf32> {
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

// -----

// A loop read only through its index (the gather's `h`, the reduced `k`)
// gets its bound from an extra unread i8 operand.
// CHECK-DAG: #[[IDS:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[SHAPE:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @gather
// CHECK: %[[BOUND:.*]] = tensor.empty() : tensor<3xi8>
// CHECK: linalg.generic {indexing_maps = [#[[IDS]], #[[SHAPE]], #[[OUT]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%arg1, %[[BOUND]] : tensor<?xi32>, tensor<3xi8>)
// CHECK: ^bb0(%[[ID:.*]]: i32, %{{.*}}: i8, %[[ACC:.*]]: f32):
// CHECK: %[[H:.*]] = linalg.index 1
// CHECK: %[[K:.*]] = linalg.index 2
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]]
// CHECK: tensor.extract %arg0[%[[ROW]], %[[H]]]
// CHECK: arith.maximumf %[[ACC]]
func.func @gather(%table: tensor<10x4xf32>, %ids: tensor<?xi32>, %s: index) -> tensor<?x4xf32> {
  %r = linnet.notation ins(%ids : tensor<?xi32>) extents(%s) attributes {
      extents = array<i64: -9223372036854775808, 4, 3>,
      indexing_maps = [affine_map<(s, h, k) -> (s)>],
      output_dims = array<i64: 0, 1>, reduction = #linnet.reduction<max>} {
  ^bb0(%i: index, %h: index, %k: index, %id: i32):
    %row = arith.index_cast %id : i32 to index
    %v = tensor.extract %table[%row, %h] : tensor<10x4xf32>
    linnet.yield %v : f32
  } : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
