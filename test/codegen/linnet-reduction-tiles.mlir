// linnet-linalg-to-parallel-loops with vector-length on reductions:
// - rows per pass: a reduction with a static parallel loop outside its
//   innermost one (a multiple of 4) is vectorized 4 rows at a time, the
//   shared operand read once per 4 rows (vector<4x16> tiles), 8 where no
//   tokens are blocked with them (a matrix-vector product) and 8 divides;
// - cache tiles: with parallel loops outside the rows too (tokens), the op
//   first runs over tiles of 32 rows x 32 tokens, the tile loops threaded;
// - register blocks: inside a cache tile, 4 tokens x 4 rows at a time,
//   the tokens of a dynamic extent peeled into full blocks and the rest;
// - interchange: a reduction read with a stride whose result's last axis
//   is contiguous gets that axis innermost and vectorizes along it, where it
//   is not an outer product (linnet-outer-products.mlir has both);
// - threads: the threshold counts the reduction inside each tile point;
// - prefetch: long rows of a row-blocked product are prefetched ahead, and
//   in a cache tile with a static token count the next tile's rows too.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops=vector-length=16 -canonicalize | FileCheck %s
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 row-prefetch-bytes=0 tile-row-prefetch-bytes=0" -canonicalize | FileCheck %s --check-prefix=NOPF
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 row-prefetch-bytes=0 tile-row-prefetch-bytes=1536" -canonicalize | FileCheck %s --check-prefix=ZEN

#w3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#x3 = affine_map<(d0, d1, d2) -> (d1, d2)>
#o3 = affine_map<(d0, d1, d2) -> (d0, d2)>

