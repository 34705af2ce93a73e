// The `linnet-entry-abi` pass: the exported `linnet_entry_<name>(void**)`
// symbols of docs/abi.md, built in the LLVM dialect on top of the
// `_mlir_ciface_<fn>` functions `convert-func-to-llvm` emits for functions
// marked `llvm.emit_c_interface`. The C interface already takes descriptors
// by pointer, the result block first, so slot i is parameter i; only an
// `index` (an i64 parameter) is loaded from the `int64_t*` in its slot.
#include "compiler/codegen/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_ENTRYABI
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

constexpr llvm::StringLiteral kEntryAttr = "linnet.entry";
constexpr llvm::StringLiteral kCInterfacePrefix = "_mlir_ciface_";
constexpr llvm::StringLiteral kEntryPrefix = "linnet_entry_";

struct EntryAbiPass : impl::EntryAbiBase<EntryAbiPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    MLIRContext* context = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(context);
    OpBuilder builder(context);
    llvm::StringSet<> wrappers;

    SmallVector<LLVM::LLVMFuncOp> entries;
    for (auto func : module.getOps<LLVM::LLVMFuncOp>())
      if (func->hasAttr(kEntryAttr) && !func.getName().starts_with(kCInterfacePrefix))
        entries.push_back(func);

    for (LLVM::LLVMFuncOp func : entries) {
      auto name = dyn_cast<StringAttr>(func->getAttr(kEntryAttr));
      if (!name) {
        func.emitOpError() << "`" << kEntryAttr << "` must be a string";
        return signalPassFailure();
      }
      auto cInterface =
          symbols.lookup<LLVM::LLVMFuncOp>((kCInterfacePrefix + func.getName()).str());
      if (!cInterface) {
        func.emitOpError() << "entry `" << name.getValue()
                           << "` has no C interface (was it marked `llvm.emit_c_interface`?)";
        return signalPassFailure();
      }
      std::string symbol = (kEntryPrefix + name.getValue()).str();
      if (symbols.lookup(symbol)) {
        func.emitOpError() << "entry symbol `" << symbol << "` is defined twice";
        return signalPassFailure();
      }

      Location loc = func.getLoc();
      builder.setInsertionPointToEnd(module.getBody());
      auto wrapper = builder.create<LLVM::LLVMFuncOp>(
          loc, symbol,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context), {ptrType}));
      Block* body = wrapper.addEntryBlock(builder);
      builder.setInsertionPointToStart(body);
      Value slots = body->getArgument(0);
      SmallVector<Value> args;
      for (auto [i, type] : llvm::enumerate(cInterface.getFunctionType().getParams())) {
        Value slot = builder.create<LLVM::GEPOp>(loc, ptrType, ptrType, slots,
                                                 ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        Value pointer = builder.create<LLVM::LoadOp>(loc, ptrType, slot);
        if (isa<LLVM::LLVMPointerType>(type)) {
          args.push_back(pointer);
        } else if (isa<IntegerType>(type)) {
          args.push_back(builder.create<LLVM::LoadOp>(loc, type, pointer));
        } else {
          func.emitOpError() << "entry parameter " << i << " of type " << type
                             << " is neither a descriptor pointer nor an index";
          return signalPassFailure();
        }
      }
      builder.create<LLVM::CallOp>(loc, cInterface, args);
      builder.create<LLVM::ReturnOp>(loc, ValueRange{});
      wrappers.insert(symbol);
    }

    // Only the entry symbols are exported: everything else the module
    // defines is internal, so two artifacts loaded in one process never
    // clash and LLVM may inline the C interface into the wrapper.
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      func->removeAttr(kEntryAttr);
      if (!func.isExternal() && !wrappers.contains(func.getName()))
        func.setLinkage(LLVM::Linkage::Internal);
    }
  }
};

}  // namespace
}  // namespace linnet::codegen
