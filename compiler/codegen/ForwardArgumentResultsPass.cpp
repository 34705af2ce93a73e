// The `linnet-forward-argument-results` pass (Passes.td). A result is
// forwarded when every return of the function yields the same block argument
// for it (through casts); a call's use then reads the operand it passed, cast
// back to the result's type when the two differ. After bufferization the
// result is dropped; before it (`tensors`), only the uses move, and results
// One-Shot Bufferize could not place (a value returned twice, a choice over
// arguments) are returned as copies first.
#include <functional>

#include "compiler/codegen/Passes.h"
#include "compiler/conversion/TensorBuilders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_FORWARDARGUMENTRESULTS
#include "compiler/codegen/Passes.h.inc"

namespace {

mlir::Value stripCasts(mlir::Value v) {
  while (true) {
    if (auto cast = v.getDefiningOp<mlir::memref::CastOp>()) v = cast.getSource();
    else if (auto cast = v.getDefiningOp<mlir::tensor::CastOp>()) v = cast.getSource();
    else return v;
  }
}

// For each result, the argument it always returns, or -1.
llvm::SmallVector<int> forwardedArguments(mlir::func::FuncOp fn) {
  llvm::SmallVector<int> forwarded(fn.getNumResults(), -1);
  bool first = true;
  fn.walk([&](mlir::func::ReturnOp ret) {
    for (auto [i, operand] : llvm::enumerate(ret.getOperands())) {
      int arg = -1;
      auto block = mlir::dyn_cast<mlir::BlockArgument>(stripCasts(operand));
      if (block && block.getOwner() == &fn.getBody().front() &&
          mlir::isa<mlir::BaseMemRefType, mlir::RankedTensorType>(block.getType()))
        arg = static_cast<int>(block.getArgNumber());
      if (first) forwarded[i] = arg;
      else if (forwarded[i] != arg) forwarded[i] = -1;
    }
    first = false;
  });
  return forwarded;
}

struct ForwardArgumentResultsPass : impl::ForwardArgumentResultsBase<ForwardArgumentResultsPass> {
  using ForwardArgumentResultsBase::ForwardArgumentResultsBase;

