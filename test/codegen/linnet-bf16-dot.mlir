// bf16 products on a target with AVX512-BF16 (bf16-dot): an f32 sum over
// the innermost loop of extf(a) * extf(b), a and b bf16 read along it, is
// vectorized 32 elements at a time (linnet-linalg-to-parallel-loops), and
// linnet-lower-vectors carries 16 f32 lanes per row updated by vdpbf16ps,
// reduced once after the loop. Anything else keeps the f32 lanes of 16.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 bf16-dot=1" -canonicalize | FileCheck %s --check-prefix=LOOPS
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 bf16-dot=1" -canonicalize -linnet-lower-vectors="bf16-dot=1" -canonicalize | FileCheck %s --check-prefix=DOT
// Without the feature, the same products widen both operands into f32 FMAs.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16" -canonicalize -linnet-lower-vectors -canonicalize | FileCheck %s --check-prefix=PLAIN

#w = affine_map<(d0, d1) -> (d0, d1)>
#x = affine_map<(d0, d1) -> (d1)>
#o = affine_map<(d0, d1) -> (d0)>

// A matrix-vector product (decode): 8 rows per pass, 32 bf16 a step, one
// vdpbf16ps per row, no extf of either operand left in the loop.
// LOOPS-LABEL: func @matvec
// LOOPS: scf.for %{{.*}} = %c0 to %c64 step %c8
// LOOPS: scf.for %{{.*}} = %c0 to %c256 step %c32
// LOOPS: vector.transfer_read {{.*}} : memref<8x32xbf16, {{.*}}>, vector<8x32xbf16>
// DOT-LABEL: func @matvec
// DOT: scf.for %{{.*}} = %c0 to %c256 step %c32 iter_args(%{{.*}} = %cst{{.*}}) -> (vector<8x16xf32>)
// DOT-NOT: arith.extf
// DOT-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"({{.*}}) : (vector<16xf32>, vector<32xbf16>, vector<32xbf16>) -> vector<16xf32>
// DOT-NOT: llvm.call_intrinsic
// DOT: scf.yield
// DOT: vector.reduction <add>
// PLAIN-LABEL: func @matvec
// PLAIN: scf.for %{{.*}} = %c0 to %c256 step %c16
// PLAIN: arith.extf
// PLAIN-NOT: llvm.call_intrinsic
func.func @matvec(%w: memref<64x256xbf16>, %x: memref<256xbf16>) -> memref<64xf32> {
  %out = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#w, #x, #o], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<64x256xbf16>, memref<256xbf16>) outs(%out : memref<64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %out : memref<64xf32>
}

#wt = affine_map<(d0, d1, d2) -> (d1, d2)>
#xt = affine_map<(d0, d1, d2) -> (d0, d2)>
#ot = affine_map<(d0, d1, d2) -> (d0, d1)>

// A matrix product over a dynamic number of tokens, in the branch for
// fewer than 32 (at least 32 run packed: linnet-packed-products.mlir):
// cache tiles, full blocks of 4 tokens x 4 rows get 16 vdpbf16ps a step,
// the peeled last tokens one token x 8 rows, 8 (in the threaded copy of
// the nest, then the same in the sequential one).
// DOT-LABEL: func @matmul
// DOT: scf.for %{{.*}} = %c0 to %c128 step %c32 iter_args(%{{.*}}) -> (vector<4x4x16xf32>)
// DOT-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// DOT-NOT: llvm.call_intrinsic
// DOT: vector.reduction <add>
// DOT: scf.for %{{.*}} = %c0 to %c128 step %c32 iter_args(%{{.*}}) -> (vector<1x8x16xf32>)
// DOT-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// DOT-NOT: llvm.call_intrinsic
// DOT: vector.reduction <add>
func.func @matmul(%w: memref<64x128xbf16>, %x: memref<?x128xbf16>) -> memref<?x64xf32> {
  %c0 = arith.constant 0 : index
  %tokens = memref.dim %x, %c0 : memref<?x128xbf16>
  %out = memref.alloc(%tokens) : memref<?x64xf32>
  linalg.generic {indexing_maps = [#wt, #xt, #ot], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%w, %x : memref<64x128xbf16>, memref<?x128xbf16>) outs(%out : memref<?x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %out : memref<?x64xf32>
}

// Not dot products: a reduction 32 does not divide (48), an f32 operand, a
// bf16 square. Each keeps 16 lanes and widens.
// DOT-LABEL: func @not_dots
// DOT-NOT: llvm.call_intrinsic
// DOT: return
func.func @not_dots(%w: memref<64x48xbf16>, %x: memref<48xbf16>, %wf: memref<64x256xbf16>, %xf: memref<256xf32>)
    -> memref<64xf32> {
  %out = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#w, #x, #o], iterator_types = ["parallel", "reduction"]}
      ins(%w, %x : memref<64x48xbf16>, memref<48xbf16>) outs(%out : memref<64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#w, #x, #o], iterator_types = ["parallel", "reduction"]}
      ins(%wf, %xf : memref<64x256xbf16>, memref<256xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: bf16, %b: f32, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %p = arith.mulf %ae, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#w, #o], iterator_types = ["parallel", "reduction"]}
      ins(%wf : memref<64x256xbf16>) outs(%out : memref<64xf32>) {
  ^bb0(%a: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %p = arith.mulf %ae, %ae : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return %out : memref<64xf32>
}
