// Packed bf16 matrix products (part of `linnet-linalg-to-parallel-loops`,
// with `bf16-dot`): out[.., t, o] += sum_k x[.., t, k] * w[o, k] over many
// tokens (prefill's projections) as outer products on `vdpbf16ps`.
//
// The dot-product form of ParallelLoopsPass.cpp (16 lanes along k per
// output, reduced after the loop) needs one load of the weights and one of
// the tokens for each 16-lane accumulator of a 4 x 4 block and a horizontal
// sum per output. Here instead each accumulator is 16 consecutive outputs
// o of one token: a panel of kPanelRows weight rows is first packed into
// k-pairs ([k / 2][o][2] bf16, one 32-bit word per row and pair), so one
// 512-bit load holds 16 rows x 2 k values, and each token's pair (x[t, k],
// x[t, k + 1]) is broadcast to all 16 lanes. A block of kBlockTokens tokens
// x kPanelVectors vectors of rows then takes kPanelVectors loads and
// kBlockTokens broadcast loads (`vbroadcastss`) for kBlockTokens x
// kPanelVectors `vdpbf16ps`, with no reduction after the loop: the
// accumulators are the results. The panel (kPanelRows x K bf16, 192 KiB at
// K = 3072) is packed once and then read from cache for every token;
// threads share the panels. docs/codegen.md, "Packed products".
#include "compiler/codegen/ParallelLoops.h"
#include "compiler/codegen/X86Intrinsics.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

namespace linnet::codegen {

using namespace mlir;

using namespace products;

namespace {

// 16-row vectors of a panel, and its rows. Two vectors x 12 tokens are 24
// accumulators, 2 registers of weights and 1 of a broadcast pair: 27 of
// AVX-512's 32 registers. Measured on the 8-layer Phi-3-mini prefill
// (Zen 4, 2 threads, alternated twice): 2 x 12 179-181 tokens/s at S = 512,
// 4 vectors x 6 tokens 179, 2 x 14 173-176 (28 accumulators).
constexpr int64_t kPanelVectors = 2;
constexpr int64_t kPanelRows = kDotLanes * kPanelVectors;

// Tokens of a register block, then of the blocks that take the rest of
// the tokens (fewer accumulators, so slower, but only at the end).
constexpr int64_t kBlockTokens[] = {12, 4, 1};

// Below this many tokens the dot-product form runs instead. Packing a
// panel (16 x 16 word transposes: 16 loads, 64 shuffles, 16 stores per 16
// rows x 32 k) costs about what 6 tokens' products on it do, and the
// dot-product form is about 1.4x slower per token: even at about 16
// tokens. 32 leaves a margin, and keeps decode_rows at 8 rows on the dot
// form (not tuned further).
constexpr int64_t kPackMinTokens = 32;

// The 32-bit word of the two bf16 elements at `indices` (the last one even).
Value loadPair(OpBuilder& b, Location loc, Value memref, ValueRange indices) {
  Value pair = b.create<vector::LoadOp>(loc, VectorType::get({2}, b.getBF16Type()), memref, indices);
  return b.create<vector::BitCastOp>(loc, VectorType::get({1}, b.getI32Type()), pair);
}

class PackedNest {
 public:
  PackedNest(linalg::LinalgOp op, const PackedProduct& product, ArrayRef<Value> sizes)
      : op_(op), product_(product), sizes_(sizes), loc_(op.getLoc()) {
    k_ = op.getNumLoops() - 1;
    depth_ = op.getStaticLoopRanges()[k_];
  }

  // The loops over the weights' batch points (outermost first) and over
  // panels, perfectly nested, built at the builder's insertion point.
  SmallVector<scf::ForOp> build(OpBuilder& b) {
    SmallVector<scf::ForOp> loops;
    SmallVector<Value> at(op_.getNumLoops());
    // Bounds before the nest, so that threads can share all its loops.
    Value zero = constant(b, loc_, 0), one = constant(b, loc_, 1), panelRows = constant(b, loc_, kPanelRows);
    for (unsigned dim : product_.weightBatch) {
      loops.push_back(b.create<scf::ForOp>(loc_, zero, sizes_[dim], one));
      b.setInsertionPointToStart(loops.back().getBody());
      at[dim] = loops.back().getInductionVar();
    }
    auto panels = b.create<scf::ForOp>(loc_, zero, sizes_[product_.rows], panelRows);
    loops.push_back(panels);
    b.setInsertionPointToStart(panels.getBody());
    Value panel = panels.getInductionVar();
    auto packedType = MemRefType::get({depth_ / 2, kPanelRows}, b.getI32Type());
    Value packed = b.create<memref::AllocOp>(loc_, packedType, b.getI64IntegerAttr(64));
    at[product_.rows] = panel;
    pack(b, at, packed);
    batchLoops(b, 0, at, packed);
    b.create<memref::DeallocOp>(loc_, packed);
    b.setInsertionPointAfter(loops.front());
    return loops;
  }

