// Run-time control flow: `while` to `scf.while`, `for` to `scf.for`, and an
// `if` whose condition is data to `scf.if`. A loop carries every local its
// body assigns and every state tensor (a call in the body may write state),
// each as its tensors (a tuple or struct local flattened): a carried local
// that is still an untyped literal before the loop (`var t: i32 = 0`) takes
// the type of what the body assigns to it.
// An `if` on data yields the tensors of its value (flattened, see
// LowerValues.cpp) and, like a loop, the locals and state its branches change.
// Branches yielding `some` and `none` make an optional whose presence is data
// (Val::Kind::Maybe); a `match` on one is an `scf.if` on that presence.
// Inside index notation (a function with a loop, called in a notation body)
// a loop runs per element: its carried locals are scalars of their element
// type (Val::Kind::Element), its condition an i1, its variable a scalar
// Element, and no state is carried (none can be written there).
#include <fmt/format.h>

#include <functional>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Bufferization/IR/Bufferization.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/conversion/TensorBuilders.h"
#include "compiler/lower/LowerImpl.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::lower {

namespace {

// The locals assigned anywhere in `body`, in first-assignment order, with the
// value of their first assignment (its checked type types the carried value).
// Calls `visit` on every statement of `body` and those nested in it: loop
// bodies, and the bodies of scans inside expressions (a scan in a loop that
// assigns a local declared outside the loop changes it for the loop too).
void forEachNestedStmt(const std::vector<ast::Stmt*>& body, const std::function<void(const ast::Stmt*)>& visit) {
  std::function<void(const ast::Stmt*)> stmt;
  std::function<void(const ast::Expr*)> expr = [&](const ast::Expr* e) {
    ast::forEachChild(e, expr);
    ast::forEachChildStmt(e, stmt);
  };
  stmt = [&](const ast::Stmt* s) {
    visit(s);
    ast::forEachChild(s, expr);
    ast::forEachChildStmt(s, stmt);
  };
  for (const ast::Stmt* s : body) stmt(s);
}

void collectAssigned(const Module& m, const std::vector<ast::Stmt*>& body,
                     std::vector<SpanKey>& order, std::map<SpanKey, const ast::Expr*>& value) {
  forEachNestedStmt(body, [&](const ast::Stmt* s) {
    if (auto* a = ast::as<ast::AssignStmt>(s)) {
      const Symbol* sym = m.symbolOf(a->target);
      if (sym && sym->kind == SymbolKind::Local && !value.count(keyOf(sym->declSpan))) {
        order.push_back(keyOf(sym->declSpan));
        value[keyOf(sym->declSpan)] = a->value;
      }
    }
  });
}

// Whether `body` assigns the local `key` anything but a `some(...)`: a loop
// that may change an optional's presence carries the presence as data.
bool mayAssignOtherThanSome(const Module& m, const std::vector<ast::Stmt*>& body, const SpanKey& key) {
  bool found = false;
  forEachNestedStmt(body, [&](const ast::Stmt* s) {
    if (auto* a = ast::as<ast::AssignStmt>(s)) {
      const Symbol* sym = m.symbolOf(a->target);
      if (sym && sym->kind == SymbolKind::Local && keyOf(sym->declSpan) == key &&
          a->value->kind != ast::ExprKind::Some)
        found = true;
    }
  });
  return found;
}

// `v` with each leaf of kind `from` made kind `to` (value and type kept):
// inside notation a loop's templates hold Tensor leaves (what planMerge and
// refill walk) that stand for scalar Elements.
Val withLeafKind(const Val& v, Val::Kind from, Val::Kind to) {
  Val out = v;
  if (out.kind == from) out.kind = to;
  for (Val& e : out.elements) e = withLeafKind(e, from, to);
  return out;
}

// Inside notation a carried scalar is an element; a whole tensor the body
// computes per element (tensorsInNotationBody) stays a tensor.
Val scalarLeavesAsElements(const Val& v) {
  Val out = v;
  if (out.kind == Val::Kind::Tensor && out.type.isScalar()) out.kind = Val::Kind::Element;
  for (Val& e : out.elements) e = scalarLeavesAsElements(e);
  return out;
}

}  // namespace

// The `scf.if` with results `types` that a result-less draft becomes once
// both branches are lowered into it and end in their yields: the draft's
// regions moved into it, the draft erased.
static mlir::scf::IfOp fromDraft(mlir::OpBuilder& b, mlir::scf::IfOp draft, mlir::TypeRange types) {
  auto op = b.create<mlir::scf::IfOp>(draft.getLoc(), types, draft.getCondition(), /*withElseRegion=*/true);
  op.getThenRegion().takeBody(draft.getThenRegion());
  op.getElseRegion().takeBody(draft.getElseRegion());
  draft.erase();
  return op;
}

// A run-time enum of `item` whose index is a Tensor leaf (value unset).
static Val runtimeEnumTemplate(const ast::EnumItem* item) {
  return Val::runtimeEnum(item, Val::tensor(mlir::Value(), scalarTypeOf(ast::ScalarType::I32)));
}