  // Before bufferization: uses of a forwarded tensor result take the
  // operand; the functions keep their signatures.
  void forwardTensorResults(mlir::ModuleOp module) {
    // The same value returned twice (a method returning the state it wrote,
    // once canonicalization has folded `if c { h } else { h }` to `h`) gets
    // one buffer type for two results, which One-Shot Bufferize could not
    // reconcile with a caller's loop ("init_arg and yielded value bufferize
    // to inconsistent memory spaces"): the later one returns a copy.
    // Likewise a result that is a choice on data (`scf.if`, `arith.select`)
    // between two arguments, or between an argument and a value that is not
    // that argument updated in place (`h = if c { x } else { h }` on a state
    // argument `h`): a caller writing it back into a state failed ("cannot
    // avoid RaW conflict"). It is returned as a copy. A choice between an
    // argument and its own in-place update (a cache written or not) is not.
    for (auto fn : module.getOps<mlir::func::FuncOp>()) {
      if (fn.isPublic() || fn.isExternal()) continue;
      mlir::Block* entry = &fn.getBody().front();
      // The values a choice may be, through nested choices and casts.
      std::function<void(mlir::Value, int, llvm::SmallVectorImpl<mlir::Value>&)> leaves =
          [&](mlir::Value v, int depth, llvm::SmallVectorImpl<mlir::Value>& out) {
            if (depth > 16) return out.push_back(v);
            if (auto cast = v.getDefiningOp<mlir::tensor::CastOp>()) return leaves(cast.getSource(), depth + 1, out);
            if (auto select = v.getDefiningOp<mlir::arith::SelectOp>()) {
              leaves(select.getTrueValue(), depth + 1, out);
              return leaves(select.getFalseValue(), depth + 1, out);
            }
            if (auto choice = v.getDefiningOp<mlir::scf::IfOp>()) {
              unsigned r = mlir::cast<mlir::OpResult>(v).getResultNumber();
              for (mlir::Region* region : {&choice.getThenRegion(), &choice.getElseRegion()})
                if (!region->empty()) leaves(region->front().getTerminator()->getOperand(r), depth + 1, out);
              return;
            }
            out.push_back(v);
          };
      // The argument `v` updates in place, following destinations
      // (`insert_slice ... into %arg`, a linalg op's `outs`), or null.
      auto updatedArgument = [&](mlir::Value v) -> mlir::Value {
        for (int depth = 0; depth < 64; ++depth) {
          if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(v)) return arg.getOwner() == entry ? v : mlir::Value();
          mlir::Operation* op = v.getDefiningOp();
          if (auto cast = mlir::dyn_cast_or_null<mlir::tensor::CastOp>(op)) { v = cast.getSource(); continue; }
          auto dps = mlir::dyn_cast_or_null<mlir::DestinationStyleOpInterface>(op);
          if (!dps) return mlir::Value();
          v = dps.getDpsInits()[mlir::cast<mlir::OpResult>(v).getResultNumber()];
        }
        return mlir::Value();
      };
      auto choiceOverArguments = [&](mlir::Value v) {
        if (!v.getDefiningOp<mlir::scf::IfOp>() && !v.getDefiningOp<mlir::arith::SelectOp>()) return false;
        llvm::SmallVector<mlir::Value> all;
        leaves(v, 0, all);
        llvm::SmallPtrSet<void*, 4> arguments;
        bool other = false;
        for (mlir::Value leaf : all) {
          if (auto arg = mlir::dyn_cast<mlir::BlockArgument>(leaf); arg && arg.getOwner() == entry)
            arguments.insert(leaf.getAsOpaquePointer());
          else other = true;
        }
        if (arguments.size() >= 2) return true;
        if (arguments.empty() || !other) return false;
        for (mlir::Value leaf : all) {
          if (mlir::isa<mlir::BlockArgument>(leaf) && arguments.contains(leaf.getAsOpaquePointer())) continue;
          mlir::Value updated = updatedArgument(leaf);
          if (!updated || !arguments.contains(updated.getAsOpaquePointer())) return true;
        }
        return false;
      };
      fn.walk([&](mlir::func::ReturnOp ret) {
        for (unsigned i = 0; i < ret.getNumOperands(); ++i) {
          mlir::Value v = ret.getOperand(i);
          auto type = mlir::dyn_cast<mlir::RankedTensorType>(v.getType());
          bool twice = llvm::find(ret.getOperands().take_front(i), v) != ret.getOperands().take_front(i).end();
          if (!type || !(twice || choiceOverArguments(v))) continue;
          mlir::OpBuilder b(ret);
          ret.setOperand(i, conversion::freshCopy(b, ret.getLoc(), v));
        }
      });
    }
    llvm::DenseMap<mlir::StringAttr, llvm::SmallVector<int>> forwarded;
    for (auto fn : module.getOps<mlir::func::FuncOp>())
      if (!fn.isPublic() && !fn.isExternal()) forwarded[fn.getSymNameAttr()] = forwardedArguments(fn);
    module.walk([&](mlir::func::CallOp call) {
      auto it = forwarded.find(call.getCalleeAttr().getAttr());
      if (it == forwarded.end()) return;
      for (auto [i, result] : llvm::enumerate(call.getResults())) {
        if (i >= it->second.size() || it->second[i] < 0 || result.use_empty()) continue;
        mlir::Value operand = call.getOperand(it->second[i]);
        if (!mlir::isa<mlir::RankedTensorType>(operand.getType())) continue;
        if (operand.getType() != result.getType()) {
          mlir::OpBuilder builder(call);
          operand = builder.create<mlir::tensor::CastOp>(call.getLoc(), result.getType(), operand);
        }
        result.replaceAllUsesWith(operand);
      }
    });
  }

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    if (onTensors) {
      forwardTensorResults(module);
      return;
    }
    llvm::DenseMap<mlir::StringAttr, llvm::SmallVector<int>> changed;
    for (auto fn : module.getOps<mlir::func::FuncOp>()) {
      if (fn.isPublic() || fn.isExternal()) continue;
      llvm::SmallVector<int> forwarded = forwardedArguments(fn);
      if (llvm::all_of(forwarded, [](int a) { return a < 0; })) continue;
      llvm::BitVector erase(fn.getNumResults());
      for (auto [i, arg] : llvm::enumerate(forwarded))
        if (arg >= 0) erase.set(i);
      fn.walk([&](mlir::func::ReturnOp ret) { ret->eraseOperands(erase); });
      fn.eraseResults(erase);
      changed[fn.getSymNameAttr()] = std::move(forwarded);
    }
    if (changed.empty()) return;

    llvm::SmallVector<mlir::func::CallOp> calls;
    module.walk([&](mlir::func::CallOp call) {
      if (changed.count(call.getCalleeAttr().getAttr())) calls.push_back(call);
    });
    for (mlir::func::CallOp call : calls) {
      const llvm::SmallVector<int>& forwarded = changed[call.getCalleeAttr().getAttr()];
      mlir::OpBuilder builder(call);
      llvm::SmallVector<mlir::Type> types;
      for (auto [i, result] : llvm::enumerate(call.getResults()))
        if (forwarded[i] < 0) types.push_back(result.getType());
      auto replacement = builder.create<mlir::func::CallOp>(call.getLoc(), call.getCalleeAttr(), types,
                                                            call.getOperands());
      replacement->setAttrs(call->getAttrs());
      unsigned next = 0;
      for (auto [i, result] : llvm::enumerate(call.getResults())) {
        if (forwarded[i] < 0) {
          result.replaceAllUsesWith(replacement.getResult(next++));
          continue;
        }
        mlir::Value operand = call.getOperand(forwarded[i]);
        if (operand.getType() != result.getType())
          operand = builder.create<mlir::memref::CastOp>(call.getLoc(), result.getType(), operand);
        result.replaceAllUsesWith(operand);
      }
      call.erase();
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
