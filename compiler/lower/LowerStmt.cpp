// Statements: `let` (with patterns), index notation, `var` and assignment
// (a local is renamed to its new value: SSA, no memory), `return`, and
// `static for`, unrolled at build time (over a range, or over a block array:
// each iteration binds the loop name to that element's instance; a range
// known only at run time is a counted loop, LowerControl.cpp).
#include <fmt/format.h>

#include <algorithm>

#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

bool Lowerer::bindPattern(const ast::Pattern* p, const Val& v) {
  switch (p->kind) {
    case ast::PatternKind::Binding: {
      if (p->name.name == "_") return true;
      const Symbol* s = module().symbolOf(p->name);
      frame().locals[keyOf(s ? s->declSpan : p->name.span)] = v;
      return true;
    }
    case ast::PatternKind::Tuple:
      if (v.kind != Val::Kind::Tuple || v.elements.size() != p->elements.size()) {
        unsupported(p->span, "this tuple pattern");
        return false;
      }
      for (size_t i = 0; i < p->elements.size(); ++i)
        if (!bindPattern(p->elements[i], v.elements[i])) return false;
      return true;
    case ast::PatternKind::Some:
    case ast::PatternKind::None:
      if (v.kind == Val::Kind::Maybe) {
        unsupported(p->span, "this pattern on an optional known only at run time (outside a `match`)");
        return false;
      }
      if (p->kind == ast::PatternKind::None) return v.kind == Val::Kind::None;
      if (v.kind != Val::Kind::Some) {
        unsupported(p->span, "this pattern");
        return false;
      }
      return bindPattern(p->inner, v.elements[0]);
  }
  return false;
}

// `cache_k = ...`: the state's new value, written back when the entry ends.
bool Lowerer::assignState(const ast::AssignStmt* s) {
  const std::string& name = s->target.name;
  std::string path = frame().blockPath.empty() ? name : frame().blockPath + "." + name;
  if (!state_.count(path)) {
    unsupported(s->target.span, fmt::format("assigning `{}`", path));
    return false;
  }
  // A function called in a notation body runs once per element, in no order
  // the notation fixes: a state it writes, with the element or without
  // (`s = s + 1.0` would otherwise be computed once, before the notation),
  // cannot be compiled.
  if (notation_ || bodyNotation_ || hoistedFrom_) {
    unsupported(s->value->span, fmt::format("writing the state `{}` inside index notation", path));
    return false;
  }
  auto v = lowerExpr(s->value);
  if (!v) return false;
  const check::Type declared = stateType(path);
  // A number or `true` known at compile time (`acc = 5`, `flag = true`) is
  // made a value of the state's type.
  if (!v->isData() && (v->kind == Val::Kind::Int || v->kind == Val::Kind::Float || v->kind == Val::Kind::Bool)) {
    auto x = asTensor(*v, declared, s->value->span);
    if (!x) return false;
    v = Val::tensor(*x, declared);
  }
  // Looked up after the value is lowered: lowering it may replace the whole
  // map (an `if` on data restores the state before each branch), which
  // leaves an iterator taken before pointing at another member's node.
  auto it = state_.find(path);
  if (v->kind != Val::Kind::Tensor || v->value.getType() != it->second.getType()) {
    if (v->kind == Val::Kind::Tensor && mlir::isa<mlir::RankedTensorType>(v->value.getType())) {
      // An `if` of literals computed at run time (`f = if c { 1.5 } else { 2.0 }`)
      // has the literals' default type: converted to the state's.
      auto want = mlir::cast<mlir::RankedTensorType>(it->second.getType());
      if (mlir::cast<mlir::RankedTensorType>(v->value.getType()).getElementType() != want.getElementType()) {
        auto x = asTensor(*v, declared, s->value->span);
        if (!x) return false;
        v->value = *x;
      }
      if (v->value.getType() != want)
        v->value = builder_.create<mlir::tensor::CastOp>(loc(s->value->span), want, v->value);
    } else {
      unsupported(s->value->span, fmt::format("this value for the state `{}`", path));
      return false;
    }
  }
  it->second = v->value;
  return true;
}

// The most `static for` bodies one entry unrolls, nested loops multiplying
// (a block array's length is capped at 2^16 by the binder as well).
constexpr int64_t kMaxUnrolledBodies = int64_t{1} << 16;
// The most operations a function may hold when a `static for` of at least
// kBoundedTrips bodies unrolls into it (phi3's entries hold about 450). A
// loop of fewer is unrolled whatever its bodies make: they come from the
// source (a model's few stages, each a large inline body indexing by the
// loop variable, must not become a loop that cannot index), so only a long
// loop can multiply a short program's code.
constexpr int64_t kMaxUnrolledOps = int64_t{1} << 16;
constexpr int64_t kBoundedTrips = 256;

// Whether `done` bodies that grew the function from `before` to `now`
// operations, and `left` more like them, would pass the budget.
static bool pastUnrollBudget(int64_t before, int64_t now, int64_t done, int64_t left) {
  if (done + left < kBoundedTrips) return false;
  return now + static_cast<__int128>(now - before) / done * left > kMaxUnrolledOps;
}

