// Outer products over rows that lie in order (part of
// `linnet-linalg-to-parallel-loops`): out[.., t, o] += sum_k x[.., t, k] *
// w[.., k, o], the rows `o` the last, contiguous subscript of the result and
// of the weights (attention's probabilities times values, p[q, k] * v[k, d];
// `matmul(a, b)` of a row-major b).
//
// Such an op reads neither operand contiguously along its innermost loop k,
// so it is not vectorized as it stands; moved innermost (interchangeForVectors)
// the rows vectorize, but every step of k then loads and stores the result.
// Here the result is kept in registers over the whole of k instead: a block of
// tokens x vectors of rows of accumulators, each step loading the block's row
// vectors of w[k] once (widened to f32 where they are narrower) and
// broadcasting each token's x[t, k] against them. No packing: w[k, o..o+15]
// is one contiguous vector already. Each output is the same chain of
// multiply-adds in order of k as before, so the results are bit-identical.
// docs/codegen.md, "Outer products".
#include "compiler/codegen/ParallelLoops.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace linnet::codegen {

using namespace mlir;
using namespace products;

namespace {

// The input a factor of the body reads: the argument itself, or its
// widening to f32 (`cast<f32>(v[..])`); none when it is neither.
std::optional<unsigned> factorOf(Value v, Block* body) {
  if (auto ext = v.getDefiningOp<arith::ExtFOp>()) v = ext.getIn();
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != body || arg.getArgNumber() >= 2) return std::nullopt;
  return arg.getArgNumber();
}

// acc + a * b (either order of either), a and b the two inputs, each as it
// is or widened to f32, the result f32.
bool multiplyAdd(linalg::LinalgOp op) {
  Block* body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1 || !yield.getOperand(0).getType().isF32()) return false;
  auto add = yield.getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add) return false;
  Value acc = body->getArgument(2);
  Value product = add.getLhs() == acc ? add.getRhs() : add.getRhs() == acc ? add.getLhs() : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : arith::MulFOp();
  if (!mul) return false;
  std::optional<unsigned> first = factorOf(mul.getLhs(), body), second = factorOf(mul.getRhs(), body);
  if (!first || !second || *first == *second) return false;
  // The block: the widenings, the multiply, the add and the yield only.
  size_t widenings = isa<BlockArgument>(mul.getLhs()) ? 0 : 1;
  widenings += isa<BlockArgument>(mul.getRhs()) ? 0 : 1;
  return body->getOperations().size() == 3 + widenings;
}

// The register block: accumulators of `blockTokens[0]` tokens x `vectors`
// vectors of rows (24 at 16 lanes: with the row vectors and a broadcast,
// 28 or fewer of AVX-512's 32 registers; 12 of AVX2's 16 at 8 lanes).
struct Blocking {
  int64_t vectors;
  SmallVector<int64_t, 3> blockTokens;
};

Blocking blockingFor(int64_t rows, int64_t lanes) {
  int64_t budget = lanes >= 16 ? 24 : 12;
  int64_t rowVectors = ShapedType::isDynamic(rows) ? 0 : llvm::divideCeil(rows, lanes);
  // Whole panels where the rows allow (96 rows: 2 panels of 3 vectors);
  // a dynamic count (0 here) takes 3, its last panel masked.
  int64_t vectors = 2;
  if (rowVectors > 0 && rowVectors <= 3) vectors = rowVectors;
  else if (rowVectors % 3 == 0) vectors = 3;
  int64_t tokens = std::min<int64_t>(budget / vectors, 12);
  Blocking blocking{vectors, {tokens}};
  if (tokens > 4) blocking.blockTokens.push_back(4);
  if (tokens > 1) blocking.blockTokens.push_back(1);
  return blocking;
}

class OuterNest {
 public:
  OuterNest(linalg::LinalgOp op, const OuterProduct& product, ArrayRef<Value> sizes, int64_t lanes)
      : op_(op), product_(product), sizes_(sizes), loc_(op.getLoc()), lanes_(lanes) {
    k_ = op.getNumLoops() - 1;
    int64_t rows = op.getStaticLoopRanges()[product.rows];
    blocking_ = blockingFor(rows, lanes);
    maskedRows_ = ShapedType::isDynamic(rows) || rows % (lanes * blocking_.vectors) != 0;
  }

