// The `linnet-linalg-to-parallel-loops` pass: linalg ops on buffers become
// `scf.for` nests whose innermost loop steps over vectors (or scalars where
// the op cannot be vectorized), and a large op's leading parallel loops
// also become one `scf.parallel`, chosen at run time by an `scf.if` on the
// op's iteration count (Passes.td has the rules). Assumes upstream's
// `linalgOpToLoops` and `tileLinalgOp` build one perfectly nested `scf.for`
// per iteration dimension, outermost first, with every bound computed
// before the nest.
#include "compiler/codegen/ParallelLoops.h"
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_LINALGTOPARALLELLOOPS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// `c` is `v == k` (an `arith.cmpi eq` of v and the constant k).
static bool isEqualTo(Value c, Value v, const APInt& k) {
  auto cmp = c.getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp.getPredicate() != arith::CmpIPredicate::eq) return false;
  APInt value;
  return (cmp.getLhs() == v && matchPattern(cmp.getRhs(), m_ConstantInt(&value)) && value == k) ||
         (cmp.getRhs() == v && matchPattern(cmp.getLhs(), m_ConstantInt(&value)) && value == k);
}

// An integer division (or remainder) that traps in no lane, whatever its
// operands hold (masked-off lanes included): its divisor is a constant
// other than 0 (and -1 where the dividend may be the signed minimum), or
// the total division's guarded divisor (conversion/LinnetToLinalg.cpp:
// `select(y == 0 [or (x == MIN and y == -1)], 1, y)`).
static bool divisionCannotTrap(Operation* op) {
  Value x = op->getOperand(0), y = op->getOperand(1);
  bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
  if (!isSigned && !isa<arith::DivUIOp, arith::RemUIOp>(op)) return false;
  unsigned width = getElementTypeOrSelf(y.getType()).getIntOrFloatBitWidth();
  APInt minValue = APInt::getSignedMinValue(width), minusOne = APInt::getAllOnes(width);
  auto safeConstant = [&](Value v) {
    APInt c;
    if (!matchPattern(v, m_ConstantInt(&c)) || c.isZero()) return false;
    if (!isSigned || !c.isAllOnes()) return true;
    APInt d;
    return matchPattern(x, m_ConstantInt(&d)) && d != minValue;
  };
  if (safeConstant(y)) return true;
  auto select = y.getDefiningOp<arith::SelectOp>();
  if (!select || !safeConstant(select.getTrueValue())) return false;
  Value divisor = select.getFalseValue(), cond = select.getCondition();
  APInt zero = APInt::getZero(width);
  if (!isSigned) return isEqualTo(cond, divisor, zero);
  // Signed: the dividend a constant other than MIN, or the MIN / -1 guard.
  APInt d;
  if (isEqualTo(cond, divisor, zero))
    return matchPattern(x, m_ConstantInt(&d)) && d != minValue;
  auto either = cond.getDefiningOp<arith::OrIOp>();
  if (!either) return false;
  for (auto [isZero, overflow] : {std::pair(either.getLhs(), either.getRhs()),
                                  std::pair(either.getRhs(), either.getLhs())}) {
    auto both = overflow.getDefiningOp<arith::AndIOp>();
    if (!isEqualTo(isZero, divisor, zero) || !both) continue;
    if ((isEqualTo(both.getLhs(), x, minValue) && isEqualTo(both.getRhs(), divisor, minusOne)) ||
        (isEqualTo(both.getRhs(), x, minValue) && isEqualTo(both.getLhs(), divisor, minusOne)))
      return true;
  }
  return false;
}

