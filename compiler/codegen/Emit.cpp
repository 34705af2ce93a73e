// The LLVM half of the CPU pipeline: a copy of the module is lowered to the
// LLVM dialect (Pipeline.cpp), translated to LLVM IR, optimized with LLVM's
// O2 pipeline for the target's CPU and features (loop and SLP vectorizers
// on), then printed, compiled to assembly, or compiled to object files (in
// parts, one thread each: compileObjects) and linked by ld.lld into a shared
// object.
#include <algorithm>
#include <map>
#include <set>
#include <system_error>
#include <mutex>
#include <thread>
#include <vector>

#include "compiler/codegen/Pipeline.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
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
#include "llvm/Transforms/Utils/Cloning.h"

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
  // has FMA and both are marked `contract`: a reduction's accumulation
  // (linnet-contract-reductions), which then runs at twice the arithmetic
  // rate, and the compiler's own math expansions. Elementwise code keeps IEEE's
  // rounding of each operation (spec 13.6, 13.7).
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
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

// Lowers a copy of `module` to LLVM IR for the target (not optimized yet).
// MLIR diagnostics still reach the context's handlers; their text also goes
// into the error.
llvm::Expected<Lowered> lowerToLLVM(mlir::ModuleOp module, const TargetOptions& target,
                                    mlir::TimingScope* timing) {
  mlir::MLIRContext* context = module.getContext();
  std::string diagnostics;
  llvm::raw_string_ostream diagnosticStream(diagnostics);
  mlir::ScopedDiagnosticHandler handler(context, [&](mlir::Diagnostic& d) {
    diagnosticStream << d.getLocation() << ": " << d << "\n";
    return mlir::failure();  // pass it on to the handlers installed before
  });

  mlir::OwningOpRef<mlir::ModuleOp> copy(mlir::cast<mlir::ModuleOp>(module->clone()));
  if (mlir::failed(lowerTo(*copy, Stage::LLVM, target, timing)))
    return makeError("lowering to the LLVM dialect failed:\n" + diagnostics);

  auto machine = makeTargetMachine(target);
  if (!machine) return machine.takeError();
  Lowered lowered;
  lowered.machine = std::move(*machine);
  lowered.context = std::make_unique<llvm::LLVMContext>();
  mlir::registerBuiltinDialectTranslation(*context);
  mlir::registerLLVMDialectTranslation(*context);
  mlir::registerOpenMPDialectTranslation(*context);
  mlir::TimingScope translation = timingChild(timing, "translation to LLVM IR");
  lowered.module = mlir::translateModuleToLLVMIR(*copy, *lowered.context, "linnet");
  translation.stop();
  if (!lowered.module) return makeError("translation to LLVM IR failed:\n" + diagnostics);

  llvm::Module& m = *lowered.module;
  m.setTargetTriple(target.triple);
  m.setDataLayout(lowered.machine->createDataLayout());
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    if (!target.cpu.empty()) f.addFnAttr("target-cpu", target.cpu);
    if (!target.features.empty()) f.addFnAttr("target-features", target.features);
  }
  return lowered;
}

// LLVM's O2 for the target machine's CPU (loop and SLP vectorizers on),
// then the bf16 moves legalized.
void optimize(llvm::Module& m, llvm::TargetMachine& machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = true;
  tuning.SLPVectorization = true;
  tuning.LoopUnrolling = true;
  tuning.LoopInterleaving = true;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes = builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  passes.run(m, mam);
  moveSixteenBitFloatsAsIntegers(m);
}

llvm::Expected<Lowered> lowerAndOptimize(mlir::ModuleOp module, const TargetOptions& target,
                                         mlir::TimingScope* timing) {
  auto lowered = lowerToLLVM(module, target, timing);
  if (!lowered) return lowered.takeError();
  mlir::TimingScope scope = timingChild(timing, "LLVM O2");
  optimize(*lowered->module, *lowered->machine);
  return lowered;
}

