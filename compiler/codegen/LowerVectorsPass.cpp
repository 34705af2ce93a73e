// The `linnet-lower-vectors` pass: the vector ops the vectorizer made
// (masked n-D transfers with leading unit dims, multi-reductions,
// broadcasts, masks) become 1-D loads, stores and arithmetic that
// `convert-vector-to-llvm` maps onto the target's registers.
#include "compiler/codegen/Passes.h"
#include "compiler/codegen/X86Intrinsics.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_LOWERVECTORS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The allocation a memref value views, or null when it is not one made in
// this function (an argument may alias another argument).
Operation* allocationOf(Value memref) {
  while (Operation* def = memref.getDefiningOp()) {
    if (isa<memref::AllocOp, memref::AllocaOp>(def)) return def;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view) return nullptr;
    memref = view.getViewSource();
  }
  return nullptr;
}

Value memrefRead(Operation* op) {
  if (auto read = dyn_cast<vector::TransferReadOp>(op)) return read.getSource();
  if (auto load = dyn_cast<vector::LoadOp>(op)) return load.getBase();
  if (auto load = dyn_cast<vector::MaskedLoadOp>(op)) return load.getBase();
  if (auto load = dyn_cast<memref::LoadOp>(op)) return load.getMemRef();
  return {};
}

// One accumulator of `loop`: a transfer_read and a later transfer_write of
// the same vector at the same loop-invariant place of a buffer allocated
// in this function, in the loop's own body, where nothing else in the loop
// writes memory and nothing else reads that allocation. The read moves
// before the loop, the write after it, and the vector is carried.
// (Upstream's hoisting gives up on any buffer reached through a view,
// which is every tile's.)
FailureOr<scf::ForOp> hoistAccumulator(RewriterBase& rewriter, scf::ForOp loop) {
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    if (read.getMask() || !llvm::all_of(read->getOperands(), [&](Value v) {
          return loop.isDefinedOutsideOfLoop(v);
        }))
      continue;
    Operation* allocation = allocationOf(read.getSource());
    if (!allocation) continue;
    vector::TransferWriteOp write;
    for (Operation* user : read.getSource().getUsers()) {
      auto candidate = dyn_cast<vector::TransferWriteOp>(user);
      if (!candidate || candidate->getBlock() != loop.getBody() || candidate.getMask() ||
          candidate.getIndices() != read.getIndices() ||
          candidate.getVectorType() != read.getVectorType() ||
          candidate.getPermutationMap() != read.getPermutationMap() ||
          candidate.getInBoundsAttr() != read.getInBoundsAttr() ||
          !read->isBeforeInBlock(candidate))
        continue;
      write = candidate;
    }
    if (!write) continue;
    bool safe = true;
    loop.getBody()->walk([&](Operation* op) {
      if (op == read.getOperation() || op == write.getOperation()) return WalkResult::advance();
      // A prefetch (of a row-blocked product's rows) changes no memory.
      if (isa<memref::PrefetchOp>(op)) return WalkResult::advance();
      auto effects = dyn_cast<MemoryEffectOpInterface>(op);
      if (!effects) {
        if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) safe = false;
        return safe ? WalkResult::advance() : WalkResult::interrupt();
      }
      if (effects.hasEffect<MemoryEffects::Write>() ||
          effects.hasEffect<MemoryEffects::Free>() || effects.hasEffect<MemoryEffects::Allocate>()) {
        safe = false;
      } else if (effects.hasEffect<MemoryEffects::Read>()) {
        Value source = memrefRead(op);
        if (!source || allocationOf(source) == allocation) safe = false;
      }
      return safe ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!safe) continue;
    rewriter.moveOpBefore(read, loop);
    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, read.getResult(), /*replaceInitOperandUsesInLoop=*/true,
        [&](OpBuilder&, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{write.getVector()};
        }));
    rewriter.moveOpAfter(write, newLoop);
    rewriter.modifyOpInPlace(write, [&] { write.getVectorMutable().assign(newLoop.getResults().back()); });
    return newLoop;
  }
  return failure();
}