// The op's innermost loop can step over vectors: every operand indexes it
// by its last, unit-stride subscript or not at all (so each vector is one
// contiguous load, store or broadcast), elements are whole bytes (an i1
// vector would be bit-packed in memory), and the body is arithmetic and
// math on its arguments, with no integer division that could trap. A short
// static innermost loop is not worth it.
bool vectorizable(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops == 0) return false;
  unsigned innermost = loops - 1;
  int64_t extent = op.getStaticLoopRanges()[innermost];
  if (!ShapedType::isDynamic(extent) && extent < 4) return false;
  // A reduction into a 16-bit float would become a vector reduction in
  // that type, which LLVM legalizes through conversion helpers the shared
  // object does not link (arithmetic on them is emulated in f32 instead).
  if (op.getNumReductionLoops() > 0)
    for (OpOperand& init : op.getDpsInitsMutable())
      if (auto f = dyn_cast<FloatType>(getElementTypeOrSelf(init.get().getType())); f && f.getWidth() < 32)
        return false;
  for (OpOperand& operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type) {
      if (isa<ShapedType>(operand.get().getType())) return false;
      continue;
    }
    Type element = type.getElementType();
    if (!element.isIntOrIndexOrFloat() ||
        (!element.isIndex() && element.getIntOrFloatBitWidth() % 8 != 0))
      return false;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    bool readsInnermost = false;
    for (unsigned i = 0; i < map.getNumResults(); ++i) {
      if (!map.getResult(i).isFunctionOfDim(innermost)) continue;
      if (i + 1 != map.getNumResults() ||
          map.getResult(i) != getAffineDimExpr(innermost, op.getContext()))
        return false;
      readsInnermost = true;
    }
    if (readsInnermost) {
      SmallVector<int64_t> strides;
      int64_t offset;
      if (failed(getStridesAndOffset(type, strides, offset)) || strides.empty() ||
          strides.back() != 1)
        return false;
    }
  }
  for (Operation& inner : op.getBlock()->without_terminator()) {
    if (isa<linalg::IndexOp>(inner)) continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect())) return false;
    // Masked-off lanes hold padding (zero): an integer division there
    // would trap unless its divisor is guarded (the total division of
    // docs/dialect.md is; LLVM divides a vector lane by lane).
    if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp, arith::CeilDivSIOp,
            arith::CeilDivUIOp, arith::FloorDivSIOp>(inner) &&
        !divisionCannotTrap(&inner))
      return false;
    auto scalar = [](Type t) { return t.isIntOrIndexOrFloat(); };
    if (!llvm::all_of(inner.getOperandTypes(), scalar) ||
        !llvm::all_of(inner.getResultTypes(), scalar))
      return false;
  }
  return true;
}

// A sum over its innermost loop of products of two widened bf16 operands,
// both read along that loop, into f32 (`sum<f32>[i] cast<f32>(x[.., i]) *
// cast<f32>(w[o, i])`, every product of a bf16 model): with AVX512-BF16 its
// vectors are 32 bf16 elements, which `linnet-lower-vectors` multiplies
// and adds in pairs (`vdpbf16ps`) into 16 f32 lanes. Only a static extent
// that 32 divides, so that no vector is masked.
bool bf16DotProduct(linalg::LinalgOp op, int64_t lanes) {
  unsigned loops = op.getNumLoops();
  if (loops == 0 || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1) return false;
  if (op.getIteratorTypesArray().back() != utils::IteratorType::reduction) return false;
  int64_t extent = op.getStaticLoopRanges().back();
  if (ShapedType::isDynamic(extent) || extent % (2 * lanes) != 0) return false;
  if (!getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32()) return false;
  for (OpOperand* input : op.getDpsInputOperands()) {
    if (!getElementTypeOrSelf(input->get().getType()).isBF16()) return false;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() == 0 || map.getResults().back() != getAffineDimExpr(loops - 1, op.getContext()))
      return false;
  }
  Block* body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1) return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add) return false;
  Value acc = body->getArgument(2), product = add.getRhs();
  if (add.getLhs() != acc) product = add.getLhs();
  if (add.getLhs() != acc && add.getRhs() != acc) return false;
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul) return false;
  SmallVector<Value, 2> widened;
  for (Value factor : {mul.getLhs(), mul.getRhs()}) {
    auto ext = factor.getDefiningOp<arith::ExtFOp>();
    auto input = ext ? dyn_cast<BlockArgument>(ext.getIn()) : BlockArgument();
    if (!input || input.getOwner() != body || input.getArgNumber() >= 2) return false;
    widened.push_back(input);
  }
  // Both operands, not one twice (x * x is a square, not a dot product of two).
  return widened[0] != widened[1] && body->getOperations().size() == 5;
}

// Rows of a reduction computed together (see rowBlockedLoop).
constexpr int64_t kRows = 4;

// A reduction whose result has a parallel loop outside the innermost one
// (each output row of a matrix-vector or matrix product) computes kRows
// rows of it per pass: each vector read of an operand that does not follow
// that loop (the vector of a matrix-vector product) serves kRows rows, and
// the kRows accumulators are independent chains of fused multiply-adds
// instead of one. Only a static extent that kRows divides, so that no row
// is masked. No reduction loop may lie between the rows and the innermost
// loop (`sum[a, d] x[a, b, c, d]` into `y[b, c]`, even with `a` of extent
// 1), unless the innermost loop is parallel and no lane of it is masked
// (partial lanes): otherwise the block's reads were permuted masked
// transfers whose lowering built out-of-range `vector.extract`s.
std::optional<unsigned> rowBlockedLoop(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0 || op.getNumLoops() < 2) return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // 16 lanes or a divisor of them (AVX-512, AVX2, SSE f32 vectors).
  bool unmaskedLanes = iterators.back() == utils::IteratorType::parallel && !ShapedType::isDynamic(ranges.back()) &&
                       ranges.back() % 16 == 0;
  for (int i = static_cast<int>(op.getNumLoops()) - 2; i >= 0; --i) {
    if (iterators[i] != utils::IteratorType::parallel) {
      if (!unmaskedLanes) return std::nullopt;
      continue;
    }
    if (ShapedType::isDynamic(ranges[i]) || ranges[i] < kRows || ranges[i] % kRows != 0) return std::nullopt;
    return static_cast<unsigned>(i);
  }
  return std::nullopt;
}

