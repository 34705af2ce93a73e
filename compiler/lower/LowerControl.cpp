// Run-time control flow: `while` to `scf.while`, `for` to `scf.for`, and an
// `if` whose condition is data to `scf.if`. A loop carries every local its
// body assigns and every state tensor (a call in the body may write state),
// each as a tensor: a carried local that is still an untyped literal before
// the loop (`var t: i32 = 0`) takes the type of what the body assigns to it.
#include <fmt/format.h>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::lower {

namespace {

// The locals assigned anywhere in `body`, in first-assignment order, with the
// value of their first assignment (its checked type types the carried value).
void collectAssigned(const Module& m, const std::vector<ast::Stmt*>& body,
                     std::vector<SpanKey>& order, std::map<SpanKey, const ast::Expr*>& value) {
  std::function<void(const ast::Stmt*)> visit = [&](const ast::Stmt* s) {
    if (auto* a = ast::as<ast::AssignStmt>(s)) {
      const Symbol* sym = m.symbolOf(a->target);
      if (sym && sym->kind == SymbolKind::Local && !value.count(keyOf(sym->declSpan))) {
        order.push_back(keyOf(sym->declSpan));
        value[keyOf(sym->declSpan)] = a->value;
      }
    }
    ast::forEachChildStmt(s, visit);
  };
  for (const ast::Stmt* s : body) visit(s);
}

}  // namespace

// The carried values of a loop: the assigned locals, then the state.
struct Lowerer::Carried {
  std::vector<SpanKey> locals;
  std::vector<check::Type> localTypes;
  std::vector<std::string> state;
  std::vector<mlir::Value> init;
  std::vector<mlir::Type> types;
};

std::optional<Lowerer::Carried> Lowerer::carriedBy(const std::vector<ast::Stmt*>& body, Span at) {
  Carried c;
  std::map<SpanKey, const ast::Expr*> assigned;
  collectAssigned(module(), body, c.locals, assigned);
  for (const SpanKey& key : c.locals) {
    auto it = frame().locals.find(key);
    if (it == frame().locals.end()) {
      unsupported(at, "a loop assigning a local declared inside it");
      return std::nullopt;
    }
    Val v = it->second;
    check::Type t = v.kind == Val::Kind::Tensor ? v.type : typeOf(assigned[key]);
    if (!t.isTensor()) {
      unsupported(assigned[key]->span, "a loop-carried value that is not a tensor");
      return std::nullopt;
    }
    auto x = asTensor(v, t, assigned[key]->span);
    if (!x) return std::nullopt;
    c.localTypes.push_back(t);
    c.init.push_back(*x);
  }
  for (const auto& [path, value] : state_) {
    c.state.push_back(path);
    c.init.push_back(value);
  }
  for (mlir::Value v : c.init) c.types.push_back(v.getType());
  return c;
}

void Lowerer::bindCarried(const Carried& c, mlir::ValueRange values) {
  size_t i = 0;
  for (size_t k = 0; k < c.locals.size(); ++k, ++i)
    frame().locals[c.locals[k]] = Val::tensor(values[i], c.localTypes[k]);
  for (const std::string& path : c.state) state_[path] = values[i++];
}

std::optional<std::vector<mlir::Value>> Lowerer::currentCarried(const Carried& c, Span at) {
  std::vector<mlir::Value> out;
  for (size_t k = 0; k < c.locals.size(); ++k) {
    auto v = asTensor(frame().locals.at(c.locals[k]), c.localTypes[k], at);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  for (const std::string& path : c.state) out.push_back(state_.at(path));
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].getType() != c.types[i])
      out[i] = builder_.create<mlir::tensor::CastOp>(loc(at), c.types[i], out[i]);
  return out;
}

std::optional<mlir::Value> Lowerer::conditionValue(const Val& v, Span at) {
  mlir::Location l = loc(at);
  if (v.kind == Val::Kind::Bool)
    return builder_.create<mlir::arith::ConstantOp>(l, builder_.getBoolAttr(v.flag)).getResult();
  if (v.kind == Val::Kind::Tensor && v.type.isScalar())
    return builder_.create<mlir::tensor::ExtractOp>(l, v.value, mlir::ValueRange{}).getResult();
  unsupported(at, "this condition");
  return std::nullopt;
}

bool Lowerer::lowerWhile(const ast::WhileStmt* w) {
  auto carried = carriedBy(w->body, w->condition->span);
  if (!carried) return false;
  mlir::Location l = loc(w->condition->span);
  auto op = builder_.create<mlir::scf::WhileOp>(l, carried->types, carried->init);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  std::vector<mlir::Location> locs(carried->types.size(), l);
  bool ok = true;
  {
    mlir::Block* before = builder_.createBlock(&op.getBefore(), {}, carried->types, locs);
    bindCarried(*carried, before->getArguments());
    auto c = lowerExpr(w->condition);
    auto cond = c ? conditionValue(*c, w->condition->span) : std::nullopt;
    if (!cond) ok = false;
    else builder_.create<mlir::scf::ConditionOp>(l, *cond, before->getArguments());
  }
  if (ok) {
    mlir::Block* body = builder_.createBlock(&op.getAfter(), {}, carried->types, locs);
    bindCarried(*carried, body->getArguments());
    ok = lowerBody(w->body);
    auto next = ok ? currentCarried(*carried, w->condition->span) : std::nullopt;
    if (!next) ok = false;
    else builder_.create<mlir::scf::YieldOp>(l, *next);
  }
  builder_.restoreInsertionPoint(after);
  if (!ok) return false;
  bindCarried(*carried, op.getResults());
  return true;
}

