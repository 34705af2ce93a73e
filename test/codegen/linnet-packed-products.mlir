// bf16 matrix products over many tokens on a target with AVX512-BF16
// (bf16-dot of linnet-linalg-to-parallel-loops): the weights are packed a
// panel of 32 rows at a time into k-pairs (16 x 16 words transposed by
// shuffles), and register blocks of 12 tokens x 2 vectors of 16 rows
// accumulate in 24 vector<16xf32> with one vdpbf16ps per token and vector,
// each token's k-pair broadcast. Fewer than 32 tokens take the dot-product
// form (a run-time branch when the count is dynamic). Rows that end inside
// a panel (a dynamic count: attention's keys) are masked.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16 bf16-dot=1" -canonicalize | FileCheck %s
// Without the feature nothing is packed.
// RUN: %linnet-opt %s -linnet-linalg-to-parallel-loops="vector-length=16" -canonicalize | FileCheck %s --check-prefix=PLAIN
// PLAIN-NOT: memref.alloc
// PLAIN-NOT: llvm.call_intrinsic

#x = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>

// Dynamic tokens: packed when there are at least 32, threads sharing the
// panels; the blocks of 12, then 4, then 1 token; else the dot-product form.
// CHECK-LABEL: func @dynamic_tokens
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[MANY:.*]] = arith.cmpi sge, %[[M]], %c32
// CHECK: scf.if %[[MANY]] {
// CHECK: scf.parallel (%[[P:.*]]) = (%c0) to (%c64) step (%c32) {
// CHECK: %[[PACKED:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x32xi32>
// CHECK: scf.for %[[COL:.*]] = %c0 to %c128 step %c32 {
// CHECK-COUNT-16: vector.load %{{.*}} : memref<64x128xbf16>, vector<32xbf16>
// CHECK-COUNT-64: vector.shuffle
// CHECK-COUNT-16: vector.store %{{.*}}, %[[PACKED]][%{{.*}}, %c0] : memref<64x32xi32>, vector<16xi32>
// CHECK: scf.for %{{.*}} = %c0 to %{{.*}} step %c12 {
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK: vector.load %[[PACKED]]{{.*}} : memref<64x32xi32>, vector<16xi32>
// CHECK: vector.load %[[PACKED]]{{.*}} : memref<64x32xi32>, vector<16xi32>
// CHECK: vector.broadcast %{{.*}} : i32 to vector<16xi32>
// CHECK-COUNT-24: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// CHECK-NOT: llvm.call_intrinsic
// CHECK: scf.yield
// CHECK: step %c4 {
// CHECK: iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// CHECK-COUNT-8: llvm.call_intrinsic
// CHECK: step %c1 {
// CHECK: iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>) {
// CHECK-COUNT-2: llvm.call_intrinsic
// CHECK: memref.dealloc %[[PACKED]]
// CHECK: } else {
// CHECK: vector.transfer_read {{.*}} vector<{{.*}}x32xbf16>
func.func @dynamic_tokens(%w: memref<64x128xbf16>, %x: memref<?x128xbf16>, %out: memref<?x64xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<64x128xbf16>) outs(%out : memref<?x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 40 static tokens: packed, no branch on the count; 40 = 3 x 12 + 4.
// CHECK-LABEL: func @static_tokens
// CHECK-NOT: memref.dim
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<16x32xi32>
// CHECK: scf.for %{{.*}} = %c0 to %c36 step %c12
// CHECK-LABEL: func @few_tokens
func.func @static_tokens(%w: memref<96x32xbf16>, %x: memref<40x32xbf16>, %out: memref<40x96xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<40x32xbf16>, memref<96x32xbf16>) outs(%out : memref<40x96xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 8 static tokens (decode_rows at 8 rows): the dot-product form only.
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read {{.*}} vector<{{.*}}x32xbf16>
// CHECK-LABEL: func @odd_rows
func.func @few_tokens(%w: memref<64x128xbf16>, %x: memref<8x128xbf16>, %out: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<8x128xbf16>, memref<64x128xbf16>) outs(%out : memref<8x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 48 rows (not a multiple of a 32-row panel): the last panel repeats the
// last row when packing, and its results are loaded and stored through
// masks of the rows left.
// CHECK: scf.parallel (%[[P2:.*]]) = (%c0) to (%c48) step (%c32)
// CHECK: arith.minsi %{{.*}}, %c47
// CHECK: vector.create_mask %{{.*}} : vector<16xi1>
// CHECK: vector.maskedload
// CHECK: llvm.call_intrinsic
// CHECK: vector.maskedstore
// CHECK-LABEL: func @few_rows
func.func @odd_rows(%w: memref<48x128xbf16>, %x: memref<?x128xbf16>, %out: memref<?x48xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<48x128xbf16>) outs(%out : memref<?x48xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// 16 static rows: less than a panel, the dot-product form.
// CHECK-NOT: memref.alloc
// CHECK: vector.transfer_read {{.*}} vector<{{.*}}x32xbf16>
// CHECK-LABEL: func @heads
func.func @few_rows(%w: memref<16x128xbf16>, %x: memref<?x128xbf16>, %out: memref<?x16xf32>) {
  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x128xbf16>, memref<16x128xbf16>) outs(%out : memref<?x16xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// Attention's scores: the keys, a dynamic count of rows that follow the
// head, are the weights. Threads share heads x panels; the panel is packed
// per head, the last one masked; the count of queries decides.
#qh = affine_map<(h, q, k, d) -> (h, q, d)>
#kh = affine_map<(h, q, k, d) -> (h, k, d)>
#oh = affine_map<(h, q, k, d) -> (h, q, k)>
// CHECK: %[[Q:.*]] = memref.dim %arg0, %c1
// CHECK: %[[K:.*]] = memref.dim %arg1, %c1
// CHECK: arith.cmpi sge, %[[Q]], %c32
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c4, %[[K]]) step (%c1, %c32)
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<32x32xi32>
// CHECK: vector.maskedload
// CHECK: vector.maskedstore
// CHECK: } else {
// CHECK-LABEL: func @batched
func.func @heads(%x: memref<4x?x64xbf16>, %w: memref<4x?x64xbf16>, %out: memref<4x?x?xf32>) {
  linalg.generic {indexing_maps = [#qh, #kh, #oh], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x?x64xbf16>, memref<4x?x64xbf16>) outs(%out : memref<4x?x?xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// A batch outside the tokens ([B, S, K] x [O, K]): the count is B x S, one
// panel serves every batch row, the batch loop runs inside the panel's.
#xb = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#wb = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#ob = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK: %[[B:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[S:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[N:.*]] = arith.muli %[[B]], %[[S]]
// CHECK: arith.cmpi sge, %[[N]], %c32
// CHECK: scf.parallel
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<32x32xi32>
// CHECK: scf.for %{{.*}} = %c0 to %[[B]] step %c1 {
// CHECK: step %c12 {
func.func @batched(%w: memref<64x64xbf16>, %x: memref<?x?x64xbf16>, %out: memref<?x?x64xf32>) {
  linalg.generic {indexing_maps = [#xb, #wb, #ob], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x?x64xbf16>, memref<64x64xbf16>) outs(%out : memref<?x?x64xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %b : bf16 to f32
    %p = arith.mulf %ae, %be : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
