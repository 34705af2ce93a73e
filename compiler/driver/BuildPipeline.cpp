// Implementation of BuildPipeline.h: the stages of `linnet build` in order,
// each stopping at the first stage with errors. Without the code generator
// (a LINNET_BACKEND=OFF build, as the sanitizer and fuzzer builds are)
// buildArtifact only says so.
#include "compiler/driver/BuildPipeline.h"

#include <filesystem>
#include <iostream>

#include "compiler/driver/DriverSupport.h"

#if LINNET_HAVE_BACKEND
#include "compiler/driver/Fnv128.h"
#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/DialectRegistry.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/Support/Timing.h>

#include "compiler/artifact/ManifestWriter.h"
#include "compiler/check/Checker.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/inspect/RootBinding.h"
#include "compiler/lower/Lowering.h"
#endif

namespace linnet::driver {

#if LINNET_HAVE_BACKEND
namespace {

// The manifest's `source.hash` (docs/abi.md): the sources' text (not their
// paths, so a moved package keeps it), the binding (every root generic and
// the constants valued from config.json), the entries built and the target.
std::string buildIdentity(const SourceManager& sources, const lower::LowerInputs& inputs,
                          const codegen::TargetOptions& target) {
  Fnv128 hash;
  for (FileId id = 1; id <= sources.fileCount(); ++id) hash.addPart(sources.file(id).text());
  for (const auto& [name, value] : inputs.generics) {
    hash.addPart(name);
    hash.addPart(value.text());
  }
  for (const bind::BoundConstant& constant : inputs.constants) {
    hash.addPart(constant.constant);
    hash.addPart(constant.text());
  }
  for (const std::string& entry : inputs.entries) hash.addPart(entry);
  hash.addPart(target.triple);
  hash.addPart(target.cpu);
  hash.addPart(target.features);
  return hash.hex();
}

}  // namespace
#endif

std::unique_ptr<LoadedPackage> loadPackage(const CommonOptions& common, const std::string& path, int* exitCode) {
  auto package = std::make_unique<LoadedPackage>();
  package->program = loadProgram(package->sources, package->diagnostics, {path}, LoadOptions{common.stdDir});
  if (!package->diagnostics.hasErrors()) resolveProgram(*package->program, package->diagnostics);
  if (package->diagnostics.hasErrors()) {
    *exitCode = finishDiagnostics(common, package->sources, package->diagnostics);
    return nullptr;
  }
  return package;
}

#if !LINNET_HAVE_BACKEND

int buildArtifact(const CommonOptions&, LoadedPackage&, const BuildOptions&, BuiltArtifact*, std::ostream*) {
  std::cerr << "linnet: error: this linnet was built without the code generator (LINNET_BACKEND=OFF)\n";
  return kExitUsage;
}

std::string hostTargetDescription() { return "no code generator"; }

#else

namespace {

// MLIR's diagnostics (pass failures) go to stderr with their source location.
struct MlirDiagnostics {
  explicit MlirDiagnostics(mlir::MLIRContext& context)
      : handler(&context, [](mlir::Diagnostic& d) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << d.getLocation() << ": " << d;
          const char* kind = d.getSeverity() == mlir::DiagnosticSeverity::Error ? "error" : "note";
          std::cerr << "linnet: " << kind << ": " << os.str() << "\n";
          return mlir::success();
        }) {}
  mlir::ScopedDiagnosticHandler handler;
};

std::optional<codegen::Stage> stageNamed(const std::string& name) {
  if (name == "linnet") return codegen::Stage::Linnet;
  if (name == "linalg") return codegen::Stage::Linalg;
  if (name == "bufferized") return codegen::Stage::Bufferized;
  if (name == "llvm") return codegen::Stage::LLVM;
  if (name == "asm") return codegen::Stage::Asm;
  return std::nullopt;
}

// Prints a stage of the pipeline to stdout (`build --emit`).
int emitStage(mlir::ModuleOp module, codegen::Stage stage, const codegen::TargetOptions& target,
              mlir::TimingScope& timing) {
  if (stage == codegen::Stage::Asm) {
    auto text = codegen::emitAssembly(module, target, &timing);
    if (!text) {
      std::cerr << "linnet: error: " << llvm::toString(text.takeError()) << "\n";
      return kExitErrors;
    }
    std::cout << *text;
    return kExitOk;
  }
  if (stage == codegen::Stage::LLVM) {
    auto text = codegen::emitLLVMIR(module, target, &timing);
    if (!text) {
      std::cerr << "linnet: error: " << llvm::toString(text.takeError()) << "\n";
      return kExitErrors;
    }
    std::cout << *text;
    return kExitOk;
  }
  if (mlir::failed(codegen::lowerTo(module, stage, target, &timing))) return kExitErrors;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  std::cout << os.str();
  return kExitOk;
}

}  // namespace

std::string hostTargetDescription() {
  codegen::TargetOptions target = codegen::TargetOptions::host();
  return target.triple + " " + target.cpu + " " + target.features;
}