  // The loops over the weights' batch points, the other batch loops and the
  // panels of rows (outermost first, perfectly nested, what threads may
  // share), built at the builder's insertion point; token blocks inside.
  SmallVector<scf::ForOp> build(OpBuilder& b) {
    SmallVector<scf::ForOp> loops;
    SmallVector<Value> at(op_.getNumLoops());
    Value zero = constant(b, loc_, 0), one = constant(b, loc_, 1);
    Value panelRows = constant(b, loc_, lanes_ * blocking_.vectors);
    for (unsigned dim : llvm::concat<const unsigned>(product_.weightBatch, product_.batch)) {
      loops.push_back(b.create<scf::ForOp>(loc_, zero, sizes_[dim], one));
      b.setInsertionPointToStart(loops.back().getBody());
      at[dim] = loops.back().getInductionVar();
    }
    loops.push_back(b.create<scf::ForOp>(loc_, zero, sizes_[product_.rows], panelRows));
    b.setInsertionPointToStart(loops.back().getBody());
    at[product_.rows] = loops.back().getInductionVar();
    if (product_.tokens) tokenBlocks(b, at);
    else block(b, 1, at);
    b.setInsertionPointAfter(loops.front());
    return loops;
  }

 private:
  void tokenBlocks(OpBuilder& b, SmallVector<Value>& at) {
    forTokenBlocks(b, loc_, sizes_[*product_.tokens], blocking_.blockTokens, [&](int64_t tokens, Value first) {
      at[*product_.tokens] = first;
      block(b, tokens, at);
    });
  }

  // Widens a loaded value to f32 where the op's body does.
  Value widened(OpBuilder& b, Location loc, Value v, Type f32) {
    Type element = getElementTypeOrSelf(v.getType());
    if (element == f32) return v;
    Type to = isa<VectorType>(v.getType()) ? Type(VectorType::get(cast<VectorType>(v.getType()).getShape(), f32)) : f32;
    return b.create<arith::ExtFOp>(loc, to, v);
  }

  // `tokens` tokens from at[tokens] x the panel's rows: accumulators loaded
  // from the result, every k added in order, stored back.
  void block(OpBuilder& b, int64_t tokens, SmallVector<Value> at) {
    Type f32 = b.getF32Type();
    auto lanes = VectorType::get({lanes_}, f32);
    Type weightElement = getElementTypeOrSelf(product_.weights->get().getType());
    auto weightLanes = VectorType::get({lanes_}, weightElement);
    OpOperand* out = op_.getDpsInitOperand(0);
    std::optional<unsigned> tokenDim = product_.tokens;
    Value first = tokenDim ? at[*tokenDim] : Value(), panel = at[product_.rows];
    int64_t vectors = blocking_.vectors;
    auto place = [&](OpBuilder& pb, int64_t i, int64_t j) {
      SmallVector<Value> p = at;
      if (tokenDim) p[*tokenDim] = pb.create<arith::AddIOp>(loc_, first, constant(pb, loc_, i));
      p[product_.rows] = pb.create<arith::AddIOp>(loc_, panel, constant(pb, loc_, lanes_ * j));
      return p;
    };
    // Where the rows may end inside the panel, each vector's lanes that
    // are rows (none past the end): the weights are read and the results
    // written through them.
    SmallVector<Value> masks;
    if (maskedRows_) masks = rowMasks(b, loc_, panel, sizes_[product_.rows], vectors, lanes_);
    auto mask = [&](int64_t j) { return masks.empty() ? Value() : masks[j]; };
    SmallVector<Value> init;
    for (int64_t i = 0; i < tokens; ++i)
      for (int64_t j = 0; j < vectors; ++j)
        init.push_back(loadRows(b, loc_, lanes, out->get(), subscripts(op_, out, place(b, i, j)), mask(j)));
    SmallVector<SmallVector<Value>> xAt, wAt;
    for (int64_t i = 0; i < tokens; ++i) xAt.push_back(place(b, i, 0));
    for (int64_t j = 0; j < vectors; ++j) wAt.push_back(place(b, 0, j));
    auto loop = b.create<scf::ForOp>(
        loc_, constant(b, loc_, 0), sizes_[k_], constant(b, loc_, 1), init,
        [&](OpBuilder& lb, Location loc, Value k, ValueRange accs) {
          SmallVector<Value> w;
          for (int64_t j = 0; j < vectors; ++j) {
            wAt[j][k_] = k;
            Value v = loadRows(lb, loc, weightLanes, product_.weights->get(),
                               subscripts(op_, product_.weights, wAt[j]), mask(j));
            w.push_back(widened(lb, loc, v, f32));
          }
          SmallVector<Value> next;
          for (int64_t i = 0; i < tokens; ++i) {
            xAt[i][k_] = k;
            Value x = lb.create<memref::LoadOp>(loc, product_.activations->get(),
                                                subscripts(op_, product_.activations, xAt[i]));
            Value splat = lb.create<vector::BroadcastOp>(loc, lanes, widened(lb, loc, x, f32));
            for (int64_t j = 0; j < vectors; ++j)
              next.push_back(lb.create<arith::AddFOp>(loc, accs[i * vectors + j],
                                                      lb.create<arith::MulFOp>(loc, splat, w[j])));
          }
          lb.create<scf::YieldOp>(loc, next);
        });
    for (int64_t i = 0; i < tokens; ++i)
      for (int64_t j = 0; j < vectors; ++j) {
        Value acc = loop.getResult(i * vectors + j);
        storeRows(b, loc_, acc, out->get(), subscripts(op_, out, place(b, i, j)), mask(j));
      }
  }