 private:
  // packed[k / 2][r] = the word of w[panel + r][k, k + 1]: blocks of 16
  // rows x 16 words (32 bf16) loaded a row a vector, transposed in
  // registers, stored 16 words of one k pair a vector.
  void pack(OpBuilder& b, ArrayRef<Value> point, Value packed) {
    Value panel = point[product_.rows];
    // A last panel past the rows repeats the last row (its products are
    // never stored).
    Value lastRow = product_.maskedRows
                        ? b.create<arith::SubIOp>(loc_, sizes_[product_.rows], constant(b, loc_, 1)).getResult()
                        : Value();
    auto words = VectorType::get({kDotLanes}, b.getI32Type());
    auto pairs = VectorType::get({2 * kDotLanes}, b.getBF16Type());
    auto columns = b.create<scf::ForOp>(loc_, constant(b, loc_, 0), constant(b, loc_, depth_),
                                        constant(b, loc_, 2 * kDotLanes));
    b.setInsertionPointToStart(columns.getBody());
    Value column = columns.getInductionVar();
    Value pair = b.create<arith::DivUIOp>(loc_, column, constant(b, loc_, 2));
    for (int64_t group = 0; group < kPanelVectors; ++group) {
      SmallVector<Value> rows;
      for (int64_t r = 0; r < kDotLanes; ++r) {
        SmallVector<Value> at(point);
        at[product_.rows] = b.create<arith::AddIOp>(loc_, panel, constant(b, loc_, group * kDotLanes + r));
        if (lastRow) at[product_.rows] = b.create<arith::MinSIOp>(loc_, at[product_.rows], lastRow);
        at[k_] = column;
        Value row = b.create<vector::LoadOp>(loc_, pairs, product_.weights->get(), subscripts(op_, product_.weights, at));
        rows.push_back(b.create<vector::BitCastOp>(loc_, words, row));
      }
      rows = transpose(b, rows);
      for (int64_t j = 0; j < kDotLanes; ++j)
        b.create<vector::StoreOp>(loc_, rows[j], packed,
                                  ValueRange{b.create<arith::AddIOp>(loc_, pair, constant(b, loc_, j)),
                                             constant(b, loc_, group * kDotLanes)});
    }
    b.setInsertionPointAfter(columns);
  }

  // The transpose of n x n words (n vectors of n, n a power of two) in
  // log2(n) rounds of interleaving vector i with vector i + n/2 (low
  // halves into vector 2i, high halves into 2i + 1): each round rotates the
  // bits of an element's (row, column) left by one, so log2(n) rounds swap
  // row and column.
  SmallVector<Value> transpose(OpBuilder& b, SmallVector<Value> rows) {
    int64_t n = static_cast<int64_t>(rows.size());
    SmallVector<int64_t> low, high;
    for (int64_t q = 0; q < n / 2; ++q) {
      low.append({q, q + n});
      high.append({q + n / 2, q + n / 2 + n});
    }
    for (int64_t round = 1; round < n; round *= 2) {
      SmallVector<Value> next;
      for (int64_t i = 0; i < n / 2; ++i) {
        next.push_back(b.create<vector::ShuffleOp>(loc_, rows[i], rows[i + n / 2], low));
        next.push_back(b.create<vector::ShuffleOp>(loc_, rows[i], rows[i + n / 2], high));
      }
      rows = std::move(next);
    }
    return rows;
  }

  // One loop per batch loop (outermost first), then the token blocks.
  void batchLoops(OpBuilder& b, size_t level, SmallVector<Value>& at, Value packed) {
    if (level == product_.batch.size()) return tokenBlocks(b, at, packed);
    unsigned dim = product_.batch[level];
    auto loop = b.create<scf::ForOp>(loc_, constant(b, loc_, 0), sizes_[dim], constant(b, loc_, 1));
    b.setInsertionPointToStart(loop.getBody());
    at[dim] = loop.getInductionVar();
    batchLoops(b, level + 1, at, packed);
    b.setInsertionPointAfter(loop);
  }

  void tokenBlocks(OpBuilder& b, SmallVector<Value>& at, Value packed) {
    forTokenBlocks(b, loc_, sizes_[product_.tokens], kBlockTokens, [&](int64_t tokens, Value first) {
      at[product_.tokens] = first;
      block(b, tokens, at, packed);
    });
  }