// The structure two branches' values share, for an `if` on data to yield:
// a Tensor leaf (value unset, `type` the result's Linnet type) wherever
// either branch has data, the compile-time parts (which must be equal in
// both) elsewhere. `t` is the checked type at this position, when known.
// Planning a value against itself gives a loop-carried local's structure.
std::optional<Val> planMerge(const Val& a, const Val& b, std::optional<check::Type> t, std::string& why) {
  // Untyped branches (`if c { 52 } else { 23 }`) are computed in the widest
  // type of their kind; the context's type is cast to when they are used.
  if (t) t = computedLiteralType(*t);
  auto scalarLike = [](const Val& v) {
    return v.kind == Val::Kind::Tensor || v.kind == Val::Kind::Int || v.kind == Val::Kind::Float ||
           v.kind == Val::Kind::Bool;
  };
  if (a.kind == Val::Kind::Tensor || b.kind == Val::Kind::Tensor || (t && t->isTensor())) {
    if (!scalarLike(a) || !scalarLike(b)) {
      why = "yield data in one and structure in the other";
      return std::nullopt;
    }
    std::string ka, kb;
    if (a.kind != Val::Kind::Tensor && b.kind != Val::Kind::Tensor && structureKey(a, ka) && structureKey(b, kb) &&
        ka == kb)
      return a;  // the same compile-time value in both
    check::Type type = t && t->isTensor() ? *t : a.kind == Val::Kind::Tensor ? a.type : b.type;
    if (!type.isTensor()) {
      why = "give a value different compile-time values";
      return std::nullopt;
    }
    return Val::tensor(mlir::Value(), type);
  }
  // An optional present in one branch and absent in the other (or whose
  // presence either branch knows only at run time) is a Maybe: its presence
  // is data, its payload the payloads' merge (zeros where absent).
  auto isOptional = [](const Val& v) {
    return v.kind == Val::Kind::Some || v.kind == Val::Kind::None || v.kind == Val::Kind::Maybe;
  };
  if (isOptional(a) && isOptional(b) && (a.kind != b.kind || a.kind == Val::Kind::Maybe)) {
    std::optional<check::Type> inner;
    if (t && t->kind() == check::TypeKind::Optional) inner = t->optionalInner();
    auto payloadOf = [](const Val& v) -> const Val* {
      if (v.kind == Val::Kind::Some) return &v.elements[0];
      if (v.kind == Val::Kind::Maybe) return &v.elements[1];
      return nullptr;
    };
    const Val* pa = payloadOf(a);
    const Val* pb = payloadOf(b);
    auto payload = planMerge(pa ? *pa : *pb, pb ? *pb : *pa, inner, why);
    if (!payload) return std::nullopt;
    return Val::maybe(Val::tensor(mlir::Value(), scalarTypeOf(ast::ScalarType::Bool)),
                      *payload);
  }
  // Two variants of one enum (or one known only at run time): the variant's
  // index is data.
  if (a.kind == Val::Kind::Enum && b.kind == Val::Kind::Enum && a.enumItem == b.enumItem &&
      (a.variant != b.variant || a.isRuntimeEnum()))
    return runtimeEnumTemplate(a.enumItem);
  if (a.kind != b.kind || a.elements.size() != b.elements.size() || a.structItem != b.structItem) {
    why = "differ in their compile-time structure";
    return std::nullopt;
  }
  switch (a.kind) {
    case Val::Kind::Some:
    case Val::Kind::Tuple:
    case Val::Kind::Struct: {
      Val out = a;
      for (size_t k = 0; k < a.elements.size(); ++k) {
        std::optional<check::Type> sub;
        if (t && (t->kind() == check::TypeKind::Tuple || t->kind() == check::TypeKind::Optional) &&
            k < t->elements().size())
          sub = t->elements()[k];
        auto e = planMerge(a.elements[k], b.elements[k], sub, why);
        if (!e) return std::nullopt;
        out.elements[k] = *e;
      }
      return out;
    }
    default: {
      std::string ka, kb;
      if (!structureKey(a, ka) || !structureKey(b, kb)) {
        why = "yield a block";
        return std::nullopt;
      }
      if (ka != kb) {
        why = "differ in their compile-time values";
        return std::nullopt;
      }
      return a;
    }
  }
}

// An optional of type `t` carried as a Maybe, its payload `t`'s tensors
// (nullopt unless the payload is a tensor, an enum (its index), an optional
// of these (a Maybe in the Maybe), or a tuple or struct of them).
std::optional<Val> presenceAtRunTime(const check::Type& t, const check::CheckedProgram& checked) {
  std::function<std::optional<Val>(const check::Type&)> leaves = [&](const check::Type& x) -> std::optional<Val> {
    if (x.isTensor()) return Val::tensor(mlir::Value(), x);
    if (x.kind() == check::TypeKind::Enum && x.enumItem()) return runtimeEnumTemplate(x.enumItem());
    if (x.kind() == check::TypeKind::Optional) {
      auto inner = leaves(x.optionalInner());
      if (!inner) return std::nullopt;
      return Val::maybe(Val::tensor(mlir::Value(), scalarTypeOf(ast::ScalarType::Bool)),
                        *inner);
    }
    if (x.kind() == check::TypeKind::Struct) {
      const std::vector<check::Type>* fields = checked.structFieldsOf(x.structItem());
      if (!fields) return std::nullopt;
      Val s = Val::of(Val::Kind::Struct);
      s.structItem = x.structItem();
      for (const check::Type& field : *fields) {
        auto leaf = leaves(check::instantiate(field, x.structArgs()));
        if (!leaf) return std::nullopt;
        s.elements.push_back(*leaf);
      }
      return s;
    }
    if (x.kind() != check::TypeKind::Tuple) return std::nullopt;
    Val tuple = Val::of(Val::Kind::Tuple);
    for (const check::Type& e : x.elements()) {
      auto leaf = leaves(e);
      if (!leaf) return std::nullopt;
      tuple.elements.push_back(*leaf);
    }
    return tuple;
  };
  auto payload = leaves(t.optionalInner());
  if (!payload) return std::nullopt;
  return Val::maybe(Val::tensor(mlir::Value(), scalarTypeOf(ast::ScalarType::Bool)),
                    *payload);
}

// The carried values of a loop: the assigned locals, then the state.
struct Lowerer::Carried {
  std::vector<SpanKey> locals;
  // Per local, its structure: a Tensor leaf (value unset) per carried tensor.
  std::vector<Val> localTemplates;
  // Per local, the checked type of what the body assigns it.
  std::vector<check::Type> localTypes;
  std::vector<std::string> state;
  std::vector<mlir::Value> init;
  std::vector<mlir::Type> types;
};

// Whether two templates of one local have the same structure: the same
// kinds everywhere, and the same compile-time values where neither has data.
static bool sameTemplate(const Val& a, const Val& b) {
  if (a.kind != b.kind || a.elements.size() != b.elements.size()) return false;
  if (a.kind == Val::Kind::Tensor) return true;
  if (a.elements.empty()) {
    std::string ka, kb;
    return structureKey(a, ka) && structureKey(b, kb) && ka == kb;
  }
  if (a.kind == Val::Kind::Enum && a.enumItem != b.enumItem) return false;
  for (size_t k = 0; k < a.elements.size(); ++k)
    if (!sameTemplate(a.elements[k], b.elements[k])) return false;
  return true;
}

