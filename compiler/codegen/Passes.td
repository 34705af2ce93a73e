// The passes of the CPU code generator (compiler/codegen), used by the
// pipeline in Pipeline.cpp and registered in linnet-opt for tests.
#ifndef LINNET_CODEGEN_PASSES_TD
#define LINNET_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"linnet-approximate-math"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    Applies MLIR's polynomial approximations (`exp`, `log`, `tanh`, `sin`,
    `cos`, `erf`, ...) on f32, so the loops computing them are plain
    arithmetic that LLVM's loop vectorizer can widen; a libm call would stop
    it. Run after `math-legalize-to-f32`, which widens bf16/f16 math to f32.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def EntryAbi : Pass<"linnet-entry-abi", "::mlir::ModuleOp"> {
  let summary = "Emit the `linnet_entry_<name>(void** slots)` symbols of docs/abi.md";
  let description = [{
    Runs on the LLVM dialect after `convert-func-to-llvm`. For every function
    carrying `linnet.entry = "<name>"` (and so `llvm.emit_c_interface`), adds
    `void linnet_entry_<name>(ptr slots)` that loads slot i and passes it as
    the i-th parameter of `_mlir_ciface_<fn>`: a descriptor pointer as is,
    an `index` through the `int64_t*` the slot holds. Slot 0 is the result
    descriptor block when there are results, as the C interface's first
    parameter is then the result pointer. Every other function defined in
    the module becomes internal, so only the entry symbols are exported.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def LinalgToParallelLoops : Pass<"linnet-linalg-to-parallel-loops"> {
  let summary = "Lower linalg ops on buffers to loops, the large ones' outer parallel loops to `scf.parallel`";
  let description = [{
    Every linalg op on memrefs becomes an `scf.for` nest (as
    `convert-linalg-to-loops`). Where the op's leading iterators are
    parallel, those leading loops (never the innermost loop of the nest,
    which LLVM's loop vectorizer widens, unless it is the only one) are
    also built as one `scf.parallel`, and an `scf.if` picks it at run time
    when the op's whole iteration space has at least `min-work` points and
    the parallel loops more than one; otherwise the sequential nest runs.
    With static shapes the condition folds and one version is left.
    Reduction loops stay sequential `scf.for`s inside, in their order, so
    results are bit-identical. Only linalg ops are touched: the program's
    own `scf.for`/`scf.while` loops (state, generate) stay as they are.
    `convert-scf-to-openmp` turns the `scf.parallel`s into OpenMP.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"65536",
           "iteration points below which an op stays on one thread (0: never parallel)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def ForwardArgumentResults : Pass<"linnet-forward-argument-results", "::mlir::ModuleOp"> {
  let summary = "Drop private functions' results that are one of their buffer arguments";
  let description = [{
    Runs after one-shot bufferization. An outlined layer body updates the
    state it was given in place and returns it (the lowering threads state as
    SSA values); bufferized, that result is the argument's buffer. Every such
    result of a private function is removed and each call's use of it takes
    the call's operand instead, so the caller writes the state back onto
    itself (a self-copy that folds) rather than copying the whole buffer,
    and the deallocation pipeline has no returned argument to clone.
    Entries (public) keep their signature: the ABI is fixed.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def AlignWhileLoops : Pass<"linnet-align-while-loops"> {
  let summary = "Forward every before-region argument of an `scf.while` to its after region, in order";
  let description = [{
    Runs just before one-shot bufferization. Canonicalization drops from an
    `scf.while`'s `scf.condition` the values the after region does not read
    (a generation loop's `running` flag), which shifts every later value by
    one: bufferization pairs the condition's i-th operand with the before
    region's i-th argument, finds them unrelated and copies each carried
    tensor (a whole key/value cache per layer per step). Where the forwarded
    values are before-region arguments in increasing order, this pass
    forwards all of them again (the after region takes the dropped ones as
    unused arguments), so each carried tensor stays in one buffer.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

#endif // LINNET_CODEGEN_PASSES_TD