  // `tokens` tokens from at[tokens] x the panel's rows: accumulators loaded
  // from the result, every k pair added by `vdpbf16ps`, stored back.
  void block(OpBuilder& b, int64_t tokens, SmallVector<Value> at, Value packed) {
    auto lanes = VectorType::get({kDotLanes}, b.getF32Type());
    auto words = VectorType::get({kDotLanes}, b.getI32Type());
    auto pairs = VectorType::get({2 * kDotLanes}, b.getBF16Type());
    OpOperand* out = op_.getDpsInitOperand(0);
    Value first = at[product_.tokens], panel = at[product_.rows];
    // The subscripts of token i, row vector j (k is set inside the loop).
    auto place = [&](int64_t i, int64_t j) {
      SmallVector<Value> p = at;
      p[product_.tokens] = b.create<arith::AddIOp>(loc_, first, constant(b, loc_, i));
      p[product_.rows] = b.create<arith::AddIOp>(loc_, panel, constant(b, loc_, kDotLanes * j));
      return p;
    };
    // Where the rows may end inside the panel, each vector's lanes that
    // are rows (none past the end).
    SmallVector<Value> masks;
    if (product_.maskedRows) masks = rowMasks(b, loc_, panel, sizes_[product_.rows], kPanelVectors, kDotLanes);
    SmallVector<Value> init;
    for (int64_t i = 0; i < tokens; ++i)
      for (int64_t j = 0; j < kPanelVectors; ++j)
        init.push_back(loadRows(b, loc_, lanes, out->get(), subscripts(op_, out, place(i, j)),
                                masks.empty() ? Value() : masks[j]));
    SmallVector<SmallVector<Value>> xAt;
    for (int64_t i = 0; i < tokens; ++i) xAt.push_back(place(i, 0));
    auto loop = b.create<scf::ForOp>(
        loc_, constant(b, loc_, 0), constant(b, loc_, depth_ / 2), constant(b, loc_, 1), init,
        [&](OpBuilder& lb, Location loc, Value pair, ValueRange accs) {
          SmallVector<Value> w;
          for (int64_t j = 0; j < kPanelVectors; ++j) {
            Value v = lb.create<vector::LoadOp>(loc, words, packed, ValueRange{pair, constant(lb, loc, kDotLanes * j)});
            w.push_back(lb.create<vector::BitCastOp>(loc, pairs, v));
          }
          Value k = lb.create<arith::MulIOp>(loc, pair, constant(lb, loc, 2));
          SmallVector<Value> next;
          for (int64_t i = 0; i < tokens; ++i) {
            xAt[i][k_] = k;
            Value word = loadPair(lb, loc, product_.activations->get(), subscripts(op_, product_.activations, xAt[i]));
            Value scalar = lb.create<vector::ExtractOp>(loc, word, ArrayRef<int64_t>{0});
            Value splat = lb.create<vector::BitCastOp>(loc, pairs, lb.create<vector::BroadcastOp>(loc, words, scalar));
            for (int64_t j = 0; j < kPanelVectors; ++j)
              // The broadcast last: the instruction's operand that may be
              // memory, so the load folds into it.
              next.push_back(lb.create<LLVM::CallIntrinsicOp>(loc, lanes, kDotIntrinsic,
                                                              ValueRange{accs[i * kPanelVectors + j], w[j], splat})
                                 .getResult(0));
          }
          lb.create<scf::YieldOp>(loc, next);
        });
    for (int64_t i = 0; i < tokens; ++i)
      for (int64_t j = 0; j < kPanelVectors; ++j) {
        Value acc = loop.getResult(i * kPanelVectors + j);
        storeRows(b, loc_, acc, out->get(), subscripts(op_, out, place(i, j)), masks.empty() ? Value() : masks[j]);
      }
  }

