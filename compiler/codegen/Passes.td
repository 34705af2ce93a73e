// The passes of the CPU code generator (compiler/codegen), used by the
// pipeline in Pipeline.cpp and registered in linnet-opt for tests.
#ifndef LINNET_CODEGEN_PASSES_TD
#define LINNET_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def ApproximateMath : Pass<"linnet-approximate-math", "::mlir::ModuleOp"> {
  let summary = "Replace transcendental math ops by polynomial approximations";
  let description = [{
    On f32: MLIR's polynomial approximations (`exp`, `log`, `tanh`, `erf`,
    ...) and our own `sin`/`cos` (range reduction in f64, good to a few ulp
    up to |x| = 2^29 * pi/2), so the loops computing them are plain
    arithmetic that LLVM's loop vectorizer can widen; a libm call would stop
    it. Run after `math-legalize-to-f32`, which widens bf16/f16 math to f32.
    On f64, transcendental ops become libm calls (`exp`, `log`, `sin`,
    `cos`, `tanh`; vectors a lane at a time), so f64 results are f64
    accurate; `sqrt`, `rsqrt` and `abs` are left to `convert-math-to-llvm`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect", "::mlir::func::FuncDialect"];
}

def RoundNarrowFloatArith : Pass<"linnet-round-narrow-float-arith"> {
  let summary = "bf16/f16 arithmetic computed in f32 and rounded after every op";
  let description = [{
    Each `arith` float op on bf16/f16 (scalars or vectors: add, sub, mul,
    div, rem, max, min) becomes the same op on f32 operands widened by
    `arith.extf`, its result rounded back by `arith.truncf`. A bf16 `a + b`
    is a bf16 value (spec section 5.4), so a chain `(a + b) - b` rounds
    between its ops. Run before `arith-emulate-unsupported-floats`, which
    does the widening by a type conversion that keeps a whole chain in f32
    and rounds once at its end: bf16 `(1 + 256) - 256` was 1, not 0.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
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
  let summary = "Lower linalg ops on buffers to vector or scalar loops, the large ones' outer parallel loops to `scf.parallel`";
  let description = [{
    With `vector-length` > 1, an op whose innermost loop every operand
    indexes by its last, unit-stride subscript or not at all (contiguous
    loads and stores, broadcasts), with whole-byte elements, a body of
    arithmetic and math without an integer division that could trap (a
    divisor guarded as the total division's, or a constant, is fine), no reduction into a
    16-bit float, and an innermost extent of at least 4 (or dynamic), is
    tiled by one along every loop but the innermost and by `vector-length`
    along it, and each tile is vectorized (upstream's `linalg::vectorize`):
    `vector.transfer_read`/`transfer_write`, masked by `vector.create_mask`
    where the extent is not a multiple, and `vector.multi_reduction` for an
    innermost reduction. Every other op becomes an `scf.for` nest (as
    `convert-linalg-to-loops`), which LLVM's loop vectorizer may still widen.
    Where the op's leading iterators are parallel, those leading loops
    (never the innermost loop of the nest unless it is the only one) are
    also built as one `scf.parallel`, and an `scf.if` picks it at run time
    when the op's whole iteration space has at least `min-work` points and
    the parallel loops more than one; otherwise the sequential nest runs.
    With static shapes the condition folds and one version is left.
    Reduction loops stay sequential `scf.for`s inside, in their order, so
    results do not depend on the thread count. Only linalg ops are touched:
    the program's own `scf.for`/`scf.while` loops (state, generate) stay as
    they are. `convert-scf-to-openmp` turns the `scf.parallel`s into OpenMP;
    `linnet-lower-vectors` lowers the vector ops.
  }];
  let options = [
    Option<"minWork", "min-work", "int64_t", /*default=*/"65536",
           "iteration points below which an op stays on one thread (0: never parallel)">,
    Option<"vectorLength", "vector-length", "int64_t", /*default=*/"0",
           "lanes of the innermost loop's vectors (0: scalar loops only)">,
    Option<"bf16Dot", "bf16-dot", "bool", /*default=*/"false",
           "the target has a bf16 pair dot product (AVX512-BF16 `vdpbf16ps`): an f32 sum of products of two widened bf16 operands steps over 2 x vector-length elements, and a bf16 matrix product over many tokens runs on packed panels of its weights (PackedProducts.cpp)">,
    Option<"rowPrefetchBytes", "row-prefetch-bytes", "int64_t", /*default=*/"768",
           "how far ahead the vector loop of a row-blocked reduction prefetches each of its rows (0: no prefetch; the pipeline picks it per CPU, docs/codegen.md)">,
    Option<"tileRowPrefetchBytes", "tile-row-prefetch-bytes", "int64_t", /*default=*/"768",
           "the same inside a cache tile, whose rows several register blocks of tokens read (decode_rows' 8 tokens); the pipeline picks it per CPU">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect", "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect", "::mlir::LLVM::LLVMDialect"];
}

def FuseElementwise : Pass<"linnet-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg producers into their consumers where no element is recomputed";
  let description = [{
    Upstream's elementwise fusion (with its reshape-by-expansion folding,
    constant folding and canonicalizations, as `linalg-fuse-elementwise-ops`
    runs them), under a cost rule: a `linalg.generic` producer with one use
    is fused into its consumer when every loop of the consumer indexes the
    fused operand (each produced element is still computed once), or when
    the producer's body is a single conversion (`extf`, `truncf`, ...),
    which costs no more to redo than to load. Otherwise it stays a separate
    op whose result is materialized: fusing an RMSNorm into the matrix
    product that consumes it would compute the norm again for every output
    feature (3,072 times per element in Phi-3-mini's attention).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::affine::AffineDialect", "::mlir::arith::ArithDialect"];
}

def WidenRoundedResults : Pass<"linnet-widen-rounded-results"> {
  let summary = "Store a bf16/f16 result that every consumer widens to f32 as f32, already rounded";
  let description = [{
    On linalg ops on tensors. A `linalg.generic` with one result of bf16 or
    f16 elements whose body does not read its init, and whose every use is
    an input of a `linalg.generic` that only `arith.extf`s that element to
    f32, one of them reading each element more than once (a loop that does
    not index it), yields `extf(v)` of its narrow value `v` into an f32
    tensor instead, and its consumers read the f32 value directly. The
    values are the same (still rounded to the narrow type, as the program
    says); what changes is that a consumer that reads each element many
    times (the activations of a matrix product, read once per output
    feature) no longer widens it every time: on AVX-512 each widening is two
    instructions on the ports the multiply-adds need. The stored result
    takes twice the bytes.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def LowerVectors : Pass<"linnet-lower-vectors"> {
  let summary = "Lower the vectorizer's n-D, masked vector ops to 1-D loads, stores and arithmetic";
  let description = [{
    Runs after `linnet-linalg-to-parallel-loops`. Masks on transfers and
    reductions are lowered first; then leading unit dimensions are cast
    away, `vector.multi_reduction` becomes `vector.reduction` (inner
    reduction) or elementwise arithmetic, masks, broadcasts, shape casts,
    transposes and permuted transfers are lowered, and transfers of rank 1
    become `vector.load`/`vector.store`/`vector.maskedload`/
    `vector.maskedstore`. What remains of higher rank is left to
    `convert-vector-to-scf`.

    With `bf16-dot`, a reduction loop carrying the lanes of an f32 sum of
    products `extf(a) * extf(b)` of two bf16 vectors of 32 elements along
    the reduction (what `linnet-linalg-to-parallel-loops` builds with the
    same option) carries 16 f32 lanes instead, each trip adding pairs of
    products with `llvm.x86.avx512bf16.dpbf16ps.512`: 32 multiply-adds in
    one instruction, with no widening of either operand. A reassociation of
    the sum, like the lanes themselves (AVX512-BF16 also flushes denormal
    inputs and results to zero).
  }];
  let options = [
    Option<"bf16Dot", "bf16-dot", "bool", /*default=*/"false",
           "carry 32-element bf16 sums of products as 16 f32 lanes updated by `vdpbf16ps`">,
  ];
  let dependentDialects = ["::mlir::vector::VectorDialect", "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::LLVM::LLVMDialect"];
}

def SelectBuffers : Pass<"linnet-select-buffers"> {
  let summary = "A select between two buffers becomes an scf.if";
  let description = [{
    Canonicalization folds an `scf.if` that only chooses between two values
    into `arith.select`, and after bufferization that select chooses between
    two memrefs. `arith-emulate-unsupported-floats` takes any op whose
    element type is bf16/f16 for arithmetic and wraps a `memref<bf16>`
    operand in `arith.extf`, which does not verify (an `if` on data choosing
    a bf16 constant or an argument). The select is rewritten as the `scf.if`
    it came from; run right before the emulation.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect"];
}

def NarrowFloatMemory : Pass<"linnet-narrow-float-memory"> {
  let summary = "Vector loads, stores and selects of bf16/f16 move i16 lanes";
  let description = [{
    Runs on the LLVM dialect. LLVM scalarizes a masked load or store of a
    bf16 (or f16) vector, and promotes a select of them to f32, converting
    each lane through f32 and back with a compiler-rt helper
    (`__truncsfbf2`) the shared object does not link, and slowly. Our
    bf16/f16 arithmetic is already integer code (`arith-expand`,
    `arith-emulate-unsupported-floats`); the float vectors only carry bits
    between memory and it. So every vector `llvm.load`, `llvm.store`,
    `llvm.intr.masked.load`, `llvm.intr.masked.store` and `llvm.select` of
    them is rewritten on the i16 vector of the same shape, with
    `llvm.bitcast` around it; the bitcasts then cancel against the integer
    code's, and no bf16/f16 vector reaches the backend for InstCombine to
    turn back into a float select.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CheckedAllocations : Pass<"linnet-checked-allocations", "::mlir::ModuleOp"> {
  let summary = "Route every heap buffer through a checked, counted allocation";
  let description = [{
    Runs just before `finalize-memref-to-llvm`, which is then told to call
    generic allocation functions. Defines them: `_mlir_memref_to_llvm_alloc`
    refuses a size above `linnet_allocation_limit` or one that would take the
    call's live bytes (`linnet_allocated_bytes`, counted in `malloc`'s usable
    sizes) above it, and a null `malloc`; `_mlir_memref_to_llvm_free` takes
    the size back. Before every dynamically sized `memref.alloc` the byte
    count is multiplied out with each product's high word checked, and an
    overflow (which the conversion's own arithmetic would wrap into a short
    buffer) is refused the same way. A refusal calls the function pointer
    the runtime stores in `linnet_allocation_failure` (it names the entry and
    ends the process), else `abort`. The three globals are exported for the
    runtime to find (docs/abi.md "Allocation").
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect"];
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

    With `tensors`, it runs before one-shot bufferization on the tensor
    form: a call's result that the callee always returns as one of its
    arguments is that operand's value, and its uses take the operand (the
    signature stays; the result is left unused). One-Shot Bufferize cannot
    otherwise tell that such a result (a method that stores its argument in
    its state and returns it, one whose layer body is the identity) is its
    operand's buffer, and failed the build on it: "cannot avoid RaW
    conflict", "inconsistent memory space on then/else branches". A value a
    private function returns twice (canonicalization folding a method's
    `if c { h } else { h }` to the state `h` it also returns) is returned a
    second time as a copy: one value with two results made a caller's loop
    fail ("init_arg and yielded value bufferize to inconsistent memory
    spaces").
  }];
  let options = [
    Option<"onTensors", "tensors", "bool", /*default=*/"false",
           "Forward tensor results before bufferization, keeping signatures">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::tensor::TensorDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def ContractReductions : Pass<"linnet-contract-reductions"> {
  let summary = "Let a loop's accumulating multiply-adds fuse, and nothing else";
  let description = [{
    Linnet's arithmetic rounds each operation as IEEE says (spec 13.6); a
    fused multiply-add rounds once, so the target machine fuses only the
    multiplies and adds marked `contract`. This pass marks those of
    reductions: an `arith.addf`/`subf` on the chain from an `scf.for`
    iteration argument to what the loop yields for it (an accumulator), and
    a multiply feeding one. Reductions are already computed in the
    compiler's order (lanes, row blocks: docs/codegen.md, "Numerics"), the
    numeric policy spec 13.7 leaves to the compiler; elementwise code
    (`x * y - 1.0`) keeps its two roundings, as numpy's.
  }];
}

def InlineAllocaScopes : Pass<"linnet-inline-alloca-scopes"> {
  let summary = "Replace each `memref.alloca_scope` by its body";
  let description = [{
    Runs after `convert-scf-to-openmp`, which wraps the body of every loop it
    makes parallel in a `memref.alloca_scope`, and before `convert-scf-to-cf`,
    which cannot lower the `scf` loops inside one (the scope's region must
    stay one block; the build failed on "expects region #0 to have 0 or 1
    blocks"). Canonicalization inlines a scope only when nothing in it may
    allocate on the stack, and a call (libm's `exp` for f64 math in a
    parallel loop) may. Here every scope is inlined; where its body holds an
    alloca, between `llvm.intr.stacksave` and `llvm.intr.stackrestore`, so
    what it allocates is still freed at the end of each trip.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::memref::MemRefDialect"];
}

def GuidedSchedule : Pass<"linnet-guided-schedule"> {
  let summary = "Give every `omp.wsloop` a guided schedule";
  let description = [{
    Runs after `convert-scf-to-openmp`, whose loops have no schedule clause
    (libomp then splits the iterations into one equal block per thread).
    A guided schedule hands out shrinking chunks (remaining / threads) on
    demand: a thread that finishes its share early (its memory was slower,
    it was preempted) takes work from the rest instead of waiting at the
    loop's barrier, at the cost of a few atomic updates per loop. Each
    iteration still runs its reductions in order, so results do not change.
  }];
  let dependentDialects = ["::mlir::omp::OpenMPDialect"];
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
