// The MLIR half of the CPU pipeline: the dialect registry and `lowerTo`,
// which runs the stages a module still needs (README.md lists them). The
// stage a module is at is read from its contents, so a module may enter at
// any stage and `lowerTo` may be called repeatedly.
#include "compiler/codegen/Pipeline.h"

#include <map>

#include "compiler/codegen/Passes.h"
#include "compiler/conversion/Passes.h"
#include "compiler/dialect/LinnetDialect.h"
#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/ControlFlow/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferDeallocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/TargetParser/Host.h"

namespace linnet::codegen {

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kEntryAttr = "linnet.entry";

// What a module holds tells how far it has come: `linnet` ops, then tensors
// (linalg on tensors), then `func.func` on memrefs, then only the LLVM
// dialect.
Stage currentStage(ModuleOp module) {
  bool linnet = false, tensors = false, funcs = false;
  module.walk([&](Operation* op) {
    if (isa<dialect::LinnetDialect>(op->getDialect())) linnet = true;
    if (auto func = dyn_cast<func::FuncOp>(op)) {
      funcs = true;
      for (Type t : llvm::concat<const Type>(func.getArgumentTypes(), func.getResultTypes()))
        if (isa<TensorType>(t)) tensors = true;
    }
    for (Type t : op->getResultTypes())
      if (isa<TensorType>(t)) tensors = true;
  });
  if (linnet) return Stage::Linnet;
  if (tensors) return Stage::Linalg;
  if (funcs) return Stage::Bufferized;
  return Stage::LLVM;
}

// Runs `pm` on `module`, its passes timed under `timing`'s child `name`.
LogicalResult run(ModuleOp module, PassManager& pm, TimingScope* timing, StringRef name) {
  TimingScope scope = timingChild(timing, name);
  if (timing) pm.enableTiming(scope);
  return pm.run(module);
}

void addLinalgStage(OpPassManager& pm, const TargetOptions& target) {
  pm.addPass(linnet::conversion::createConvertLinnetToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Widened activations save a product's f32 FMAs their widenings; the
  // bf16 dot product reads both operands as bf16 and widens nothing.
  if (!target.bf16DotProducts()) {
    pm.addPass(createWidenRoundedResults());
    pm.addPass(createCanonicalizerPass());
  }
}

void addBufferizedStage(OpPassManager& pm, const TargetOptions& target) {
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizationOptions options;
  options.bufferizeFunctionBoundaries = true;
  // The ABI passes and returns contiguous row-major tensors: identity
  // layouts at function boundaries (bufferization copies where needed).
  options.setFunctionBoundaryTypeConversion(bufferization::LayoutMapOption::IdentityLayoutMap);
  options.allowReturnAllocsFromLoops = true;
  pm.addPass(createForwardArgumentResults(ForwardArgumentResultsOptions{/*onTensors=*/true}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  pm.addPass(createAlignWhileLoops());
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  pm.addPass(createCanonicalizerPass());
  // Before deallocation, which would clone a returned argument for ownership;
  // after canonicalization, which folds an `scf.if` yielding the argument on
  // both sides (a guarded state write) to the argument itself.
  pm.addPass(createForwardArgumentResults());
  pm.addPass(createCanonicalizerPass());
  // Ownership-based deallocation: a public function's results are owned by
  // its caller, so a result that is not a fresh allocation (an argument, a
  // global) is cloned. The runtime frees every result with free().
  bufferization::BufferDeallocationPipelineOptions deallocation;
  bufferization::buildBufferDeallocationPipeline(pm, deallocation);
  pm.addPass(createCanonicalizerPass());
}

// The tensor `value` reshapes (or casts) without copying: the first value
// up its chain of reshapes and casts, or the last slice's source when
// `throughSlices`. Bufferized, the two share storage.
Value viewRoot(Value value, bool throughSlices) {
  while (Operation* def = value.getDefiningOp()) {
    bool slice = isa<tensor::ExtractSliceOp>(def);
    if ((slice && !throughSlices) ||
        (!slice && !isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::ReshapeOp, tensor::CastOp>(def)))
      break;
    value = def->getOperand(0);
  }
  return value;
}

// The runtime frees every result's allocation, so two results of an entry
// must not share storage: the same value returned twice, or one a reshape
// or slice of another, would be freed twice. Each later result sharing a
// root with an earlier one is copied into a tensor of its own.
void separateAliasingResults(ModuleOp module) {
  module.walk([](func::FuncOp func) {
    if (!func->hasAttr(kEntryAttr)) return;
    func.walk([](func::ReturnOp ret) {
      llvm::SmallPtrSet<void*, 4> roots;
      OpBuilder builder(ret);
      for (OpOperand& operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type) continue;
        if (roots.insert(viewRoot(value, /*throughSlices=*/true).getAsOpaquePointer()).second) continue;
        operand.set(builder.create<bufferization::AllocTensorOp>(ret.getLoc(), type, ValueRange{},
                                                                 value));
      }
    });
  });
}

// Whether `value` may bufferize to a strided view of another buffer: it is
// a slice, a reshape of one, or a value a loop or `if` carries or yields that
// may be one: a loop's carried value (in its body or as its result) from its
// initial value or what its body yields, an `if`'s result from either branch.
// Function arguments and results of computations are whole buffers. A value
// met again (a loop passing its carried value on) adds nothing.
bool mayBeView(Value value, llvm::SmallPtrSetImpl<void*>& seen) {
  value = viewRoot(value, /*throughSlices=*/false);
  if (!seen.insert(value.getAsOpaquePointer()).second) return false;
  auto any = [&](auto values) {
    return llvm::any_of(values, [&](Value v) { return mayBeView(v, seen); });
  };
  if (Operation* def = value.getDefiningOp()) {
    if (isa<tensor::ExtractSliceOp>(def)) return true;
    unsigned i = cast<OpResult>(value).getResultNumber();
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return any(SmallVector<Value>{loop.getInitArgs()[i], loop.getYieldedValues()[i]});
    if (auto loop = dyn_cast<scf::WhileOp>(def))
      return any(SmallVector<Value>{loop.getConditionOp().getArgs()[i]});
    if (auto branch = dyn_cast<scf::IfOp>(def)) {
      SmallVector<Value> yielded{branch.thenYield().getOperand(i)};
      if (!branch.getElseRegion().empty()) yielded.push_back(branch.elseYield().getOperand(i));
      return any(yielded);
    }
    return false;
  }
  auto arg = cast<BlockArgument>(value);
  Operation* owner = arg.getOwner()->getParentOp();
  if (auto loop = dyn_cast<scf::ForOp>(owner)) {
    OpOperand* init = loop.getTiedLoopInit(arg);
    if (!init) return false;  // the induction variable
    return any(SmallVector<Value>{init->get(), loop.getTiedLoopYieldedValue(arg)->get()});
  }
  if (auto loop = dyn_cast<scf::WhileOp>(owner)) {
    // Carried values are the before region's arguments (from the initial
    // values and the after region's yield); the after region's are what the
    // condition passes on.
    unsigned n = arg.getArgNumber();
    if (arg.getOwner() == &loop.getBefore().front())
      return any(SmallVector<Value>{loop.getInits()[n], loop.getYieldOp().getOperand(n)});
    return any(SmallVector<Value>{loop.getConditionOp().getArgs()[n]});
  }
  return !isa<func::FuncOp>(owner);
}

// Function boundaries take identity layouts (addBufferizedStage), and
// bufferization passes a strided view (a slice's subview: `xs[i]` given to a
// block-array element's method, outlined) to such a parameter through a
// `memref.cast` that drops its offset and strides: the callee read the start
// of the whole buffer (or the cast failed to verify for a static offset).
// Each call operand that may be a view is copied into a tensor of its own
// first; whole buffers (the layer calls' weights, state and activations,
// carried or not) are passed as they are.
void copyViewArgumentsOfCalls(ModuleOp module) {
  module.walk([](func::CallOp call) {
    OpBuilder builder(call);
    for (OpOperand& operand : call->getOpOperands()) {
      auto type = dyn_cast<RankedTensorType>(operand.get().getType());
      llvm::SmallPtrSet<void*, 8> seen;
      if (!type || !mayBeView(operand.get(), seen)) continue;
      operand.set(builder.create<bufferization::AllocTensorOp>(call.getLoc(), type, ValueRange{}, operand.get()));
    }
  });
}

// Entries get a C interface (`_mlir_ciface_<fn>`, descriptors by pointer),
// which `linnet-entry-abi` wraps in the slot-array symbol.
LogicalResult markEntries(ModuleOp module) {
  WalkResult result = module.walk([&](func::FuncOp func) {
    Attribute entry = func->getAttr(kEntryAttr);
    if (!entry) return WalkResult::advance();
    if (!isa<StringAttr>(entry) || !func.isPublic() || func.isExternal()) {
      func.emitOpError() << "`" << kEntryAttr
                         << "` must be a string on a public function with a body";
      return WalkResult::interrupt();
    }
    func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), UnitAttr::get(func.getContext()));
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

// `finalize-memref-to-llvm` turns a copy between non-identity layouts into
// a call to `memrefCopy` from MLIR's runner library, which the shared
// object does not link; such copies become loops instead.
void expandStridedCopies(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  module.walk([&](memref::CopyOp copy) {
    auto source = cast<MemRefType>(copy.getSource().getType());
    auto target = cast<MemRefType>(copy.getTarget().getType());
    if (!source.getLayout().isIdentity() || !target.getLayout().isIdentity())
      copies.push_back(copy);
  });
  for (memref::CopyOp copy : copies) {
    OpBuilder builder(copy);
    builder.create<linalg::CopyOp>(copy.getLoc(), copy.getSource(), copy.getTarget());
    copy.erase();
  }
}

void addLLVMStage(OpPassManager& pm, const TargetOptions& target) {
  // Passes that look at one function at a time run nested on each function
  // (`perFunction`), which MLIR runs on the context's threads, one function
  // per thread; the rest (those that add or read module-level symbols) on
  // the module. The code is the same either way.
  auto perFunction = [&]() -> OpPassManager& { return pm.nest<func::FuncOp>(); };
  // Loops: the innermost loop of each op steps over vectors of the
  // target's length where the op's accesses allow (else scalar loops, which
  // LLVM's loop vectorizer may still widen); a large op's leading parallel
  // loops are shared among threads through OpenMP (libomp); see README.md.
  LinalgToParallelLoopsOptions loops;
  loops.minWork = target.parallelMinWork;
  loops.vectorLength = target.vectorLanes();
  loops.bf16Dot = target.bf16DotProducts();
  loops.rowPrefetchBytes = target.rowPrefetchBytes();
  loops.tileRowPrefetchBytes = target.tileRowPrefetchBytes();
  OpPassManager& vectorLoops = perFunction();
  // Marked while the reductions are linalg ops, and again once lowered.
  vectorLoops.addPass(createContractReductions());
  vectorLoops.addPass(createLinalgToParallelLoops(loops));
  vectorLoops.addPass(createCanonicalizerPass());
  LowerVectorsOptions vectors;
  vectors.bf16Dot = target.bf16DotProducts();
  vectorLoops.addPass(createLowerVectors(vectors));
  // n-D transfers (a row-blocked reduction's vector<4x16> accumulators)
  // unrolled into 1-D ones: the default lowering stages them through a
  // stack buffer, which inside a loop of a parallel region grows the
  // stack on every iteration.
  vectorLoops.addPass(createConvertVectorToSCFPass(VectorTransferToSCFOptions().enableFullUnroll()));
  vectorLoops.addPass(createCanonicalizerPass());
  // Scalar math: bf16/f16 math in f32, polynomial approximations instead of
  // libm calls (f64 math: libm, whose declarations go into the module), bf16/f16
  // arithmetic emulated in f32 and bf16 conversions expanded to integer ops, so
  // no compiler-rt/libgcc helper is needed. `linnet-approximate-math` widens
  // bf16/f16 math itself: upstream's `math-legalize-to-f32` breaks on f64 vectors.
  pm.addPass(createApproximateMath());
  OpPassManager& scalars = perFunction();
  scalars.addPass(createSelectBuffers());
  // Each bf16/f16 op rounds its result: the emulation below would keep a
  // chain of them in f32.
  scalars.addPass(createRoundNarrowFloatArith());
  static const std::string narrowFloats[] = {"bf16", "f16"};
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = narrowFloats;
  emulate.targetTypeStr = "f32";
  scalars.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  scalars.addPass(arith::createArithExpandOpsPass(expand));
  scalars.addPass(createCanonicalizerPass());
  scalars.addPass(createCSEPass());
  // Only reductions fuse their multiply-adds (the target machine fuses
  // nothing else): elementwise code rounds each operation.
  scalars.addPass(createContractReductions());
  // OpenMP: each `scf.parallel` becomes omp.parallel + omp.wsloop (guided
  // schedule, libomp's default thread count: OMP_NUM_THREADS or every
  // core). The `memref.alloca_scope` it wraps each body in is inlined
  // (scf-to-cf could not lower the loops inside one).
  pm.addPass(createConvertSCFToOpenMPPass());
  OpPassManager& controlFlow = perFunction();
  controlFlow.addPass(createInlineAllocaScopes());
  controlFlow.addPass(createGuidedSchedule());
  controlFlow.addPass(createCanonicalizerPass());
  // To the LLVM dialect.
  controlFlow.addPass(createLowerAffinePass());
  controlFlow.addPass(createConvertSCFToCFPass());
  controlFlow.addPass(memref::createExpandStridedMetadataPass());
  controlFlow.addPass(createLowerAffinePass());
  // Reductions of a vector may be reassociated: the vectorized loops
  // already sum in lanes, so the order is the compiler's either way.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.reassociateFPReductions = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  // Heap buffers through checked, counted allocation functions (a refused
  // size reaches the runtime's handler, never a null or short buffer).
  pm.addPass(createCheckedAllocations());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  OpPassManager& bodies = perFunction();
  bodies.addPass(createConvertMathToLLVMPass());
  bodies.addPass(createArithToLLVMConversionPass());
  bodies.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.nest<LLVM::LLVMFuncOp>().addPass(createNarrowFloatMemory());
  pm.addPass(createEntryAbi());
  pm.nest<LLVM::LLVMFuncOp>().addPass(createCanonicalizerPass());
}

bool hasFeature(const std::string& features, llvm::StringRef feature) {
  llvm::SmallVector<llvm::StringRef> names;
  llvm::StringRef(features).split(names, ',');
  return llvm::is_contained(names, ("+" + feature).str());
}

}  // namespace

int64_t TargetOptions::vectorLanes() const {
  if (vectorLanesOverride > 0) return vectorLanesOverride;
  if (hasFeature(features, "avx512f")) return 16;
  if (hasFeature(features, "avx")) return 8;
  return 4;
}

// The generation of an AMD Zen CPU name (`znver4`: 4), 0 for any other.
static int zenGeneration(llvm::StringRef cpu) {
  unsigned generation = 0;
  if (!cpu.consume_front("znver") || cpu.getAsInteger(10, generation)) return 0;
  return static_cast<int>(generation);
}

int64_t TargetOptions::rowPrefetchBytes() const {
  // AMD's Zen cores keep every row of a decode product streaming on their
  // own: there the prefetches only cost issue slots (Phi-3-mini decode on 2
  // Zen 4 vCPUs, session 16: 10-15% more tokens/s without them). Intel's
  // stop at each 4 KiB page of the mapped weights (session 11: 14-19 GB/s
  // without, 22-26 with).
  return zenGeneration(cpu) > 0 ? 0 : 768;
}

int64_t TargetOptions::tileRowPrefetchBytes() const {
  // In a cache tile the first register block of tokens reads a row block
  // from memory while the next-tile prefetch fills the cache for the rest;
  // there Zen 4's prefetchers do not keep up alone: 32-layer Phi-3-mini
  // decode_rows at 8 rows on 2 Zen 4 vCPUs (session 20, 3 rounds
  // alternated): 26.4-26.8 tokens/s without, 28.8-29.2 with 1536 bytes,
  // 27.4-27.9 with 3072, 27.8-28.5 with 768. Zen 5's do, and the prefetches
  // only cost: the same on 2 Zen 5 vCPUs (session 26, 20 calls a run,
  // alternated): 170-179 ms a step without, 191-220 with 1536 bytes (4
  // rounds), then 177-208 against 196-219 (5 rounds). Intel keeps its 768.
  int zen = zenGeneration(cpu);
  if (zen >= 5) return 0;
  return zen > 0 ? 1536 : 768;
}

bool TargetOptions::bf16DotProducts() const {
  return vectorLanes() == 16 && hasFeature(features, "avx512f") && hasFeature(features, "avx512bf16");
}

TargetOptions TargetOptions::host() {
  TargetOptions target;
  target.triple = llvm::sys::getProcessTriple();
  target.cpu = llvm::sys::getHostCPUName().str();
  // Sorted, so the string (part of an artifact's hash) is deterministic.
  std::vector<std::string> names;
  for (const auto& feature : llvm::sys::getHostCPUFeatures())
    names.push_back((feature.getValue() ? "+" : "-") + feature.getKey().str());
  llvm::sort(names);
  target.features = llvm::join(names, ",");
  return target;
}

bool TargetOptions::overrideFeatures(const std::string& overrides, std::string& error) {
  llvm::SmallVector<llvm::StringRef> items, current;
  llvm::StringRef(overrides).split(items, ',', -1, /*KeepEmpty=*/false);
  llvm::StringRef(features).split(current, ',', -1, /*KeepEmpty=*/false);
  std::map<std::string, bool> enabled;
  for (llvm::StringRef f : current)
    if (f.size() > 1) enabled[f.drop_front().str()] = f.front() == '+';
  for (llvm::StringRef item : items) {
    item = item.trim();
    if (item.size() < 2 || (item.front() != '+' && item.front() != '-')) {
      error = "`" + item.str() + "` is not +FEATURE or -FEATURE";
      return false;
    }
    auto it = enabled.find(item.drop_front().str());
    if (it == enabled.end()) {
      error = "`" + item.drop_front().str() + "` is not a feature of " + triple + " (cpu " + cpu + ")";
      return false;
    }
    it->second = item.front() == '+';
  }
  std::vector<std::string> names;
  for (const auto& [name, on] : enabled) names.push_back((on ? "+" : "-") + name);
  llvm::sort(names);
  features = llvm::join(names, ",");
  return true;
}

void registerDialects(DialectRegistry& registry) {
  registry.insert<dialect::LinnetDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  omp::OpenMPDialect, scf::SCFDialect, tensor::TensorDialect, vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  arith::registerBufferDeallocationOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferizableOpInterfaceExternalModels(registry);
  cf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferDeallocationOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

LogicalResult lowerTo(ModuleOp module, Stage stage, const TargetOptions& target, TimingScope* timing) {
  MLIRContext* context = module.getContext();
  DialectRegistry registry;
  registerDialects(registry);
  context->appendDialectRegistry(registry);
  if (failed(verify(module))) return failure();

  Stage current = currentStage(module);
  if (stage == Stage::Asm) stage = Stage::LLVM;
  if (current >= stage) return success();

  if (current < Stage::Linalg) {
    PassManager pm(context);
    addLinalgStage(pm, target);
    if (failed(run(module, pm, timing, "to linalg on tensors"))) return failure();
  }
  if (stage == Stage::Linalg) return success();
  if (current < Stage::Bufferized) {
    context->getOrLoadDialect<bufferization::BufferizationDialect>();
    separateAliasingResults(module);
    copyViewArgumentsOfCalls(module);
    PassManager pm(context);
    addBufferizedStage(pm, target);
    if (failed(run(module, pm, timing, "bufferization"))) return failure();
  }
  if (stage == Stage::Bufferized) return success();

  if (failed(markEntries(module))) return failure();
  PassManager toMemRef(context);
  toMemRef.addPass(createBufferizationToMemRefPass());
  if (failed(run(module, toMemRef, timing, "bufferization to memref"))) return failure();
  expandStridedCopies(module);
  PassManager pm(context);
  addLLVMStage(pm, target);
  return run(module, pm, timing, "loops, vectors and the LLVM dialect");
}

}  // namespace linnet::codegen
