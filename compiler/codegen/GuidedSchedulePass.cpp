// The `linnet-guided-schedule` pass (Passes.td).
#include "compiler/codegen/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_GUIDEDSCHEDULE
#include "compiler/codegen/Passes.h.inc"

namespace {

struct GuidedSchedulePass : impl::GuidedScheduleBase<GuidedSchedulePass> {
  void runOnOperation() override {
    auto guided = mlir::omp::ClauseScheduleKindAttr::get(&getContext(), mlir::omp::ClauseScheduleKind::Guided);
    getOperation()->walk([&](mlir::omp::WsloopOp loop) {
      // A schedule someone chose is kept.
      if (!loop.getScheduleValAttr()) loop.setScheduleValAttr(guided);
    });
  }
};

}  // namespace
}  // namespace linnet::codegen
