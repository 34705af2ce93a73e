// Element semantics of convert-linnet-to-linalg that need more than one op:
// total integer division (docs/dialect.md), unsigned abs, unsigned max/min
// reductions, and f64 -> f16/bf16 (and wide int -> bf16) rounded once.
// RUN: %linnet-opt %s -convert-linnet-to-linalg -split-input-file | FileCheck %s

// Signed: the divisor is 1 where it is 0 or where MIN is divided by -1, so
// the division cannot trap; x / 0 is then -1, x % 0 is x (MIN / 1 = MIN and
// MIN % 1 = 0 already).
// CHECK-LABEL: func @signed_division
// CHECK: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[Y]], %{{.*}} : i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[XM:.*]] = arith.cmpi eq, %[[X]], %[[MIN]] : i32
// CHECK: %[[MINUS1:.*]] = arith.constant -1 : i32
// CHECK: %[[YM:.*]] = arith.cmpi eq, %[[Y]], %[[MINUS1]] : i32
// CHECK: %[[OV:.*]] = arith.andi %[[XM]], %[[YM]] : i1
// CHECK: %[[BAD:.*]] = arith.ori %[[Z]], %[[OV]] : i1
// CHECK: %[[D:.*]] = arith.select %[[BAD]], %[[ONE]], %[[Y]] : i32
// CHECK: %[[Q:.*]] = arith.divsi %[[X]], %[[D]] : i32
// CHECK: %[[NEG:.*]] = arith.constant -1 : i32
// CHECK: %[[R:.*]] = arith.select %[[Z]], %[[NEG]], %[[Q]] : i32
// CHECK: linalg.yield %[[R]]
// CHECK: ^bb0(%[[X2:.*]]: i32, %{{.*}}: i32, %{{.*}}: i32):
// CHECK: %[[Z2:.*]] = arith.cmpi eq
// CHECK: %[[D2:.*]] = arith.select
// CHECK: %[[R2:.*]] = arith.remsi %[[X2]], %[[D2]] : i32
// CHECK: %[[S2:.*]] = arith.select %[[Z2]], %[[X2]], %[[R2]] : i32
// CHECK: linalg.yield %[[S2]]
func.func @signed_division(%a: tensor<8xi32>, %b: tensor<8xi32>) -> (tensor<8xi32>, tensor<8xi32>) {
  %0 = linnet.binary <div> %a, %b : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  %1 = linnet.binary <rem> %a, %b : tensor<8xi32>, tensor<8xi32> -> tensor<8xi32>
  return %0, %1 : tensor<8xi32>, tensor<8xi32>
}

// -----

// Unsigned: only zero is guarded; x / 0 is all ones, x % 0 is x.
// CHECK-LABEL: func @unsigned_division
// CHECK: ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[ONE:.*]] = arith.constant 1 : i8
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[Y]], %[[ZERO]] : i8
// CHECK: %[[D:.*]] = arith.select %[[Z]], %[[ONE]], %[[Y]] : i8
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[D]] : i8
// CHECK: %[[ALL:.*]] = arith.constant -1 : i8
// CHECK: arith.select %[[Z]], %[[ALL]], %[[Q]] : i8
// CHECK: ^bb0(%[[X2:.*]]: i8, %[[Y2:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[Z2:.*]] = arith.cmpi eq, %[[Y2]], %{{.*}} : i8
// CHECK: %[[D2:.*]] = arith.select %[[Z2]], %{{.*}}, %[[Y2]] : i8
// CHECK: %[[R:.*]] = arith.remui %[[X2]], %[[D2]] : i8
// CHECK: arith.select %[[Z2]], %[[X2]], %[[R]] : i8
func.func @unsigned_division(%a: tensor<8xi8>, %b: tensor<8xi8>) -> (tensor<8xi8>, tensor<8xi8>) {
  %0 = linnet.binary <div> %a, %b {is_unsigned} : tensor<8xi8>, tensor<8xi8> -> tensor<8xi8>
  %1 = linnet.binary <rem> %a, %b {is_unsigned} : tensor<8xi8>, tensor<8xi8> -> tensor<8xi8>
  return %0, %1 : tensor<8xi8>, tensor<8xi8>
}