bool Lowerer::untilCarriedSettle(Span at,
                                 const std::function<bool(Widening&, std::function<void()>& erase)>& attempt) {
  Widening wider;
  // Each attempt makes at least one compile-time leaf data, and no template
  // has more leaves than its type has parts: this ends; the bound is a guard.
  for (int tries = 0;; ++tries) {
    std::map<SpanKey, Val> locals = frame().locals;
    std::map<std::string, mlir::Value> state = state_;
    std::optional<Val> returned = frame().returned;
    std::function<void()> erase;
    wider.again = false;
    bool ok = attempt(wider, erase);
    if (ok) {
      // A local the body declares (`for j { var v = x; ... }`) lives for one
      // iteration: its value is inside the loop's region. Kept past the loop,
      // the same body lowered again (a `static for` around it) found it bound
      // and carried it from the earlier copy ("operand does not dominate
      // this use").
      for (auto it = frame().locals.begin(); it != frame().locals.end();)
        it = locals.count(it->first) ? std::next(it) : frame().locals.erase(it);
      return true;
    }
    if (!wider.again) return ok;
    if (erase) erase();
    if (tries >= 64) {
      unsupported(at, "a loop whose carried values keep changing form");
      return false;
    }
    frame().locals = std::move(locals);
    state_ = std::move(state);
    frame().returned = std::move(returned);
  }
}

namespace {

// Whether `value` is, or may be through the branches of `scf.if`s on data,
// a value `leaf` accepts.
bool mayBeA(mlir::Value value, const std::function<bool(mlir::Value)>& leaf, int depth = 0) {
  if (leaf(value)) return true;
  auto branch = value.getDefiningOp<mlir::scf::IfOp>();
  if (!branch || depth > 16) return false;
  unsigned i = mlir::cast<mlir::OpResult>(value).getResultNumber();
  for (mlir::Region* region : {&branch.getThenRegion(), &branch.getElseRegion()})
    if (!region->empty() && mayBeA(region->front().getTerminator()->getOperand(i), leaf, depth + 1))
      return true;
  return false;
}

// Whether `value` may be `target` itself (a method returning its new state
// in one branch of an `if` on data: `if c { acc } else { acc * 2.0 }`).
bool mayBe(mlir::Value value, mlir::Value target) {
  return mayBeA(value, [&](mlir::Value v) { return v == target; });
}

// Whether `value` may be a state's storage as the function starts (its
// `to_tensor`, an outlined method's state argument, a loop's carried value
// which may be one): a merge of it and a new value by an `scf.if` (`w = if c
// { w + x } else { w }`, or a chosen receiver's method writing its state).
bool mayBeStorage(mlir::Value value) {
  return mayBeA(value, [](mlir::Value v) {
    return v.getDefiningOp<mlir::bufferization::ToTensorOp>() ||
           (mlir::isa<mlir::BlockArgument>(v) && mlir::isa<mlir::TensorType>(v.getType()));
  });
}

// One-Shot Bufferize puts a value a region yields in one alias set with the
// result it becomes, so a value yielded twice ties two results together: a
// method's result that is also the state it wrote would tie the state's
// buffer to a value read after the state is written back, which it cannot
// resolve ("cannot avoid RaW conflict"; LowerStateWrites.cpp). Every other
// yield of a state's new value (`yielded` from `firstState` on are states)
// becomes a copy, so the state itself is never copied for it.
void separateStateYields(mlir::OpBuilder& b, mlir::Location at, std::vector<mlir::Value>& yielded,
                         size_t firstState) {
  for (size_t k = firstState; k < yielded.size(); ++k)
    for (size_t j = 0; j < yielded.size(); ++j)
      // Among states, one of two equal values is copied (the later); one
      // that only may be another (`s = if c { t } else { x }` inside the
      // loop) is copied itself.
      if (j != k && (j < firstState || j > k || yielded[j] != yielded[k]) && mayBe(yielded[j], yielded[k]))
        yielded[j] = conversion::freshCopy(b, at, yielded[j]);
}

}  // namespace

std::optional<Lowerer::Carried> Lowerer::carriedBy(const std::vector<ast::Stmt*>& body, Span at,
                                                   const Widening& wider) {
  Carried c;
  std::map<SpanKey, const ast::Expr*> assigned;
  std::vector<SpanKey> assignedLocals;
  collectAssigned(module(), body, assignedLocals, assigned);
  // A local declared inside the body (not bound yet here) lives for one
  // iteration: it is not carried.
  for (const SpanKey& key : assignedLocals)
    if (frame().locals.contains(key)) c.locals.push_back(key);
  for (const SpanKey& key : c.locals) {
    const Val& now = frame().locals.at(key);
    // Inside notation, elements are planned as the Tensor leaves they are
    // carried as (scalars; flattenLike makes each leaf an element).
    Val v = notation_ ? withLeafKind(now, Val::Kind::Element, Val::Kind::Tensor) : now;
    check::Type t = v.kind == Val::Kind::Tensor ? v.type : typeOf(assigned[key]);
    // A tuple, struct or optional local is carried as its tensors; its
    // compile-time parts as they are before the loop, unless an earlier
    // attempt found the body changing them (`wider`). An optional
    // that is `none` before the loop (and assigned in it) is carried with its
    // presence as data: the body may make it `some`; so is one that is `some`
    // before it when the body assigns it anything but a `some(...)`.
    std::string why;
    std::optional<Val> tmpl;
    if (auto w = wider.templates.find(key); w != wider.templates.end()) tmpl = w->second;
    else if (t.isTensor()) tmpl = Val::tensor(mlir::Value(), t);
    else if (v.kind == Val::Kind::Enum && !notation_)
      tmpl = runtimeEnumTemplate(v.enumItem);  // the body may assign another variant
    else if (v.kind == Val::Kind::None && t.kind() == check::TypeKind::Optional)
      tmpl = presenceAtRunTime(t, *inputs_.checked);  // `none` before the loop, assigned in it
    else if (v.kind == Val::Kind::Some && t.kind() == check::TypeKind::Optional && !notation_ &&
             mayAssignOtherThanSome(module(), body, key))
      tmpl = presenceAtRunTime(t, *inputs_.checked);
    if (!tmpl) tmpl = planMerge(v, v, t, why);
    if (!tmpl) {
      unsupported(assigned[key]->span, "a loop-carried value that is not a tensor or a structure of them");
      return std::nullopt;
    }
    auto x = flattenLike(*tmpl, now, assigned[key]->span);
    if (!x) return std::nullopt;
    c.localTemplates.push_back(*tmpl);
    c.localTypes.push_back(t);
    c.init.insert(c.init.end(), x->begin(), x->end());
  }
  // No state can be written inside a notation body: none is carried there.
  if (!notation_)
    for (const auto& [path, value] : state_) {
      c.state.push_back(path);
      c.init.push_back(value);
    }
  // A local that is a state's value as the loop starts (`var r = layer.add(x)`,
  // a method returning the state it wrote) is carried as a copy, as a yield is.
  separateStateYields(builder_, loc(at), c.init, c.init.size() - c.state.size());
  // One-Shot Bufferize counts a loop's initial values as written, so a state
  // starting the loop as a merge of its storage and a new value puts the
  // loop's writes in the storage's alias set ahead of the write-back, which
  // it cannot resolve ("cannot avoid RaW conflict"). Such a start is carried
  // as a copy; the storage itself, the usual start, is not.
  for (size_t k = c.init.size() - c.state.size(); k < c.init.size(); ++k)
    if (c.init[k].getDefiningOp<mlir::scf::IfOp>() && mayBeStorage(c.init[k]))
      c.init[k] = conversion::freshCopy(builder_, loc(at), c.init[k]);
  for (mlir::Value v : c.init) c.types.push_back(v.getType());
  return c;
}

