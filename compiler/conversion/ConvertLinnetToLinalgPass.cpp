// The `convert-linnet-to-linalg` pass: a partial conversion with every
// `linnet` op illegal, so an op no pattern handles fails the pass with the
// op's location instead of reaching bufferization.
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/LinnetDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace linnet::conversion {

#define GEN_PASS_DEF_CONVERTLINNETTOLINALG
#include "compiler/conversion/Passes.h.inc"

namespace {

struct ConvertLinnetToLinalgPass
    : impl::ConvertLinnetToLinalgBase<ConvertLinnetToLinalgPass> {
  void runOnOperation() override {
    mlir::MLIRContext* context = &getContext();
    mlir::ConversionTarget target(*context);
    target.addIllegalDialect<dialect::LinnetDialect>();
    target.markUnknownOpDynamicallyLegal([](mlir::Operation*) { return true; });
    mlir::RewritePatternSet patterns(context);
    populateLinnetToLinalgPatterns(patterns);
    if (mlir::failed(mlir::applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace linnet::conversion
