// The `linnet-align-while-loops` pass (Passes.td).
#include "compiler/codegen/Passes.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_ALIGNWHILELOOPS
#include "compiler/codegen/Passes.h.inc"

namespace {

// For each value the condition forwards, the before-region argument it is;
// nullopt when one is not an argument or they are out of order (left alone).
std::optional<llvm::SmallVector<unsigned>> forwardedArguments(mlir::scf::WhileOp loop) {
  mlir::Block* before = loop.getBeforeBody();
  llvm::SmallVector<unsigned> positions;
  for (mlir::Value v : loop.getConditionOp().getArgs()) {
    auto arg = mlir::dyn_cast<mlir::BlockArgument>(v);
    if (!arg || arg.getOwner() != before) return std::nullopt;
    if (!positions.empty() && arg.getArgNumber() <= positions.back()) return std::nullopt;
    positions.push_back(arg.getArgNumber());
  }
  return positions;
}

void align(mlir::scf::WhileOp loop) {
  std::optional<llvm::SmallVector<unsigned>> positions = forwardedArguments(loop);
  mlir::Block* before = loop.getBeforeBody();
  if (!positions || positions->size() == before->getNumArguments()) return;

  mlir::OpBuilder builder(loop);
  auto aligned = builder.create<mlir::scf::WhileOp>(loop.getLoc(), before->getArgumentTypes(),
                                                     loop.getInits());
  aligned.getBefore().takeBody(loop.getBefore());
  aligned.getAfter().takeBody(loop.getAfter());
  mlir::Block* after = aligned.getAfterBody();
  for (unsigned i = 0, next = 0; i < before->getNumArguments(); ++i) {
    if (next < positions->size() && (*positions)[next] == i) {
      ++next;
      continue;
    }
    after->insertArgument(i, before->getArgument(i).getType(), loop.getLoc());
  }
  aligned.getConditionOp().getArgsMutable().assign(before->getArguments());
  for (auto [j, result] : llvm::enumerate(loop.getResults()))
    result.replaceAllUsesWith(aligned.getResult((*positions)[j]));
  loop.erase();
}

struct AlignWhileLoopsPass : impl::AlignWhileLoopsBase<AlignWhileLoopsPass> {
  void runOnOperation() override {
    llvm::SmallVector<mlir::scf::WhileOp> loops;
    getOperation()->walk([&](mlir::scf::WhileOp loop) { loops.push_back(loop); });
    for (mlir::scf::WhileOp loop : loops) align(loop);
  }
};

}  // namespace
}  // namespace linnet::codegen