  linalg::LinalgOp op_;
  const OuterProduct& product_;
  ArrayRef<Value> sizes_;
  Location loc_;
  int64_t lanes_;
  unsigned k_;
  Blocking blocking_;
  bool maskedRows_;  // the rows may end inside a panel
};

}  // namespace

std::optional<OuterProduct> matchOuterProduct(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (loops < 2 || op.getNumReductionLoops() != 1 || op.getNumDpsInits() != 1 || op.getNumDpsInputs() != 2)
    return std::nullopt;
  unsigned k = loops - 1;
  if (op.getIteratorTypesArray()[k] != utils::IteratorType::reduction || !multiplyAdd(op)) return std::nullopt;
  for (OpOperand& operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !isa<FloatType>(type.getElementType()) || !op.getMatchingIndexingMap(&operand).isProjectedPermutation())
      return std::nullopt;
  }
  OpOperand* out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  // The result has every parallel loop, the rows last and contiguous.
  if (outMap.getNumResults() != loops - 1 || outMap.isFunctionOfDim(k) || !unitInnerStride(out->get()))
    return std::nullopt;
  OuterProduct product{};
  product.rows = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  for (OpOperand* input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isFunctionOfDim(k)) return std::nullopt;
    if (map.isFunctionOfDim(product.rows)) {
      // The weights: w[.., k, .., o], the rows last and contiguous; every
      // other loop they follow is a weight batch loop (attention's heads).
      if (product.weights || map.getResults().back() != getAffineDimExpr(product.rows, op.getContext()) ||
          !unitInnerStride(input->get()))
        return std::nullopt;
      for (AffineExpr e : map.getResults()) {
        unsigned d = cast<AffineDimExpr>(e).getPosition();
        if (d != product.rows && d != k) product.weightBatch.push_back(d);
      }
      llvm::sort(product.weightBatch);
      product.weights = input;
    } else {
      if (product.activations) return std::nullopt;
      product.activations = input;
    }
  }
  if (!product.weights || !product.activations) return std::nullopt;
  // The tokens: the innermost other parallel loop whose extent is not one;
  // none (one token) where there is no such loop.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  auto shared = [&](unsigned d) { return d != product.rows && !llvm::is_contained(product.weightBatch, d); };
  for (unsigned d = 0; d < k; ++d)
    if (shared(d) && ranges[d] != 1) product.tokens = d;
  for (unsigned d = 0; d < k; ++d)
    if (shared(d) && d != product.tokens) product.batch.push_back(d);
  return product;
}

void lowerOuterProduct(RewriterBase& rewriter, linalg::LinalgOp op, const OuterProduct& product, int64_t lanes,
                       int64_t minWork) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rewriter, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, range.size));
  // Work per point of the shared loops (per row of the panel loop): every
  // token's k multiply-adds.
  Value pointWork = sizes[op.getNumLoops() - 1];
  if (product.tokens) pointWork = rewriter.create<arith::MulIOp>(loc, pointWork, sizes[*product.tokens]);
  OuterNest nest(op, product, sizes, lanes);
  SmallVector<scf::ForOp> loops = nest.build(rewriter);
  if (minWork > 0) parallelize(rewriter, loops, loops.size(), minWork, pointWork);
  rewriter.eraseOp(op);
}

}  // namespace linnet::codegen