// Rows per pass of a row-blocked reduction without a token block (a
// matrix-vector product: decode's projections at one token, the output
// head) where the static row extent allows: 8 weight rows share each
// widened vector, and 8 streams through the weights keep more loads in
// flight. 8-layer Phi-3-mini decode, 120 steps, alternated 3 times:
// 8.11-8.29 s with 4 rows, 7.59-7.69 s with 8, logits bit-identical (each
// row's sum is unchanged).
constexpr int64_t kVectorRows = 8;

// Tokens of a row-blocked reduction computed together with its rows: the
// nearest parallel loop outside the rows whose extent is not one (the tokens
// of a matrix product, the rows of a batch). A kTokens x kRows register
// block of accumulators then reuses each widened vector of the matrix for
// kTokens tokens and each vector of a token for kRows rows. Inside a cache
// tile a dynamic extent, or one kTokens does not divide, is peeled
// (vectorizeTile); elsewhere such an extent is not blocked.
constexpr int64_t kTokens = 4;

std::optional<unsigned> tokenBlockedLoop(linalg::LinalgOp op, unsigned rowsLoop) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (int i = static_cast<int>(rowsLoop) - 1; i >= 0; --i) {
    if (iterators[i] != utils::IteratorType::parallel) return std::nullopt;
    if (ranges[i] == 1) continue;
    return static_cast<unsigned>(i);
  }
  return std::nullopt;
}

// Whether `loop` has a static extent that kTokens divides (full register
// blocks only, no partial one).
bool fullTokenBlocks(linalg::LinalgOp op, unsigned loop) {
  int64_t extent = op.getStaticLoopRanges()[loop];
  return !ShapedType::isDynamic(extent) && extent % kTokens == 0;
}

// Cache tiles of a row-blocked reduction with parallel loops outside its
// rows (a matrix product over tokens: out[s, o] = sum_i x[s, i] * w[o, i]):
// the op runs over tiles of kTileRows rows of `rowsLoop` and kTileOuter
// tokens, so each tile's rows of the
// matrix (kTileRows rows of one weight, a few hundred KiB) are read from
// memory once and then from cache for every token of the tile, instead of
// once per token. The tile loops are what threads share.
constexpr int64_t kTileRows = 32;
constexpr int64_t kTileOuter = 32;

struct CacheTiles {
  SmallVector<scf::ForOp> loops;  // outermost first
  linalg::LinalgOp inner;
};

FailureOr<CacheTiles> tileForCache(RewriterBase& rewriter, linalg::LinalgOp op, unsigned rowsLoop) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[rowsLoop] % kTileRows != 0) return failure();
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  bool outer = false;
  // The tokens (the nearest loop outside the rows whose extent is not one)
  // get kTileOuter per tile; loops further out (the batch of a [B, S, H]
  // product) one, so a tile holds kTileOuter tokens however many rows the
  // batch has.
  // Tokens that fit in one tile (a static batch of 8 rows) are not tiled,
  // so the tile's token count stays static (prefetchNextTile needs it).
  std::optional<unsigned> tokens = tokenBlockedLoop(op, rowsLoop);
  for (unsigned i = 0; i < rowsLoop; ++i) {
    if (iterators[i] != utils::IteratorType::parallel) return failure();
    sizes[i] = !tokens || i == *tokens ? kTileOuter : 1;
    if (tokens && i == *tokens && !ShapedType::isDynamic(ranges[i]) && ranges[i] <= kTileOuter) sizes[i] = 0;
    outer = true;
  }
  if (!outer) return failure();
  sizes[rowsLoop] = kTileRows;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled)) return failure();
  CacheTiles out;
  for (Operation* loop : tiled->loops)
    if (auto forOp = dyn_cast<scf::ForOp>(loop)) out.loops.push_back(forOp);
  out.inner = tiled->op;
  if (out.loops.size() != tiled->loops.size() ||
      static_cast<int64_t>(out.loops.size()) != llvm::count_if(sizes, [](int64_t size) { return size != 0; })) {
    for (Operation* loop : llvm::reverse(tiled->loops)) rewriter.eraseOp(loop);
    return failure();
  }
  return out;
}

