// The `linnet-approximate-math` pass: upstream's polynomial approximation
// patterns (which MLIR only exposes through a test pass) applied greedily.
// No AVX2-only variants, so the result stays portable across targets.
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "compiler/codegen/Passes.h.inc"

namespace {

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    mlir::populateMathPolynomialApproximationPatterns(patterns);
    if (mlir::failed(mlir::applyPatternsAndFoldGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace linnet::codegen
