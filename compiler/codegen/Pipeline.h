// The CPU code generator: from a module of `linnet` ops (or any later
// stage) to LLVM IR, assembly or a loadable ELF shared object exporting the
// entry symbols of docs/abi.md. Stage order and what each does: README.md.
//
// Entry functions are public `func.func`s carrying a StringAttr
// `linnet.entry` (the entry's name); their arguments are the entry's dims
// (`index`), then tensors (parameters, state, args; scalars rank 0), and
// their results tensors. Each becomes `void linnet_entry_<name>(void**)`.
#pragma once

#include <cstdint>
#include <string>

#include "llvm/Support/Error.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Support/Timing.h"

namespace linnet::codegen {

enum class Stage { Linnet, Linalg, Bufferized, LLVM, Asm };

struct TargetOptions {
  std::string triple, cpu, features;
  // A linalg op whose iteration space has fewer points than this runs on
  // one thread; larger ones share their leading parallel loops among
  // OpenMP threads (README.md). 0: everything on one thread, no libomp.
  int64_t parallelMinWork = 65536;
  // f32 lanes of the widest vector register `features` name (16 with
  // AVX-512, 8 with AVX, else 4): the length of the innermost loops'
  // vectors and of split reductions. 1 turns MLIR-level vectorization off.
  int64_t vectorLanes() const;
  // Set to override vectorLanes() (0: derive it from `features`).
  int64_t vectorLanesOverride = 0;
  // Whether bf16 sums of products use the pair dot product of AVX512-BF16
  // (`vdpbf16ps`): `features` has it and vectors are 16 f32 lanes.
  bool bf16DotProducts() const;
  // How far ahead a row-blocked reduction's vector loop prefetches each row
  // (0: not at all), by the CPU's name (Pipeline.cpp says why).
  int64_t rowPrefetchBytes() const;
  // The same inside a cache tile, where several blocks of tokens share the
  // rows (decode_rows); Pipeline.cpp says why it differs.
  int64_t tileRowPrefetchBytes() const;
  // The machine this process runs on: its triple, CPU name and features.
  static TargetOptions host();
  // These options with `overrides` applied: a comma-separated list of
  // `+name` (use the feature) and `-name` (do not), as LLVM's -mattr, each
  // replacing what `features` says of that name. False with `error` set
  // when an item is malformed or names a feature `features` does not list.
  bool overrideFeatures(const std::string& overrides, std::string& error);
};

// Every dialect, interface and translation the pipeline and the lowering
// into `linnet` need (func, arith, math, tensor, linalg, scf,
// bufferization, memref, vector, llvm, linnet, ...).
void registerDialects(mlir::DialectRegistry& registry);

// A child scope `name` of `parent`, or one that times nothing without a
// parent (`linnet build` without --time-passes).
inline mlir::TimingScope timingChild(mlir::TimingScope* parent, llvm::StringRef name) {
  return parent ? parent->nest(name) : mlir::TimingScope();
}

// Runs the pipeline in place on `module` from the stage it is at up to
// `stage` (Linnet: verify only; Asm is LLVM here). Failures are reported
// through MLIR's diagnostics. With `timing`, each stage's passes are timed
// under it (`linnet build --time-passes`).
mlir::LogicalResult lowerTo(mlir::ModuleOp module, Stage stage, const TargetOptions& target,
                            mlir::TimingScope* timing = nullptr);

// From a module at any stage (left untouched: a copy is lowered): LLVM IR
// text after LLVM's O2 pipeline, the target's assembly, or the bytes of an
// ELF shared object linked with ld.lld against libm and libc.
// With `timing`, each step (and each MLIR pass) is timed under it.
llvm::Expected<std::string> emitLLVMIR(mlir::ModuleOp module, const TargetOptions& target,
                                       mlir::TimingScope* timing = nullptr);
llvm::Expected<std::string> emitAssembly(mlir::ModuleOp module, const TargetOptions& target,
                                         mlir::TimingScope* timing = nullptr);
llvm::Expected<std::string> emitSharedObject(mlir::ModuleOp module, const TargetOptions& target,
                                             mlir::TimingScope* timing = nullptr);

}  // namespace linnet::codegen