void Lowerer::bindCarried(const Carried& c, mlir::ValueRange values) {
  size_t i = 0;
  llvm::SmallVector<mlir::Value> all(values.begin(), values.end());
  for (size_t k = 0; k < c.locals.size(); ++k) {
    Val v = refill(c.localTemplates[k], all, i);
    // Inside notation the carried values are scalars: elements.
    frame().locals[c.locals[k]] = notation_ ? scalarLeavesAsElements(v) : v;
  }
  for (const std::string& path : c.state) state_[path] = values[i++];
}

std::optional<std::vector<mlir::Value>> Lowerer::currentCarried(const Carried& c, Span at, Widening& wider) {
  for (size_t k = 0; k < c.locals.size(); ++k) {
    const Val& now = frame().locals.at(c.locals[k]);
    Val planned = notation_ ? withLeafKind(now, Val::Kind::Element, Val::Kind::Tensor) : now;
    std::string why;
    auto merged = planMerge(c.localTemplates[k], planned, c.localTypes[k], why);
    if (merged && !sameTemplate(*merged, c.localTemplates[k])) {
      wider.templates[c.locals[k]] = *merged;
      wider.again = true;
    }
  }
  if (wider.again) return std::nullopt;
  std::vector<mlir::Value> out;
  for (size_t k = 0; k < c.locals.size(); ++k) {
    auto v = flattenLike(c.localTemplates[k], frame().locals.at(c.locals[k]), at);
    if (!v) return std::nullopt;
    out.insert(out.end(), v->begin(), v->end());
  }
  for (const std::string& path : c.state) out.push_back(state_.at(path));
  separateStateYields(builder_, loc(at), out, out.size() - c.state.size());
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].getType() != c.types[i] && mlir::isa<mlir::RankedTensorType>(out[i].getType()))
      out[i] = builder_.create<mlir::tensor::CastOp>(loc(at), c.types[i], out[i]);
  return out;
}

std::optional<mlir::Value> Lowerer::conditionValue(const Val& v, Span at) {
  mlir::Location l = loc(at);
  if (v.kind == Val::Kind::Bool)
    return builder_.create<mlir::arith::ConstantOp>(l, builder_.getBoolAttr(v.flag)).getResult();
  // Inside notation: the element itself, or a scalar tensor from outside
  // read as an input of the body.
  if (notation_ && v.kind == Val::Kind::Element) return v.value;
  if (notation_ && v.kind == Val::Kind::Tensor && v.type.isScalar()) {
    auto d = concreteDType(v.type.dtype(), at);
    if (!d) return std::nullopt;
    return asElement(v, *d, at);
  }
  if (v.kind == Val::Kind::Tensor && v.type.isScalar())
    return builder_.create<mlir::tensor::ExtractOp>(l, v.value, mlir::ValueRange{}).getResult();
  unsupported(at, "this condition");
  return std::nullopt;
}

std::optional<std::vector<mlir::Value>> Lowerer::flattenLike(const Val& tmpl, const Val& v, Span at) {
  std::vector<mlir::Value> out;
  std::function<bool(const Val&, const Val&)> walk = [&](const Val& t, const Val& x) {
    if (t.kind == Val::Kind::Tensor && notation_ && t.type.isScalar()) {
      // Inside notation a scalar leaf is an element of the leaf type's dtype
      // (a whole tensor, computed per element in the body, is carried as one).
      auto d = concreteDType(t.type.dtype(), at);
      if (!d) return false;
      auto y = asElement(x, *d, at);
      if (!y) return false;
      out.push_back(*y);
      return true;
    }
    if (t.kind == Val::Kind::Tensor) {
      auto y = asTensor(x, t.type, at);
      if (!y) return false;
      out.push_back(*y);
      return true;
    }
    if (t.kind == Val::Kind::Maybe && (x.kind == Val::Kind::Some || x.kind == Val::Kind::None)) {
      // A presence known here: a constant flag, and the payload or zeros.
      auto flag = asTensor(Val::boolean(x.kind == Val::Kind::Some), t.elements[0].type, at);
      if (!flag) return false;
      out.push_back(*flag);
      if (x.kind == Val::Kind::Some) return walk(t.elements[1], x.elements[0]);
      return forEachTensorLeaf(t.elements[1], [&](const Val& leaf) {
        auto z = asTensor(Val::integer(shape::DimExpr::constant(0)), leaf.type, at);
        if (!z) return false;
        out.push_back(*z);
        return true;
      });
    }
    if (t.isRuntimeEnum() && x.kind == Val::Kind::Enum && x.enumItem == t.enumItem && notation_) {
      auto index = enumIndex(x, at);  // an element inside notation
      if (!index) return false;
      out.push_back(*index);
      return true;
    }
    if (t.isRuntimeEnum() && x.kind == Val::Kind::Enum && x.enumItem == t.enumItem) {
      auto index = enumIndexTensor(x, at);
      return index && walk(t.elements[0], *index);
    }
    if (t.kind != x.kind || t.elements.size() != x.elements.size()) {
      if (t.kind == Val::Kind::Some)
        unsupported(at, "an optional that is `some` before a loop and whose presence changes in it");
      else if (t.kind == Val::Kind::None)
        unsupported(at, "an optional that is `none` before a loop and whose presence changes in it");
      else
        unsupported(at, "a value whose compile-time structure changes in a loop");
      return false;
    }
    if (t.elements.empty()) {
      std::string kt, kx;
      if (structureKey(t, kt) && structureKey(x, kx) && kt == kx) return true;
      unsupported(at, "a value whose compile-time parts change in a loop");
      return false;
    }
    for (size_t k = 0; k < t.elements.size(); ++k)
      if (!walk(t.elements[k], x.elements[k])) return false;
    return true;
  };
  if (!walk(tmpl, v)) return std::nullopt;
  return out;
}

