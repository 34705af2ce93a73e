// linnet-split-reductions: an innermost contiguous reduction with a static
// extent that is a multiple of the ratio becomes a partial reduction whose
// innermost loop is `ratio` parallel lanes, then a reduction of the lanes.
// A dynamic parallel extent is split too (our own split). Ops that read a
// loop index, a short or non-multiple reduction, or read the reduced dim
// non-contiguously stay.
// RUN: %linnet-opt %s -linnet-split-reductions=ratio=16 | FileCheck %s
// RUN: %linnet-opt %s -linnet-split-reductions=ratio=1 | FileCheck %s --check-prefix=OFF

#w = affine_map<(d0, d1) -> (d0, d1)>
#x = affine_map<(d0, d1) -> (d1)>
#y = affine_map<(d0, d1) -> (d0)>
#wt = affine_map<(d0, d1) -> (d1, d0)>

// A matrix-vector product against bf16 weights.
// CHECK-LABEL: func @matvec
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 16, 16]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.extf
// CHECK: -> tensor<64x16xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]{{.*}} ins(%[[P]] : tensor<64x16xf32>)
// OFF-LABEL: func @matvec
// OFF-NOT: expand_shape
func.func @matvec(%w: tensor<64x256xbf16>, %x: tensor<256xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#w, #x, #y], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : tensor<64x256xbf16>, tensor<256xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: bf16, %b: f32, %acc: f32):
    %e = arith.extf %a : bf16 to f32
    %m = arith.mulf %e, %b : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// A body that reads the reduced loop's index (a causal mask) is not split:
// the index would name the wrong loop.
// CHECK-LABEL: func @reads_index
// CHECK-NOT: expand_shape
// CHECK: linalg.index 1
func.func @reads_index(%x: tensor<64x256xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x256xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %m = arith.mulf %a, %f : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// Dynamic rows (prefill's tokens): split by our own split, which upstream's
// cannot do (its partial result has static sizes): the partial buffer is
// sized from the init, filled with the neutral element, and the lanes are
// reduced into the op's own init.
// CHECK-LABEL: func @dynamic_rows
// CHECK: %[[X:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [%{{.*}}, 16, 16] : tensor<?x256xf32> into tensor<?x16x16xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[INIT:.*]], %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x16xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x16xf32>)
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<?x16x16xf32>) outs(%[[F]] : tensor<?x16xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<?x16xf32>) outs(%[[INIT]] : tensor<?xf32>)
// OFF-LABEL: func @dynamic_rows
// OFF-NOT: expand_shape
func.func @dynamic_rows(%x: tensor<?x256xf32>, %init: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x256xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// The reduced dim is not the last index of `x` (a column sum): not split.
// CHECK-LABEL: func @strided_reduction
// CHECK-NOT: expand_shape
func.func @strided_reduction(%x: tensor<256x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [#wt, #y], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<256x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// 40 is not a multiple of 16, and 16 is less than two vectors: neither split.
// CHECK-LABEL: func @short_reductions
// CHECK-NOT: expand_shape
func.func @short_reductions(%x: tensor<8x40xf32>, %y: tensor<8x16xf32>, %init: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x40xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  %1 = linalg.generic {indexing_maps = [#w, #y], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<8x16xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %0, %1 : tensor<8xf32>, tensor<8xf32>
}
