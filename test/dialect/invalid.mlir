// One case per verifier rule of the `linnet` ops (LinnetOps.cpp).
// RUN: %linnet-opt %s -split-input-file -verify-diagnostics

func.func @binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{operands have different element types}}
  %0 = linnet.binary <add> %a, %b : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @comparison_result(%a: tensor<4xf32>) {
  // expected-error @+1 {{result element type is 'f32', expected 'i1'}}
  %0 = linnet.binary <lt> %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @bitwise_on_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{`shl` needs integer operands}}
  %0 = linnet.binary <shl> %a, %a : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_mismatch(%a: tensor<3x4xf32>, %b: tensor<5xf32>) {
  // expected-error @+1 {{rhs dimension 0 (5) does not broadcast to result dimension 1 (4)}}
  %0 = linnet.binary <add> %a, %b : tensor<3x4xf32>, tensor<5xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @broadcast_rank(%a: tensor<2x3x4xf32>) {
  // expected-error @+1 {{lhs of rank 3 does not broadcast to rank 2}}
  %0 = linnet.binary <add> %a, %a : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @unary_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{result type 'tensor<5xf32>' differs}}
  %0 = linnet.unary <neg> %a : tensor<4xf32> -> tensor<5xf32>
  return
}

// -----

func.func @unary_float_only(%a: tensor<4xi32>) {
  // expected-error @+1 {{`exp` needs a float operand}}
  %0 = linnet.unary <exp> %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

func.func @not_on_float(%a: tensor<4xf32>) {
  // expected-error @+1 {{`not` needs an integer operand}}
  %0 = linnet.unary <not> %a : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @cast_shape(%a: tensor<4xf32>) {
  // expected-error @+1 {{result shape differs}}
  %0 = linnet.cast %a : tensor<4xf32> to tensor<5xi32>
  return
}

// -----

func.func @select_condition(%c: tensor<4xi8>, %a: tensor<4xf32>) {
  // expected-error @+1 {{condition element type is 'i8', expected i1}}
  %0 = linnet.select %c, %a, %a : tensor<4xi8>, tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @select_branches(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error @+1 {{branches must have the result's element type}}
  %0 = linnet.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @broadcast_to_dims(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 1 dims operands, one per dynamic result dimension, got 0}}
  %0 = linnet.broadcast_to %a : tensor<4xf32> to tensor<?x4xf32>
  return
}

// -----

func.func @broadcast_to_shape(%a: tensor<3xf32>) {
  // expected-error @+1 {{operand dimension 0 (3) does not broadcast}}
  %0 = linnet.broadcast_to %a : tensor<3xf32> to tensor<2x4xf32>
  return
}

// -----

func.func @reshape_count(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{reshapes 12 elements into 10}}
  %0 = linnet.reshape %a : tensor<4x3xf32> to tensor<10xf32>
  return
}

// -----

func.func @reshape_element(%a: tensor<4xf32>) {
  // expected-error @+1 {{element type changes}}
  %0 = linnet.reshape %a : tensor<4xf32> to tensor<4xf16>
  return
}

// -----

func.func @permute_invalid(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{`permutation` is not a permutation of 0..1}}
  %0 = linnet.permute %a [0, 0] : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @permute_size(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{permutation of size 1 for operand rank 2}}
  %0 = linnet.permute %a [0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @permute_shape(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result dimension 0 is 2, expected 3}}
  %0 = linnet.permute %a [1, 0] : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 out of range for rank 2}}
  %0 = linnet.concat %a, %a {axis = 2 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_other_dims(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+1 {{input 1 dimension 0 is 4, expected 2}}
  %0 = linnet.concat %a, %b {axis = 1 : i64} : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_sum(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{result dimension 1 is 7, expected 6}}
  %0 = linnet.concat %a, %a {axis = 1 : i64} : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x7xf32>
  return
}

// -----

func.func @concat_rank(%a: tensor<2x3xf32>, %b: tensor<6xf32>) {
  // expected-error @+1 {{input 1 has type 'tensor<6xf32>', expected the result's rank and element type}}
  %0 = linnet.concat %a, %b {axis = 1 : i64} : tensor<2x3xf32>, tensor<6xf32> -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_starts(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{expected 1 starts, one per axis, got 2}}
  %0 = linnet.slice %a[%i, %i] {steps = array<i64: 1>} : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_steps(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{steps must be positive}}
  %0 = linnet.slice %a[%i] {steps = array<i64: 0>} : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_step_count(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{expected 1 steps, one per axis, got 2}}
  %0 = linnet.slice %a[%i] {steps = array<i64: 1, 1>} : tensor<8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @slice_dropped(%a: tensor<8x4xf32>, %i: index) {
  // expected-error @+1 {{`dropped_axes` must be strictly increasing}}
  %0 = linnet.slice %a[%i, %i] {steps = array<i64: 1, 1>, dropped_axes = array<i64: 1, 0>} : tensor<8x4xf32> -> tensor<f32>
  return
}

// -----

func.func @slice_rank(%a: tensor<8x4xf32>, %i: index) {
  // expected-error @+1 {{result rank 2, expected 1}}
  %0 = linnet.slice %a[%i, %i] {steps = array<i64: 1, 1>, dropped_axes = array<i64: 0>} : tensor<8x4xf32> -> tensor<1x4xf32>
  return
}

// -----

func.func @slice_sizes(%a: tensor<8xf32>, %i: index) {
  // expected-error @+1 {{expected 1 size operands, one per dynamic result dimension, got 0}}
  %0 = linnet.slice %a[%i] {steps = array<i64: 1>} : tensor<8xf32> -> tensor<?xf32>
  return
}

// -----

func.func @iota_rank() {
  // expected-error @+1 {{result must be 1-D}}
  %0 = linnet.iota : tensor<2x2xi32>
  return
}

// -----

func.func @iota_bool() {
  // expected-error @+1 {{element type 'i1' is not a number}}
  %0 = linnet.iota : tensor<4xi1>
  return
}

// -----

func.func @fill_rank(%v: tensor<1xf32>) {
  // expected-error @+1 {{value must be rank 0}}
  %0 = linnet.fill %v : tensor<1xf32> -> tensor<4xf32>
  return
}

// -----

func.func @fill_dims(%v: tensor<f32>) {
  // expected-error @+1 {{expected 1 dims operands}}
  %0 = linnet.fill %v : tensor<f32> -> tensor<?xf32>
  return
}

// -----

func.func @cumsum_axis(%a: tensor<4xf32>) {
  // expected-error @+1 {{axis 1 out of range for rank 1}}
  %0 = linnet.cumsum %a {axis = 1 : i64} : tensor<4xf32>
  return
}

// -----

func.func @reduce_axes(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{`axes` axis 2 out of range for rank 2}}
  %0 = linnet.reduce <sum> %a {axes = array<i64: 2>} : tensor<4x3xf32> -> tensor<4xf32>
  return
}

// -----

func.func @reduce_rank(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{result rank 2, expected 1}}
  %0 = linnet.reduce <sum> %a {axes = array<i64: 1>} : tensor<4x3xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @reduce_shape(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{result dimension 0 is 3, expected 4}}
  %0 = linnet.reduce <sum> %a {axes = array<i64: 1>} : tensor<4x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @reduce_any_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{`any` reduces i1}}
  %0 = linnet.reduce <any> %a {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_none(%a: tensor<4xf32>) {
  // expected-error @+1 {{needs a reduction kind}}
  %0 = linnet.reduce <none> %a {axes = array<i64: 0>} : tensor<4xf32> -> tensor<f32>
  return
}

// -----

func.func @reduce_accumulate(%a: tensor<4xf32>) {
  // expected-error @+1 {{cannot accumulate 'f32' in 'i32'}}
  %0 = linnet.reduce <sum> %a {axes = array<i64: 0>} : tensor<4xf32> -> tensor<i32>
  return
}

// -----

func.func @notation_map_count(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected one indexing map per input (1), got 0}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_map_rank(%a: tensor<4xf32>) {
  // expected-error @+1 {{indexing map 0 has 2 results for an input of rank 1}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i, i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_map_dims(%a: tensor<4xf32>) {
  // expected-error @+1 {{indexing map 0 must have 1 dims and no symbols}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i, j) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_extent_operands(%a: tensor<4xf32>) {
  // expected-error @+1 {{expected 1 extent operands, one per dynamic extent, got 0}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: -9223372036854775808>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<?xf32>
  return
}

// -----

func.func @notation_output_dim_range(%a: tensor<4xf32>) {
  // expected-error @+1 {{output dim 3 is not a loop dim}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 3>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_output_dim_repeated(%a: tensor<4xf32>) {
  // expected-error @+1 {{output dim 0 repeated}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0, 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4x4xf32>
  return
}

// -----

func.func @notation_output_extent(%a: tensor<4xf32>) {
  // expected-error @+1 {{result dimension 0 is 5, expected 4}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<5xf32>
  return
}

// -----

func.func @notation_none_reduces(%a: tensor<4x3xf32>) {
  // expected-error @+1 {{reduction `none` needs every loop dim to be an output dim}}
  %0 = linnet.notation ins(%a : tensor<4x3xf32>) attributes {extents = array<i64: 4, 3>, indexing_maps = [affine_map<(i, j) -> (i, j)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %j: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_yield_type(%a: tensor<4xf32>) {
  // expected-error @+1 {{body yields 'f32', expected the result element type 'f16'}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f32):
    linnet.yield %x : f32
  } : tensor<4xf16>
  return
}

// -----

func.func @notation_body_args(%a: tensor<4xf32>) {
  // expected-error @+1 {{body takes 1 arguments, expected 2 (loop indices, then one element per input)}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%x: f32):
    linnet.yield %x : f32
  } : tensor<4xf32>
  return
}

// -----

func.func @notation_body_element(%a: tensor<4xf32>) {
  // expected-error @+1 {{body argument 1 must be input 0's element type 'f32'}}
  %0 = linnet.notation ins(%a : tensor<4xf32>) attributes {extents = array<i64: 4>, indexing_maps = [affine_map<(i) -> (i)>], output_dims = array<i64: 0>, reduction = #linnet.reduction<none>} {
  ^bb0(%i: index, %x: f16):
    linnet.yield %x : f16
  } : tensor<4xf16>
  return
}

// -----

func.func @yield_outside_notation(%x: f32) {
  // expected-error @+1 {{expects parent op 'linnet.notation'}}
  linnet.yield %x : f32
}
