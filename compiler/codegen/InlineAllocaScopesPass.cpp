// The `linnet-inline-alloca-scopes` pass (Passes.td).
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_INLINEALLOCASCOPES
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

struct InlineAllocaScopesPass : impl::InlineAllocaScopesBase<InlineAllocaScopesPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
    IRRewriter rewriter(&getContext());
    // Innermost first (the walk is post-order), so an outer scope's body is
    // already a single block of ops when it is inlined.
    for (memref::AllocaScopeOp scope : scopes) {
      if (scope.getNumResults() != 0 || !scope.getBodyRegion().hasOneBlock()) continue;
      bool allocates = false;
      scope.getBodyRegion().walk([&](Operation* op) {
        if (isa<memref::AllocaOp, LLVM::AllocaOp>(op)) allocates = true;
      });
      Block* body = &scope.getBodyRegion().front();
      Operation* terminator = body->getTerminator();
      rewriter.setInsertionPoint(scope);
      Value saved;
      // Allocas made in the scope are freed where it ends, every trip of a
      // loop around it: stacksave/stackrestore, as the memref-to-LLVM
      // lowering of the scope would emit.
      if (allocates) saved = rewriter.create<LLVM::StackSaveOp>(scope.getLoc(), LLVM::LLVMPointerType::get(&getContext()));
      rewriter.inlineBlockBefore(body, scope);
      rewriter.eraseOp(terminator);
      if (allocates) {
        rewriter.setInsertionPoint(scope);
        rewriter.create<LLVM::StackRestoreOp>(scope.getLoc(), saved);
      }
      rewriter.eraseOp(scope);
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
