// `linnet build`: check a package, bind its root block (a checkpoint or
// --bind values), lower the entries to the `linnet` dialect, and either
// print a stage of the pipeline (--emit) or write a `.lnpkg` (-o): the
// shared object the CPU pipeline produces and its manifest (docs/abi.md).
// Without the code generator (a LINNET_BACKEND=OFF build, as the sanitizer
// and fuzzer builds are) the command only says so.
#include <iostream>

#include "compiler/driver/Driver.h"
#include "compiler/driver/DriverSupport.h"

#if LINNET_HAVE_BACKEND
#include <llvm/Support/raw_ostream.h>
#include <mlir/IR/Diagnostics.h>
#include <mlir/IR/DialectRegistry.h>
#include <mlir/IR/MLIRContext.h>

#include "compiler/artifact/ManifestWriter.h"
#include "compiler/check/Checker.h"
#include "compiler/codegen/Pipeline.h"
#include "compiler/inspect/RootBinding.h"
#include "compiler/lower/Lowering.h"
#include "runtime/artifact/ArtifactFile.h"
#endif

namespace linnet::driver {

#if !LINNET_HAVE_BACKEND

int runBuild(const CommonOptions&, const BuildOptions&) {
  std::cerr << "linnet: error: this linnet was built without the code generator (LINNET_BACKEND=OFF)\n";
  return kExitUsage;
}

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

}  // namespace

int runBuild(const CommonOptions& common, const BuildOptions& options) {
  auto stage = options.emit.empty() ? std::nullopt : stageNamed(options.emit);
  if (!options.emit.empty() && !stage) {
    std::cerr << "linnet: error: --emit takes linnet, linalg, bufferized, llvm or asm\n";
    return kExitUsage;
  }
  if (options.emit.empty() && options.output.empty()) {
    std::cerr << "linnet: error: build needs -o FILE.lnpkg or --emit STAGE\n";
    return kExitUsage;
  }
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program =
      loadProgram(sources, diagnostics, {options.path}, LoadOptions{common.stdDir});
  if (!diagnostics.hasErrors()) resolveProgram(*program, diagnostics);
  if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics);
  check::CheckedProgram checked = checkProgram(*program, diagnostics);
  if (diagnostics.hasErrors()) return finishDiagnostics(common, sources, diagnostics);
  std::optional<manifest::BlockRef> root = inspect::findRootBlock(*program, diagnostics);
  if (!root) return finishDiagnostics(common, sources, diagnostics);
  std::optional<inspect::RootBinding> binding =
      inspect::bindRootGenerics(*program, *root, options.binds, options.checkpoint, diagnostics);
  if (!binding) return finishDiagnostics(common, sources, diagnostics);

  lower::LowerInputs inputs;
  inputs.sources = &sources;
  inputs.program = program.get();
  inputs.checked = &checked;
  inputs.root = *root;
  if (binding->generics) inputs.generics = *binding->generics;
  inputs.entries = options.entries;
  if (binding->model) {
    for (const bind::BoundTensor& t : binding->model->tensors) {
      if (!t.tensor) continue;  // an absent optional parameter
      inputs.parameters.push_back(lower::TensorSlot{t.path, t.dtype, t.shape, t.tensorName});
    }
    for (const bind::BoundState& s : binding->model->state)
      inputs.state.push_back(lower::TensorSlot{s.path, s.dtype, s.shape, ""});
  }

  mlir::DialectRegistry registry;
  codegen::registerDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  MlirDiagnostics mlirDiagnostics(context);
  std::optional<lower::LoweredProgram> lowered = lower::lowerProgram(context, inputs, diagnostics);
  if (!lowered) return finishDiagnostics(common, sources, diagnostics);
  mlir::ModuleOp module = lowered->module.get();
  codegen::TargetOptions target = codegen::TargetOptions::host();

  if (stage) {
    if (*stage == codegen::Stage::Asm) {
      auto text = codegen::emitAssembly(module, target);
      if (!text) {
        std::cerr << "linnet: error: " << llvm::toString(text.takeError()) << "\n";
        return kExitErrors;
      }
      std::cout << *text;
      return kExitOk;
    }
    if (*stage == codegen::Stage::LLVM) {
      auto text = codegen::emitLLVMIR(module, target);
      if (!text) {
        std::cerr << "linnet: error: " << llvm::toString(text.takeError()) << "\n";
        return kExitErrors;
      }
      std::cout << *text;
      return kExitOk;
    }
    if (mlir::failed(codegen::lowerTo(module, *stage, target))) return kExitErrors;
    std::string text;
    llvm::raw_string_ostream os(text);
    module.print(os);
    std::cout << os.str();
    return kExitOk;
  }

  auto so = codegen::emitSharedObject(module, target);
  if (!so) {
    std::cerr << "linnet: error: " << llvm::toString(so.takeError()) << "\n";
    return kExitErrors;
  }
  artifact::ManifestSource source{options.path, root->qualifiedName(), ""};
  artifact::ManifestTarget manifestTarget{target.triple, target.cpu, target.features};
  std::string manifest = artifact::manifestJson(*lowered, inputs.generics, source, manifestTarget);
  rt::Status written = rt::writeArtifact(options.output, manifest, *so);
  if (!written.ok()) {
    std::cerr << "linnet: error: " << written.message() << "\n";
    return kExitErrors;
  }
  return kExitOk;
}

#endif

}  // namespace linnet::driver