llvm::Expected<std::string> emitFile(llvm::Module& m, llvm::TargetMachine& machine, llvm::CodeGenFileType type) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, type))
    return makeError("the target cannot emit this file type");
  passes.run(m);
  return std::string(buffer.str());
}

// How many parts the object code is compiled in, one thread each: O2 and
// instruction selection take about two thirds of a build, in one thread
// for a whole module. One per core, at most 8, and no more than the
// exported functions (entries) that parts are made of (splitModule).
unsigned codegenParts(const llvm::Module& m) {
  unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  size_t entries = 0;
  for (const llvm::Function& f : m) entries += !f.isDeclaration() && !f.hasLocalLinkage();
  return static_cast<unsigned>(std::min<size_t>({cores, 8u, entries}));
}

// Every function that `f` refers to (calls, a parallel region's outlined
// body passed to libomp), once each, in order of first use.
std::vector<llvm::Function*> referencedFunctions(llvm::Function& f) {
  std::vector<llvm::Function*> out;
  llvm::SmallPtrSet<llvm::Function*, 16> seen;
  for (llvm::Instruction& i : llvm::instructions(f))
    for (llvm::Value* operand : i.operands())
      if (auto* g = llvm::dyn_cast<llvm::Function>(operand->stripPointerCasts()))
        if (seen.insert(g).second) out.push_back(g);
  return out;
}