// The streamed rows worth prefetching are at least 4 x this long (the
// distance the pass's `row-prefetch-bytes` defaults to, see Passes.td).
constexpr int64_t kPrefetchBytes = 768;

// The operands of a row-blocked reduction that its rows stream through
// memory: read along the rows and, last and contiguously, along the
// innermost loop (the matrix of a product), with a static innermost extent of
// at least 4 x kPrefetchBytes (a dynamic one is not known to be long enough
// for prefetching to matter). Each with its element size in bytes.
SmallVector<std::pair<OpOperand*, int64_t>> streamedRows(linalg::LinalgOp op, unsigned rowsLoop) {
  SmallVector<std::pair<OpOperand*, int64_t>> streamed;
  unsigned inner = op.getNumLoops() - 1;
  if (rowsLoop == inner) return streamed;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (OpOperand* operand : op.getDpsInputOperands()) {
    auto type = dyn_cast<MemRefType>(operand->get().getType());
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (!type || !type.getElementType().isIntOrFloat() || !map.isProjectedPermutation() || map.getNumResults() < 2)
      continue;
    auto lastDim = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!lastDim || lastDim.getPosition() != inner ||
        !llvm::is_contained(map.getResults(), getAffineDimExpr(rowsLoop, op.getContext())))
      continue;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(getStridesAndOffset(type, strides, offset)) || strides.back() != 1) continue;
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    if (bytes == 0 || ShapedType::isDynamic(ranges[inner]) || ranges[inner] * bytes < 4 * kPrefetchBytes) continue;
    streamed.push_back({operand, bytes});
  }
  return streamed;
}

// In the innermost (vector) loop of a row-blocked reduction, a prefetch of
// each of the block's `rows` rows of every streamed operand (streamedRows),
// `distance` bytes ahead, clamped to the row's last element.
void prefetchRows(RewriterBase& rewriter, linalg::LinalgOp op, MutableArrayRef<scf::ForOp> loops, unsigned rowsLoop,
                  int64_t rows, int64_t distance) {
  unsigned inner = op.getNumLoops() - 1;
  if (loops.size() != op.getNumLoops()) return;
  for (auto [operand, bytes] : streamedRows(op, rowsLoop)) {
    auto type = cast<MemRefType>(operand->get().getType());
    AffineMap map = op.getMatchingIndexingMap(operand);
    Location loc = op.getLoc();
    rewriter.setInsertionPointToStart(loops.back().getBody());
    Value ahead = rewriter.create<arith::AddIOp>(loc, loops.back().getInductionVar(),
                                                 rewriter.create<arith::ConstantIndexOp>(loc, distance / bytes));
    Value end = rewriter.create<arith::ConstantIndexOp>(loc, type.getShape().back() - 1);
    if (type.isDynamicDim(type.getRank() - 1))
      end = rewriter.create<arith::SubIOp>(
          loc, rewriter.create<memref::DimOp>(loc, operand->get(), type.getRank() - 1),
          rewriter.create<arith::ConstantIndexOp>(loc, 1));
    Value column = rewriter.create<arith::MinSIOp>(loc, ahead, end);
    for (int64_t r = 0; r < rows; ++r) {
      SmallVector<Value> indices;
      for (AffineExpr e : map.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        Value index = loops[d].getInductionVar();
        if (d == inner) index = column;
        else if (d == rowsLoop && r > 0)
          index = rewriter.create<arith::AddIOp>(loc, index, rewriter.create<arith::ConstantIndexOp>(loc, r));
        indices.push_back(index);
      }
      rewriter.create<memref::PrefetchOp>(loc, operand->get(), indices, /*isWrite=*/false, /*localityHint=*/3,
                                          /*isDataCache=*/true);
    }
  }
}

