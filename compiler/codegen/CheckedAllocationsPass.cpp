// The `linnet-checked-allocations` pass: every heap buffer of the generated
// code is sized without wrapping, counted against a limit the runtime sets,
// and checked for a null `malloc`; a failure calls the runtime's handler
// instead of writing through a null or short buffer (Passes.td, docs/abi.md).
#include <limits>

#include "compiler/codegen/Passes.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_CHECKEDALLOCATIONS
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// The names of docs/abi.md "Allocation": exported data the runtime writes,
// and the functions `finalize-memref-to-llvm` calls with generic functions.
constexpr llvm::StringLiteral kLimit = "linnet_allocation_limit";
constexpr llvm::StringLiteral kLive = "linnet_allocated_bytes";
constexpr llvm::StringLiteral kHandler = "linnet_allocation_failure";
constexpr llvm::StringLiteral kAlloc = "_mlir_memref_to_llvm_alloc";
constexpr llvm::StringLiteral kFree = "_mlir_memref_to_llvm_free";
constexpr llvm::StringLiteral kFailed = "linnet_allocation_failed";
constexpr llvm::StringLiteral kCheckSize = "linnet_check_allocation_size";

struct Builder {
  ModuleOp module;
  OpBuilder b;
  Location loc;
  Type i64, ptr, voidType;

  explicit Builder(ModuleOp m)
      : module(m), b(m.getContext()), loc(m.getLoc()), i64(b.getI64Type()),
        ptr(LLVM::LLVMPointerType::get(m.getContext())), voidType(LLVM::LLVMVoidType::get(m.getContext())) {}

  Value constant(int64_t v) { return b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(v)); }
  Value address(llvm::StringRef global) { return b.create<LLVM::AddressOfOp>(loc, ptr, global); }
  Value isNull(Value p) {
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, p, b.create<LLVM::ZeroOp>(loc, ptr));
  }

  LLVM::LLVMFuncOp declare(llvm::StringRef name, Type result, ArrayRef<Type> params) {
    if (auto f = module.lookupSymbol<LLVM::LLVMFuncOp>(name)) return f;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    return b.create<LLVM::LLVMFuncOp>(loc, name, LLVM::LLVMFunctionType::get(result, params));
  }

  // An exported, zero-initialised (or `init`) global the runtime may write.
  void global(llvm::StringRef name, Type type, int64_t init) {
    if (module.lookupSymbol(name)) return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    auto g = b.create<LLVM::GlobalOp>(loc, type, /*isConstant=*/false, LLVM::Linkage::External, name, Attribute());
    Block* body = b.createBlock(&g.getInitializerRegion());
    b.setInsertionPointToStart(body);
    Value v = type == ptr ? b.create<LLVM::ZeroOp>(loc, ptr).getResult() : constant(init);
    b.create<LLVM::ReturnOp>(loc, v);
  }

  // A definition of `name` with an entry block, the builder inside it.
  LLVM::LLVMFuncOp define(llvm::StringRef name, Type result, ArrayRef<Type> params) {
    b.setInsertionPointToEnd(module.getBody());
    auto f = b.create<LLVM::LLVMFuncOp>(loc, name, LLVM::LLVMFunctionType::get(result, params));
    b.setInsertionPointToStart(f.addEntryBlock(b));
    return f;
  }

  Value load(llvm::StringRef global, Type type) {
    auto op = b.create<LLVM::LoadOp>(loc, type, address(global));
    op.setOrdering(LLVM::AtomicOrdering::monotonic);
    op.setAlignment(8);
    return op;
  }

  Value add(llvm::StringRef global, Value v) {
    return b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::add, address(global), v,
                                       LLVM::AtomicOrdering::monotonic);
  }
  Value sub(llvm::StringRef global, Value v) {
    return b.create<LLVM::AtomicRMWOp>(loc, LLVM::AtomicBinOp::sub, address(global), v,
                                       LLVM::AtomicOrdering::monotonic);
  }
};