bool Lowerer::lowerWhile(const ast::WhileStmt* w) {
  // Inside a notation body (a function with a loop, called there) the loop
  // computes one element: it carries scalars (carriedBy, flattenLike).
  return untilCarriedSettle(w->condition->span, [&](Widening& wider, std::function<void()>& erase) {
    auto carried = carriedBy(w->body, w->condition->span, wider);
    if (!carried) return false;
    mlir::Location l = loc(w->condition->span);
    auto op = builder_.create<mlir::scf::WhileOp>(l, carried->types, carried->init);
    erase = [op]() mutable { op.erase(); };
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
      auto next = ok ? currentCarried(*carried, w->condition->span, wider) : std::nullopt;
      if (!next) ok = false;
      else builder_.create<mlir::scf::YieldOp>(l, *next);
    }
    builder_.restoreInsertionPoint(after);
    if (!ok) return false;
    bindCarried(*carried, op.getResults());
    return true;
  });
}

bool Lowerer::lowerFor(const ast::ForStmt* f) {
  const Symbol* sym = module().symbolOf(f->variable);
  SpanKey key = keyOf(sym ? sym->declSpan : f->variable.span);
  return lowerCountedLoop(f->start, f->end, f->body, [&](const Val& i) {
    frame().locals[key] = i;
    return true;
  });
}

// `for i in A..B` and a `static for i in A..B` whose bounds are known only
// at run time: an `scf.for` carrying what the body assigns. The loop variable
// is an i64 scalar (or the bounds' dtype), as the checker types both.
bool Lowerer::lowerCountedLoop(const ast::Expr* start, const ast::Expr* end, const std::vector<ast::Stmt*>& body,
                               const std::function<bool(const Val&)>& bindVariable,
                               std::optional<int64_t> from) {
  auto a = from ? Result(Val::integer(shape::DimExpr::constant(*from))) : lowerExpr(start);
  auto b = a ? lowerExpr(end) : std::nullopt;
  if (!b) return false;
  auto index = [&](const Val& v, Span at) -> std::optional<mlir::Value> {
    if (v.kind == Val::Kind::Int) return dimValue(v.dim, at);
    auto x = conditionValue(v, at);  // a scalar tensor's element
    if (!x) return std::nullopt;
    return builder_.create<mlir::arith::IndexCastOp>(loc(at), builder_.getIndexType(), *x).getResult();
  };
  auto lo = index(*a, start->span);
  auto hi = lo ? index(*b, end->span) : std::nullopt;
  if (!hi) return false;
  return untilCarriedSettle(start->span, [&](Widening& wider, std::function<void()>& erase) {
    auto carried = carriedBy(body, start->span, wider);
    if (!carried) return false;
    mlir::Location l = loc(start->span);
    mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(l, 1);
    auto op = builder_.create<mlir::scf::ForOp>(l, *lo, *hi, one, carried->init);
    erase = [op]() mutable { op.erase(); };
    // Carrying nothing (a body that assigns only compile-time values), the
    // builder has given the body its empty yield: ours replaces it.
    if (!op.getBody()->empty()) op.getBody()->back().erase();
    mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
    builder_.setInsertionPointToStart(op.getBody());
    bindCarried(*carried, op.getRegionIterArgs());
    check::Type iterType = typeOf(start);
    ast::ScalarType dt = ast::ScalarType::I64;
    if (iterType.isTensor())
      if (auto d = concreteDType(iterType.dtype(), start->span)) dt = *d;
    mlir::Value i = builder_.create<mlir::arith::IndexCastOp>(l, elementType(dt), op.getInductionVar());
    check::Type it = scalarTypeOf(dt);
    // Inside notation the variable is a scalar element.
    bool ok = bindVariable(notation_ ? Val::element(i, it) : Val::tensor(emit::scalarTensor(builder_, l, i), it));
    ok = ok && lowerBody(body);
    if (ok && frame().returned) {
      unsupported(start->span, "`return` inside a loop whose bounds are known only at run time");
      ok = false;
    }
    auto next = ok ? currentCarried(*carried, start->span, wider) : std::nullopt;
    if (next) builder_.create<mlir::scf::YieldOp>(l, *next);
    builder_.restoreInsertionPoint(after);
    if (!next) return false;
    bindCarried(*carried, op.getResults());
    return true;
  });
}