// The value a reduction of `kind` ignores, as a constant of `type`.
TypedAttr neutralElement(vector::CombiningKind kind, Type type, Builder& b) {
  using Kind = vector::CombiningKind;
  if (auto f = dyn_cast<FloatType>(type)) {
    const llvm::fltSemantics& sem = f.getFloatSemantics();
    switch (kind) {
      case Kind::ADD: return b.getFloatAttr(f, 0.0);
      case Kind::MUL: return b.getFloatAttr(f, 1.0);
      case Kind::MINNUMF:
      case Kind::MINIMUMF: return b.getFloatAttr(f, llvm::APFloat::getInf(sem, false));
      case Kind::MAXNUMF:
      case Kind::MAXIMUMF: return b.getFloatAttr(f, llvm::APFloat::getInf(sem, true));
      default: return {};
    }
  }
  auto i = dyn_cast<IntegerType>(type);
  if (!i) return {};
  unsigned bits = i.getWidth();
  switch (kind) {
    case Kind::ADD:
    case Kind::OR:
    case Kind::XOR:
    case Kind::MAXUI: return b.getIntegerAttr(i, llvm::APInt::getZero(bits));
    case Kind::MUL: return b.getIntegerAttr(i, llvm::APInt(bits, 1));
    case Kind::AND:
    case Kind::MINUI: return b.getIntegerAttr(i, llvm::APInt::getAllOnes(bits));
    case Kind::MINSI: return b.getIntegerAttr(i, llvm::APInt::getSignedMaxValue(bits));
    case Kind::MAXSI: return b.getIntegerAttr(i, llvm::APInt::getSignedMinValue(bits));
    default: return {};
  }
}

// After `newLoop` carries a reduction's lanes as its last result in place
// of reducing them on every trip (carryReductionLanes, carryBF16DotLanes):
// its old accumulator, result `index`, passes through the loop unchanged,
// `producer` (the per-trip reduction) is erased, and the lanes are reduced
// into the accumulator once after the loop.
void reduceLanesAfterLoop(RewriterBase& rewriter, scf::ForOp newLoop, unsigned index, Operation* producer,
                          ArrayRef<bool> reducedDims, vector::CombiningKind kind, Location loc) {
  auto newYield = cast<scf::YieldOp>(newLoop.getBody()->getTerminator());
  BlockArgument oldAcc = newLoop.getRegionIterArgs()[index];
  rewriter.modifyOpInPlace(newYield, [&] { newYield->setOperand(index, oldAcc); });
  rewriter.eraseOp(producer);
  rewriter.setInsertionPointAfter(newLoop);
  Value reduced = rewriter.create<vector::MultiDimReductionOp>(loc, newLoop.getResults().back(),
                                                               newLoop.getResult(index), reducedDims, kind);
  rewriter.replaceAllUsesExcept(newLoop.getResult(index), reduced, reduced.getDefiningOp());
}

// One reduction carried by `loop` in lanes: a carried accumulator whose
// only use is the accumulator of one multi-reduction (masked or not) whose
// result is yielded back in its place. Reducing the lanes horizontally on
// every trip is the slow part of an innermost reduction (a matrix product
// along K): the loop carries the unreduced vector instead, combined lane by
// lane with each trip's (masked-off lanes as the neutral element), and the
// lanes are reduced once after the loop. A reassociation of the reduction,
// fixed by the vector shape, not by threads. Vectors of more than
// kMaxCarriedLanes elements are left alone (registers).
constexpr int64_t kMaxCarriedLanes = 256;

FailureOr<scf::ForOp> carryReductionLanes(RewriterBase& rewriter, scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [index, acc] : llvm::enumerate(loop.getRegionIterArgs())) {
    if (!acc.hasOneUse()) continue;
    auto reduction = dyn_cast<vector::MultiDimReductionOp>(*acc.getUsers().begin());
    if (!reduction || reduction.getAcc() != acc) continue;
    Operation* producer = reduction;
    Value mask;
    if (auto masked = dyn_cast<vector::MaskOp>(reduction->getParentOp())) {
      if (masked.hasPassthru()) continue;
      producer = masked;
      mask = masked.getMask();
    }
    if (producer->getBlock() != loop.getBody() || producer->getNumResults() != 1) continue;
    Value result = producer->getResult(0);
    if (!result.hasOneUse() || *result.getUsers().begin() != yield ||
        yield.getOperand(index) != result)
      continue;
    auto sourceType = cast<VectorType>(reduction.getSource().getType());
    if (sourceType.isScalable() || sourceType.getNumElements() > kMaxCarriedLanes) continue;
    TypedAttr neutral = neutralElement(reduction.getKind(), sourceType.getElementType(), rewriter);
    if (!neutral) continue;
    if (mask && mask.getType() != VectorType::get(sourceType.getShape(), rewriter.getI1Type())) continue;

    Location loc = reduction.getLoc();
    vector::CombiningKind kind = reduction.getKind();
    SmallVector<bool> reducedDims = reduction.getReductionMask();
    rewriter.setInsertionPoint(loop);
    Value neutralLanes = rewriter.create<arith::ConstantOp>(loc, DenseElementsAttr::get(sourceType, neutral));
    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, neutralLanes, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder& b, Location, ArrayRef<BlockArgument> lanes) {
          b.setInsertionPoint(producer);
          Value source = reduction.getSource();
          if (mask) {
            Value fill = b.create<arith::ConstantOp>(loc, DenseElementsAttr::get(sourceType, neutral));
            source = b.create<arith::SelectOp>(loc, mask, source, fill);
          }
          return SmallVector<Value>{vector::makeArithReduction(b, loc, kind, source,
                                                               lanes.front())};
        }));
    reduceLanesAfterLoop(rewriter, newLoop, index, producer, reducedDims, kind, loc);
    return newLoop;
  }
  return failure();
}