// A matrix-vector product as partial lanes (a product whose lanes are a
// parallel loop): rows 8 at a time, the vector's lanes broadcast to the 8 rows.
// CHECK-LABEL: func @matvec_partial
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : memref<8x1x16xf32, {{.*}}>, vector<8x1x16xf32>
// CHECK: vector.transfer_read {{.*}} : memref<1x16xf32, {{.*}}>, vector<8x1x16xf32>
// CHECK: arith.addf %{{.*}} : vector<8x16xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x16xf32>
func.func @matvec_partial(%w: memref<64x16x16xf32>, %x: memref<16x16xf32>, %out: memref<64x16xf32>) {
  linalg.generic {indexing_maps = [#w3, #x3, #o3], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%w, %x : memref<64x16x16xf32>, memref<16x16xf32>) outs(%out : memref<64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

#wt = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#xt = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
#ot = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>

// A matrix product's partial lanes over a dynamic number of tokens: tiles
// of 32 tokens x 32 rows (threaded), inside them 4 rows per pass.
// CHECK-LABEL: func @matmul_partial
// CHECK: scf.if
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%{{.*}}, %c64) step (%c32, %c32)
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK: vector.transfer_read {{.*}} vector<1x8x1x16xf32>
func.func @matmul_partial(%w: memref<64x16x16xf32>, %x: memref<?x16x16xf32>, %out: memref<?x64x16xf32>) {
  linalg.generic {indexing_maps = [#wt, #xt, #ot], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%w, %x : memref<64x16x16xf32>, memref<?x16x16xf32>) outs(%out : memref<?x64x16xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

#xg = affine_map<(d0, d1, d2) -> (d0, d2)>
#wg = affine_map<(d0, d1, d2) -> (d1, d2)>
#og = affine_map<(d0, d1, d2) -> (d0, d1)>

// A matrix product over a dynamic number of tokens, K innermost (prefill's
// projections): inside each 32 x 32 cache tile, register blocks of 4 tokens
// x 4 rows (each widened weight vector serves 4 tokens, each token's vector
// 4 rows). The tile's tokens are peeled: full blocks of 4 have static
// shapes (no masks), the last partial block runs a token at a time (8 rows a pass).
// CHECK-LABEL: func @gemm_token_blocks
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%{{.*}}, %c64) step (%c32, %c32)
// CHECK: %[[FULL:.*]] = affine.apply
// CHECK: scf.for %{{.*}} = %c0 to %[[FULL]] step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c4
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK-NOT: vector.mask
// CHECK: vector.transfer_read {{.*}} : memref<4x16xbf16, {{.*}}>, vector<4x4x16xbf16>
// CHECK: vector.multi_reduction <add>, %{{.*}} [2] : vector<4x4x16xf32> to vector<4x4xf32>
// CHECK: scf.for %{{.*}} = %[[FULL]] to
// CHECK: vector.transfer_read {{.*}} : memref<1x16xbf16, {{.*}}>, vector<1x8x16xbf16>
func.func @gemm_token_blocks(%x: memref<?x64xbf16>, %w: memref<64x64xbf16>, %out: memref<?x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xbf16>, memref<64x64xbf16>) outs(%out : memref<?x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// The same over a static batch of 8 rows (decode_rows): blocks of 4 x 4,
// nothing to peel.
// CHECK-LABEL: func @batch_token_blocks
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c4
// CHECK: vector.transfer_read {{.*}} vector<4x4x16xbf16>
// CHECK-NOT: vector<1x4x16xbf16>
// CHECK: return
func.func @batch_token_blocks(%x: memref<8x64xbf16>, %w: memref<64x64xbf16>, %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x64xbf16>, memref<64x64xbf16>) outs(%out : memref<8x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// One token times a matrix (decode's projections): the tile loops alone
// have 256 points, under min-work, but each point is a 512-long reduction,
// so the op's 131072 multiply-adds are shared among threads. (Counting
// only the tile loops left every decode product on one thread.)
// Its rows (1 KiB each) are too short to be worth prefetching.
// CHECK-LABEL: func @one_token_product
// CHECK: scf.parallel
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @one_token_product(%x: memref<1x512xbf16>, %w: memref<256x512xbf16>, %out: memref<1x256xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x512xbf16>, memref<256x512xbf16>) outs(%out : memref<1x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A small one stays on the calling thread: 64 rows (two tiles) of 64.
// CHECK-LABEL: func @small_one_token_product
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @small_one_token_product(%x: memref<1x64xbf16>, %w: memref<64x64xbf16>, %out: memref<1x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xbf16>, memref<64x64xbf16>) outs(%out : memref<1x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Long rows (4 KiB of bf16) are prefetched 768 bytes (384 elements) ahead
// in the vector loop, each of the block's 8 rows, clamped to the row's end.
// With row-prefetch-bytes=0 (the pipeline's choice on AMD Zen) no row is
// prefetched; the next tile's rows still are (L2, below).
// NOPF-LABEL: func @long_row_product
// NOPF-NOT: memref.prefetch
// NOPF-LABEL: func @batch_next_tile
// NOPF: memref.prefetch %{{.*}}, read, locality<2>, data
// NOPF-NOT: locality<3>
// NOPF-LABEL: func @dynamic_tokens_no_next_tile
// AMD Zen's choice: no prefetch of a matrix-vector product's rows, but the
// rows that register blocks of tokens share are prefetched 1536 bytes (768
// elements) ahead besides the next tile's (decode_rows at 8 rows, 8% more
// tokens/s on Zen 4; docs/codegen.md).
// ZEN-LABEL: func @long_row_product
// ZEN-NOT: memref.prefetch
// ZEN-LABEL: func @batch_next_tile
// ZEN-COUNT-2: memref.prefetch %{{.*}}, read, locality<2>, data
// ZEN: arith.addi %{{.*}}, %c768
// ZEN-COUNT-4: memref.prefetch %{{.*}}, read, locality<3>, data
// ZEN-LABEL: func @dynamic_tokens_no_next_tile
// CHECK-LABEL: func @long_row_product
// CHECK: scf.for %[[ROW:.*]] = %c0 to %c32 step %c8
// CHECK: scf.for %[[K:.*]] = %c0 to %c2048 step %c16
// CHECK: %[[AHEAD:.*]] = arith.addi %[[K]], %c384
// CHECK: %[[COL:.*]] = arith.minsi %[[AHEAD]], %c2047
// CHECK: memref.prefetch %{{.*}}[%[[ROW]], %[[COL]]], read, locality<3>, data
// CHECK-COUNT-7: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
func.func @long_row_product(%x: memref<1x2048xbf16>, %w: memref<256x2048xbf16>, %out: memref<1x256xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x2048xbf16>, memref<256x2048xbf16>) outs(%out : memref<1x256xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 8 tokens over long rows (decode_rows at 8 rows): the tokens fit in one
// tile, so they are not tiled and the tile's two token blocks are static.
// Each K trip prefetches, into L2, two rows of the next tile (block b takes
// rows (2 b) % 4 and the next of the row block, clamped to the last row),
// besides its own four rows 768 bytes ahead into L1.
// CHECK-LABEL: func @batch_next_tile
// CHECK-SAME: %[[W:[a-z0-9]+]]: memref<64x2048xbf16>
// CHECK: scf.parallel (%[[TILE:.*]]) = (%c0) to (%c64) step (%c32)
// CHECK: scf.for %[[T:.*]] = %c0 to %c8 step %c4
// CHECK: scf.for %[[R:.*]] = %c0 to %c32 step %c4
// CHECK: scf.for %[[K:.*]] = %c0 to %c2048 step %c16
// CHECK: %[[B:.*]] = arith.divui %[[T]], %c4
// CHECK: %[[B2:.*]] = arith.muli %[[B]], %c2
// CHECK: %[[FIRST:.*]] = arith.remui %[[B2]], %c4
// CHECK: %[[NEXT:.*]] = arith.addi %[[FIRST]], %c32
// CHECK: %[[AT:.*]] = arith.addi %[[TILE]], %[[R]]
// CHECK: %[[ROW:.*]] = arith.addi %[[AT]], %[[NEXT]]
// CHECK: %[[ROW0:.*]] = arith.minsi %[[ROW]], %c63
// CHECK: memref.prefetch %[[W]][%[[ROW0]], %[[K]]], read, locality<2>, data : memref<64x2048xbf16>
// CHECK: %[[ROW1:.*]] = arith.addi %[[ROW]], %c1
// CHECK: %[[ROW1C:.*]] = arith.minsi %[[ROW1]], %c63
// CHECK: memref.prefetch %[[W]][%[[ROW1C]], %[[K]]], read, locality<2>, data
// CHECK-NOT: locality<2>
// CHECK-COUNT-4: memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
func.func @batch_next_tile(%x: memref<8x2048xbf16>, %w: memref<64x2048xbf16>, %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x2048xbf16>, memref<64x2048xbf16>) outs(%out : memref<8x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A dynamic token count (a short prefill in the dot-product form) keeps
// 32-token tiles, peeled into blocks: no next-tile prefetch (the number of
// blocks sharing a row block is not known).
// CHECK-LABEL: func @dynamic_tokens_no_next_tile
// CHECK-NOT: locality<2>
// CHECK: return
func.func @dynamic_tokens_no_next_tile(%x: memref<?x2048xbf16>, %w: memref<64x2048xbf16>, %out: memref<?x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x2048xbf16>, memref<64x2048xbf16>) outs(%out : memref<?x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// One block of 4 tokens is bound by the memory whatever is prefetched: no
// next-tile prefetch (measured slower), only the rows' own.
// CHECK-LABEL: func @one_block_no_next_tile
// CHECK-NOT: locality<2>
// CHECK: memref.prefetch %{{.*}}, read, locality<3>, data
// CHECK-NOT: locality<2>
// CHECK: return
func.func @one_block_no_next_tile(%x: memref<4x2048xbf16>, %w: memref<64x2048xbf16>, %out: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [#xg, #wg, #og], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x2048xbf16>, memref<64x2048xbf16>) outs(%out : memref<4x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %a32 = arith.extf %a : bf16 to f32
    %b32 = arith.extf %b : bf16 to f32
    %p = arith.mulf %a32, %b32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