// In a cache tile's register blocks (kTokens x `rows`, a static number of
// tokens in the tile along `tokensLoop`, at least two blocks of them),
// prefetches of the next cache tile's rows of each streamed operand into L2,
// spread over the tile's passes: pass (token block b, row block r)
// prefetches, at the column its K loop is at, `share` = max(1, rows /
// blocks) rows of the next tile's row block r (rows r + (b * share) % rows
// onwards), so the blocks of one row block together cover it once. Without
// it each tile's rows come from memory while the first token block waits on
// them; with it the memory streams while the previous tile computes from
// cache. Measured with a C loop of the same shape (8 tokens, 4 x 4 blocks,
// K = 3072, two processes streaming 1 GiB each): 47-56 GFLOP/s each
// without, 71-75 with (two tiles ahead: 63-65; prefetcht2: 61-71); in the
// model, docs/codegen.md. With one block (4 tokens) the loop is bound by the
// memory either way and the extra prefetches cost: 8-layer `decode_rows` at
// 4 rows, 60 calls, 6.2-6.8 s without, 6.9-7.1 s with. The last tile's
// prefetches are clamped to the last row.
void prefetchNextTile(RewriterBase& rewriter, linalg::LinalgOp op, MutableArrayRef<scf::ForOp> loops,
                      unsigned rowsLoop, int64_t rows, unsigned tokensLoop) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (loops.size() != op.getNumLoops() || ranges[rowsLoop] != kTileRows || ShapedType::isDynamic(ranges[tokensLoop]) ||
      ranges[tokensLoop] % kTokens != 0)
    return;
  int64_t blocks = ranges[tokensLoop] / kTokens;
  if (blocks < 2) return;
  int64_t share = std::max<int64_t>(1, rows / blocks);
  for (auto [operand, bytes] : streamedRows(op, rowsLoop)) {
    // Indices into the tile's source are its offsets plus the tile's own.
    auto tile = operand->get().getDefiningOp<memref::SubViewOp>();
    if (!tile || tile.getSourceType().getRank() != tile.getType().getRank() ||
        !llvm::all_of(tile.getStaticStrides(), [](int64_t stride) { return stride == 1; }))
      continue;
    AffineMap map = op.getMatchingIndexingMap(operand);
    Location loc = op.getLoc();
    rewriter.setInsertionPointToStart(loops.back().getBody());
    SmallVector<OpFoldResult> offsets = tile.getMixedOffsets();
    auto value = [&](OpFoldResult v) { return getValueOrCreateConstantIndexOp(rewriter, loc, v); };
    auto constant = [&](int64_t v) { return rewriter.create<arith::ConstantIndexOp>(loc, v); };
    unsigned rowsDim = 0;
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (cast<AffineDimExpr>(e).getPosition() == rowsLoop) rowsDim = i;
    Value lastRow = rewriter.create<arith::SubIOp>(
        loc, rewriter.create<memref::DimOp>(loc, tile.getSource(), rowsDim), constant(1));
    // (b * share) % rows, b the token block.
    Value block = rewriter.create<arith::DivUIOp>(loc, loops[tokensLoop].getInductionVar(), constant(kTokens));
    Value first = rewriter.create<arith::RemUIOp>(
        loc, rewriter.create<arith::MulIOp>(loc, block, constant(share)), constant(rows));
    Value base = rewriter.create<arith::AddIOp>(
        loc, rewriter.create<arith::AddIOp>(loc, value(offsets[rowsDim]), loops[rowsLoop].getInductionVar()),
        rewriter.create<arith::AddIOp>(loc, first, constant(kTileRows)));
    for (int64_t r = 0; r < share; ++r) {
      SmallVector<Value> indices;
      for (auto [i, e] : llvm::enumerate(map.getResults())) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        if (i == rowsDim)
          indices.push_back(rewriter.create<arith::MinSIOp>(
              loc, rewriter.create<arith::AddIOp>(loc, base, constant(r)), lastRow));
        else
          indices.push_back(rewriter.create<arith::AddIOp>(loc, value(offsets[i]), loops[d].getInductionVar()));
      }
      rewriter.create<memref::PrefetchOp>(loc, tile.getSource(), indices, /*isWrite=*/false, /*localityHint=*/2,
                                          /*isDataCache=*/true);
    }
  }
}

// Tiles `op` by one along every loop but the innermost (and `rowsLoop`, by
// kRows, and `tokensLoop`, by kTokens), by `length` along the innermost, and
// vectorizes the tile (masked where the extent is not a multiple).
// Returns the tile loops, outermost first, or failure with `op` unchanged.
FailureOr<SmallVector<scf::ForOp>> vectorizeInnermost(RewriterBase& rewriter, linalg::LinalgOp op,
                                                      int64_t length, int64_t prefetch, std::optional<unsigned> rowsLoop,
                                                      std::optional<unsigned> tokensLoop = std::nullopt,
                                                      bool nextTile = false) {
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes.back() = length;
  int64_t rows = kRows;
  if (rowsLoop && !tokensLoop && op.getStaticLoopRanges()[*rowsLoop] % kVectorRows == 0) rows = kVectorRows;
  if (rowsLoop) sizes[*rowsLoop] = rows;
  if (rowsLoop && tokensLoop) sizes[*tokensLoop] = kTokens;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled)) return failure();
  SmallVector<scf::ForOp> loops;
  for (Operation* loop : tiled->loops)
    if (auto forOp = dyn_cast<scf::ForOp>(loop)) loops.push_back(forOp);
  linalg::LinalgOp tile = tiled->op;
  rewriter.setInsertionPoint(tile);
  SmallVector<bool> scalable(sizes.size(), false);
  if (loops.size() != tiled->loops.size() ||
      failed(linalg::vectorize(rewriter, tile, sizes, scalable))) {
    // Unexpected: undo the tiling; the caller builds scalar loops.
    for (Operation* loop : llvm::reverse(tiled->loops)) rewriter.eraseOp(loop);
    return failure();
  }
  if (rowsLoop && prefetch > 0) prefetchRows(rewriter, op, loops, *rowsLoop, rows, prefetch);
  if (rowsLoop && tokensLoop && nextTile) prefetchNextTile(rewriter, op, loops, *rowsLoop, rows, *tokensLoop);
  return loops;
}