// The bf16 vector `v` widens, when `v` is `extf` of one with 2 x kDotLanes
// elements along its last dim.
Value widenedBF16(Value v) {
  auto ext = v.getDefiningOp<arith::ExtFOp>();
  if (!ext) return {};
  auto type = dyn_cast<VectorType>(ext.getIn().getType());
  if (!type || type.isScalable() || !type.getElementType().isBF16() || type.getShape().back() != 2 * kDotLanes)
    return {};
  return ext.getIn();
}

// With AVX512-BF16: one reduction of `loop` carried in lanes as
// carryReductionLanes does, where each trip adds `extf(a) * extf(b)` of two
// bf16 vectors of 2 x kDotLanes elements along the reduced last dim (no
// mask): the loop carries kDotLanes f32 lanes per row of the leading dims
// instead, each trip adding the products in pairs with one `vdpbf16ps` per
// row (llvm.call_intrinsic on 1-D vectors extracted from the n-D ones), and
// the lanes are reduced once after the loop. Neither operand is widened.
// A reassociation of the sum as the lanes are; the instruction also flushes
// denormal inputs and results to zero. At most kMaxCarriedLanes lanes.
FailureOr<scf::ForOp> carryBF16DotLanes(RewriterBase& rewriter, scf::ForOp loop) {
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [index, acc] : llvm::enumerate(loop.getRegionIterArgs())) {
    if (!acc.hasOneUse()) continue;
    auto reduction = dyn_cast<vector::MultiDimReductionOp>(*acc.getUsers().begin());
    if (!reduction || reduction.getAcc() != acc || reduction.getKind() != vector::CombiningKind::ADD) continue;
    if (reduction->getBlock() != loop.getBody() || isa<vector::MaskOp>(reduction->getParentOp())) continue;
    Value result = reduction.getResult();
    if (!result.hasOneUse() || *result.getUsers().begin() != yield || yield.getOperand(index) != result) continue;
    auto sourceType = cast<VectorType>(reduction.getSource().getType());
    SmallVector<bool> reducedDims = reduction.getReductionMask();
    if (!sourceType.getElementType().isF32() || sourceType.getRank() < 2 || !reducedDims.back() ||
        llvm::count(reducedDims, true) != 1)
      continue;
    auto mul = reduction.getSource().getDefiningOp<arith::MulFOp>();
    if (!mul) continue;
    Value a = widenedBF16(mul.getLhs()), b = widenedBF16(mul.getRhs());
    if (!a || !b) continue;
    SmallVector<int64_t> laneShape(sourceType.getShape());
    laneShape.back() = kDotLanes;
    auto laneType = VectorType::get(laneShape, rewriter.getF32Type());
    if (laneType.getNumElements() > kMaxCarriedLanes) continue;
    ArrayRef<int64_t> rows = ArrayRef(laneShape).drop_back();

    Location loc = reduction.getLoc();
    rewriter.setInsertionPoint(loop);
    Value zeros = rewriter.create<arith::ConstantOp>(loc, DenseElementsAttr::get(laneType, rewriter.getF32FloatAttr(0)));
    auto newLoop = cast<scf::ForOp>(*loop.replaceWithAdditionalYields(
        rewriter, zeros, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder& builder, Location, ArrayRef<BlockArgument> lanes) {
          builder.setInsertionPoint(reduction);
          Value next = lanes.front();
          auto rowType = VectorType::get({kDotLanes}, builder.getF32Type());
          SmallVector<int64_t> at(rows.size(), 0);
          for (int64_t n = 0; n < laneType.getNumElements() / kDotLanes; ++n) {
            // `at`: row n of the leading dims, last dim fastest.
            int64_t rest = n;
            for (size_t d = rows.size(); d-- > 0;) {
              at[d] = rest % rows[d];
              rest /= rows[d];
            }
            Value rowA = builder.create<vector::ExtractOp>(loc, a, at);
            Value rowB = builder.create<vector::ExtractOp>(loc, b, at);
            Value rowLanes = builder.create<vector::ExtractOp>(loc, next, at);
            Value dot = builder
                            .create<LLVM::CallIntrinsicOp>(loc, rowType, kDotIntrinsic,
                                                           ValueRange{rowLanes, rowA, rowB})
                            .getResult(0);
            next = builder.create<vector::InsertOp>(loc, dot, next, at);
          }
          return SmallVector<Value>{next};
        }));
    reduceLanesAfterLoop(rewriter, newLoop, index, reduction, reducedDims, vector::CombiningKind::ADD, loc);
    return newLoop;
  }
  return failure();
}

