// Kernels (spec §7.9, docs/kernels.md): tile programs an op may run in place
// of its body.
//
// A `kernel` is declared at module level, has no shape pack, takes tensors
// (memory) and scalars (values) and names tensor results (memory); it has
// one `grid` of one to three compile-time sizes (E2123) and optional
// `warps(n)` (a power of two) and `stages(n)`, integer literals. Its body
// works on tiles: `program_id(axis)` is an i32, `load(x[i, ...], mask,
// other)` reads a tile whose shape is the concatenation of its integer-tile
// indices, `store`/`atomic_add|max|min(y[i, ...], value, mask)` write one,
// atomics only in the dtypes the hardware has, one kind of write per
// result; tensor parameters and results appear nowhere else; no `return`
// (E2127 for all of these). An op's `kernel k<args>` binds the kernel's
// generics (written, inferred from the op's signature, or defaulted); the
// kernel must then take the op's parameters and write what it returns, and
// a kernel is never called (E2126).
#include <fmt/format.h>

#include <initializer_list>

#include "compiler/check/CheckerImpl.h"
#include "compiler/modules/Scopes.h"

namespace linnet::check {

// What the checker knows while it checks a kernel's body.
struct Checker::KernelState {
  const ast::FunctionItem* item = nullptr;
  std::vector<Type> results;  // parallel to item->kernelResults
  struct Write {
    std::string builtin;  // `store`, `atomic_add`, ...
    Span span;
  };
  std::vector<std::optional<Write>> writes;  // the first write of each result
  size_t gridAxes = 0;                       // 0: no valid grid
  Span gridSpan;
};

namespace {

constexpr size_t kNoResult = static_cast<size_t>(-1);

bool isCompileTime(const Type& t) {
  return t.kind() == TypeKind::CompileInt || t.kind() == TypeKind::IntLiteral;
}

// The type of each named result of `f`, from its signature's result.
std::vector<Type> resultTypes(const ast::FunctionItem& f, const Signature& sig) {
  size_t n = f.kernelResults.size();
  if (n == 1) return {sig.result};
  if (sig.result.kind() == TypeKind::Tuple && sig.result.elements().size() == n)
    return sig.result.elements();
  return std::vector<Type>(n, Type::error());
}

// The dtypes an atomic writes (spec §7.9).
bool atomicWrites(std::string_view builtin, const DType& d) {
  if (d.isGeneric()) return false;
  switch (d.scalar) {
    case ast::ScalarType::F32:
    case ast::ScalarType::I32:
    case ast::ScalarType::U32:
    case ast::ScalarType::I64:
    case ast::ScalarType::U64:
      return true;
    case ast::ScalarType::F16:
      return builtin == "atomic_add";
    case ast::ScalarType::Bool:
    case ast::ScalarType::I8:
    case ast::ScalarType::I16:
    case ast::ScalarType::U8:
    case ast::ScalarType::U16:
    case ast::ScalarType::BF16:
    case ast::ScalarType::F64:
      return false;
  }
  return false;
}

// The arguments of a kernel builtin bound to its parameters, positionally
// and then by name; nullopt when malformed (E2102, reported).
std::optional<std::vector<const ast::Expr*>> bindBuiltinArguments(
    DiagnosticEmitter& diagnostics, const ast::CallExpr* call, const std::string& builtin,
    std::initializer_list<std::string_view> params, size_t required) {
  std::vector<std::string_view> names(params);
  std::vector<const ast::Expr*> bound(names.size(), nullptr);
  size_t positional = 0;
  for (const ast::Argument& a : call->args) {
    if (!a.isNamed()) {
      if (positional >= names.size()) {
        diagnostics.emit(DiagnosticKind::TooManyArguments, a.span, builtin, names.size(),
                         call->args.size())
            .label("unexpected argument");
        return std::nullopt;
      }
      bound[positional++] = a.value;
      continue;
    }
    size_t i = 0;
    while (i < names.size() && names[i] != a.name.name) ++i;
    if (i == names.size()) {
      std::string named;
      for (size_t j = 1; j < names.size(); ++j) {
        std::string_view separator = j == 1 ? "" : j + 1 == names.size() ? " and " : ", ";
        named += fmt::format("{}`{}`", separator, names[j]);
      }
      diagnostics.emit(DiagnosticKind::UnknownNamedArgument, a.name.span, builtin, a.name.name)
          .label("no parameter of this name")
          .help(fmt::format("`{}` takes {} by name", builtin, named));
      return std::nullopt;
    }
    if (bound[i]) {
      diagnostics.emit(DiagnosticKind::DuplicateArgument, a.span, a.name.name)
          .label("given again here")
          .secondary(bound[i]->span, "first given here");
      return std::nullopt;
    }
    bound[i] = a.value;
  }
  for (size_t i = 0; i < required; ++i) {
    if (bound[i]) continue;
    diagnostics.emit(DiagnosticKind::MissingArgument, call->span, builtin, names[i])
        .label(fmt::format("argument `{}` is missing", names[i]));
    return std::nullopt;
  }
  return bound;
}

bool noGenericArguments(DiagnosticEmitter& diagnostics, const ast::CallExpr* call,
                        const std::string& builtin) {
  if (!call->hasGenericArgs) return true;
  diagnostics.emit(DiagnosticKind::WrongGenericCount, call->genericArgs.front().span, builtin, 0,
                   call->genericArgs.size())
      .label(fmt::format("`{}` takes no generic arguments", builtin));
  return false;
}

}  // namespace

// ------------------------------------------------------------ the item ----

Type Checker::kernelResultType(const ast::FunctionItem& f, const Module& m,
                               const shape::Facts& facts) {
  if (f.kernelResults.empty()) return Type::unit();
  std::vector<Type> types;
  for (const ast::KernelResult& r : f.kernelResults)
    types.push_back(resolveType(m, r.type, &facts));
  if (types.size() == 1) return types.front();
  return Type::tuple(std::move(types));
}

void Checker::checkKernel(const ast::FunctionItem& f) {
  if (const ast::BlockItem* owner = ownerOf(f)) {
    diagnostics_.emit(DiagnosticKind::KernelInBlock, f.name.span, f.name.name)
        .label(fmt::format("declared inside block `{}`", owner->name.name))
        .secondary(owner->name.span, "the block is declared here")
        .help("move the kernel out of the block: a kernel reads only its parameters");
    return;
  }
  for (const ast::GenericParam& g : f.generics) {
    if (!g.isPack) continue;
    diagnostics_.emit(DiagnosticKind::KernelShapePack, g.span.valid() ? g.span : g.name.span,
                      f.name.name)
        .label(fmt::format("`*{}` is a shape pack", g.name.name))
        .help("every tensor of a kernel has a known rank: give each axis its own `Dim` generic");
    return;  // its types have no known rank: the body is not checked
  }
  const Signature* sig = signature(f);
  const Module* m = moduleOf(f);
  if (!sig || !m) return;
  auto checked = std::make_unique<CheckedFunction>();
  checked->signature = sig;
  FunctionScope scope;
  scope.module = m;
  scope.signature = sig;
  scope.out = checked.get();
  FunctionScope* savedScope = scope_;
  scope_ = &scope;

  KernelState state;
  state.item = &f;
  state.results = resultTypes(f, *sig);
  state.writes.resize(f.kernelResults.size());

  // Parameters are tensors in memory or scalars; results are tensors.
  for (size_t i = 0; i < f.params.size(); ++i) {
    const Type& t = sig->params[i];
    if (t.isError() || t.isTensor()) continue;
    const ast::Param& p = f.params[i];
    diagnostics_.emit(DiagnosticKind::KernelParamType, p.type ? p.type->span : p.span,
                      p.name.name, str(t))
        .label(fmt::format("this is `{}`", str(t)))
        .help("a kernel reads tensors from memory with `load` and takes scalars by value");
  }
  if (f.kernelResults.empty()) {
    diagnostics_.emit(DiagnosticKind::KernelNoResults, f.name.span, f.name.name)
        .label("a kernel with nothing to write")
        .help("name what it writes after its parameters: `-> y: Tensor[N; f32]`");
  }
  for (size_t i = 0; i < f.kernelResults.size(); ++i) {
    const Type& t = state.results[i];
    if (t.isError() || t.isTensor()) continue;
    const ast::KernelResult& r = f.kernelResults[i];
    diagnostics_.emit(DiagnosticKind::KernelResultType, r.type ? r.type->span : r.span,
                      r.name.name, str(t))
        .label(fmt::format("this is `{}`", str(t)))
        .help("a kernel writes tensors in memory with `store` or an atomic");
  }
  // Defaults, typed like any function's.
  for (size_t i = 0; i < f.params.size(); ++i) {
    const ast::Param& p = f.params[i];
    if (!p.defaultValue) continue;
    Type t = checkExpr(p.defaultValue, &sig->params[i]);
    requireType(t, sig->params[i], p.defaultValue->span, p.type ? p.type->span : p.span,
                "parameter type declared here", p.defaultValue);
  }

  KernelState* savedKernel = kernel_;
  kernel_ = &state;
  // Launch settings: one grid of one to three compile-time sizes; `warps`
  // (a power of two) and `stages`, integer literals; each at most once.
  const ast::KernelSetting* seen[3] = {nullptr, nullptr, nullptr};  // grid, warps, stages
  for (const ast::KernelSetting& s : f.kernelSettings) {
    const std::string& name = s.name.name;
    size_t slot = name == "grid" ? 0 : name == "warps" ? 1 : 2;
    if (seen[slot]) {
      diagnostics_.emit(DiagnosticKind::KernelSettingRepeated, s.name.span, name)
          .label("given again here")
          .secondary(seen[slot]->name.span, "first given here");
      continue;
    }
    seen[slot] = &s;
    if (slot == 0) {
      if (s.values.empty() || s.values.size() > 3) {
        diagnostics_.emit(DiagnosticKind::KernelGridSize, s.span, s.values.size())
            .label("a grid has one, two or three axes")
            .help("give the number of programs along each axis: `grid(M, N)`");
        continue;
      }
      state.gridAxes = s.values.size();
      state.gridSpan = s.span;
      for (const ast::Expr* v : s.values) {
        Type t = checkExpr(v);
        if (t.isError() || isCompileTime(t)) continue;
        diagnostics_.emit(DiagnosticKind::NotCompileTime, v->span, str(t))
            .label("the size of a grid axis must be a compile-time integer")
            .help("the grid is fixed when the kernel is compiled: write it with the kernel's "
                  "generics and literals");
      }
      continue;
    }
    auto* literal = s.values.size() == 1 ? ast::as<ast::IntLiteralExpr>(s.values[0]) : nullptr;
    if (!literal) {
      diagnostics_.emit(DiagnosticKind::KernelSettingNotLiteral,
                        s.values.size() == 1 ? s.values[0]->span : s.span, name)
          .label("a launch hint is a number")
          .help(fmt::format("write it as an integer literal: `{}({})`", name, slot == 1 ? 4 : 2));
      continue;
    }
    auto value = static_cast<int64_t>(literal->value);
    record(literal, Type::intLiteral(value));
    if (slot == 1 && (value <= 0 || (value & (value - 1)) != 0)) {
      diagnostics_.emit(DiagnosticKind::KernelWarps, literal->span, value)
          .label("the warps a program runs on are a power of two")
          .help("use a power of two: 1, 2, 4, 8, ...");
    }
  }
  if (!seen[0]) {
    diagnostics_.emit(DiagnosticKind::KernelNoGrid, f.name.span, f.name.name)
        .label("no launch grid")
        .help("give the number of programs along each axis after the results: `grid(N)`");
  }

  checkStmts(f.body);
  kernel_ = savedKernel;
  if (f.grad) checkGrad(f, *sig);  // only an op has one (E2125)
  scope_ = savedScope;
  out_.functions_[&f] = std::move(checked);
}

// ------------------------------------------------------- the binding ----

void Checker::checkKernelBinding(const ast::FunctionItem& op, const Signature& sig) {
  const ast::KernelBinding& b = *op.kernelBinding;
  if (op.function != ast::FunctionKind::Op) {
    std::string_view kind = ast::functionKindKeyword(op.function);
    diagnostics_.emit(DiagnosticKind::KernelBindingOnNonOp, b.span, op.name.name, kind)
        .label("a kernel binding here")
        .secondary(op.keywordSpan, fmt::format("`{}` is declared with `{}`", op.name.name, kind))
        .help(fmt::format("declare it `op {}` to run it with a kernel, or remove the binding",
                          op.name.name));
    return;
  }
  const Symbol* s = module().symbolOf(b.kernel);
  if (!s || s->kind == SymbolKind::Unresolved) return;
  auto* k = s->kind == SymbolKind::Item ? ast::as<ast::FunctionItem>(s->item) : nullptr;
  if (!k || k->function != ast::FunctionKind::Kernel) {
    auto d = diagnostics_.emit(DiagnosticKind::KernelBindingNotKernel, b.kernel.span, b.kernel.name,
                               modules::describeSymbol(*s));
    d.label("an op binds a `kernel`");
    if (s->declSpan.valid()) d.secondary(s->declSpan, "declared here");
    return;
  }
  if (ownerOf(*k)) return;  // reported at the kernel (E2127)
  for (const ast::GenericParam& g : k->generics)
    if (g.isPack) return;  // reported at the kernel (E2127)
  const Signature* ks = signature(*k);
  const Module* km = moduleOf(*k);
  if (!ks || !km) return;
  const std::string& kname = k->name.name;

  // ---- the kernel's generics: written, inferred from the op's signature, defaulted ----
  Inference inf;
  for (const ast::GenericParam& g : k->generics) {
    if (g.constraint == ast::GenericKind::Dim) inf.openShapes[symbolIdOf(g)] = &g;
    else inf.openDTypes.insert(&g);
  }
  if (b.genericArgs.size() > k->generics.size()) {
    diagnostics_.emit(DiagnosticKind::WrongGenericCount, b.genericArgs[k->generics.size()].span,
                      kname, k->generics.size(), b.genericArgs.size())
        .label("unexpected generic argument")
        .secondary(k->name.span, fmt::format("`{}` is declared here", kname));
    return;
  }
  auto bind = [&](const ast::GenericParam& g, const GenericValue& v, Span at) {
    shape::SymbolId id = symbolIdOf(g);
    if (auto* d = std::get_if<shape::DimExpr>(&v))
      inf.subst.shapes.dims[id] = shape::instantiate(*d, inf.subst.shapes);
    if (auto* t = std::get_if<DType>(&v)) inf.subst.dtypes[&g] = *t;
    inf.boundAt[&g] = at;
  };
  for (size_t i = 0; i < b.genericArgs.size(); ++i) {
    GenericValue v = genericValue(module(), b.genericArgs[i], k->generics[i]);
    if (std::holds_alternative<std::monostate>(v)) return;  // reported, or not checked yet
    bind(k->generics[i], v, b.genericArgs[i].span);
  }
  if (ks->params.size() == sig.params.size())
    for (size_t i = 0; i < sig.params.size(); ++i)
      unify(ks->params[i], sig.params[i], inf, op.params[i].span);
  if (!k->kernelResults.empty())
    unify(ks->result, sig.result, inf, op.returnType ? op.returnType->span : op.name.span);
  for (const ast::GenericParam& g : k->generics) bindGenericDefault(*km, g, inf, b.span);
  for (const ast::GenericParam& g : k->generics) {
    if (!inf.isOpenUnbound(&g)) continue;
    if (defaultReported(g)) return;  // E2112 at the declaration
    diagnostics_.emit(DiagnosticKind::CannotInfer, b.kernel.span, g.name.name, kname)
        .label(fmt::format("cannot infer `{}`", g.name.name))
        .secondary(g.name.span, "generic declared here")
        .help(fmt::format("write the generic arguments: `kernel {}<...>`", kname));
    return;
  }
  if (!inferredDTypesSatisfyBounds(k->generics, inf, b.span)) return;

  // ---- the op's parameters, in order and of the same types ----
  if (ks->params.size() != sig.params.size()) {
    diagnostics_.emit(DiagnosticKind::KernelParamCount, b.span, kname, op.name.name,
                      ks->params.size(), sig.params.size())
        .label(fmt::format("`{}` cannot take the parameters of `{}`", kname, op.name.name))
        .secondary(k->name.span, "kernel declared here")
        .help("a kernel takes the op's parameters, in order and of the same types");
    return;
  }
  for (size_t i = 0; i < sig.params.size(); ++i) {
    const Type& declared = ks->params[i];
    const Type& expected = sig.params[i];
    // A kernel parameter that is not a tensor was reported at the kernel.
    if (!declared.isTensor() || containsError(declared) || containsError(expected)) continue;
    Type actual = instantiate(declared, inf.subst);
    if (sameType(actual, expected)) continue;
    const ast::Param& p = op.params[i];
    diagnostics_.emit(DiagnosticKind::KernelParamMismatch, b.span, kname, str(actual),
                      op.name.name, str(expected))
        .label(fmt::format("parameter {} of `{}` is `{}`", i + 1, kname, str(actual)))
        .secondary(p.type ? p.type->span : p.span,
                   fmt::format("parameter {} of `{}` is `{}`", i + 1, op.name.name, str(expected)))
        .help("a kernel takes the op's parameters, in order and of the same types: change the "
              "generic arguments or the kernel's parameters");
    return;
  }

  // ---- what the op returns ----
  if (k->kernelResults.empty()) return;  // reported at the kernel
  for (const Type& r : resultTypes(*k, *ks))
    if (!r.isTensor() || containsError(r)) return;  // reported, or not typed
  if (containsError(sig.result)) return;
  Type written = instantiate(ks->result, inf.subst);
  if (sameType(written, sig.result) && written.kind() == sig.result.kind()) return;
  diagnostics_.emit(DiagnosticKind::KernelResultMismatch, b.span, kname, str(written), op.name.name,
                    str(sig.result))
      .label(fmt::format("`{}` writes `{}`", kname, str(written)))
      .secondary(op.returnType ? op.returnType->span : op.name.span,
                 fmt::format("`{}` returns `{}`", op.name.name, str(sig.result)))
      .help("a kernel writes what the op returns: one result for one value, one result per "
            "element, in order, for a tuple");
}

Type Checker::kernelUsedAsValue(const ast::FunctionItem& kernel, Span use) {
  diagnostics_.emit(DiagnosticKind::KernelCalled, use, kernel.name.name)
      .label("a kernel runs only in place of an op that binds it")
      .secondary(kernel.name.span, "kernel declared here")
      .help(fmt::format("call an op that binds it: `op f(...) -> T kernel {}<...> {{ ... }}`",
                        kernel.name.name));
  return Type::error();
}

// ---------------------------------------------------------- the body ----

std::optional<Type> Checker::kernelMemoryName(const ast::NameExpr* e, const Symbol& s) {
  if (!kernel_) return std::nullopt;
  const std::string& name = e->name.name;
  if (s.kind == SymbolKind::Param) {
    const Signature* sig = scope_->signature;
    const Type* t = nullptr;
    for (size_t i = 0; sig && i < sig->item->params.size(); ++i)
      if (&sig->item->params[i] == s.param) t = &sig->params[i];
    if (!t || t->isScalar()) return std::nullopt;  // a scalar is a value
    if (!t->isTensor()) return Type::error();      // reported at the parameter
    diagnostics_.emit(DiagnosticKind::KernelMemoryRead, e->span, name)
        .label(fmt::format("`{}` is a tensor in memory, not a tile", name))
        .help(fmt::format("read a tile of it: `load({}[i, ...])`", name));
    return Type::error();
  }
  if (s.kind == SymbolKind::KernelResult) {
    diagnostics_.emit(DiagnosticKind::KernelMemoryWrite, e->span, name)
        .label(fmt::format("`{}` is a tensor in memory, not a tile", name))
        .help(fmt::format("write a tile of it: `store({}[i, ...], value)`", name));
    return Type::error();
  }
  return std::nullopt;
}

void Checker::reportKernelReturn(const ast::Stmt* s) {
  const ast::FunctionItem& k = *kernel_->item;
  Span keyword{s->span.file, s->span.begin, s->span.begin + 6};
  diagnostics_.emit(DiagnosticKind::KernelReturn, keyword)
      .label(fmt::format("`return` in kernel `{}`", k.name.name))
      .help(k.kernelResults.empty()
                ? "a kernel writes named results: `-> y: Tensor[...]`, then `store(y[i, ...], v)`"
                : fmt::format("write the value into a result: `store({}[i, ...], value)`",
                              k.kernelResults.front().name.name));
}

std::optional<Type> Checker::checkKernelBuiltin(const ast::CallExpr* call) {
  if (!kernel_) return std::nullopt;
  auto* callee = ast::as<ast::NameExpr>(call->callee);
  const Symbol* s = callee ? module().symbolOf(callee->name) : nullptr;
  if (!s || s->kind != SymbolKind::KernelBuiltin) return std::nullopt;
  recordNonValue(callee);  // a builtin is not a value
  const std::string& name = callee->name.name;
  Type i32 = Type::scalar(DType::of(ast::ScalarType::I32));

  if (name == "program_id") {
    if (!noGenericArguments(diagnostics_, call, name)) return i32;
    if (call->args.size() != 1 || call->args[0].isNamed()) {
      diagnostics_.emit(DiagnosticKind::PreludeArity, call->span, name, 1, call->args.size())
          .label("`program_id` takes the grid axis");
      return i32;
    }
    const ast::Expr* axis = call->args[0].value;
    Type t = checkExpr(axis);
    if (t.isError()) return i32;
    if (!isCompileTime(t)) {
      diagnostics_.emit(DiagnosticKind::NotCompileTime, axis->span, str(t))
          .label("the axis of `program_id` must be a compile-time integer")
          .help("write the grid axis: `program_id(0)`");
      return i32;
    }
    auto value = constantArg(axis);
    if (!value) return i32;  // a generic: not known here
    size_t axes = kernel_->gridAxes ? kernel_->gridAxes : 3;
    if (*value < 0 || *value >= static_cast<int64_t>(axes)) {
      auto d = diagnostics_.emit(DiagnosticKind::InvalidAxis, axis->span, *value, "program_id");
      if (kernel_->gridAxes) {
        d.label(fmt::format("the grid of `{}` has {} ax{}", kernel_->item->name.name, axes,
                            axes == 1 ? "is" : "es"))
            .secondary(kernel_->gridSpan, "grid declared here");
      } else {
        d.label("a grid has axes 0, 1 and 2");
      }
    }
    return i32;
  }

  if (name == "load") {
    if (!noGenericArguments(diagnostics_, call, name)) return Type::error();
    auto args = bindBuiltinArguments(diagnostics_, call, name, {"source", "mask", "other"}, 1);
    if (!args) return Type::error();
    const ast::Expr* target = (*args)[0];
    Type tile = kernelTile(target, name, false, nullptr);
    if ((*args)[1]) kernelMask((*args)[1], tile, target);
    if ((*args)[2]) kernelValue((*args)[2], tile, target);
    return tile;
  }

  // `store` and the atomics stand only as statements.
  diagnostics_.emit(DiagnosticKind::KernelWriteAsValue, call->callee->span, name)
      .label("it writes memory and has no value")
      .help(fmt::format("write it as a statement of its own: `{}(y[i, ...], value)`", name));
  return Type::error();
}

void Checker::checkKernelWrite(const ast::KernelCallStmt* s) {
  const ast::CallExpr* call = s->call;
  auto* callee = ast::as<ast::NameExpr>(call->callee);
  if (!kernel_ || !callee) return;
  const Symbol* symbol = module().symbolOf(callee->name);
  if (!symbol || symbol->kind != SymbolKind::KernelBuiltin) return;  // reported by the resolver
  recordNonValue(callee);
  record(call, Type::unit());
  const std::string& name = callee->name.name;
  if (!noGenericArguments(diagnostics_, call, name)) return;
  auto args = bindBuiltinArguments(diagnostics_, call, name, {"target", "value", "mask"}, 2);
  if (!args) return;
  const ast::Expr* target = (*args)[0];
  size_t result = kNoResult;
  Type tile = kernelTile(target, name, true, &result);
  kernelValue((*args)[1], tile, target);
  if ((*args)[2]) kernelMask((*args)[2], tile, target);
  if (result == kNoResult) return;

  const ast::KernelResult& r = kernel_->item->kernelResults[result];
  const Type& memory = kernel_->results[result];
  if (name != "store" && memory.isTensor() && !atomicWrites(name, memory.dtype())) {
    std::string dtype = memory.dtype().str();
    diagnostics_.emit(DiagnosticKind::KernelAtomicDType, callee->span, name, dtype)
        .label(fmt::format("`{}` holds `{}`", r.name.name, dtype))
        .secondary(r.type ? r.type->span : r.span, "result declared here")
        .help(name == "atomic_add" ? "`atomic_add` writes f16, f32, i32, u32, i64 or u64"
                                   : fmt::format("`{}` writes f32, i32, u32, i64 or u64", name));
  }
  std::optional<KernelState::Write>& first = kernel_->writes[result];
  if (!first) {
    first = KernelState::Write{name, callee->span};
  } else if (first->builtin != name) {
    diagnostics_.emit(DiagnosticKind::KernelMixedWrites, callee->span, r.name.name, first->builtin,
                      name)
        .label(fmt::format("`{}` is written with `{}` here", r.name.name, name))
        .secondary(first->span, fmt::format("first written with `{}` here", first->builtin))
        .help(fmt::format("a result takes one kind of write: write `{}` only with `store`, or "
                          "only with one atomic",
                          r.name.name));
  }
}

Type Checker::kernelTile(const ast::Expr* target, const std::string& builtin, bool write,
                         size_t* result) {
  auto* index = ast::as<ast::IndexExpr>(target);
  auto* name = ast::as<ast::NameExpr>(index ? index->base : target);
  const Symbol* s = name ? module().symbolOf(name->name) : nullptr;
  if (s && s->kind == SymbolKind::Unresolved) return Type::error();
  Type memory;
  bool fits = false;
  if (s && !write && s->kind == SymbolKind::Param) {
    const Signature* sig = scope_->signature;
    for (size_t i = 0; i < sig->item->params.size(); ++i)
      if (&sig->item->params[i] == s->param) memory = sig->params[i];
    if (!memory.isTensor()) return Type::error();  // reported at the parameter, or unknown
    fits = !memory.isScalar();
  }
  if (s && write && s->kind == SymbolKind::KernelResult) {
    const auto& results = kernel_->item->kernelResults;
    for (size_t i = 0; i < results.size(); ++i)
      if (results[i].name.span.begin == s->declSpan.begin) {
        memory = kernel_->results[i];
        if (result) *result = i;
      }
    if (!memory.isTensor()) return Type::error();  // reported at the result, or unknown
    fits = true;
  }
  if (!fits) {
    std::string label;
    if (s && s->kind == SymbolKind::Param && write)
      label = fmt::format("`{}` is a parameter: the kernel only reads it", name->name.name);
    else if (s && s->kind == SymbolKind::Param)
      label = fmt::format("`{}` is a scalar: use its value directly", name->name.name);
    else if (s && s->kind == SymbolKind::KernelResult)
      label = fmt::format("`{}` is a result: the kernel only writes it", name->name.name);
    else
      label = write ? "not a result of the kernel" : "not a tensor parameter of the kernel";
    if (write)
      diagnostics_.emit(DiagnosticKind::KernelWriteTarget, target->span, builtin)
          .label(label)
          .help(fmt::format("write a tile of a result: `{}(y[i, ...], value)`", builtin));
    else
      diagnostics_.emit(DiagnosticKind::KernelLoadTarget, target->span)
          .label(label)
          .help("read a tile of a tensor parameter: `load(x[i, ...])`");
    return Type::error();
  }
  record(name, memory);
  size_t rank = memory.shape().size();
  size_t given = index ? index->components.size() : 0;
  if (index)
    for (const ast::IndexComponent& c : index->components) {
      if (c.kind == ast::IndexComponentKind::Expr) continue;
      diagnostics_.emit(DiagnosticKind::KernelIndexForm, c.span, builtin)
          .label(c.kind == ast::IndexComponentKind::Slice ? "a slice" : "not an index")
          .help("tiles cannot be sliced: index each axis with an integer or an integer tile, "
                "such as `i * B + iota<i32>(B)`");
      return record(target, Type::error());
    }
  if (given != rank) {
    diagnostics_.emit(DiagnosticKind::RankMismatch, target->span, str(memory), rank, given)
        .label(fmt::format("{} ind{} for {} ax{}", given, given == 1 ? "ex" : "ices", rank,
                           rank == 1 ? "is" : "es"))
        .help("index every axis with an integer or an integer tile");
    return index ? record(target, Type::error()) : Type::error();
  }
  shape::Shape tile;
  bool known = true;
  for (size_t i = 0; i < given; ++i) {
    const ast::Expr* v = index->components[i].value;
    Type t = checkExpr(v);
    if (t.isError()) {
      known = false;
      continue;
    }
    if (isCompileTime(t)) continue;
    if (t.isTensor() && isInteger(t.dtype()) && !t.hasPack()) {
      tile.insert(tile.end(), t.shape().begin(), t.shape().end());
      continue;
    }
    diagnostics_.emit(DiagnosticKind::KernelIndexType, v->span, builtin, str(t))
        .label(fmt::format("this is `{}`", str(t)))
        .help("index with an integer, an integer tile such as `iota<i32>(B)`, or arithmetic on "
              "them");
    known = false;
  }
  Type type = known ? Type::tensor(std::move(tile), memory.dtype()) : Type::error();
  return index ? record(target, type) : type;
}

void Checker::kernelMask(const ast::Expr* mask, const Type& tile, const ast::Expr* target) {
  Type m = checkExpr(mask);
  if (m.isError() || tile.isError()) return;
  if (!m.isTensor() || !isBool(m.dtype())) {
    diagnostics_.emit(DiagnosticKind::ConditionNotBool, mask->span, str(m))
        .label(fmt::format("this is `{}`", str(m)))
        .help("a mask is a `bool` scalar or a `bool` tile of the indexed shape; compare to get "
              "one");
    return;
  }
  if (m.isScalar() || sameShape(m.shape(), tile.shape())) return;
  Type expected = Type::tensor(tile.shape(), DType::of(ast::ScalarType::Bool));
  diagnostics_.emit(DiagnosticKind::ShapeMismatch, mask->span, str(expected), str(m))
      .label(fmt::format("this is `{}`", str(m)))
      .secondary(target->span, fmt::format("the indexed tile is `{}`", str(tile)))
      .help("a mask has the shape of the indexed tile, or is a scalar");
}

void Checker::kernelValue(const ast::Expr* value, const Type& tile, const ast::Expr* target) {
  Type v = checkExpr(value, tile.isError() ? nullptr : &tile);
  if (v.isError() || tile.isError()) return;
  if (v.isUntypedNumber()) {
    literalFits(v, tile.dtype(), value, value->span);
    return;
  }
  if (v.isScalar()) {
    if (v.dtype() == tile.dtype()) return;
    diagnostics_.emit(DiagnosticKind::TypeMismatch, value->span, tile.dtype().str(), str(v))
        .label(fmt::format("this has dtype `{}`", v.dtype().str()))
        .secondary(target->span, fmt::format("the indexed tile is `{}`", str(tile)));
    return;
  }
  requireType(v, tile, value->span, target->span,
              fmt::format("the indexed tile is `{}`", str(tile)), value);
}

}  // namespace linnet::check