// `m` split into `parts` modules, as bitcode, each function defined in one
// of them. A part holds whole entries: an exported function with every
// local function it reaches first (its body, layer bodies, parallel
// regions), so O2 sees an entry as before (and inlines and drops what it
// did); parts are balanced by instruction count, the largest entry first. A
// local function used from another part (a helper several entries share)
// and a local constant are copied into every part, so the optimizer still
// inlines the one and folds the other; another local global, or a function
// a global's initializer names, becomes a hidden external defined in part 0.
// llvm::SplitModule instead externalizes every local: entry bodies stayed
// beside their inlined copies and constants became loads (a third more
// code).
std::vector<llvm::SmallString<0>> splitModule(llvm::Module& m, unsigned parts) {
  auto hide = [](llvm::GlobalValue& g) {
    g.setLinkage(llvm::GlobalValue::ExternalLinkage);
    g.setVisibility(llvm::GlobalValue::HiddenVisibility);
    if (!g.hasName()) g.setName("linnet.split");
  };
  // What each defined function refers to, scanned once: every root's walk,
  // and the copies below, read it again.
  std::map<llvm::Function*, std::vector<llvm::Function*>> references;
  for (llvm::Function& f : m)
    if (!f.isDeclaration()) references.emplace(&f, referencedFunctions(f));
  // Owner of each defined function: the first root reaching it (a local one
  // that a function of another part also uses is copied, below).
  std::vector<llvm::Function*> roots;
  for (llvm::Function& f : m)
    if (!f.isDeclaration() && !f.hasLocalLinkage()) roots.push_back(&f);
  std::map<llvm::Function*, size_t> owner;
  for (size_t r = 0; r < roots.size(); ++r) {
    std::vector<llvm::Function*> work{roots[r]};
    std::set<llvm::Function*> reached{roots[r]};
    owner.emplace(roots[r], r);
    while (!work.empty()) {
      llvm::Function* f = work.back();
      work.pop_back();
      for (llvm::Function* g : references[f]) {
        if (g->isDeclaration() || !reached.insert(g).second) continue;
        owner.emplace(g, r);
        work.push_back(g);
      }
    }
  }
  // Globals: local constants are copied into every part; other locals, and
  // functions a global's initializer names, are hidden externals of part 0.
  std::set<const llvm::GlobalVariable*> copied;
  for (llvm::GlobalVariable& g : m.globals()) {
    if (g.isDeclaration()) continue;
    for (llvm::Value* operand : g.getInitializer()->operands())
      if (auto* f = llvm::dyn_cast<llvm::Function>(operand->stripPointerCasts()))
        if (f->hasLocalLinkage()) hide(*f);
    if (g.hasLocalLinkage() && g.isConstant()) copied.insert(&g);
    else if (g.hasLocalLinkage()) hide(g);
  }
  // Roots to parts: by size, largest first, each to the lightest part.
  std::vector<size_t> size(roots.size(), 0);
  for (llvm::Function& f : m)
    if (auto it = owner.find(&f); it != owner.end()) size[it->second] += f.getInstructionCount();
  std::vector<size_t> order(roots.size());
  for (size_t r = 0; r < order.size(); ++r) order[r] = r;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  std::vector<size_t> load(parts, 0), partOf(roots.size(), 0);
  for (size_t r : order) {
    size_t lightest = static_cast<size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    partOf[r] = lightest;
    load[lightest] += size[r];
  }
  auto partOfValue = [&](const llvm::GlobalValue* g) -> size_t {
    auto* f = llvm::dyn_cast<llvm::Function>(g);
    auto it = f ? owner.find(const_cast<llvm::Function*>(f)) : owner.end();
    return it == owner.end() ? 0 : partOf[it->second];
  };
  // A local function used from another part (a helper several entries
  // share: deallocation, allocation) is copied into every part, with the
  // local functions it uses, as the optimizer inlined it everywhere before.
  std::set<const llvm::Function*> copiedFunctions;
  std::vector<llvm::Function*> work;
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    for (llvm::Function* g : references[&f])
      if (!g->isDeclaration() && g->hasLocalLinkage() && partOfValue(g) != partOfValue(&f) &&
          copiedFunctions.insert(g).second)
        work.push_back(g);
  }
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (llvm::Function* g : references[f])
      if (!g->isDeclaration() && g->hasLocalLinkage() && copiedFunctions.insert(g).second) work.push_back(g);
  }
  std::vector<llvm::SmallString<0>> out(parts);
  for (unsigned p = 0; p < parts; ++p) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part = llvm::CloneModule(m, map, [&](const llvm::GlobalValue* g) {
      auto* variable = llvm::dyn_cast<llvm::GlobalVariable>(g);
      auto* function = llvm::dyn_cast<llvm::Function>(g);
      return (variable && copied.count(variable)) || (function && copiedFunctions.count(function)) ||
             partOfValue(g) == p;
    });
    llvm::raw_svector_ostream stream(out[p]);
    llvm::WriteBitcodeToFile(*part, stream);
  }
  return out;
}

// O2 and object code for `lowered`, in parts compiled at once (splitModule),
// each carried to its thread as bitcode into an LLVMContext of its own, as
// LLVM contexts are not shared between threads (what LLVM's own ParallelCG
// does). The objects come back in part order, so a build is reproducible.
llvm::Expected<std::vector<std::string>> compileObjects(Lowered& lowered, const TargetOptions& target,
                                                       mlir::TimingScope* timing) {
  unsigned parts = codegenParts(*lowered.module);
  mlir::TimingScope scope =
      timingChild(timing, "LLVM O2 and object code, " + std::to_string(std::max(parts, 1u)) + " part(s) at once");
  if (parts <= 1) {
    optimize(*lowered.module, *lowered.machine);
    auto object = emitFile(*lowered.module, *lowered.machine, llvm::CodeGenFileType::ObjectFile);
    if (!object) return object.takeError();
    return std::vector<std::string>{std::move(*object)};
  }
  std::vector<llvm::SmallString<0>> bitcode = splitModule(*lowered.module, parts);
  std::vector<std::string> objects(bitcode.size()), errors(bitcode.size());
  auto compile = [&](size_t i) {
    llvm::LLVMContext context;
    auto module = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode[i].data(), bitcode[i].size()), "part"), context);
    if (!module) {
      errors[i] = "cannot read back part " + std::to_string(i) + ": " + llvm::toString(module.takeError());
      return;
    }
    std::string broken;
    llvm::raw_string_ostream why(broken);
    if (llvm::verifyModule(**module, &why)) {
      errors[i] = "part " + std::to_string(i) + " of the module is invalid (a compiler bug): " + broken;
      return;
    }
    auto machine = makeTargetMachine(target);
    if (!machine) {
      errors[i] = llvm::toString(machine.takeError());
      return;
    }
    optimize(**module, **machine);
    auto object = emitFile(**module, **machine, llvm::CodeGenFileType::ObjectFile);
    if (!object) {
      errors[i] = llvm::toString(object.takeError());
      return;
    }
    objects[i] = std::move(*object);
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < bitcode.size(); ++i) {
    try {
      threads.emplace_back(compile, i);
    } catch (const std::system_error&) {
      compile(i);  // no thread to be had: in this one
    }
  }
  compile(0);
  for (std::thread& t : threads) t.join();
  for (const std::string& error : errors)
    if (!error.empty()) return makeError(error);
  return objects;
}