  linalg::LinalgOp op_;
  const PackedProduct& product_;
  ArrayRef<Value> sizes_;
  Location loc_;
  unsigned k_;
  int64_t depth_;  // K
};

}  // namespace

std::optional<PackedProduct> matchPackedProduct(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 3 || op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1 || op.getNumDpsInputs() != 2)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned k = loops - 1;
  // Whole 16 x 16 word blocks of the weights (pack).
  if (iterators[k] != utils::IteratorType::reduction || ShapedType::isDynamic(ranges[k]) ||
      ranges[k] % (2 * kDotLanes) != 0)
    return std::nullopt;
  for (OpOperand& operand : op->getOpOperands())
    if (!op.getMatchingIndexingMap(&operand).isProjectedPermutation() || !unitInnerStride(operand.get()))
      return std::nullopt;
  OpOperand* out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  // The result has every parallel loop, the rows last (contiguous: 16
  // outputs of a token are one vector).
  if (outMap.getNumResults() != loops - 1 || outMap.isFunctionOfDim(k)) return std::nullopt;
  PackedProduct product{};
  product.rows = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  // Rows that 32 does not divide, or a dynamic count (attention's keys),
  // end in a masked panel; a few static rows are not worth a panel.
  product.maskedRows = ShapedType::isDynamic(ranges[product.rows]) || ranges[product.rows] % kPanelRows != 0;
  if (!ShapedType::isDynamic(ranges[product.rows]) && ranges[product.rows] < kPanelRows) return std::nullopt;
  for (OpOperand* input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.isFunctionOfDim(product.rows)) {
      // The weights: w[.., o, k], the rows last but k; any loops before
      // them are batch loops a panel is packed for (attention's heads).
      unsigned n = map.getNumResults();
      if (product.weights || n < 2 || map.getResult(n - 2) != getAffineDimExpr(product.rows, op.getContext()))
        return std::nullopt;
      for (unsigned i = 0; i + 2 < n; ++i)
        product.weightBatch.push_back(cast<AffineDimExpr>(map.getResult(i)).getPosition());
      llvm::sort(product.weightBatch);
      product.weights = input;
    } else {
      if (product.activations) return std::nullopt;
      product.activations = input;
    }
  }
  if (!product.weights || !product.activations) return std::nullopt;
  // The tokens: the innermost other parallel loop not known to be one.
  auto shared = [&](unsigned d) { return d != product.rows && !llvm::is_contained(product.weightBatch, d); };
  std::optional<unsigned> tokens;
  for (unsigned d = 0; d < k; ++d)
    if (shared(d) && ranges[d] != 1) tokens = d;
  if (!tokens) return std::nullopt;
  product.tokens = *tokens;
  for (unsigned d = 0; d < k; ++d)
    if (shared(d) && d != product.tokens) product.batch.push_back(d);
  return product;
}

FailureOr<linalg::LinalgOp> lowerPackedProduct(RewriterBase& rewriter, linalg::LinalgOp op,
                                               const PackedProduct& product, int64_t minWork) {
  Location loc = op.getLoc();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t staticTokens = 1;
  bool dynamic = false;
  for (unsigned d : llvm::concat<const unsigned>(product.batch, ArrayRef<unsigned>(product.tokens))) {
    if (ShapedType::isDynamic(ranges[d])) dynamic = true;
    else staticTokens *= ranges[d];
  }
  if (!dynamic && staticTokens < kPackMinTokens) return failure();

  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  Value tokens = constant(rewriter, loc, 1);
  for (unsigned d : llvm::concat<const unsigned>(product.batch, ArrayRef<unsigned>(product.tokens)))
    tokens = rewriter.create<arith::MulIOp>(loc, tokens, sizes[d]);

  linalg::LinalgOp fallback;
  if (dynamic) {
    Value many = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, tokens,
                                                constant(rewriter, loc, kPackMinTokens));
    auto branch = rewriter.create<scf::IfOp>(loc, many, /*withElseRegion=*/true);
    rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
    fallback = cast<linalg::LinalgOp>(rewriter.clone(*op.getOperation()));
    rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  }
  PackedNest nest(op, product, sizes);
  SmallVector<scf::ForOp> loops = nest.build(rewriter);
  // The parallel points (weight batch points x panels) and the rows, where
  // static.
  int64_t points = 1, rows = ranges[product.rows];
  for (unsigned d : llvm::concat<const unsigned>(product.weightBatch, ArrayRef<unsigned>(product.rows)))
    points = ShapedType::isDynamic(ranges[d]) || points == ShapedType::kDynamic
                 ? ShapedType::kDynamic
                 : points * (d == product.rows ? llvm::divideCeil(ranges[d], kPanelRows) : ranges[d]);
  if (minWork > 0 && points != ShapedType::kDynamic && points > 1 && rows * kPackMinTokens * ranges.back() >= minWork) {
    // At least kPackMinTokens tokens here: the threshold holds whatever
    // the count, so no sequential copy of the nest (the 32-layer Phi-3-mini
    // build 43.8 -> 38.8 s, the same code run).
    parallelizeAlways(rewriter, loops, loops.size());
  } else if (minWork > 0) {
    // Work per row and weight batch point: every token's K multiply-adds.
    rewriter.setInsertionPoint(loops.front());
    Value work = rewriter.create<arith::MulIOp>(loc, tokens, constant(rewriter, loc, ranges.back()));
    parallelize(rewriter, loops, loops.size(), minWork, work);
  }
  rewriter.eraseOp(op);
  return fallback;
}

}  // namespace linnet::codegen