// A masked 1-D reduction (what the multi-reduction lowering leaves of a
// masked tile) reduces its vector with the masked-off lanes replaced by the
// neutral element. Left masked, later type conversions of its region loop.
struct MaskedReductionToSelect : OpRewritePattern<vector::MaskOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::MaskOp mask, PatternRewriter& rewriter) const override {
    auto reduction = dyn_cast_or_null<vector::ReductionOp>(mask.getMaskableOp());
    if (!reduction || mask.hasPassthru()) return failure();
    Type element = reduction.getVector().getType().getElementType();
    TypedAttr neutral = neutralElement(reduction.getKind(), element, rewriter);
    if (!neutral) return failure();
    Location loc = reduction.getLoc();
    auto vectorType = reduction.getVector().getType();
    Value fill = rewriter.create<arith::ConstantOp>(loc, DenseElementsAttr::get(vectorType, neutral));
    Value kept = rewriter.create<arith::SelectOp>(loc, mask.getMask(), reduction.getVector(), fill);
    rewriter.replaceOpWithNewOp<vector::ReductionOp>(mask, reduction.getType(), reduction.getKind(),
                                                     kept, reduction.getAcc(),
                                                     reduction.getFastmath());
    return success();
  }
};

struct LowerVectorsPass : impl::LowerVectorsBase<LowerVectorsPass> {
  using LowerVectorsBase::LowerVectorsBase;

  void runOnOperation() override {
    MLIRContext* context = &getContext();
    // A reduction's accumulator vector is read and written at the same
    // place on every trip of the reduction loop: kept in a register across
    // it instead. The tile's subviews are built inside the loops, so
    // loop-invariant code motion first moves the accumulator's out.
    getOperation()->walk([](LoopLikeOpInterface loop) { moveLoopInvariantCode(loop); });
    {
      IRRewriter rewriter(context);
      SmallVector<scf::ForOp> loops;
      getOperation()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
      // Innermost first; each hoist replaces the loop by one with one more
      // carried value.
      for (scf::ForOp loop : loops) {
        for (FailureOr<scf::ForOp> next = hoistAccumulator(rewriter, loop); succeeded(next);
             next = hoistAccumulator(rewriter, *next))
          loop = *next;
        if (bf16Dot)
          for (FailureOr<scf::ForOp> next = carryBF16DotLanes(rewriter, loop); succeeded(next);
               next = carryBF16DotLanes(rewriter, *next))
            loop = *next;
        for (FailureOr<scf::ForOp> next = carryReductionLanes(rewriter, loop); succeeded(next);
             next = carryReductionLanes(rewriter, *next))
          loop = *next;
      }
    }
    // Masks first: a masked transfer becomes a transfer with a mask operand,
    // a masked reduction a select of the neutral element.
    {
      RewritePatternSet patterns(context);
      vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
      if (failed(applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
        return signalPassFailure();
    }
    // Then shapes, in stages whose patterns do not undo each other (the
    // multi-reduction lowering lifts to 2-D with leading unit dims that the
    // unit-dim patterns would drop again): drop leading unit dims (the
    // tile's loops of one) and permutations from transfers; lower
    // reductions, masks, broadcasts, transposes; then rank-1 transfers to
    // loads and stores and the remaining shape casts.
    auto apply = [&](auto populate) {
      RewritePatternSet patterns(context);
      populate(patterns);
      return applyPatternsAndFoldGreedily(getOperation(), std::move(patterns));
    };
    if (failed(apply([](RewritePatternSet& patterns) {
          vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
          vector::populateVectorTransferDropUnitDimsPatterns(patterns);
          vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
        })) ||
        failed(apply([](RewritePatternSet& patterns) {
          vector::populateVectorMultiReductionLoweringPatterns(
              patterns, vector::VectorMultiReductionLowering::InnerReduction);
          vector::populateVectorMaskOpLoweringPatterns(patterns);
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorTransposeLoweringPatterns(patterns,
                                                          vector::VectorTransformsOptions());
          vector::populateVectorContractLoweringPatterns(patterns,
                                                         vector::VectorTransformsOptions());
          vector::populateVectorGatherLoweringPatterns(patterns);
        })) ||
        failed(apply([&](RewritePatternSet& patterns) {
          patterns.add<MaskedReductionToSelect>(context);
        })) ||
        failed(apply([](RewritePatternSet& patterns) {
          vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
          vector::populateVectorShapeCastLoweringPatterns(patterns);
        })))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace linnet::codegen