// `for i in A..B { ...; yield e }`: an `scf.for` that writes each yield
// into row `i - A` of the stacked result (one accumulator per tuple part),
// carrying what the body assigns like any loop.
Result Lowerer::lowerScan(const ast::ForScanExpr* scan) {
  check::Type stacked = typeOf(scan);
  // A yielded tuple is stacked part by part, nested tuples too (`yield ((a,
  // i), b)` gives `((A, I), B)` of stacked parts): the loop carries the
  // leaves, in order.
  std::vector<check::Type> parts;
  std::function<void(const check::Type&)> leaves = [&](const check::Type& t) {
    if (t.kind() != check::TypeKind::Tuple) return parts.push_back(t);
    for (const check::Type& e : t.elements()) leaves(e);
  };
  leaves(stacked);
  // The yielded value's leaves, shaped as the stacked type's: false if not.
  std::function<bool(const Val&, const check::Type&, std::vector<Val>&)> yieldedLeaves =
      [&](const Val& v, const check::Type& t, std::vector<Val>& out) {
        if (t.kind() != check::TypeKind::Tuple) {
          out.push_back(v);
          return true;
        }
        if (v.kind != Val::Kind::Tuple || v.elements.size() != t.elements().size()) return false;
        for (size_t k = 0; k < v.elements.size(); ++k)
          if (!yieldedLeaves(v.elements[k], t.elements()[k], out)) return false;
        return true;
      };
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
  Result stackedResult;
  bool settled = untilCarriedSettle(scan->span, [&](Widening& wider, std::function<void()>& erase) {
    auto carried = carriedBy(body, scan->span, wider);
    if (!carried) return false;
    mlir::Location l = loc(scan->span);
    // The accumulators come first among the loop's values.
    std::vector<mlir::Value> init;
    std::vector<mlir::RankedTensorType> accTypes;
    for (const check::Type& t : parts) {
      auto tt = tensorType(t, scan->span);
      auto dyn = tt ? dynamicDims(t, scan->span) : std::nullopt;
      if (!dyn) return false;
      accTypes.push_back(*tt);
      init.push_back(builder_.create<mlir::tensor::EmptyOp>(l, tt->getShape(), tt->getElementType(), *dyn));
    }
    init.insert(init.end(), carried->init.begin(), carried->init.end());
    mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(l, 1);
    auto op = builder_.create<mlir::scf::ForOp>(l, *lo, *hi, one, init);
    erase = [op]() mutable { op.erase(); };
    mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
    builder_.setInsertionPointToStart(op.getBody());
    auto iterArgs = op.getRegionIterArgs();
    bindCarried(*carried, iterArgs.drop_front(parts.size()));
    const Symbol* sym = module().symbolOf(scan->variable);
    SpanKey key = keyOf(sym ? sym->declSpan : scan->variable.span);
    mlir::Value iv = op.getInductionVar();
    mlir::Value i64 = builder_.create<mlir::arith::IndexCastOp>(l, builder_.getI64Type(), iv);
    frame().locals[key] =
        Val::tensor(emit::scalarTensor(builder_, l, i64), scalarTypeOf(ast::ScalarType::I64));
    bool ok = lowerBody(body);
    Result y = ok ? lowerExpr(yield->value) : std::nullopt;
    std::vector<Val> yielded;
    if (y && !yieldedLeaves(*y, stacked, yielded)) ok = false;
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
      auto rest = ok ? currentCarried(*carried, scan->span, wider) : std::nullopt;
      if (!rest) ok = false;
      else next.insert(next.end(), rest->begin(), rest->end());
    }
    if (ok && y) builder_.create<mlir::scf::YieldOp>(l, next);
    builder_.restoreInsertionPoint(after);
    if (!ok || !y) return false;
    bindCarried(*carried, op.getResults().drop_front(parts.size()));
    size_t leaf = 0;
    std::function<Val(const check::Type&)> rebuild = [&](const check::Type& t) {
      if (t.kind() != check::TypeKind::Tuple) {
        size_t k = leaf++;
        return Val::tensor(op.getResult(k), parts[k]);
      }
      Val tuple = Val::of(Val::Kind::Tuple);
      for (const check::Type& e : t.elements()) tuple.elements.push_back(rebuild(e));
      return tuple;
    };
    stackedResult = rebuild(stacked);
    return true;
  });
  if (!settled) return std::nullopt;
  return stackedResult;
}

Result Lowerer::lowerThrough(const ast::Expr* e, std::optional<check::Type> type,
                             const std::function<Result(const Val&)>& use) {
  while (auto* p = ast::as<ast::ParenExpr>(e)) e = p->inner;
  auto kind = typeOf(e).kind();
  if (kind == check::TypeKind::Block || kind == check::TypeKind::BlockArray) {
    ArmUse through{[&](const ast::Expr* value) { return lowerThrough(value, type, use); }, type};
    if (auto* choice = ast::as<ast::IfExpr>(e)) return lowerIf(choice, &through);
    if (auto* match = ast::as<ast::MatchExpr>(e)) return lowerMatch(match, &through);
    // A part of a block chosen on data is taken in each arm too.
    if (auto* m = ast::as<ast::MemberExpr>(e))
      return lowerThrough(m->base, type, [&](const Val& base) -> Result {
        auto part = memberOf(base, m);
        if (!part) return std::nullopt;
        return use(*part);
      });
    if (auto* index = ast::as<ast::IndexExpr>(e))
      return lowerThrough(index->base, type,
                          [&](const Val& array) { return useBlockArrayElement(array, index, use); });
  }
  auto v = lowerExpr(e);
  if (!v) return std::nullopt;
  return use(*v);
}

// The checker makes a block array's index a compile-time integer.
Result Lowerer::useBlockArrayElement(const Val& array, const ast::IndexExpr* e, const std::function<Result(const Val&)>& use) {
  if (array.kind != Val::Kind::BlockArray || e->components.size() != 1 || !e->components[0].value)
    return unsupported(e->span, "this index");
  auto i = lowerExpr(e->components[0].value);
  if (!i) return std::nullopt;
  auto c = i->kind == Val::Kind::Int ? i->dim.constantValue() : std::nullopt;
  if (!c || *c < 0 || *c >= array.count) return unsupported(e->span, "a block array index not known at build time");
  Val v = array;
  v.kind = Val::Kind::Block;
  v.path = array.path + "." + std::to_string(*c);
  return use(v);
}

Result Lowerer::lowerRuntimeIf(const ast::IfExpr* e, const Val& condition, const ArmUse* through) {
  auto cond = conditionValue(condition, e->condition->span);
  if (!cond) return std::nullopt;
  return lowerRuntimeChoice(*cond, e->span, armsType(e, through),
                            {[&] { return lowerArm(e->thenValue, through); }, e->thenValue->span},
                            {[&] { return lowerArm(e->elseValue, through); }, e->elseValue->span},
                            "an `if` on data whose branches");
}