int64_t Lowerer::functionOps() {
  mlir::Operation* fn = builder_.getInsertionBlock()->getParentOp();
  while (fn && !mlir::isa<mlir::func::FuncOp>(fn)) fn = fn->getParentOp();
  int64_t n = 0;
  if (fn) fn->walk([&](mlir::Operation*) { ++n; });
  return n;
}

// Counts `count` more unrolled bodies against the entry's budget: false past
// it, reported when `at` (a block array, which has no other way to run) is
// given; a range of integers is run as a counted loop instead.
bool Lowerer::unrollBudget(int64_t count, const ast::Expr* at) {
  if (count <= kMaxUnrolledBodies - unrolledBodies_) {
    unrolledBodies_ += std::max<int64_t>(count, 0);
    return true;
  }
  if (at)
    unsupported(at->span, fmt::format("a `static for` over {} blocks, past the {} loop bodies one entry may "
                                      "unroll,",
                                      count, kMaxUnrolledBodies));
  return false;
}

// `static for x in array { ... }`, unrolled: one body per block, each
// bound to its element (the method calls in it are outlined).
bool Lowerer::unrollBlockArray(const ast::StaticForStmt* loop, const Val& array) {
  if (array.kind != Val::Kind::BlockArray) {
    unsupported(loop->iterable->span, "a `static for` over this value");
    return false;
  }
  if (!unrollBudget(array.count, loop->iterable)) return false;
  // Bodies over blocks cannot run as a counted loop: past the budget of
  // operations they are E2190 (a method called on the element is one
  // call, so a model's layers stay far below it).
  int64_t before = functionOps(), next = 1;
  for (int64_t i = 0; i < array.count; ++i) {
    if (i == next) {
      next *= 2;
      int64_t now = functionOps();
      if (pastUnrollBudget(before, now, i, array.count - i)) {
        unsupported(loop->iterable->span,
                    fmt::format("a `static for` over {} blocks whose bodies make about {} operations, past the "
                                "{} one function may unroll,",
                                array.count, static_cast<int64_t>((now - before) / i * array.count),
                                kMaxUnrolledOps));
        return false;
      }
    }
    Val element = array;
    element.kind = Val::Kind::Block;
    element.path = array.path + "." + std::to_string(i);
    if (!bindPattern(loop->pattern, element)) return false;
    if (!lowerBody(loop->body)) return false;
    if (frame().returned) return true;
  }
  return true;
}

bool Lowerer::lowerBody(const std::vector<ast::Stmt*>& body) {
  for (const ast::Stmt* s : body) {
    if (frame().returned) return true;
    if (!lowerStmt(s)) return false;
  }
  return true;
}

// `x`, made by asTensor for type `t`: inside a notation body asTensor gives
// a scalar, which is an element there.
static Val madeData(mlir::Value x, const check::Type& t) {
  return mlir::isa<mlir::RankedTensorType>(x.getType()) ? Val::tensor(x, t) : Val::element(x, t);
}

// The declared type of a `let`/`var` with an annotation: the checker's type
// of its value is already that type (literals included), so the value is
// made a tensor of the value's own checked type (an element inside notation).
static Result typedValue(Lowerer& l, const ast::Expr* value, const Val& v) {
  if (v.isData() || (v.kind != Val::Kind::Int && v.kind != Val::Kind::Float && v.kind != Val::Kind::Bool))
    return v;
  check::Type t = l.typeOf(value);
  if (!t.isTensor()) return v;
  auto x = l.asTensor(v, t, value->span);
  if (!x) return std::nullopt;
  return madeData(*x, t);
}