// A cache tile's op vectorized in register blocks of kTokens x kRows. A
// token extent that kTokens may not divide (a dynamic S) is first tiled by
// kTokens and peeled: the full blocks get static shapes (no masks, so their
// accumulators stay in registers), the last partial block is vectorized a
// token at a time.
// `blockPrefetch` replaces `prefetch` where register blocks of tokens share
// the tile's rows (TargetOptions::tileRowPrefetchBytes).
LogicalResult vectorizeTile(RewriterBase& rewriter, linalg::LinalgOp op, int64_t length, int64_t prefetch,
                            int64_t blockPrefetch) {
  std::optional<unsigned> rows = rowBlockedLoop(op);
  std::optional<unsigned> tokens = rows ? tokenBlockedLoop(op, *rows) : std::nullopt;
  auto plain = [&](linalg::LinalgOp tile, std::optional<unsigned> blockTokens) -> LogicalResult {
    FailureOr<SmallVector<scf::ForOp>> loops = failure();
    if (blockTokens)
      loops = vectorizeInnermost(rewriter, tile, length, blockPrefetch, rows, blockTokens, /*nextTile=*/true);
    if (failed(loops)) loops = vectorizeInnermost(rewriter, tile, length, prefetch, rows);
    if (failed(loops) && rows) loops = vectorizeInnermost(rewriter, tile, length, prefetch, std::nullopt);
    if (failed(loops)) return failure();
    rewriter.eraseOp(tile);
    return success();
  };
  if (!tokens || fullTokenBlocks(op, *tokens)) return plain(op, tokens);
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[*tokens] = kTokens;
  linalg::LinalgTilingOptions options;
  options.setTileSizes(sizes).setLoopType(linalg::LinalgTilingLoopType::Loops);
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::TiledLinalgOp> tiled = linalg::tileLinalgOp(rewriter, op, options);
  if (failed(tiled) || tiled->loops.size() != 1 || !isa<scf::ForOp>(tiled->loops.front())) {
    if (succeeded(tiled))
      for (Operation* loop : llvm::reverse(tiled->loops)) rewriter.eraseOp(loop);
    return plain(op, std::nullopt);
  }
  auto blocks = cast<scf::ForOp>(tiled->loops.front());
  scf::ForOp partial;
  (void)scf::peelForLoopAndSimplifyBounds(rewriter, blocks, partial);
  SmallVector<std::pair<scf::ForOp, std::optional<unsigned>>> parts{{blocks, tokens}};
  if (partial) parts.push_back({partial, std::nullopt});
  for (auto [loop, blockTokens] : parts) {
    linalg::LinalgOp tile;
    loop.getBody()->walk([&](linalg::LinalgOp found) { tile = found; });
    if (!tile || failed(plain(tile, blockTokens))) return failure();
  }
  rewriter.eraseOp(op);
  return success();
}

// How many of the leading loops may run in parallel: the leading parallel
// iterators, but not the innermost loop (the vectorizer's) unless the nest
// is a single loop. Zero when the nest is not the perfect nest expected.
size_t parallelDepth(ArrayRef<utils::IteratorType> iterators, MutableArrayRef<scf::ForOp> loops) {
  if (loops.empty() || loops.size() != iterators.size()) return 0;
  size_t depth = 0;
  size_t limit = loops.size() == 1 ? 1 : loops.size() - 1;
  while (depth < limit && iterators[depth] == utils::IteratorType::parallel) ++depth;
  for (size_t i = 0; i + 1 < depth; ++i)
    if (loops[i].getBody()->getOperations().size() != 2 ||
        &loops[i].getBody()->front() != loops[i + 1].getOperation())
      return 0;
  for (scf::ForOp loop : loops)
    for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
      if (!loops.front().isDefinedOutsideOfLoop(bound)) return 0;
  for (scf::ForOp loop : loops)
    if (loop.getNumRegionIterArgs() != 0) return 0;
  return depth;
}