// `match` on an optional whose presence is known only at run time: an
// `scf.if` on the presence, each branch the match on what is known there,
// `some(payload)` in the first and `none` in the second (so each picks its
// arm while lowering, like any match on an optional). A first arm that binds
// whatever comes (`o => ...`) takes the optional as it is.
Result Lowerer::lowerMaybeMatch(const ast::MatchExpr* e, const Val& s, const ArmUse* through) {
  const std::string what = "a `match` on an optional known only at run time";
  if (!e->arms.empty() && e->arms[0].pattern->kind == ast::PatternKind::Binding) {
    const Symbol* sym = module().symbolOf(e->arms[0].pattern->name);
    if (!(sym && sym->kind == SymbolKind::EnumVariant)) return lowerMatchOn(e, s, through);
  }
  auto cond = conditionValue(s.elements[0], e->scrutinee->span);
  if (!cond) return std::nullopt;
  Val some = Val::of(Val::Kind::Some);
  some.elements.push_back(s.elements[1]);
  return lowerRuntimeChoice(*cond, e->span, armsType(e, through),
                            {[&] { return lowerMatchOn(e, some, through); }, e->span},
                            {[&] { return lowerMatchOn(e, Val::of(Val::Kind::None), through); }, e->span},
                            what + " whose arms");
}

// `match` on an enum known only at run time, from arm `first` on: an
// `scf.if` on the index per variant arm, the last arm (or one binding the
// value) taken without a test, as the checker proved the match exhaustive.
Result Lowerer::lowerRuntimeEnumMatch(const ast::MatchExpr* e, const Val& s, size_t first, const ArmUse* through) {
  const std::string what = "a `match` on an enum known only at run time";
  for (size_t k = first; k < e->arms.size(); ++k) {
    const ast::MatchArm& arm = e->arms[k];
    const ast::Pattern* p = arm.pattern;
    const Symbol* sym = p->kind == ast::PatternKind::Binding ? module().symbolOf(p->name) : nullptr;
    if (!(sym && sym->kind == SymbolKind::EnumVariant)) {
      if (!bindPattern(p, s)) return std::nullopt;
      return lowerArm(arm.value, through);
    }
    if (k + 1 == e->arms.size()) return lowerArm(arm.value, through);
    auto index = enumIndex(s, e->scrutinee->span);
    if (!index) return std::nullopt;
    mlir::Location l = loc(arm.pattern->span);
    mlir::Value variant = builder_.create<mlir::arith::ConstantIntOp>(l, sym->variant, 32);
    mlir::Value cond = builder_.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq, *index, variant);
    return lowerRuntimeChoice(cond, e->span, armsType(e, through),
                              {[&] { return lowerArm(arm.value, through); }, arm.value->span},
                              {[&] { return lowerRuntimeEnumMatch(e, s, k + 1, through); }, e->span},
                              what + " whose arms");
  }
  return unsupported(e->span, what);
}

// The variant index of an enum value as an `i32` scalar tensor: its own for
// one known at run time, a constant for a known variant.
Result Lowerer::enumIndexTensor(const Val& v, Span at) {
  if (v.isRuntimeEnum()) return v.elements[0];
  check::Type i32 = scalarTypeOf(ast::ScalarType::I32);
  auto index = asTensor(Val::integer(shape::DimExpr::constant(v.variant)), i32, at);
  if (!index) return std::nullopt;
  return Val::tensor(*index, i32);
}

// The variant index of an enum value as an i32 scalar: a constant for a
// known variant, read from its tensor for one known at run time (inside
// notation an element, an input of the body: a tensor made in the body
// could not be read back).
std::optional<mlir::Value> Lowerer::enumIndex(const Val& v, Span at) {
  mlir::Location l = loc(at);
  if (!v.isRuntimeEnum()) return builder_.create<mlir::arith::ConstantIntOp>(l, v.variant, 32).getResult();
  if (notation_) return asElement(v.elements[0], ast::ScalarType::I32, at);
  return builder_.create<mlir::tensor::ExtractOp>(l, v.elements[0].value, mlir::ValueRange{}).getResult();
}