bool Lowerer::lowerStmt(const ast::Stmt* s) {
  switch (s->kind) {
    case ast::StmtKind::Let: {
      auto* let = static_cast<const ast::LetStmt*>(s);
      auto v = lowerExpr(let->value);
      if (v) v = typedValue(*this, let->value, *v);
      return v && bindPattern(let->pattern, *v);
    }
    case ast::StmtKind::LetComprehension: {
      auto* let = static_cast<const ast::LetComprehensionStmt*>(s);
      auto v = lowerComprehension(let);
      if (!v) return false;
      const Symbol* sym = module().symbolOf(let->name);
      frame().locals[keyOf(sym ? sym->declSpan : let->name.span)] = *v;
      return true;
    }
    case ast::StmtKind::Var: {
      auto* var = static_cast<const ast::VarStmt*>(s);
      auto v = lowerExpr(var->value);
      if (v) v = typedValue(*this, var->value, *v);
      if (!v) return false;
      const Symbol* sym = module().symbolOf(var->name);
      frame().locals[keyOf(sym ? sym->declSpan : var->name.span)] = *v;
      return true;
    }
    case ast::StmtKind::Assign: {
      auto* assign = static_cast<const ast::AssignStmt*>(s);
      const Symbol* sym = module().symbolOf(assign->target);
      if (sym && sym->kind == SymbolKind::Member) return assignState(assign);
      if (!sym || sym->kind != SymbolKind::Local) {
        unsupported(assign->target.span, fmt::format("assigning `{}`", assign->target.name));
        return false;
      }
      auto v = lowerExpr(assign->value);
      if (v) v = typedValue(*this, assign->value, *v);
      if (!v) return false;
      frame().locals[keyOf(sym->declSpan)] = *v;
      return true;
    }
    case ast::StmtKind::Return: {
      auto* ret = static_cast<const ast::ReturnStmt*>(s);
      if (!ret->value) {
        frame().returned = Val::of(Val::Kind::Unit);
        return true;
      }
      auto v = lowerExpr(ret->value);
      if (!v) return false;
      // Literals returned take the declared result type.
      if (frame().fn && frame().fn->signature) {
        check::Type declared = instantiate(frame().fn->signature->result);
        if (declared.isTensor() && !v->isData()) {
          auto t = asTensor(*v, declared, ret->value->span);
          if (!t) return false;
          v = madeData(*t, declared);
        }
      }
      frame().returned = *v;
      return true;
    }
    case ast::StmtKind::StaticFor: {
      auto* loop = static_cast<const ast::StaticForStmt*>(s);
      // Over a block array an `if` or `match` on data chooses: the loop is
      // unrolled in each arm (an `scf.if` carrying what the bodies assign).
      const ast::Expr* iterable = loop->iterable;
      while (auto* p = ast::as<ast::ParenExpr>(iterable)) iterable = p->inner;
      if (!loop->rangeEnd && (ast::as<ast::IfExpr>(iterable) || ast::as<ast::MatchExpr>(iterable)) &&
          typeOf(iterable).kind() == check::TypeKind::BlockArray) {
        auto done = lowerThrough(iterable, check::Type::unit(), [&](const Val& array) -> Result {
          if (!unrollBlockArray(loop, array)) return std::nullopt;
          if (frame().returned)
            return unsupported(loop->iterable->span,
                               "`return` inside a `static for` over a block array chosen at run time");
          return Val::of(Val::Kind::Unit);
        });
        return done.has_value();
      }
      auto first = lowerExpr(loop->iterable);
      if (!first) return false;
      if (loop->rangeEnd) {
        auto last = lowerExpr(loop->rangeEnd);
        if (!last) return false;
        auto a = first->kind == Val::Kind::Int ? first->dim.constantValue() : std::nullopt;
        auto b = last->kind == Val::Kind::Int ? last->dim.constantValue() : std::nullopt;
        // A range known only at run time (`0..Steps`, Steps an entry dim):
        // the checker types the variable as an i64 scalar either way, so the
        // loop runs as a counted loop instead of unrolled.
        // So is one too long to unroll (a bound given by a hostile `--bind`):
        // a body that needs its index known at build time is then E2190.
        // (The trip count in 128 bits: `-2^63..2^63 - 1` overflows int64.)
        auto trips = [](int64_t from, int64_t to) {
          __int128 n = static_cast<__int128>(to) - from;
          return n <= 0 ? int64_t{0} : n > INT64_MAX ? INT64_MAX : static_cast<int64_t>(n);
        };
        if (!a || !b || !unrollBudget(trips(*a, *b), nullptr))
          return lowerCountedLoop(loop->iterable, loop->rangeEnd, loop->body,
                                  [&](const Val& i) { return bindPattern(loop->pattern, i); });
        // The bodies are measured as they are made, at 1, 2, 4, ... bodies
        // (a walk of the function each time, so log(trips) walks): once the
        // code they would make passes the budget, the rest of the range runs
        // as a counted loop. (A 20-operation body unrolled 6000 times took
        // 49 s to build, quadratic in the passes after.)
        int64_t before = functionOps(), next = 1;
        for (int64_t i = *a; i < *b; ++i) {
          if (int64_t done = i - *a; done == next) {
            next *= 2;
            if (pastUnrollBudget(before, functionOps(), done, trips(i, *b)))
              return lowerCountedLoop(loop->iterable, loop->rangeEnd, loop->body,
                                      [&](const Val& v) { return bindPattern(loop->pattern, v); }, i);
          }
          if (!bindPattern(loop->pattern, Val::integer(shape::DimExpr::constant(i)))) return false;
          if (!lowerBody(loop->body)) return false;
          if (frame().returned) return true;
        }
        return true;
      }
      return unrollBlockArray(loop, *first);
    }
    case ast::StmtKind::While: return lowerWhile(static_cast<const ast::WhileStmt*>(s));
    case ast::StmtKind::For: return lowerFor(static_cast<const ast::ForStmt*>(s));
    case ast::StmtKind::Yield:
      unsupported(static_cast<const ast::YieldStmt*>(s)->value->span, "`yield` outside a scan");
      return false;
    case ast::StmtKind::KernelCall:
      unsupported(static_cast<const ast::KernelCallStmt*>(s)->call->span, "a kernel statement");
      return false;
  }
  return false;
}

}  // namespace linnet::lower