bool Lowerer::lowerFor(const ast::ForStmt* f) {
  auto a = lowerExpr(f->start);
  auto b = a ? lowerExpr(f->end) : std::nullopt;
  if (!b) return false;
  auto index = [&](const Val& v, Span at) -> std::optional<mlir::Value> {
    if (v.kind == Val::Kind::Int) return dimValue(v.dim, at);
    auto x = conditionValue(v, at);  // a scalar tensor's element
    if (!x) return std::nullopt;
    return builder_.create<mlir::arith::IndexCastOp>(loc(at), builder_.getIndexType(), *x).getResult();
  };
  auto lo = index(*a, f->start->span);
  auto hi = lo ? index(*b, f->end->span) : std::nullopt;
  if (!hi) return false;
  auto carried = carriedBy(f->body, f->start->span);
  if (!carried) return false;
  mlir::Location l = loc(f->start->span);
  mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(l, 1);
  auto op = builder_.create<mlir::scf::ForOp>(l, *lo, *hi, one, carried->init);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  builder_.setInsertionPointToStart(op.getBody());
  bindCarried(*carried, op.getRegionIterArgs());
  // The loop variable: an i64 scalar, as the checker types it.
  check::Type iterType = typeOf(f->start);
  const Symbol* sym = module().symbolOf(f->variable);
  SpanKey key = keyOf(sym ? sym->declSpan : f->variable.span);
  ast::ScalarType dt = ast::ScalarType::I64;
  if (iterType.isTensor())
    if (auto d = concreteDType(iterType.dtype(), f->start->span)) dt = *d;
  mlir::Value i = builder_.create<mlir::arith::IndexCastOp>(l, elementType(dt), op.getInductionVar());
  frame().locals[key] = Val::tensor(emit::scalarTensor(builder_, l, i), check::Type::scalar(check::DType::of(dt)));
  bool ok = lowerBody(f->body);
  auto next = ok ? currentCarried(*carried, f->start->span) : std::nullopt;
  if (next) builder_.create<mlir::scf::YieldOp>(l, *next);
  builder_.restoreInsertionPoint(after);
  if (!next) return false;
  bindCarried(*carried, op.getResults());
  return true;
}