// A reduction whose innermost loop is the reduction but is not read
// contiguously, not an outer product (OuterProducts.cpp takes sum over k of
// p[q, k] * v[k, d]), and whose result's last axis is a parallel loop: that
// loop moves innermost (sum over k outside, d inside) when the op then
// reads every operand contiguously, so it vectorizes along d with the
// results as accumulators instead of running scalar. The op is left as it
// was otherwise.
linalg::LinalgOp interchangeForVectors(RewriterBase& rewriter, linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || op.getNumDpsInits() != 1 || vectorizable(op)) return op;
  unsigned loops = op.getNumLoops();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  if (loops < 2 || iterators[loops - 1] != utils::IteratorType::reduction) return op;
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (out.getNumResults() == 0) return op;
  auto last = dyn_cast<AffineDimExpr>(out.getResults().back());
  if (!last || iterators[last.getPosition()] != utils::IteratorType::parallel) return op;
  unsigned moved = last.getPosition();
  SmallVector<unsigned> order, inverse(loops);
  for (unsigned i = 0; i < loops; ++i)
    if (i != moved) order.push_back(i);
  order.push_back(moved);
  for (unsigned i = 0; i < loops; ++i) inverse[order[i]] = i;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::GenericOp> swapped = linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(swapped)) return op;
  if (vectorizable(*swapped)) return *swapped;
  FailureOr<linalg::GenericOp> back = linalg::interchangeGenericOp(rewriter, *swapped, inverse);
  return succeeded(back) ? linalg::LinalgOp(*back) : linalg::LinalgOp(*swapped);
}

struct LinalgToParallelLoopsPass : impl::LinalgToParallelLoopsBase<LinalgToParallelLoopsPass> {
  using LinalgToParallelLoopsBase::LinalgToParallelLoopsBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics()) ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // The copies a packed product leaves for few tokens, lowered as any
    // other op (and not packed again).
    llvm::SmallPtrSet<Operation*, 8> unpacked;
    for (size_t next = 0; next < ops.size(); ++next) {
      linalg::LinalgOp op = ops[next];
      if (vectorLength > 1 && !vectorizable(op))
        if (std::optional<OuterProduct> product = matchOuterProduct(op)) {
          lowerOuterProduct(rewriter, op, *product, vectorLength, minWork);
          continue;
        }
      if (vectorLength > 1) op = interchangeForVectors(rewriter, op);
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      int64_t vectorLength = this->vectorLength;
      if (bf16Dot && vectorLength == 16 && bf16DotProduct(op, vectorLength)) {
        vectorLength *= 2;
        std::optional<PackedProduct> product =
            vectorizable(op) && !unpacked.contains(op) ? matchPackedProduct(op) : std::nullopt;
        FailureOr<linalg::LinalgOp> fallback =
            product ? lowerPackedProduct(rewriter, op, *product, minWork) : FailureOr<linalg::LinalgOp>(failure());
        if (succeeded(fallback)) {
          if (*fallback) {
            unpacked.insert(*fallback);
            ops.push_back(*fallback);
          }
          continue;
        }
      }
      if (vectorLength > 1 && vectorizable(op)) {
        std::optional<unsigned> rows = rowBlockedLoop(op);
        if (rows) {
          FailureOr<CacheTiles> tiles = tileForCache(rewriter, op, *rows);
          if (succeeded(tiles)) {
            // The loops inside the tiles' (the reduction), counted before
            // the op is replaced: the threshold is on the op's work.
            rewriter.setInsertionPoint(tiles->loops.front());
            Location loc = op.getLoc();
            Value pointWork = rewriter.create<arith::ConstantIndexOp>(loc, 1);
            SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
            for (size_t i = *rows + 1; i < ranges.size(); ++i)
              pointWork = rewriter.create<arith::MulIOp>(
                  loc, pointWork, getValueOrCreateConstantIndexOp(rewriter, loc, ranges[i].size));
            if (succeeded(vectorizeTile(rewriter, tiles->inner, vectorLength, rowPrefetchBytes, tileRowPrefetchBytes))) {
              rewriter.eraseOp(op);
              // Threads share the tile loops that are perfectly nested
              // (parallelize clones only the innermost one's body) with
              // bounds computed before the nest.
              size_t depth = 1;
              while (depth < tiles->loops.size() &&
                     tiles->loops[depth - 1].getBody()->getOperations().size() == 2 &&
                     &tiles->loops[depth - 1].getBody()->front() == tiles->loops[depth].getOperation())
                ++depth;
              while (depth > 0 && !llvm::all_of(ArrayRef(tiles->loops).take_front(depth), [&](scf::ForOp loop) {
                       return llvm::all_of(
                           ValueRange{loop.getLowerBound(), loop.getUpperBound(), loop.getStep()},
                           [&](Value v) { return tiles->loops.front().isDefinedOutsideOfLoop(v); });
                     }))
                --depth;
              if (minWork > 0 && depth > 0) parallelize(rewriter, tiles->loops, depth, minWork, pointWork);
              continue;
            }
            for (scf::ForOp loop : llvm::reverse(tiles->loops)) rewriter.eraseOp(loop);
          }
        }
        // Outside cache tiles, tokens are blocked only where kTokens divides
        // their static extent (parallelDepth wants one perfect nest).
        std::optional<unsigned> tokens = rows ? tokenBlockedLoop(op, *rows) : std::nullopt;
        if (tokens && !fullTokenBlocks(op, *tokens)) tokens = std::nullopt;
        FailureOr<SmallVector<scf::ForOp>> loops = failure();
        if (tokens) loops = vectorizeInnermost(rewriter, op, vectorLength, rowPrefetchBytes, rows, tokens);
        if (failed(loops)) loops = vectorizeInnermost(rewriter, op, vectorLength, rowPrefetchBytes, rows);
        // Rows the vectorizer cannot block are vectorized one at a time.
        if (failed(loops) && rows)
          loops = vectorizeInnermost(rewriter, op, vectorLength, rowPrefetchBytes, std::nullopt);
        if (succeeded(loops)) {
          rewriter.eraseOp(op);
          size_t depth = parallelDepth(iterators, *loops);
          if (minWork > 0 && depth > 0) parallelize(rewriter, *loops, depth, minWork);
          continue;
        }
      }
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> built = linalg::linalgOpToLoops(rewriter, op);
      if (failed(built)) {
        op.emitOpError("cannot be lowered to loops");
        return signalPassFailure();
      }
      SmallVector<scf::ForOp> loops;
      for (Operation* loop : *built)
        if (auto forOp = dyn_cast<scf::ForOp>(loop)) loops.push_back(forOp);
      size_t depth = loops.size() == built->size() ? parallelDepth(iterators, loops) : 0;
      rewriter.eraseOp(op);
      if (minWork > 0 && depth > 0) parallelize(rewriter, loops, depth, minWork);
    }

  }
};