Result Lowerer::lowerRuntimeChoice(mlir::Value cond, Span at, std::optional<check::Type> type, const RuntimeArm& then,
                                   const RuntimeArm& otherwise, const std::string& what) {
  // Inside index notation the choice is per element.
  if (notation_) return lowerNotationChoice(cond, at, type.value_or(check::Type::error()), then, otherwise);
  mlir::Location l = loc(at);
  // The results are known only once both branches are lowered: they are
  // lowered into a result-less `scf.if`, whose regions then move to the real one.
  auto draft = builder_.create<mlir::scf::IfOp>(l, mlir::TypeRange{}, cond, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  std::map<SpanKey, Val> localsBefore = frame().locals;
  std::map<std::string, mlir::Value> stateBefore = state_;
  struct Branch {
    mlir::Block* block;
    Span span;
    Val value;
    std::map<SpanKey, Val> locals;
    std::map<std::string, mlir::Value> state;
  };
  std::vector<Branch> branches;
  bool ok = true;
  for (auto [region, arm] : {std::pair{&draft.getThenRegion(), &then}, std::pair{&draft.getElseRegion(), &otherwise}}) {
    mlir::Block* block = region->empty() ? builder_.createBlock(region) : &region->front();
    block->clear();  // the draft's implicit terminator
    builder_.setInsertionPointToEnd(block);
    auto v = arm->lower();
    branches.push_back({block, arm->span, v ? *v : Val(), frame().locals, state_});
    // Each branch starts from what was before the `if`; locals it declares end with it.
    frame().locals = localsBefore;
    state_ = stateBefore;
    if (!v) {
      ok = false;
      break;
    }
  }
  auto fail = [&]() -> Result {
    builder_.restoreInsertionPoint(after);
    draft.erase();
    return std::nullopt;
  };
  if (!ok) return fail();

  // What the `if` yields: its value, then each outer local either branch
  // assigned, then each state tensor either branch wrote. A template per
  // value keeps the compile-time parts; its tensor leaves are the results.
  const Branch& a = branches[0];
  const Branch& b = branches[1];
  std::vector<Val> templates;
  std::vector<std::pair<Val, Val>> values;
  std::string why;
  auto plan = planMerge(a.value, b.value, type, why);
  if (!plan) {
    fail();
    return unsupported(at, what + " " + why);
  }
  templates.push_back(*plan);
  values.emplace_back(a.value, b.value);
  auto same = [](const Val& x, const Val& y) {
    // A block (a `static for` element, a sub-block bound to a name) is the
    // same instance wherever its path is.
    auto isBlock = [](const Val& v) { return v.kind == Val::Kind::Block || v.kind == Val::Kind::BlockArray; };
    if (isBlock(x) || isBlock(y)) return x.kind == y.kind && x.path == y.path;
    std::string kx, ky;
    std::vector<mlir::Value> tx, ty;
    if (!structureKey(x, kx) || !structureKey(y, ky)) return false;
    collectTensors(x, tx);
    collectTensors(y, ty);
    return kx == ky && tx == ty;
  };
  std::vector<SpanKey> assigned;
  for (const auto& [key, before] : localsBefore) {
    const Val& x = a.locals.at(key);
    const Val& y = b.locals.at(key);
    if (same(x, before) && same(y, before)) continue;
    auto merged = planMerge(x, y, std::nullopt, why);
    if (!merged) {
      fail();
      return unsupported(at, what + " " + why + " (in a local they assign)");
    }
    assigned.push_back(key);
    templates.push_back(*merged);
    values.emplace_back(x, y);
  }
  std::vector<std::string> written;
  for (const auto& [path, before] : stateBefore)
    if (a.state.at(path) != before || b.state.at(path) != before) written.push_back(path);

  // Each branch's yield, converted to the template's leaf types.
  std::vector<mlir::Type> resultTypes;
  for (const Val& t : templates) {
    bool typed = forEachTensorLeaf(t, [&](const Val& v) {
      auto tt = tensorType(v.type, at);
      if (!tt) return false;
      resultTypes.push_back(*tt);
      return true;
    });
    if (!typed) return fail();
  }
  for (const std::string& path : written) resultTypes.push_back(stateBefore.at(path).getType());
  for (size_t side = 0; side < 2; ++side) {
    const Branch& br = branches[side];
    builder_.setInsertionPointToEnd(br.block);
    std::vector<mlir::Value> yielded;
    for (size_t k = 0; k < templates.size(); ++k) {
      auto x = flattenLike(templates[k], side == 0 ? values[k].first : values[k].second, br.span);
      if (!x) return fail();
      yielded.insert(yielded.end(), x->begin(), x->end());
    }
    for (const std::string& path : written) yielded.push_back(br.state.at(path));
    separateStateYields(builder_, l, yielded, yielded.size() - written.size());
    for (size_t k = 0; k < yielded.size(); ++k)
      if (yielded[k].getType() != resultTypes[k])
        yielded[k] = builder_.create<mlir::tensor::CastOp>(l, resultTypes[k], yielded[k]);
    builder_.create<mlir::scf::YieldOp>(l, yielded);
  }
  builder_.restoreInsertionPoint(after);
  auto op = fromDraft(builder_, draft, resultTypes);

  size_t next = 0;
  llvm::SmallVector<mlir::Value> results(op.getResults().begin(), op.getResults().end());
  Val value = refill(templates[0], results, next);
  for (size_t k = 0; k < assigned.size(); ++k) frame().locals[assigned[k]] = refill(templates[k + 1], results, next);
  for (const std::string& path : written) {
    state_[path] = results[next++];
    writesState_ = true;
  }
  return value;
}

// Inside notation the arms' values are elements (and enums of element
// indices): planned as a loop's carried value is (Tensor leaves standing for
// elements), each arm's leaves yielded as scalars of the leaf's dtype (an
// optional's presence too: an i1 element).
Result Lowerer::lowerNotationStructuredChoice(mlir::Value cond, Span span, const check::Type& type,
                                              const RuntimeArm& then, const RuntimeArm& otherwise) {
  mlir::Location l = loc(span);
  auto draft = builder_.create<mlir::scf::IfOp>(l, mlir::TypeRange{}, cond, /*withElseRegion=*/true);
  mlir::OpBuilder::InsertPoint after = builder_.saveInsertionPoint();
  auto fail = [&]() -> Result {
    builder_.restoreInsertionPoint(after);
    draft.erase();
    return std::nullopt;
  };
  Val values[2];
  mlir::Block* blocks[2];
  int side = 0;
  for (auto [region, arm] : {std::pair{&draft.getThenRegion(), &then}, std::pair{&draft.getElseRegion(), &otherwise}}) {
    mlir::Block* block = region->empty() ? builder_.createBlock(region) : &region->front();
    block->clear();  // the draft's implicit terminator
    builder_.setInsertionPointToEnd(block);
    std::map<SpanKey, Val> localsBefore = frame().locals;
    auto v = arm->lower();
    frame().locals = std::move(localsBefore);
    if (!v) return fail();
    values[side] = *v;
    blocks[side++] = block;
  }
  std::string why;
  auto plan = planMerge(withLeafKind(values[0], Val::Kind::Element, Val::Kind::Tensor),
                        withLeafKind(values[1], Val::Kind::Element, Val::Kind::Tensor), type, why);
  std::function<bool(const Val&)> flat = [&](const Val& v) {
    if (v.kind == Val::Kind::Block || v.kind == Val::Kind::BlockArray)
      return false;
    return std::all_of(v.elements.begin(), v.elements.end(), flat);
  };
  if (!plan || !flat(*plan)) {
    fail();
    return unsupported(span, "a choice inside index notation whose branches " + (plan ? "yield a block" : why));
  }
  std::vector<mlir::Type> types;
  for (int k = 0; k < 2; ++k) {
    builder_.setInsertionPointToEnd(blocks[k]);
    auto leaves = flattenLike(*plan, values[k], span);
    if (!leaves) return fail();
    if (k == 0)
      for (mlir::Value x : *leaves) types.push_back(x.getType());
    builder_.create<mlir::scf::YieldOp>(l, *leaves);
  }
  builder_.restoreInsertionPoint(after);
  auto op = fromDraft(builder_, draft, types);
  size_t next = 0;
  llvm::SmallVector<mlir::Value> results(op.getResults().begin(), op.getResults().end());
  return withLeafKind(refill(*plan, results, next), Val::Kind::Tensor, Val::Kind::Element);
}

}  // namespace linnet::lower