// `for i in A..B { ...; yield e }`: an `scf.for` that writes each yield
// into row `i - A` of the stacked result (one accumulator per tuple part),
// carrying what the body assigns like any loop.
Result Lowerer::lowerScan(const ast::ForScanExpr* scan) {
  check::Type stacked = typeOf(scan);
  std::vector<check::Type> parts;
  if (stacked.kind() == check::TypeKind::Tuple) parts = stacked.elements();
  else parts.push_back(stacked);
  const ast::YieldStmt* yield = scan->body.empty() ? nullptr : ast::as<ast::YieldStmt>(scan->body.back());
  if (!yield || !yield->value) return unsupported(scan->span, "a scan without `yield`");
  auto a = lowerExpr(scan->start);
  auto b = a ? lowerExpr(scan->end) : std::nullopt;
  if (!b) return std::nullopt;
  if (a->kind != Val::Kind::Int || b->kind != Val::Kind::Int) return unsupported(scan->span, "these scan bounds");
  auto lo = dimValue(a->dim, scan->start->span);
  auto hi = lo ? dimValue(b->dim, scan->end->span) : std::nullopt;
  if (!hi) return std::nullopt;
  std::vector<ast::Stmt*> body(scan->body.begin(), scan->body.end() - 1);
  auto carried = carriedBy(body, scan->span);
  if (!carried) return std::nullopt;
  mlir::Location l = loc(scan->span);
  // The accumulators come first among the loop's values.
  std::vector<mlir::Value> init;
  std::vector<mlir::RankedTensorType> accTypes;
  for (const check::Type& t : parts) {
    auto tt = tensorType(t, scan->span);
    auto dyn = tt ? dynamicDims(t, scan->span) : std::nullopt;
    if (!dyn) return std::nullopt;
    accTypes.push_back(*tt);
    init.push_back(builder_.create<mlir::tensor::EmptyOp>(l, tt->getShape(), tt->getElementType(), *dyn));
  }
  init.insert(init.end(), carried->init.begin(), carried->init.end());
  mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(l, 1);
  auto op = builder_.create<mlir::scf::ForOp>(l, *lo, *hi, one, init);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  builder_.setInsertionPointToStart(op.getBody());
  auto iterArgs = op.getRegionIterArgs();
  bindCarried(*carried, iterArgs.drop_front(parts.size()));
  const Symbol* sym = module().symbolOf(scan->variable);
  SpanKey key = keyOf(sym ? sym->declSpan : scan->variable.span);
  mlir::Value iv = op.getInductionVar();
  mlir::Value i64 = builder_.create<mlir::arith::IndexCastOp>(l, builder_.getI64Type(), iv);
  frame().locals[key] =
      Val::tensor(emit::scalarTensor(builder_, l, i64), check::Type::scalar(check::DType::of(ast::ScalarType::I64)));
  bool ok = lowerBody(body);
  Result y = ok ? lowerExpr(yield->value) : std::nullopt;
  std::vector<Val> yielded;
  if (y) {
    if (parts.size() > 1 && y->kind == Val::Kind::Tuple && y->elements.size() == parts.size()) yielded = y->elements;
    else if (parts.size() == 1) yielded.push_back(*y);
    else ok = false;
  }
  std::vector<mlir::Value> next;
  if (y && ok) {
    mlir::Value row = builder_.create<mlir::arith::SubIOp>(l, iv, *lo);
    for (size_t k = 0; k < parts.size() && ok; ++k) {
      // The element's type is the stacked type without its leading axis.
      shape::Shape elementShape(parts[k].shape().begin() + 1, parts[k].shape().end());
      check::Type elementType = parts[k].withShape(elementShape);
      auto v = asTensor(yielded[k], elementType, yield->value->span);
      auto et = v ? tensorType(elementType, yield->value->span) : std::nullopt;
      if (!et) {
        ok = false;
        break;
      }
      mlir::Value element = *v;
      if (element.getType() != *et) element = builder_.create<mlir::tensor::CastOp>(l, *et, element);
      llvm::SmallVector<mlir::OpFoldResult> offsets{row}, sizes{builder_.getIndexAttr(1)}, strides;
      for (mlir::OpFoldResult s : mlir::tensor::getMixedSizes(builder_, l, element)) {
        offsets.push_back(builder_.getIndexAttr(0));
        sizes.push_back(s);
      }
      strides.assign(offsets.size(), builder_.getIndexAttr(1));
      next.push_back(builder_.create<mlir::tensor::InsertSliceOp>(l, element, iterArgs[k], offsets, sizes, strides));
    }
    auto rest = ok ? currentCarried(*carried, scan->span) : std::nullopt;
    if (!rest) ok = false;
    else next.insert(next.end(), rest->begin(), rest->end());
  }
  if (ok && y) builder_.create<mlir::scf::YieldOp>(l, next);
  builder_.restoreInsertionPoint(after);
  if (!ok || !y) return std::nullopt;
  bindCarried(*carried, op.getResults().drop_front(parts.size()));
  if (parts.size() == 1) return Val::tensor(op.getResult(0), parts[0]);
  Val tuple = Val::of(Val::Kind::Tuple);
  for (size_t k = 0; k < parts.size(); ++k) tuple.elements.push_back(Val::tensor(op.getResult(k), parts[k]));
  return tuple;
}

Result Lowerer::lowerRuntimeIf(const ast::IfExpr* e, const Val& condition) {
  check::Type t = typeOf(e);
  // Untyped branches (`if c { 52 } else { 23 }`) are computed in the widest
  // type of their kind; the context's type is cast to when they are used.
  if (t.kind() == check::TypeKind::IntLiteral || t.kind() == check::TypeKind::CompileInt)
    t = check::Type::scalar(check::DType::of(ast::ScalarType::I64));
  if (t.kind() == check::TypeKind::FloatLiteral) t = check::Type::scalar(check::DType::of(ast::ScalarType::F64));
  if (!t.isTensor()) return unsupported(e->span, "an `if` on data whose value is not a tensor");
  auto cond = conditionValue(condition, e->condition->span);
  auto tt = cond ? tensorType(t, e->span) : std::nullopt;
  if (!tt) return std::nullopt;
  mlir::Location l = loc(e->span);
  auto op = builder_.create<mlir::scf::IfOp>(l, mlir::TypeRange{*tt}, *cond, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  std::map<std::string, mlir::Value> stateBefore = state_;
  bool ok = true;
  for (auto [region, branch] : {std::pair{&op.getThenRegion(), e->thenValue},
                                std::pair{&op.getElseRegion(), e->elseValue}}) {
    if (region->empty()) builder_.createBlock(region);
    else builder_.setInsertionPointToEnd(&region->front());
    auto v = lowerExpr(branch);
    auto x = v ? asTensor(*v, t, branch->span) : std::nullopt;
    if (!x || state_ != stateBefore) {
      if (x) unsupported(branch->span, "writing state inside an `if` on data");
      ok = false;
      break;
    }
    mlir::Value y = *x;
    if (y.getType() != *tt) y = builder_.create<mlir::tensor::CastOp>(l, *tt, y);
    builder_.create<mlir::scf::YieldOp>(l, y);
  }
  builder_.restoreInsertionPoint(after);
  if (!ok) return std::nullopt;
  return Val::tensor(op.getResult(0), t);
}

}  // namespace linnet::lower