void defineRuntimeFunctions(Builder& x) {
  OpBuilder& b = x.b;
  Location loc = x.loc;
  x.global(kLimit, x.i64, std::numeric_limits<int64_t>::max());
  x.global(kLive, x.i64, 0);
  x.global(kHandler, x.ptr, 0);
  auto malloc = x.declare("malloc", x.ptr, {x.i64});
  auto free = x.declare("free", x.voidType, {x.ptr});
  auto usable = x.declare("malloc_usable_size", x.i64, {x.ptr});
  auto abort = x.declare("abort", x.voidType, {});

  // failed(requested, live, limit): the runtime's handler (which does not
  // return), else abort.
  auto failed = x.define(kFailed, x.voidType, {x.i64, x.i64, x.i64});
  failed->setAttr("passthrough", b.getArrayAttr({b.getStringAttr("noinline"), b.getStringAttr("cold"),
                                                  b.getStringAttr("noreturn")}));
  {
    Block* entry = &failed.getBody().front();
    Value handler = b.create<LLVM::LoadOp>(loc, x.ptr, x.address(kHandler));
    Value isSet = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ne, handler, b.create<LLVM::ZeroOp>(loc, x.ptr));
    Block* call = b.createBlock(&failed.getBody());
    Block* stop = b.createBlock(&failed.getBody());
    b.setInsertionPointToEnd(entry);
    b.create<LLVM::CondBrOp>(loc, isSet, call, stop);
    b.setInsertionPointToStart(call);
    auto handlerType = LLVM::LLVMFunctionType::get(x.voidType, {x.i64, x.i64, x.i64});
    SmallVector<Value> args{handler};
    args.append(entry->args_begin(), entry->args_end());
    b.create<LLVM::CallOp>(loc, handlerType, args);
    b.create<LLVM::BrOp>(loc, stop);
    b.setInsertionPointToStart(stop);
    b.create<LLVM::CallOp>(loc, abort, ValueRange{});
    b.create<LLVM::UnreachableOp>(loc);
  }

  // alloc(n): counted against the limit before `malloc`, its usable size
  // after, so `free` can take back what it adds.
  auto alloc = x.define(kAlloc, x.ptr, {x.i64});
  {
    Block* entry = &alloc.getBody().front();
    Value n = entry->getArgument(0);
    Value limit = x.load(kLimit, x.i64);
    Value before = x.add(kLive, n);
    Value total = b.create<LLVM::AddOp>(loc, before, n);
    Value tooBig = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ugt, n, limit);
    Value over = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ugt, total, limit);
    Value refuse = b.create<LLVM::OrOp>(loc, tooBig, over);
    Block* tryMalloc = b.createBlock(&alloc.getBody());
    Block* got = b.createBlock(&alloc.getBody());
    Block* fail = b.createBlock(&alloc.getBody());
    b.setInsertionPointToEnd(entry);
    b.create<LLVM::CondBrOp>(loc, refuse, fail, tryMalloc);
    b.setInsertionPointToStart(tryMalloc);
    // malloc(0) may return null: ask for one byte.
    Value one = x.constant(1);
    Value asked = b.create<LLVM::UMaxOp>(loc, n, one);
    Value p = b.create<LLVM::CallOp>(loc, malloc, ValueRange{asked}).getResult();
    Value isNull = x.isNull(p);
    b.create<LLVM::CondBrOp>(loc, isNull, fail, got);
    b.setInsertionPointToStart(got);
    Value size = b.create<LLVM::CallOp>(loc, usable, ValueRange{p}).getResult();
    x.add(kLive, b.create<LLVM::SubOp>(loc, size, n));
    b.create<LLVM::ReturnOp>(loc, p);
    b.setInsertionPointToStart(fail);
    x.sub(kLive, n);
    b.create<LLVM::CallOp>(loc, failed, ValueRange{n, before, limit});
    b.create<LLVM::UnreachableOp>(loc);
  }

  auto release = x.define(kFree, x.voidType, {x.ptr});
  {
    Block* entry = &release.getBody().front();
    Value p = entry->getArgument(0);
    Value isNull = x.isNull(p);
    Block* give = b.createBlock(&release.getBody());
    Block* done = b.createBlock(&release.getBody());
    b.setInsertionPointToEnd(entry);
    b.create<LLVM::CondBrOp>(loc, isNull, done, give);
    b.setInsertionPointToStart(give);
    Value size = b.create<LLVM::CallOp>(loc, usable, ValueRange{p}).getResult();
    x.sub(kLive, size);
    b.create<LLVM::CallOp>(loc, free, ValueRange{p});
    b.create<LLVM::BrOp>(loc, done);
    b.setInsertionPointToStart(done);
    b.create<LLVM::ReturnOp>(loc, ValueRange{});
  }

  // check(bytes): a dynamic buffer's size, all ones when it overflowed.
  auto check = x.define(kCheckSize, x.voidType, {x.i64});
  {
    Block* entry = &check.getBody().front();
    Value n = entry->getArgument(0);
    Value limit = x.load(kLimit, x.i64);
    Value tooBig = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ugt, n, limit);
    Block* fail = b.createBlock(&check.getBody());
    Block* done = b.createBlock(&check.getBody());
    b.setInsertionPointToEnd(entry);
    b.create<LLVM::CondBrOp>(loc, tooBig, fail, done);
    b.setInsertionPointToStart(fail);
    b.create<LLVM::CallOp>(loc, failed, ValueRange{n, x.load(kLive, x.i64), limit});
    b.create<LLVM::UnreachableOp>(loc);
    b.setInsertionPointToStart(done);
    b.create<LLVM::ReturnOp>(loc, ValueRange{});
  }
}