// Debian's multiarch library directory for the triple (x86_64-linux-gnu).
std::string multiarch(const std::string& triple) {
  llvm::Triple t(triple);
  return (t.getArchName() + "-linux-gnu").str();
}

llvm::Expected<std::string> link(const std::vector<std::string>& objects, const TargetOptions& target) {
  llvm::SmallString<128> libraryPath, logPath;
  std::vector<llvm::SmallString<128>> objectPaths(objects.size());
  std::vector<std::unique_ptr<llvm::FileRemover>> removeObjects;
  for (size_t i = 0; i < objects.size(); ++i) {
    int fd = -1;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile("linnet", "o", fd, objectPaths[i]))
      return makeError("cannot create a temporary file: " + ec.message());
    removeObjects.push_back(std::make_unique<llvm::FileRemover>(objectPaths[i]));
    llvm::raw_fd_ostream out(fd, /*shouldClose=*/true);
    out << objects[i];
    out.close();
    if (out.has_error()) return makeError("cannot write " + objectPaths[i]);
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
      "-z", "now", "--hash-style=gnu", "--as-needed", "-o", libraryPath};
  for (const llvm::SmallString<128>& path : objectPaths) args.push_back(path);
  args.append({libDir, usrLibDir, "-L" LINNET_OMP_DIR, "-rpath", LINNET_OMP_DIR, "-lomp", "-lm", "-lc"});
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

llvm::Expected<std::string> emitLLVMIR(mlir::ModuleOp module, const TargetOptions& target,
                                       mlir::TimingScope* timing) {
  auto lowered = lowerAndOptimize(module, target, timing);
  if (!lowered) return lowered.takeError();
  std::string text;
  llvm::raw_string_ostream stream(text);
  lowered->module->print(stream, nullptr);
  return text;
}

llvm::Expected<std::string> emitAssembly(mlir::ModuleOp module, const TargetOptions& target,
                                         mlir::TimingScope* timing) {
  auto lowered = lowerAndOptimize(module, target, timing);
  if (!lowered) return lowered.takeError();
  mlir::TimingScope scope = timingChild(timing, "assembly");
  return emitFile(*lowered->module, *lowered->machine, llvm::CodeGenFileType::AssemblyFile);
}

llvm::Expected<std::string> emitSharedObject(mlir::ModuleOp module, const TargetOptions& target,
                                             mlir::TimingScope* timing) {
  auto lowered = lowerToLLVM(module, target, timing);
  if (!lowered) return lowered.takeError();
  auto objects = compileObjects(*lowered, target, timing);
  if (!objects) return objects.takeError();
  mlir::TimingScope scope = timingChild(timing, "link (ld.lld)");
  return link(*objects, target);
}

}  // namespace linnet::codegen