int buildArtifact(const CommonOptions& common, LoadedPackage& package, const BuildOptions& options,
                  BuiltArtifact* out, std::ostream* progress) {
  auto stage = options.emit.empty() ? std::nullopt : stageNamed(options.emit);
  if (!options.emit.empty() && !stage) {
    std::cerr << "linnet: error: --emit takes linnet, linalg, bufferized, llvm or asm\n";
    return kExitUsage;
  }
  // A usage error, found before any work on the program.
  codegen::TargetOptions target = codegen::TargetOptions::host();
  if (std::string problem; !options.targetFeatures.empty() && !target.overrideFeatures(options.targetFeatures, problem)) {
    std::cerr << "linnet: error: --target-features: " << problem << "\n";
    return kExitUsage;
  }
  // --time-passes: each step below and each MLIR pass, printed to stderr as
  // a tree when `timing` goes (so on every return, errors included).
  mlir::DefaultTimingManager timing;
  timing.setEnabled(options.timePasses);
  timing.setDisplayMode(mlir::DefaultTimingManager::DisplayMode::Tree);
  mlir::TimingScope timed = timing.getRootScope();
  SourceManager& sources = package.sources;
  DiagnosticEmitter& diagnostics = package.diagnostics;
  Program* program = package.program.get();
  mlir::TimingScope step = timed.nest("check");
  check::CheckedProgram checked = checkProgram(*program, diagnostics);
  if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics);
  step = timed.nest("binding");
  std::optional<manifest::BlockRef> root = inspect::findRootBlock(*program, diagnostics, options.root);
  if (!root) return finishDiagnostics(common, sources, diagnostics);
  std::vector<manifest::EntryRef> entries = manifest::programEntries(program->rootModules(), *root);
  if (!inspect::checkEntryNames(entries, diagnostics)) return finishDiagnostics(common, sources, diagnostics);
  std::vector<const ast::FunctionItem*> entryItems;
  for (const manifest::EntryRef& e : entries) entryItems.push_back(e.entry);
  // Binds of root generics go to the binding; the rest must name an entry's
  // type generic (they fix its code too).
  std::vector<std::string> entryBinds;
  std::optional<inspect::RootBinding> binding = inspect::bindRootGenerics(
      *program, &checked, *root, options.binds, options.checkpoint, diagnostics, &entryBinds,
      /*bindDefaults=*/true);
  if (!binding) return finishDiagnostics(common, sources, diagnostics);
  bind::EntryPackBindings entryPacks;
  std::optional<bind::EntryTypeBindings> entryTypes =
      bind::parseEntryTypeBinds(entryItems, root->block, root->qualifiedName(), entryBinds, diagnostics,
                                &entryPacks);
  if (!entryTypes) return finishDiagnostics(common, sources, diagnostics);

  lower::LowerInputs inputs;
  inputs.sources = &sources;
  inputs.program = program;
  inputs.checked = &checked;
  inputs.root = *root;
  inputs.compiled = entries;
  if (binding->generics) inputs.generics = *binding->generics;
  inputs.entries = options.entries;
  inputs.entryTypes = *entryTypes;
  inputs.entryPacks = entryPacks;
  if (binding->model) {
    for (const bind::BoundTensor& t : binding->model->tensors) {
      if (!t.tensor) continue;  // an absent optional parameter
      std::optional<ast::ScalarType> stored = ast::scalarTypeFromName(rt::dtypeName(t.tensor->dtype));
      if (stored == t.dtype) stored.reset();
      inputs.parameters.push_back(lower::TensorSlot{t.path, t.dtype, t.shape, t.tensorName, stored});
    }
    for (const bind::BoundState& s : binding->model->state)
      inputs.state.push_back(lower::TensorSlot{s.path, s.dtype, s.shape, "", std::nullopt});
    inputs.constants = binding->model->constants;
  }

  step = timed.nest("lowering to the linnet dialect");
  mlir::DialectRegistry registry;
  codegen::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  MlirDiagnostics mlirDiagnostics(context);
  std::optional<lower::LoweredProgram> lowered = lower::lowerProgram(context, inputs, diagnostics);
  if (!lowered) return finishDiagnostics(common, sources, diagnostics);
  mlir::ModuleOp module = lowered->module.get();

  step.stop();
  if (stage) return emitStage(module, *stage, target, timed);

  if (progress) {
    const Package* root = program->rootPackage();
    std::string name = root && !root->name.empty() ? root->name : std::filesystem::path(options.path).stem().string();
    std::size_t count = lowered->entries.size();
    *progress << "linnet: compiling " << name << " (" << count << (count == 1 ? " entry" : " entries")
              << ")..." << std::endl;
  }
  auto so = codegen::emitSharedObject(module, target, &timed);
  if (!so) {
    std::cerr << "linnet: error: " << llvm::toString(so.takeError()) << "\n";
    return kExitErrors;
  }
  step = timed.nest("manifest");
  artifact::ManifestSource source{options.path, root->qualifiedName(), buildIdentity(sources, inputs, target),
                                  binding->model ? binding->model->config : nlohmann::json()};
  artifact::ManifestTarget manifestTarget{target.triple, target.cpu, target.features};
  artifact::EntryRequirements requirements = artifact::entryRequirements(checked, entries, inputs.generics, sources);
  out->manifestJson =
      artifact::manifestJson(*lowered, inputs.generics, binding->checks, requirements, source, manifestTarget);
  out->sharedObject = std::move(*so);
  return kExitOk;
}

#endif

}  // namespace linnet::driver