// -----

// abs of unsigned integers is the identity; of signed ones math.absi.
// CHECK-LABEL: func @unsigned_abs
// CHECK: ^bb0(%[[X:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: linalg.yield %[[X]] : i8
// CHECK: math.absi
func.func @unsigned_abs(%a: tensor<8xi8>) -> (tensor<8xi8>, tensor<8xi8>) {
  %0 = linnet.unary <abs> %a {is_unsigned} : tensor<8xi8> -> tensor<8xi8>
  %1 = linnet.unary <abs> %a : tensor<8xi8> -> tensor<8xi8>
  return %0, %1 : tensor<8xi8>, tensor<8xi8>
}

// -----

// Unsigned max/min reductions start from 0 / all ones and combine with
// maxui/minui.
// CHECK-LABEL: func @unsigned_reductions
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i16
// CHECK: linalg.fill ins(%[[ZERO]] : i16)
// CHECK: arith.maxui
// CHECK: %[[ALL:.*]] = arith.constant -1 : i16
// CHECK: linalg.fill ins(%[[ALL]] : i16)
// CHECK: arith.minui
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @unsigned_reductions(%a: tensor<4x8xi16>) -> (tensor<4xi16>, tensor<4xi16>) {
  %0 = linnet.notation ins(%a : tensor<4x8xi16>) attributes {extents = array<i64: 4, 8>, indexing_maps = [#map], output_dims = array<i64: 0>, reduction = #linnet.reduction<max>, is_unsigned} {
  ^bb0(%i: index, %j: index, %x: i16):
    linnet.yield %x : i16
  } : tensor<4xi16>
  %1 = linnet.notation ins(%a : tensor<4x8xi16>) attributes {extents = array<i64: 4, 8>, indexing_maps = [#map], output_dims = array<i64: 0>, reduction = #linnet.reduction<min>, is_unsigned} {
  ^bb0(%i: index, %j: index, %x: i16):
    linnet.yield %x : i16
  } : tensor<4xi16>
  return %0, %1 : tensor<4xi16>, tensor<4xi16>
}

// -----

// f64 -> f16: to f32 rounded to odd (an inexact nearest-even result with an
// even last bit moves to its other neighbour), then to f16; no direct
// truncf from f64 (compiler-rt's __truncdfhf2).
// CHECK-LABEL: func @f64_to_narrow
// CHECK: ^bb0(%[[X:.*]]: f64, %{{.*}}: f16):
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK-NEXT: %[[B:.*]] = arith.extf %[[N]] : f32 to f64
// CHECK-NEXT: %[[INEXACT:.*]] = arith.cmpf one, %[[B]], %[[X]] : f64
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[N]] : f32 to i32
// CHECK: arith.select
// CHECK: %[[ODD:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: arith.truncf %[[ODD]] : f32 to f16
// CHECK: ^bb0(%{{.*}}: f64, %{{.*}}: bf16):
// CHECK: arith.cmpf one
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: ^bb0(%[[I:.*]]: i32, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.sitofp %[[I]] : i32 to f64
// CHECK: arith.cmpf one
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: ^bb0(%[[S:.*]]: i16, %{{.*}}: bf16):
// CHECK-NEXT: %[[F:.*]] = arith.sitofp %[[S]] : i16 to f32
// CHECK-NEXT: arith.truncf %[[F]] : f32 to bf16
// CHECK-NOT: arith.truncf %{{.*}} : f64 to f16
// CHECK-NOT: arith.truncf %{{.*}} : f64 to bf16
func.func @f64_to_narrow(%x: tensor<8xf64>, %i: tensor<8xi32>, %s: tensor<8xi16>) -> (tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %0 = linnet.cast %x : tensor<8xf64> to tensor<8xf16>
  %1 = linnet.cast %x : tensor<8xf64> to tensor<8xbf16>
  %2 = linnet.cast %i : tensor<8xi32> to tensor<8xbf16>
  %3 = linnet.cast %s : tensor<8xi16> to tensor<8xbf16>
  return %0, %1, %2, %3 : tensor<8xf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}
