// The LLVM half of the CPU pipeline: a copy of the module is lowered to the
// LLVM dialect (Pipeline.cpp), translated to LLVM IR, optimized with LLVM's
// O2 pipeline for the target's CPU and features (loop and SLP vectorizers
// on), then printed, compiled to assembly, or compiled to an object file
// and linked by ld.lld into a shared object.
#include <mutex>

#include "compiler/codegen/Pipeline.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"

#ifndef LINNET_LLD_PATH
#define LINNET_LLD_PATH "/usr/lib/llvm-19/bin/ld.lld"
#endif
// Debian's libomp (libomp-19-dev): the OpenMP runtime of parallel loops.
#ifndef LINNET_OMP_DIR
#define LINNET_OMP_DIR "/usr/lib/llvm-19/lib"
#endif

namespace linnet::codegen {

namespace {

llvm::Error makeError(const llvm::Twine& message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

// LLVM's target registry is process-wide; registering twice is harmless but
// racy, hence once.
void initializeTargets() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
  });
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>> makeTargetMachine(const TargetOptions& t) {
  initializeTargets();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (!target) return makeError("unknown target `" + t.triple + "`: " + error);
  // A multiply feeding an add becomes one fused multiply-add where the host
  // has FMA: one rounding instead of two (never less accurate), and the
  // contractions and matrix products run at twice the arithmetic rate.
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      t.triple, t.cpu, t.features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
  if (!machine) return makeError("cannot create a target machine for `" + t.triple + "`");
  return machine;
}

struct Lowered {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> machine;
};

// bf16/f16 values that O2 moves between registers without arithmetic
// (InstCombine pushes the bitcasts of our integer bf16 code through selects,
// vector inserts/extracts and phis, recreating them after
// linnet-narrow-float-memory removed them; a scalar max over bf16 selects a
// NaN and builds a <2 x bfloat> this way) are legalized by the x86 backend,
// which has no bf16 registers without AVX-512 BF16, through f32 and
// `__truncsfbf2`, a compiler-rt helper the shared object does not link.
// Moving the same bits as i16 is exact and costs nothing.
llvm::Type* sixteenBitIntegers(llvm::Type* type) {
  llvm::Type* integers = llvm::Type::getInt16Ty(type->getContext());
  if (auto* vector = llvm::dyn_cast<llvm::VectorType>(type))
    return llvm::VectorType::get(integers, vector->getElementCount());
  return integers;
}

bool isSixteenBitFloat(llvm::Type* type) {
  llvm::Type* element = type->getScalarType();
  return element->isBFloatTy() || element->isHalfTy();
}

void moveSixteenBitFloatsAsIntegers(llvm::Module& m) {
  std::vector<llvm::Instruction*> moves;
  for (llvm::Function& f : m)
    for (llvm::Instruction& i : llvm::instructions(f)) {
      bool move = llvm::isa<llvm::SelectInst>(i) || llvm::isa<llvm::InsertElementInst>(i) ||
                  llvm::isa<llvm::ExtractElementInst>(i) || llvm::isa<llvm::ShuffleVectorInst>(i) ||
                  llvm::isa<llvm::PHINode>(i);
      if (move && isSixteenBitFloat(i.getType())) moves.push_back(&i);
    }
  for (llvm::Instruction* i : moves) {
    if (auto* phi = llvm::dyn_cast<llvm::PHINode>(i)) {
      // The bits of each incoming value are taken at the end of its block,
      // the float rebuilt after the block's phis.
      llvm::Type* type = sixteenBitIntegers(phi->getType());
      auto* bitsPhi = llvm::PHINode::Create(type, phi->getNumIncomingValues(), "", phi->getIterator());
      for (unsigned k = 0; k < phi->getNumIncomingValues(); ++k) {
        llvm::BasicBlock* from = phi->getIncomingBlock(k);
        llvm::IRBuilder<> end(from->getTerminator());
        bitsPhi->addIncoming(end.CreateBitCast(phi->getIncomingValue(k), type), from);
      }
      llvm::IRBuilder<> after(phi->getParent(), phi->getParent()->getFirstInsertionPt());
      phi->replaceAllUsesWith(after.CreateBitCast(bitsPhi, phi->getType()));
      phi->eraseFromParent();
      continue;
    }
    llvm::IRBuilder<> b(i);
    auto bits = [&](llvm::Value* v) { return b.CreateBitCast(v, sixteenBitIntegers(v->getType())); };
    llvm::Value* replaced = nullptr;
    if (auto* select = llvm::dyn_cast<llvm::SelectInst>(i))
      replaced = b.CreateSelect(select->getCondition(), bits(select->getTrueValue()), bits(select->getFalseValue()));
    else if (auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(i))
      replaced = b.CreateInsertElement(bits(insert->getOperand(0)), bits(insert->getOperand(1)), insert->getOperand(2));
    else if (auto* extract = llvm::dyn_cast<llvm::ExtractElementInst>(i))
      replaced = b.CreateExtractElement(bits(extract->getVectorOperand()), extract->getIndexOperand());
    else if (auto* shuffle = llvm::dyn_cast<llvm::ShuffleVectorInst>(i))
      replaced = b.CreateShuffleVector(bits(shuffle->getOperand(0)), bits(shuffle->getOperand(1)),
                                       shuffle->getShuffleMask());
    i->replaceAllUsesWith(b.CreateBitCast(replaced, i->getType()));
    i->eraseFromParent();
  }
  // What is left is bf16 values that only pass between bitcasts and
  // stores: fold bitcast chains, store the integer bits, drop what is dead.
  std::vector<llvm::Instruction*> casts;
  for (llvm::Function& f : m)
    for (llvm::Instruction& i : llvm::instructions(f))
      if (llvm::isa<llvm::BitCastInst>(i) || llvm::isa<llvm::StoreInst>(i)) casts.push_back(&i);
  for (llvm::Instruction* i : casts) {
    if (auto* store = llvm::dyn_cast<llvm::StoreInst>(i)) {
      auto* from = llvm::dyn_cast<llvm::BitCastInst>(store->getValueOperand());
      if (from && isSixteenBitFloat(from->getType())) store->setOperand(0, from->getOperand(0));
      continue;
    }
    auto* from = llvm::dyn_cast<llvm::BitCastInst>(i->getOperand(0));
    if (!from || !isSixteenBitFloat(from->getType())) continue;
    llvm::Value* source = from->getOperand(0);
    if (source->getType() == i->getType()) i->replaceAllUsesWith(source);
    else i->setOperand(0, source);
  }
  for (auto it = casts.rbegin(); it != casts.rend(); ++it)
    if (llvm::isa<llvm::BitCastInst>(*it) && (*it)->use_empty()) (*it)->eraseFromParent();
}

// Lowers a copy of `module` to LLVM IR and runs O2. MLIR diagnostics still
// reach the context's handlers; their text also goes into the error.
llvm::Expected<Lowered> lowerAndOptimize(mlir::ModuleOp module, const TargetOptions& target) {
  mlir::MLIRContext* context = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic& d) {
    diagnosticStream << d.getLocation() << ": " << d << "\n";
    return mlir::failure();  // pass it on to the handlers installed before
  });

  mlir::OwningOpRef<mlir::ModuleOp> copy(mlir::cast<mlir::ModuleOp>(module->clone()));
  if (mlir::failed(lowerTo(*copy, Stage::LLVM, target)))
    return makeError("lowering to the LLVM dialect failed:\n" + diagnostics);

  auto machine = makeTargetMachine(target);
  if (!machine) return machine.takeError();
  Lowered lowered;
  lowered.machine = std::move(*machine);
  lowered.context = std::make_unique<llvm::LLVMContext>();
  mlir::registerBuiltinDialectTranslation(*context);
  mlir::registerLLVMDialectTranslation(*context);
  mlir::registerOpenMPDialectTranslation(*context);
  lowered.module = mlir::translateModuleToLLVMIR(*copy, *lowered.context, "linnet");
  if (!lowered.module) return makeError("translation to LLVM IR failed:\n" + diagnostics);

  llvm::Module& m = *lowered.module;
  m.setTargetTriple(target.triple);
  m.setDataLayout(lowered.machine->createDataLayout());
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    if (!target.cpu.empty()) f.addFnAttr("target-cpu", target.cpu);
    if (!target.features.empty()) f.addFnAttr("target-features", target.features);
  }

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  llvm::PassBuilder builder(lowered.machine.get(), tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  passes.run(m, mam);
  moveSixteenBitFloatsAsIntegers(m);
  return lowered;
}