// Bytes per element of a buffer the generated code allocates, or 0 when the
// element is not a plain scalar (its buffers are not checked by size).
int64_t elementBytes(Type t) {
  if (t.isIndex()) return 8;
  if (t.isIntOrFloat()) return (t.getIntOrFloatBitWidth() + 7) / 8;
  if (auto v = dyn_cast<VectorType>(t))
    if (v.hasStaticShape() && v.getElementType().isIntOrFloat())
      return v.getNumElements() * ((v.getElementType().getIntOrFloatBitWidth() + 7) / 8);
  return 0;
}

// Before a dynamically sized `memref.alloc`: its byte count multiplied out
// with every product's high word checked, all ones on overflow, passed to
// the size check (the conversion's own multiplication wraps silently).
void checkSize(memref::AllocOp alloc, LLVM::LLVMFuncOp check) {
  MemRefType type = alloc.getType();
  int64_t bytes = elementBytes(type.getElementType());
  if (bytes == 0) return;
  OpBuilder b(alloc);
  Location loc = alloc.getLoc();
  Type i64 = b.getI64Type();
  Value acc = b.create<arith::ConstantIntOp>(loc, bytes, 64);
  Value zero = b.create<arith::ConstantIntOp>(loc, 0, 64);
  Value overflow = b.create<arith::ConstantIntOp>(loc, 0, 1);
  auto dynamic = alloc.getDynamicSizes().begin();
  for (int64_t extent : type.getShape()) {
    Value d = ShapedType::isDynamic(extent)
                  ? b.create<arith::IndexCastUIOp>(loc, i64, *dynamic++).getResult()
                  : b.create<arith::ConstantIntOp>(loc, extent, 64).getResult();
    auto product = b.create<arith::MulUIExtendedOp>(loc, acc, d);
    Value high = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, product.getHigh(), zero);
    overflow = b.create<arith::OrIOp>(loc, overflow, high);
    acc = product.getLow();
  }
  Value all = b.create<arith::ConstantIntOp>(loc, -1, 64);
  Value size = b.create<arith::SelectOp>(loc, overflow, all, acc);
  b.create<LLVM::CallOp>(loc, check, ValueRange{size});
}

struct CheckedAllocationsPass : impl::CheckedAllocationsBase<CheckedAllocationsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (module.lookupSymbol(kAlloc)) return;  // already run
    Builder x(module);
    defineRuntimeFunctions(x);
    auto check = module.lookupSymbol<LLVM::LLVMFuncOp>(kCheckSize);
    SmallVector<memref::AllocOp> allocs;
    module.walk([&](memref::AllocOp alloc) {
      if (!alloc.getDynamicSizes().empty()) allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) checkSize(alloc, check);
  }
};

}  // namespace

}  // namespace linnet::codegen