// scf.parallel over the first `depth` loops at the rewriter's insertion
// point, the rest of the nest cloned inside.
void buildParallel(RewriterBase& rewriter, MutableArrayRef<scf::ForOp> loops, size_t depth) {
  SmallVector<Value> lower, upper, steps;
  for (scf::ForOp loop : loops.take_front(depth)) {
    lower.push_back(loop.getLowerBound());
    upper.push_back(loop.getUpperBound());
    steps.push_back(loop.getStep());
  }
  auto parallel = rewriter.create<scf::ParallelOp>(loops.front().getLoc(), lower, upper, steps);
  IRMapping mapping;
  for (size_t i = 0; i < depth; ++i)
    mapping.map(loops[i].getInductionVar(), parallel.getInductionVars()[i]);
  rewriter.setInsertionPoint(parallel.getBody()->getTerminator());
  for (Operation& op : loops[depth - 1].getBody()->without_terminator())
    rewriter.clone(op, mapping);
}

}  // namespace

void parallelize(RewriterBase& rewriter, MutableArrayRef<scf::ForOp> loops, size_t depth, int64_t minWork,
                 Value pointWork) {
  scf::ForOp outer = loops.front();
  Location loc = outer.getLoc();
  rewriter.setInsertionPoint(outer);
  Value one = rewriter.create<arith::ConstantIndexOp>(loc, 1);
  Value points = pointWork ? pointWork : one, parallelPoints = one;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    // Points count iterations of the op, not of the (vector) loops.
    Value span = rewriter.create<arith::SubIOp>(loc, loop.getUpperBound(), loop.getLowerBound());
    Value trips = rewriter.create<arith::CeilDivSIOp>(loc, span, loop.getStep());
    points = rewriter.create<arith::MulIOp>(loc, points, span);
    if (i < depth) parallelPoints = rewriter.create<arith::MulIOp>(loc, parallelPoints, trips);
  }
  Value large = rewriter.create<arith::CmpIOp>(
      loc, arith::CmpIPredicate::sge, points,
      rewriter.create<arith::ConstantIndexOp>(loc, minWork));
  Value split = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, parallelPoints, one);
  Value condition = rewriter.create<arith::AndIOp>(loc, large, split);
  auto branch = rewriter.create<scf::IfOp>(loc, condition, /*withElseRegion=*/true);

  rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
  buildParallel(rewriter, loops, depth);
  rewriter.moveOpBefore(outer, branch.elseBlock()->getTerminator());
}

void parallelizeAlways(RewriterBase& rewriter, MutableArrayRef<scf::ForOp> loops, size_t depth) {
  rewriter.setInsertionPoint(loops.front());
  buildParallel(rewriter, loops, depth);
  rewriter.eraseOp(loops.front());
}


}  // namespace linnet::codegen
