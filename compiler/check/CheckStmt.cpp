// Function bodies and statements (spec §5.2, §7, §8): `let` (annotations,
// tuple patterns), `var`, assignment (only to `var` locals and the block's
// own `state`, with the type fixed: E2108, E2109), `return` (type, and not
// inside loops: E2120; a body with a result type must end in one),
// `static for` over block arrays and compile-time ranges (E2121), `while`
// (E2114), counted `for` loops, and scans: `for` as the whole value of
// `let`/`var`/assignment/`return`, whose body ends in `yield` (E2124 for a
// misplaced `yield` or a scan without one; E2206 for a range not provably
// in order).
#include <fmt/format.h>

#include <algorithm>

#include "compiler/check/CheckerImpl.h"

namespace linnet::check {

void Checker::bindPattern(const ast::Pattern* p, const Type& t, bool isVar) {
  if (!p) return;
  switch (p->kind) {
    case ast::PatternKind::Binding:
      scope_->locals[keyOf(p->name.span)] = LocalInfo{t, isVar, p->name.span};
      return;
    case ast::PatternKind::Tuple: {
      bool fits = t.kind() == TypeKind::Tuple && t.elements().size() == p->elements.size();
      if (!fits && !t.isError()) {
        size_t n = p->elements.size();
        auto d = diagnostics_.emit(DiagnosticKind::InvalidPattern, p->span,
                                   fmt::format("{} element{}", n, n == 1 ? "" : "s"), str(t));
        d.label(fmt::format("this pattern cannot match `{}`", str(t)));
        // Patterns have no grouping parentheses (the grammar's only
        // parenthesized pattern is a tuple's), unlike expressions.
        if (n == 1 && p->elements[0]->kind == ast::PatternKind::Binding)
          d.help(fmt::format("`({0})` is a tuple of one element, as `({0},)` is; to bind the whole value, drop the "
                             "parentheses: `{0}`",
                             p->elements[0]->name.name));
      }
      for (size_t i = 0; i < p->elements.size(); ++i)
        bindPattern(p->elements[i], fits ? t.elements()[i] : Type::error(), isVar);
      return;
    }
    case ast::PatternKind::Some:
    case ast::PatternKind::None:
      // Refutable patterns outside `match` (`let some(v) = x`): no value is
      // bound when they fail (E2117; `match` covers both cases).
      if (!t.isError()) {
        auto d = diagnostics_.emit(DiagnosticKind::RefutablePattern, p->span,
                                   p->kind == ast::PatternKind::Some ? "some(...)" : "none", str(t));
        if (t.kind() != TypeKind::Optional)
          d.label(fmt::format("`{}` is not optional", str(t)));
        else
          d.label(p->kind == ast::PatternKind::Some ? "`none` does not match this" : "`some(...)` does not match this")
              .help("use `match` to handle both `some` and `none`");
      }
      if (p->inner) bindPattern(p->inner, Type::error(), isVar);
      return;
  }
}

static bool endsInReturn(const std::vector<ast::Stmt*>& body) {
  return !body.empty() && body.back()->kind == ast::StmtKind::Return;
}

void Checker::checkFunction(const ast::FunctionItem& f) {
  if (f.function == ast::FunctionKind::Kernel) return checkKernel(f);  // CheckKernel.cpp
  const Signature* sig = signature(f);
  const Module* m = moduleOf(f);
  if (!sig || !m) return;
  if (f.function == ast::FunctionKind::Entry) {
    // Each value an entry takes or returns is a parameter of its native
    // function, and LLVM's time grows with their square (6000 f32
    // arguments: 36 s and 2 GB to build, 12000 ran out of memory).
    bool tooLarge = false;
    size_t values = f.returnType ? expandedLeaves(*m, f.returnType, tooLarge) : 0;
    for (const ast::Param& p : f.params)
      values = std::min(values + expandedLeaves(*m, p.type, tooLarge), kMaxTypeParts + 1);
    if (values > kMaxTypeParts && !tooLarge)
      diagnostics_.emit(DiagnosticKind::EntryTooLarge, f.name.span, f.name.name, kMaxTypeParts)
          .label("each value of an argument or of the result is a parameter of the entry's native code")
          .help("pass values of one kind together as a tensor");
  }
  auto checked = std::make_unique<CheckedFunction>();
  checked->signature = sig;
  FunctionScope scope;
  scope.module = m;
  scope.signature = sig;
  scope.out = checked.get();
  FunctionScope* saved = scope_;
  scope_ = &scope;
  // Defaults must have their parameter's type.
  for (size_t i = 0; i < f.params.size(); ++i) {
    const ast::Param& p = f.params[i];
    if (!p.defaultValue) continue;
    Type t = checkExpr(p.defaultValue, &sig->params[i]);
    requireType(t, sig->params[i], p.defaultValue->span, p.type ? p.type->span : p.span,
                "parameter type declared here", p.defaultValue);
  }
  if (f.kernelBinding) checkKernelBinding(f, *sig);  // E2126 (CheckKernel.cpp)
  checkStmts(f.body);
  if (sig->result.kind() != TypeKind::Unit && !endsInReturn(f.body) &&
      f.function != ast::FunctionKind::Kernel) {
    Span closing = f.bodySpan.valid() ? Span{f.bodySpan.file, f.bodySpan.end - 1, f.bodySpan.end}
                                      : f.name.span;
    diagnostics_.emit(DiagnosticKind::MissingReturn, closing, f.name.name)
        .label("the body ends here without a `return`")
        .secondary(f.returnType ? f.returnType->span : f.name.span,
                   fmt::format("`{}` returns `{}`", f.name.name, str(sig->result)))
        .help("Linnet never returns the last expression implicitly; write `return ...`");
  }
  if (f.grad) checkGrad(f, *sig);
  scope_ = saved;
  out_.functions_[&f] = std::move(checked);
}

Type Checker::checkValue(const ast::Expr* e, const Type* expected) {
  if (auto* scan = ast::as<ast::ForScanExpr>(e)) return record(e, checkScan(scan, expected));
  Type t = checkExpr(e, expected);
  // A block is a namespace of parameters, state and methods, not a value
  // (spec 7.4): it is not bound, assigned or returned.
  if (containsBlock(t)) {
    reportBlockValue(e->span, t);
    return Type::error();
  }
  return t;
}

void Checker::reportBlockValue(Span at, const Type& t) {
  diagnostics_.emit(DiagnosticKind::BlockNotValue, at)
      .label(fmt::format("this is `{}`", str(t)))
      .help("use a block through its sub: call its methods (`norm.forward(x)`), read its state by path, "
            "and loop over a block array with `static for`");
}

// The element type a stacked value of type `t` expects: `t` without its
// leading axis (tuples element-wise); nullopt when there is none.
static std::optional<Type> unstacked(const Type& t) {
  if (t.kind() == TypeKind::Tensor && !t.shape().empty() &&
      std::holds_alternative<shape::DimExpr>(t.shape().front())) {
    shape::Shape rest(t.shape().begin() + 1, t.shape().end());
    return Type::tensor(std::move(rest), t.dtype());
  }
  if (t.kind() == TypeKind::Tuple) {
    std::vector<Type> elements;
    for (const Type& e : t.elements()) {
      auto u = unstacked(e);
      if (!u) return std::nullopt;
      elements.push_back(*u);
    }
    return Type::tuple(std::move(elements));
  }
  return std::nullopt;
}

Type Checker::stackYield(const Type& element, const Type* expected, const shape::DimExpr& length,
                         const ast::Expr* value) {
  switch (element.kind()) {
    case TypeKind::IntLiteral:
    case TypeKind::FloatLiteral:
    case TypeKind::CompileInt: {
      if (expected && expected->kind() == TypeKind::Tensor && expected->isScalar()) {
        if (!literalFits(element, expected->dtype(), value, value->span)) return Type::error();
        return Type::tensor({length}, expected->dtype());
      }
      Type c = element.kind() == TypeKind::CompileInt ? Type::scalar(DType::of(ast::ScalarType::I64))
                                                       : concretize(element);
      return Type::tensor({length}, c.dtype());
    }
    case TypeKind::Tensor: {
      shape::Shape s{length};
      s.insert(s.end(), element.shape().begin(), element.shape().end());
      return Type::tensor(std::move(s), element.dtype());
    }
    case TypeKind::Tuple: {
      auto* tuple = ast::as<ast::TupleExpr>(value);
      std::vector<Type> elements;
      for (size_t i = 0; i < element.elements().size(); ++i) {
        const Type* x = expected && expected->kind() == TypeKind::Tuple &&
                                expected->elements().size() == element.elements().size()
                            ? &expected->elements()[i] : nullptr;
        const ast::Expr* sub =
            tuple && tuple->elements.size() == element.elements().size() ? tuple->elements[i] : value;
        Type t = stackYield(element.elements()[i], x, length, sub);
        if (t.isError()) return Type::error();
        elements.push_back(std::move(t));
      }
      return Type::tuple(std::move(elements));
    }
    default:
      // Optionals, `none`, blocks and other values: stacking them is not
      // specified (E2190 rather than a guess).
      if (!containsError(element))
        diagnostics_.emit(DiagnosticKind::ScanYieldUnsupported, value->span, str(element))
            .label(fmt::format("this is `{}`", str(element)))
            .help("a scan stacks tensors, scalars and numbers, and tuples of them");
      return Type::error();
  }
}

Type Checker::checkScan(const ast::ForScanExpr* scan, const Type* expected) {
  Type a = checkExpr(scan->start);
  Type b = checkExpr(scan->end);
  bool bounds = true;
  for (auto [t, x] : {std::pair{&a, scan->start}, std::pair{&b, scan->end}}) {
    if (t->isCompileTimeInt()) continue;
    bounds = false;
    if (t->isError()) continue;
    diagnostics_.emit(DiagnosticKind::NotCompileTime, x->span, str(*t))
        .label("the bounds of a scan must be compile-time integers")
        .help("the length of a scan is the leading axis of its value, so it must be known statically");
  }
  auto dimOfBound = [](const Type& t) {
    return t.kind() == TypeKind::IntLiteral ? shape::DimExpr::constant(t.intValue())
                                            : t.compileValue();
  };
  std::optional<shape::DimExpr> length;
  if (bounds) {
    shape::DimExpr lo = dimOfBound(a), hi = dimOfBound(b);
    shape::Proof proof = facts().provablyLessEqual(lo, hi);
    if (proof) {
      length = facts().simplify(hi - lo);
    } else {
      Span range{scan->start->span.file, scan->start->span.begin, scan->end->span.end};
      auto d = diagnostics_.emit(DiagnosticKind::ScanRangeReversed, range,
                                 fmt::format("{} <= {}", lo.str(), hi.str()));
      d.label("the scan's length would be negative");
      if (!proof.suggestion.empty() && scope_->signature)
        d.help(fmt::format("add `where {}` to `{}`", proof.suggestion,
                           scope_->signature->item->name.name));
    }
  }
  scope_->locals[keyOf(scan->variable.span)] =
      LocalInfo{Type::scalar(DType::of(ast::ScalarType::I64)), false, scan->variable.span};
  const ast::YieldStmt* yield = scan->body.empty() ? nullptr : ast::as<ast::YieldStmt>(scan->body.back());
  ++scope_->loopDepth;
  for (size_t i = 0; i + (yield ? 1 : 0) < scan->body.size(); ++i) checkStmt(scan->body[i]);
  Type element;
  std::optional<Type> expectedElement = expected ? unstacked(*expected) : std::nullopt;
  if (yield && yield->value)
    element = checkExpr(yield->value, expectedElement ? &*expectedElement : nullptr);
  --scope_->loopDepth;
  if (!yield) {
    Span keyword{scan->span.file, scan->span.begin, scan->span.begin + 3};
    Span closing{scan->span.file, scan->span.end - 1, scan->span.end};
    diagnostics_.emit(DiagnosticKind::ScanWithoutYield, closing)
        .label("the body ends here without a `yield`")
        .secondary(keyword, "this `for` is a scan: its value is what each iteration yields")
        .help("end the body with `yield e`, or write the loop as a statement");
    return Type::error();
  }
  if (!length || element.isError()) return Type::error();
  return stackYield(element, expectedElement ? &*expectedElement : nullptr, *length, yield->value);
}

void Checker::checkStmts(const std::vector<ast::Stmt*>& stmts) {
  for (size_t i = 0; i < stmts.size(); ++i) {
    checkStmt(stmts[i]);
    // W1005: what follows a `return` in the same body never runs (still
    // checked: it must be a valid program).
    if (stmts[i]->kind == ast::StmtKind::Return && i + 1 < stmts.size())
      unreachableStmts_.push_back({stmts[i + 1]->span, stmts[i]->span});
  }
}

// Whether `t` holds a `none` whose optional type nothing gave (`none`,
// `(x, none)`, `some(none)`).
static bool hasUntypedNone(const Type& t) {
  if (t.kind() == TypeKind::None) return true;
  if (t.kind() != TypeKind::Tuple && t.kind() != TypeKind::Optional) return false;
  return std::any_of(t.elements().begin(), t.elements().end(), hasUntypedNone);
}

void Checker::checkStmt(const ast::Stmt* s) {
  switch (s->kind) {
    case ast::StmtKind::Let: {
      auto* let = static_cast<const ast::LetStmt*>(s);
      if (let->type) {
        Type declared = resolveType(module(), let->type, &facts());
        Type t = checkValue(let->value, &declared);
        requireType(t, declared, let->value->span, let->type->span, "type declared here", let->value);
        bindPattern(let->pattern, declared, false);
        return;
      }
      Type t = checkValue(let->value, nullptr);
      if (hasUntypedNone(t)) {
        diagnostics_.emit(DiagnosticKind::NoneNeedsContext, let->value->span)
            .label("the optional type of this `none` is unknown")
            .help(t.kind() == TypeKind::None ? "annotate the binding: `let x: Tensor[...; T]? = none`"
                                             : "annotate the binding: `let (a, b): (f32, Tensor[...; T]?) = ...`");
        t = Type::error();
      }
      bindPattern(let->pattern, concretize(t), false);
      return;
    }
    case ast::StmtKind::LetComprehension:
      checkComprehension(static_cast<const ast::LetComprehensionStmt*>(s));
      return;
    case ast::StmtKind::Var: {
      auto* var = static_cast<const ast::VarStmt*>(s);
      Type declared = var->type ? resolveType(module(), var->type, &facts()) : Type::error();
      Type t = checkValue(var->value, var->type ? &declared : nullptr);
      if (var->type) {
        requireType(t, declared, var->value->span, var->type->span, "type declared here", var->value);
        t = declared;
      } else if (hasUntypedNone(t)) {
        diagnostics_.emit(DiagnosticKind::NoneNeedsContext, var->value->span)
            .label("the optional type of this `none` is unknown")
            .help("annotate the variable: `var x: Tensor[...; T]? = none`");
        t = Type::error();
      } else if (t.kind() == TypeKind::CompileInt) {
        // A `var` changes at run time: it holds an i64, not a dimension.
        t = Type::scalar(DType::of(ast::ScalarType::I64));
      }
      scope_->locals[keyOf(var->name.span)] = LocalInfo{concretize(t), true, var->name.span};
      return;
    }
    case ast::StmtKind::Assign: {
      auto* assign = static_cast<const ast::AssignStmt*>(s);
      const Symbol* target = module().symbolOf(assign->target);
      // A scan's literals take their dtype from the variable's.
      std::optional<Type> known;
      if (target && target->kind == SymbolKind::Local) {
        auto it = scope_->locals.find(keyOf(target->declSpan));
        if (it != scope_->locals.end() && it->second.isVar) known = it->second.type;
      }
      Type value = checkValue(assign->value, known ? &*known : nullptr);
      if (!target) return;
      Type targetType;
      Span declSpan = target->declSpan;
      switch (target->kind) {
        case SymbolKind::Local: {
          auto it = scope_->locals.find(keyOf(target->declSpan));
          if (it == scope_->locals.end()) return;
          if (!it->second.isVar) {
            diagnostics_.emit(DiagnosticKind::AssignImmutable, assign->target.span,
                              assign->target.name, "a `let` binding")
                .label("cannot assign twice")
                .secondary(declSpan, "declared with `let` here")
                .help("declare it with `var` to reassign it");
            return;
          }
          targetType = it->second.type;
          break;
        }
        case SymbolKind::Member: {
          auto* member = ast::as<ast::MemberItem>(target->item);
          if (!member) return;
          if (member->member != ast::MemberKind::State) {
            diagnostics_.emit(DiagnosticKind::AssignImmutable, assign->target.span,
                              assign->target.name,
                              fmt::format("a `{}` member", ast::memberKindKeyword(member->member)))
                .label("cannot be assigned")
                .secondary(declSpan, "declared here")
                .help("only `var` locals and the block's own `state` members can be assigned");
            return;
          }
          const ast::BlockItem* owner = ownerOf(*member);
          const CheckedBlock* b = owner ? block(*owner) : nullptr;
          if (!b) return;
          auto it = b->members.find(member);
          if (it == b->members.end()) return;
          targetType = it->second;
          break;
        }
        case SymbolKind::Param:
          diagnostics_.emit(DiagnosticKind::AssignImmutable, assign->target.span,
                            assign->target.name, "a parameter")
              .label("cannot be assigned")
              .secondary(declSpan, "declared here")
              .help("copy it into a `var` first");
          return;
        case SymbolKind::Item:
        case SymbolKind::Module:
        case SymbolKind::Generic:
        case SymbolKind::IndexVariable:
        case SymbolKind::GradName:
        case SymbolKind::KernelResult:
        case SymbolKind::KernelBuiltin:
        case SymbolKind::EnumVariant:
        case SymbolKind::Prelude:
          diagnostics_.emit(DiagnosticKind::AssignImmutable, assign->target.span,
                            assign->target.name, "not a variable")
              .label("cannot be assigned");
          return;
        case SymbolKind::Unresolved:
          return;
      }
      if (containsError(value) || containsError(targetType)) return;
      if (value.isUntypedNumber() && targetType.isScalar()) {
        literalFits(value, targetType.dtype(), assign->value, assign->value->span);
        return;
      }
      if (value.kind() == TypeKind::None && targetType.kind() == TypeKind::Optional) return;
      if (value.kind() == TypeKind::Optional && targetType.kind() == TypeKind::Optional &&
          sameType(value, targetType))
        return;
      if (value.kind() != targetType.kind() || !sameType(value, targetType)) {
        diagnostics_.emit(DiagnosticKind::AssignChangesType, assign->value->span,
                          assign->target.name, str(targetType), str(value))
            .label(fmt::format("this is `{}`", str(value)))
            .secondary(declSpan, fmt::format("`{}` has type `{}`", assign->target.name, str(targetType)))
            .help("a variable keeps the type it was declared with; `cast` or `reshape` the value");
      }
      return;
    }
    case ast::StmtKind::Return: {
      if (kernel_) return reportKernelReturn(s);  // E2127 (CheckKernel.cpp)
      auto* ret = static_cast<const ast::ReturnStmt*>(s);
      const Signature* sig = scope_->signature;
      const Type& result = scope_->gradResult ? *scope_->gradResult : sig->result;
      Type t = ret->value ? checkValue(ret->value, &result) : Type::unit();
      if (scope_->loopDepth > 0) {
        diagnostics_.emit(DiagnosticKind::ReturnInLoop, s->span)
            .label("`return` inside a loop")
            .help("assign the result to a `var` and return after the loop");
        return;
      }
      Span decl = scope_->gradResult ? scope_->gradResultDecl
                  : sig->item->returnType ? sig->item->returnType->span
                                          : sig->item->name.span;
      std::string_view declLabel =
          scope_->gradResult ? std::string_view(scope_->gradResultLabel) : "return type declared here";
      if (ret->value)
        requireType(t, result, ret->value->span, decl, declLabel, ret->value);
      else if (result.kind() != TypeKind::Unit && !result.isError())
        diagnostics_.emit(DiagnosticKind::TypeMismatch, s->span, str(result), "()")
            .label("`return` without a value")
            .secondary(decl, std::string(declLabel));
      return;
    }
    case ast::StmtKind::StaticFor: {
      auto* loop = static_cast<const ast::StaticForStmt*>(s);
      Type element;
      if (loop->rangeEnd) {
        Type a = checkExpr(loop->iterable);
        Type b = checkExpr(loop->rangeEnd);
        for (auto [t, x] : {std::pair{&a, loop->iterable}, std::pair{&b, loop->rangeEnd}}) {
          if (t->isError() || t->isCompileTimeInt())
            continue;
          diagnostics_.emit(DiagnosticKind::InvalidStaticFor, x->span, str(*t))
              .label("not a compile-time integer")
              .help("use `while` or a runtime `for` for a bound known only at run time");
        }
        element = Type::scalar(DType::of(ast::ScalarType::I64));
      } else {
        Type it = checkExpr(loop->iterable);
        if (it.kind() == TypeKind::BlockArray) {
          element = Type::block(it.blockInstance());
        } else if (!it.isError()) {
          diagnostics_.emit(DiagnosticKind::InvalidStaticFor, loop->iterable->span, str(it))
              .label(fmt::format("this is `{}`", str(it)))
              .help("`static for` iterates over a sub-block array or a compile-time range `A..B`");
        }
      }
      // `static for` is unrolled; whether `return` may appear in it is not
      // decided here (docs/checker.md), so it does not count as a loop.
      bindPattern(loop->pattern, element, false);
      checkStmts(loop->body);
      return;
    }
    case ast::StmtKind::While: {
      auto* loop = static_cast<const ast::WhileStmt*>(s);
      Type c = checkExpr(loop->condition);
      if (!c.isError() && !c.isScalarBool()) {
        diagnostics_.emit(DiagnosticKind::ConditionNotBool, loop->condition->span, str(c))
            .label(fmt::format("this is `{}`", str(c)))
            .help("compare it to get a `bool`");
      }
      ++scope_->loopDepth;
      checkStmts(loop->body);
      --scope_->loopDepth;
      return;
    }
    case ast::StmtKind::For: {
      auto* loop = static_cast<const ast::ForStmt*>(s);
      Type a = checkExpr(loop->start);
      Type b = checkExpr(loop->end);
      for (auto [t, x] : {std::pair{&a, loop->start}, std::pair{&b, loop->end}}) {
        if (t->isError() || t->isCompileTimeInt())
          continue;
        diagnostics_.emit(DiagnosticKind::NotCompileTime, x->span, str(*t))
            .label("the bounds of `for` must be compile-time integers");
      }
      scope_->locals[keyOf(loop->variable.span)] =
          LocalInfo{Type::scalar(DType::of(ast::ScalarType::I64)), false, loop->variable.span};
      ++scope_->loopDepth;
      checkStmts(loop->body);
      --scope_->loopDepth;
      return;
    }
    case ast::StmtKind::Yield: {
      // A scan's own `yield` is checked by checkScan; any other is misplaced.
      auto* yield = static_cast<const ast::YieldStmt*>(s);
      if (yield->value) checkExpr(yield->value);
      diagnostics_.emit(DiagnosticKind::MisplacedYield, Span{s->span.file, s->span.begin, s->span.begin + 5})
          .label("not the last statement of a scan")
          .help("`yield e` ends the body of a scan (`let ys = for i in A..B { ... yield e }`) and appears nowhere else");
      return;
    }
    case ast::StmtKind::KernelCall:
      checkKernelWrite(static_cast<const ast::KernelCallStmt*>(s));  // CheckKernel.cpp
      return;
  }
}

}  // namespace linnet::check