llvm::Expected<std::string> emitFile(Lowered& lowered, llvm::CodeGenFileType type) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (lowered.machine->addPassesToEmitFile(passes, stream, nullptr, type))
    return makeError("the target cannot emit this file type");
  passes.run(*lowered.module);
  return std::string(buffer.str());
}

// Debian's multiarch library directory for the triple (x86_64-linux-gnu).
std::string multiarch(const std::string& triple) {
  llvm::Triple t(triple);
  return (t.getArchName() + "-linux-gnu").str();
}

llvm::Expected<std::string> link(llvm::StringRef object, const TargetOptions& target) {
  llvm::SmallString<128> objectPath, libraryPath, logPath;
  int fd = -1;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("linnet", "o", fd, objectPath))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << object;
    if (out.has_error()) return makeError("cannot write " + objectPath);
  }
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("linnet", "so", libraryPath))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeLibrary(libraryPath);
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile("linnet-lld", "log", logPath))
    return makeError("cannot create a temporary file: " + ec.message());
  llvm::FileRemover removeLog(logPath);

  std::string arch = multiarch(target.triple);
  std::string libDir = "-L/lib/" + arch, usrLibDir = "-L/usr/lib/" + arch;
  // --no-undefined: a symbol left to a runtime helper library (compiler-rt,
  // MLIR's runner utils) fails here rather than at dlopen. libomp (found at
  // dlopen through the rpath) is needed only by objects with parallel
  // loops: --as-needed drops it from the others.
  llvm::SmallVector<llvm::StringRef> args{
      LINNET_LLD_PATH, "-shared", "--no-undefined", "-z", "noexecstack", "-z", "relro",
      "-z", "now", "--hash-style=gnu", "--as-needed", "-o", libraryPath, objectPath,
      libDir, usrLibDir, "-L" LINNET_OMP_DIR, "-rpath", LINNET_OMP_DIR, "-lomp", "-lm", "-lc"};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(logPath),
                                                llvm::StringRef(logPath)};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(LINNET_LLD_PATH, args, std::nullopt, redirects, 0, 0,
                                     &message);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(logPath);
    return makeError("ld.lld failed (" + llvm::Twine(rc) + "): " + message +
                     (log ? "\n" + (*log)->getBuffer().str() : std::string()));
  }
  auto library = llvm::MemoryBuffer::getFile(libraryPath, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
  if (!library) return makeError("cannot read " + libraryPath + ": " + library.getError().message());
  return (*library)->getBuffer().str();
}

}  // namespace

llvm::Expected<std::string> emitLLVMIR(mlir::ModuleOp module, const TargetOptions& target) {
  auto lowered = lowerAndOptimize(module, target);
  if (!lowered) return lowered.takeError();
  std::string text;
  llvm::raw_string_ostream stream(text);
  lowered->module->print(stream, nullptr);
  return text;
}

llvm::Expected<std::string> emitAssembly(mlir::ModuleOp module, const TargetOptions& target) {
  auto lowered = lowerAndOptimize(module, target);
  if (!lowered) return lowered.takeError();
  return emitFile(*lowered, llvm::CodeGenFileType::AssemblyFile);
}

llvm::Expected<std::string> emitSharedObject(mlir::ModuleOp module, const TargetOptions& target) {
  auto lowered = lowerAndOptimize(module, target);
  if (!lowered) return lowered.takeError();
  auto object = emitFile(*lowered, llvm::CodeGenFileType::ObjectFile);
  if (!object) return object.takeError();
  return link(*object, target);
}

}  // namespace linnet::codegen
