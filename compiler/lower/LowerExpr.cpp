// Expressions outside index notation: names, literals, operators, calls,
// indexing and slicing, tuples, optionals and `match`. Literals and
// compile-time integers stay untyped values until a context gives them a
// dtype (the checker's rule, spec §1.7): the other operand, the expression's
// type, or the parameter or annotation they flow into.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/bind/CheckpointBinder.h"
#include "compiler/lower/LowerImpl.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/modules/ConstantValues.h"
#include "compiler/manifest/ProgramBlocks.h"

namespace linnet::lower {

bool isUnsignedScalar(ast::ScalarType s) {
  return s == ast::ScalarType::U8 || s == ast::ScalarType::U16 || s == ast::ScalarType::U32 ||
         s == ast::ScalarType::U64;
}

namespace {

std::optional<BinaryKind> binaryKind(ast::BinaryOp op, bool isBool) {
  switch (op) {
    case ast::BinaryOp::Or: return BinaryKind::Or;
    case ast::BinaryOp::And: return BinaryKind::And;
    case ast::BinaryOp::Eq: return BinaryKind::Eq;
    case ast::BinaryOp::Ne: return BinaryKind::Ne;
    case ast::BinaryOp::Lt: return BinaryKind::Lt;
    case ast::BinaryOp::Le: return BinaryKind::Le;
    case ast::BinaryOp::Gt: return BinaryKind::Gt;
    case ast::BinaryOp::Ge: return BinaryKind::Ge;
    case ast::BinaryOp::BitOr: return BinaryKind::Or;
    case ast::BinaryOp::BitXor: return BinaryKind::Xor;
    case ast::BinaryOp::BitAnd: return BinaryKind::And;
    case ast::BinaryOp::Add: return BinaryKind::Add;
    case ast::BinaryOp::Sub: return BinaryKind::Sub;
    case ast::BinaryOp::Mul: return BinaryKind::Mul;
    case ast::BinaryOp::Div: return BinaryKind::Div;
    case ast::BinaryOp::Rem: return BinaryKind::Rem;
  }
  return std::nullopt;
}

}  // namespace

std::nullopt_t Lowerer::unsupported(Span at, std::string what) {
  diagnostics_.emit(DiagnosticKind::NotCompilable, at, what)
      .label("the compiler cannot lower this yet")
      .help("docs/lowering.md lists what compiles; `linnet check` accepts the program");
  return std::nullopt;
}

// A value is made the dtype the checker gave its expression. They differ
// where numbers without a dtype were joined at run time (`if c { -1.0 } else
// { 1.0 }`, a `match` whose arms are literals: computed in f64 or i64, the
// widest of their kind) and the result then reached a typed place (`let w:
// f32 = ...`, a function's `-> f32`, an operand of an f32 operation).
Result Lowerer::lowerExpr(const ast::Expr* e) {
  // Inside a notation body (a function called there), a whole tensor, or a
  // tuple or struct of values, that uses nothing the body computes per
  // element (`softmax(w)`, `w * 2.0`, a scan over constants) is computed
  // once, before the notation, and read there as any outside tensor.
  if (notation_) {
    check::Type t = typeOf(e);
    bool whole = (t.isTensor() && !t.isScalar()) || t.kind() == check::TypeKind::Tuple ||
                 t.kind() == check::TypeKind::Struct;
    if (whole && !usesPerElementValues(e)) return outsideNotation([&] { return lowerExpr(e); });
    // One that does is computed in the body, once per element, as tensors.
    if (t.isTensor() && !t.isScalar()) return tensorsInNotationBody([&] { return lowerExpr(e); });
  } else if (bodyNotation_) {
    // Inside such a tensor, a scalar the body computes per element (the
    // function's parameter, an access at the notation's indices) is that
    // element, as a 0-d tensor.
    check::Type t = typeOf(e);
    if (t.isTensor() && t.isScalar()) {
      NotationState* n = bodyNotation_;
      bodyNotation_ = nullptr;
      notation_ = n;
      Result r = usesPerElementValues(e) ? lowerExpr(e) : Result(Val::of(Val::Kind::None));
      notation_ = nullptr;
      bodyNotation_ = n;
      if (!r) return std::nullopt;
      if (r->kind == Val::Kind::Element)
        return Val::tensor(emit::scalarTensor(builder_, loc(e->span), r->value), r->type);
      if (r->kind != Val::Kind::None) return r;
    }
  }
  Result r = lowerExprAsIs(e);
  if (!r || (r->kind != Val::Kind::Tensor && r->kind != Val::Kind::Element)) return r;
  check::Type t = typeOf(e);
  return t.isTensor() ? inDType(*r, t.dtype(), e->span) : r;
}

Result Lowerer::inDType(const Val& v, const check::DType& to, Span at) {
  if (v.kind != Val::Kind::Tensor && v.kind != Val::Kind::Element) return v;
  if (!v.type.isTensor() || v.type.dtype() == to) return v;
  check::DType from = v.type.dtype();
  if (to.isGeneric() || from.isGeneric()) return v;
  mlir::Location l = loc(at);
  bool unsignedIn = isUnsignedScalar(from.scalar), unsignedOut = isUnsignedScalar(to.scalar);
  check::Type casted = v.type.withDType(to);
  if (v.kind == Val::Kind::Element)
    return Val::element(emit::scalarCast(builder_, l, v.value, elementType(to.scalar), unsignedIn, unsignedOut),
                        casted);
  auto tt = tensorType(casted, at);
  if (!tt) return std::nullopt;
  return Val::tensor(emit::cast(builder_, l, v.value, *tt, unsignedIn, unsignedOut), casted);
}

Result Lowerer::lowerExprAsIs(const ast::Expr* e) {
  switch (e->kind) {
    case ast::ExprKind::IntLiteral:
      return Val::integer(shape::DimExpr::constant(
          static_cast<int64_t>(static_cast<const ast::IntLiteralExpr*>(e)->value)));
    case ast::ExprKind::FloatLiteral:
      return Val::floating(static_cast<const ast::FloatLiteralExpr*>(e)->value);
    case ast::ExprKind::BoolLiteral:
      return Val::boolean(static_cast<const ast::BoolLiteralExpr*>(e)->value);
    case ast::ExprKind::NoneLiteral: return Val::of(Val::Kind::None);
    case ast::ExprKind::StringLiteral: return unsupported(e->span, "a string");
    case ast::ExprKind::Name: return lowerName(static_cast<const ast::NameExpr*>(e));
    case ast::ExprKind::Some: {
      auto inner = lowerExpr(static_cast<const ast::SomeExpr*>(e)->value);
      if (!inner) return std::nullopt;
      Val v = Val::of(Val::Kind::Some);
      v.elements.push_back(*inner);
      return v;
    }
    case ast::ExprKind::Unary: return lowerUnary(static_cast<const ast::UnaryExpr*>(e));
    case ast::ExprKind::Binary: return lowerBinary(static_cast<const ast::BinaryExpr*>(e));
    case ast::ExprKind::Call: return lowerCall(static_cast<const ast::CallExpr*>(e));
    case ast::ExprKind::Index:
      if (notation_) return lowerAccess(static_cast<const ast::IndexExpr*>(e));
      return lowerIndex(static_cast<const ast::IndexExpr*>(e));
    case ast::ExprKind::Member: {
      auto* m = static_cast<const ast::MemberExpr*>(e);
      // `Mode.Double` and `config.WINDOW` name items: the base is no value.
      if (const Symbol* s = module().symbolOf(m->member)) {
        if (s->kind == SymbolKind::EnumVariant) {
          Val v = Val::of(Val::Kind::Enum);
          v.enumItem = ast::as<ast::EnumItem>(s->item);
          v.variant = s->variant;
          return v;
        }
        if (s->kind == SymbolKind::Item && s->module)
          if (auto* c = ast::as<ast::ConstItem>(s->item)) return lowerConst(*s->module, *c, e->span);
      }
      // `kinds.Mode.B`: the base names an enum through its module.
      if (auto* path = ast::as<ast::MemberExpr>(m->base))
        if (const Symbol* s = module().symbolOf(path->member); s && s->kind == SymbolKind::Item)
          if (auto* en = ast::as<ast::EnumItem>(s->item))
            for (size_t i = 0; i < en->variants.size(); ++i)
              if (en->variants[i].name == m->member.name) {
                Val v = Val::of(Val::Kind::Enum);
                v.enumItem = en;
                v.variant = static_cast<uint32_t>(i);
                return v;
              }
      // A member of a block chosen on data is read in each branch.
      return lowerThrough(m->base, typeOf(e), [&](const Val& base) { return memberOf(base, m); });
    }
    case ast::ExprKind::Tuple: {
      Val v = Val::of(Val::Kind::Tuple);
      for (const ast::Expr* x : static_cast<const ast::TupleExpr*>(e)->elements) {
        auto part = lowerExpr(x);
        if (!part) return std::nullopt;
        v.elements.push_back(*part);
      }
      return v;
    }
    case ast::ExprKind::ShapeLiteral: return unsupported(e->span, "a shape used as a value");
    case ast::ExprKind::Reduction: return lowerReduction(static_cast<const ast::ReductionExpr*>(e));
    case ast::ExprKind::If: return lowerIf(static_cast<const ast::IfExpr*>(e));
    case ast::ExprKind::Match: return lowerMatch(static_cast<const ast::MatchExpr*>(e));
    case ast::ExprKind::Paren: return lowerExpr(static_cast<const ast::ParenExpr*>(e)->inner);
    case ast::ExprKind::ForScan:
      if (notation_) return unsupported(e->span, "a scan inside index notation");
      return lowerScan(static_cast<const ast::ForScanExpr*>(e));
  }
  return unsupported(e->span, "this expression");
}

Result Lowerer::lowerName(const ast::NameExpr* e) {
  const Symbol* s = module().symbolOf(e->name);
  if (!s) return unsupported(e->span, fmt::format("the unresolved name `{}`", e->name.name));
  switch (s->kind) {
    case SymbolKind::Param: {
      const auto& params = frame().item->params;
      for (size_t i = 0; i < params.size() && i < frame().params.size(); ++i)
        if (&params[i] == s->param) return frame().params[i];
      break;
    }
    case SymbolKind::Local: {
      auto it = frame().locals.find(keyOf(s->declSpan));
      if (it != frame().locals.end()) return it->second;
      break;
    }
    case SymbolKind::Generic:
      if (s->generic && !s->generic->isPack && s->generic->constraint == ast::GenericKind::Dim)
        return Val::integer(shape::instantiate(check::dimSymbol(*s->generic), frame().subst.shapes));
      break;
    case SymbolKind::Member: return lowerMemberOfBlock(selfBlock(), e->name, module(), e->span);
    case SymbolKind::Item:
      if (auto* c = s->item && s->module ? ast::as<ast::ConstItem>(s->item) : nullptr)
        return lowerConst(*s->module, *c, e->span);
      break;
    case SymbolKind::EnumVariant: {
      Val v = Val::of(Val::Kind::Enum);
      v.enumItem = ast::as<ast::EnumItem>(s->item);
      v.variant = s->variant;
      return v;
    }
    default: break;
  }
  return unsupported(e->span, fmt::format("the name `{}` as a value here", e->name.name));
}

// A folded constant as a compile-time value (no dtype yet).
static Val numberVal(const ConstantNumber& n) {
  if (n.kind == ConstantNumber::Kind::Bool) return Val::boolean(n.integer != 0);
  if (n.kind == ConstantNumber::Kind::Float) return Val::floating(n.real);
  return Val::integer(shape::DimExpr::constant(n.integer));
}

Result Lowerer::lowerConst(const Module& m, const ast::ConstItem& c, Span at) {
  // Inside index notation a typed constant is a rank-0 tensor: built before
  // the notation op and captured by it, like any scalar tensor.
  if (notation_) return outsideNotation([&] { return lowerConst(m, c, at); });
  if (++depth_ > 256) {
    --depth_;
    return unsupported(at, "constants nested this deep");
  }
  // A typed scalar constant: valued from config.json at binding (no checked
  // type depends on its value), or folded (ConstantValues.h), since its
  // initializer belongs to no checked function whose types could lower it.
  if (auto* st = ast::as<ast::ScalarTypeNode>(c.type)) {
    std::optional<ConstantNumber> value;
    for (const bind::BoundConstant& bound : inputs_.constants) {
      if (bound.item != &c) continue;
      if (bound.dtype == ast::ScalarType::Bool) value = ConstantNumber{ConstantNumber::Kind::Bool, bound.integer, 0};
      else if (check::isFloat(check::DType::of(bound.dtype))) value = ConstantNumber{ConstantNumber::Kind::Float, 0, bound.real};
      else value = ConstantNumber{ConstantNumber::Kind::Integer, bound.integer, 0};
    }
    if (!value) value = foldConstant(m, c);
    if (value) {
      --depth_;
      // A `bool` constant stays known at build time: an `if` on it picks
      // its branch while lowering.
      Val literal = numberVal(*value);
      if (literal.kind == Val::Kind::Bool) return literal;
      auto t = asScalarTensor(literal, st->scalar, at);
      if (!t) return std::nullopt;
      return Val::tensor(*t, scalarTypeOf(st->scalar));
    }
  }
  // An untyped constant that folds (`shl(1, 40)`, `max(2, 5) + 1`) is its
  // number; the calls in its initializer belong to no checked function.
  if (!c.type)
    if (std::optional<ConstantNumber> value = foldConstant(m, c)) {
      --depth_;
      return numberVal(*value);
    }
  // A const is an expression of its own module, typed by the checker where it
  // is used (a compile-time integer carries its value in its type).
  // A block's const may use the block's generics (`const C = H / 2`): it
  // is read with the reading frame's values of them.
  Frame f;
  f.module = &m;
  f.fn = nullptr;
  if (!frames_.empty()) f.subst = frame().subst;
  Result r;
  {
    FrameGuard g(*this, f);
    r = lowerExpr(c.value);
  }
  --depth_;
  if (!r || !c.type) return r;
  if (auto* st = ast::as<ast::ScalarTypeNode>(c.type)) {
    auto t = asScalarTensor(*r, st->scalar, at);
    if (!t) return std::nullopt;
    return Val::tensor(*t, scalarTypeOf(st->scalar));
  }
  return r;
}

Result Lowerer::memberOf(const Val& base, const ast::MemberExpr* m) {
  Span at = m->span;
  if (base.kind == Val::Kind::Block) return lowerMemberOfBlock(base, m->member, module(), at);
  if (base.kind == Val::Kind::Struct && base.structItem) {
    for (size_t i = 0; i < base.structItem->fields.size(); ++i)
      if (base.structItem->fields[i].name.name == m->member.name) return base.elements[i];
  }
  if (const Symbol* s = module().symbolOf(m->member)) {
    if (s->kind == SymbolKind::Item && s->module)
      if (auto* c = ast::as<ast::ConstItem>(s->item)) return lowerConst(*s->module, *c, at);
    if (s->kind == SymbolKind::EnumVariant) {
      Val v = Val::of(Val::Kind::Enum);
      v.enumItem = ast::as<ast::EnumItem>(s->item);
      v.variant = s->variant;
      return v;
    }
  }
  return unsupported(at, fmt::format("the member `{}` here", m->member.name));
}

Result Lowerer::lowerMemberOfBlock(const Val& self, const ast::Ident& name, const Module& m, Span at) {
  if (!self.block) return unsupported(at, fmt::format("the member `{}`", name.name));
  const ast::MemberItem* member = nullptr;
  for (const ast::Item* item : self.block->body)
    if (auto* mi = ast::as<ast::MemberItem>(item); mi && mi->name.name == name.name) member = mi;
  if (!member) return unsupported(at, fmt::format("the member `{}`", name.name));
  std::string path = self.path.empty() ? name.name : self.path + "." + name.name;
  switch (member->member) {
    case ast::MemberKind::Param:
    case ast::MemberKind::Buffer: {
      auto it = parameterArgs_.find(path);
      bool optional = ast::isa<ast::OptionalTypeNode>(member->type);
      if (it == parameterArgs_.end()) {
        if (optional) return Val::of(Val::Kind::None);
        return unsupported(at, fmt::format("the parameter `{}`, which no checkpoint binds,", path));
      }
      auto type = mlir::cast<mlir::RankedTensorType>(it->second.getType());
      const TensorSlot* slot = nullptr;
      for (const TensorSlot& p : inputs_.parameters)
        if (p.path == path) slot = &p;
      if (!slot) return unsupported(at, fmt::format("the parameter `{}`, which no checkpoint binds,", path));
      shape::Shape shape;
      for (int64_t d : type.getShape()) shape.push_back(shape::DimExpr::constant(d));
      Val v = Val::tensor(it->second, check::Type::tensor(shape, check::DType::of(slot->dtype)));
      if (!optional) return v;
      Val some = Val::of(Val::Kind::Some);
      some.elements.push_back(v);
      return some;
    }
    case ast::MemberKind::State: {
      auto it = state_.find(path);
      if (it == state_.end()) return unsupported(at, fmt::format("the state `{}`, which is not sized", path));
      readsState_ = true;
      return Val::tensor(it->second, stateType(path));
    }
    case ast::MemberKind::Sub: {
      // The member's checked type, in the entry's terms: the sub-block's
      // generic arguments, and an array's length.
      const check::CheckedBlock* checked = inputs_.checked->blockOf(self.block);
      auto mt = checked ? checked->members.find(member) : decltype(checked->members.end()){};
      if (!checked || mt == checked->members.end() || !self.blockSubst)
        return unsupported(at, fmt::format("the sub-block `{}`", path));
      check::Type type = check::instantiate(mt->second, *self.blockSubst);
      bool optional = type.kind() == check::TypeKind::Optional;
      if (optional) type = type.optionalInner();
      if (type.kind() != check::TypeKind::Block && type.kind() != check::TypeKind::BlockArray)
        return unsupported(at, fmt::format("the sub-block `{}`", path));
      Val v = Val::of(type.kind() == check::TypeKind::Block ? Val::Kind::Block : Val::Kind::BlockArray);
      v.path = path;
      v.block = type.blockInstance()->block;
      v.blockModule = type.blockInstance()->module;
      v.blockSubst = std::make_shared<const check::Substitution>(type.blockInstance()->args);
      if (v.kind == Val::Kind::BlockArray) {
        auto count = type.arrayCount().constantValue();
        if (!count || *count < 0) return unsupported(at, fmt::format("the block array `{}` of unknown length", path));
        v.count = *count;
      }
      if (optional) {
        // An optional sub is present when the binder bound its parameters.
        bool present = false;
        for (const TensorSlot& p : inputs_.parameters)
          if (p.path.rfind(path + ".", 0) == 0) present = true;
        if (!present) return Val::of(Val::Kind::None);
        Val some = Val::of(Val::Kind::Some);
        some.elements.push_back(v);
        return some;
      }
      return v;
    }
  }
  return unsupported(at, fmt::format("the member `{}`", name.name));
}

Val Lowerer::selfBlock() const {
  Val self = Val::of(Val::Kind::Block);
  self.path = frame().blockPath;
  self.block = frame().block;
  self.blockModule = frame().module;
  self.blockSubst = std::make_shared<const check::Substitution>(frame().subst);
  return self;
}

bool Lowerer::collectState(const Val& self, std::vector<TensorSlot>& out, Span at) {
  const check::CheckedBlock* checked = inputs_.checked->blockOf(self.block);
  if (!checked) return false;
  for (const ast::Item* item : self.block->body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member) continue;
    std::string path = self.path.empty() ? member->name.name : self.path + "." + member->name.name;
    if (member->member == ast::MemberKind::State) {
      auto mt = checked->members.find(member);
      if (mt == checked->members.end()) return false;
      check::Type t = check::instantiate(mt->second, *self.blockSubst);
      // Evaluated as the binder sizes state with a checkpoint (bind::
      // evaluateShape, at the root values), so both builds agree on sizes.
      shape::Values values = bind::dimValues(*inputs_.root.block, inputs_.generics);
      std::vector<int64_t> shape;
      bool known = t.isTensor();
      // Why an extent has no size: an unbound generic, or one whose value
      // overflows (`H * H * H` at H = 2^21 was "not fixed" by the generics).
      std::string why;
      if (known)
        for (size_t k = 0; k < t.shape().size(); ++k) {
          const auto* dim = std::get_if<shape::DimExpr>(&t.shape()[k]);
          shape::Evaluation e = dim ? shape::evaluate(*dim, values) : shape::Evaluation{};
          if (known && dim && !e.value && (dim->overflowed() || e.error.find("overflow") != std::string::npos))
            why = fmt::format("whose extent `{}` overflows 64 bits at the root generics' values",
                              shape::str(mt->second.shape()[k]));
          if (known && e.value && *e.value < 0)
            why = fmt::format("whose extent `{}` is {} at the root generics' values",
                              shape::str(mt->second.shape()[k]), *e.value);
          known = known && e.value && *e.value >= 0;
          shape.push_back(e.value.value_or(0));
        }
      auto dtype = t.isTensor() ? bind::evaluateDType(t.dtype(), inputs_.generics) : std::nullopt;
      if (known && dtype) {
        uint64_t bytes = bind::scalarSize(*dtype);
        for (int64_t extent : shape)
          if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes) || bytes > uint64_t{INT64_MAX}) {
            why = fmt::format("whose byte size, {} elements of {}, passes 2^63",
                              fmt::join(shape, " x "), check::DType::of(*dtype).str());
            known = false;
            break;
          }
      }
      if (!known || !dtype) {
        unsupported(member->name.span, why.empty() ? fmt::format("the state `{}`, whose size the root generics do "
                                                                 "not fix",
                                                                 path)
                                                   : fmt::format("the state `{}`, {},", path, why));
        return false;
      }
      out.push_back(TensorSlot{path, *dtype, shape, "", std::nullopt});
    }
    if (member->member != ast::MemberKind::Sub) continue;
    auto sub = lowerMemberOfBlock(self, member->name, *self.blockModule, at);
    if (!sub) return false;
    Val v = sub->kind == Val::Kind::Some ? sub->elements[0] : *sub;
    if (v.kind == Val::Kind::Block && !collectState(v, out, at)) return false;
    if (v.kind != Val::Kind::BlockArray) continue;
    // As the binder bounds arrays with a checkpoint: without one, a hostile
    // `--bind L=10^11` must not enumerate its state.
    using bind::kMaxArrayLength;
    constexpr int64_t kMaxBlocks = bind::kMaxConcretePaths;
    auto* array = ast::as<ast::ArrayTypeNode>(member->type);
    std::string length = array && array->count ? ast::printExpr(array->count) : path;
    if (v.count > kMaxArrayLength) {
      diagnostics_.emit(DiagnosticKind::InvalidBindingValue, member->type->span, length, "Dim",
                        std::to_string(v.count),
                        "an array length must be between 0 and " + std::to_string(kMaxArrayLength));
      return false;
    }
    for (int64_t i = 0; i < v.count; ++i) {
      Val element = v;
      element.kind = Val::Kind::Block;
      element.path = v.path + "." + std::to_string(i);
      if (++collectedBlocks_ > kMaxBlocks) {
        diagnostics_.emit(DiagnosticKind::InvalidBindingValue, member->type->span, length, "Dim",
                          std::to_string(v.count),
                          "the model would have more than " + std::to_string(kMaxBlocks) + " blocks in arrays");
        return false;
      }
      if (!collectState(element, out, at)) return false;
    }
  }
  return true;
}

std::optional<mlir::Value> Lowerer::asScalarTensor(const Val& v, ast::ScalarType d, Span at) {
  return asTensor(v, scalarTypeOf(d), at);
}

check::Type Lowerer::stateType(const std::string& path) const {
  auto type = mlir::cast<mlir::RankedTensorType>(state_.at(path).getType());
  ast::ScalarType dtype = ast::ScalarType::F32;
  for (const TensorSlot& p : stateSlots_)
    if (p.path == path) dtype = p.dtype;
  shape::Shape shape;
  for (int64_t d : type.getShape()) shape.push_back(shape::DimExpr::constant(d));
  return check::Type::tensor(shape, check::DType::of(dtype));
}

std::optional<mlir::Value> Lowerer::asTensor(const Val& v, const check::Type& type, Span at) {
  auto tt = tensorType(type, at);
  if (!tt) return std::nullopt;
  if (v.kind == Val::Kind::Tensor) {
    auto have = mlir::cast<mlir::RankedTensorType>(v.value.getType());
    if (have.getElementType() == tt->getElementType()) return v.value;
    // Only an untyped value computed at run time (an `if` of literals) gets here.
    auto dt = concreteDType(type.dtype(), at);
    auto from = v.type.isTensor() ? concreteDType(v.type.dtype(), at) : std::nullopt;
    if (!dt || !from) return std::nullopt;
    auto castType = mlir::RankedTensorType::get(have.getShape(), tt->getElementType());
    auto isU = [](ast::ScalarType s) {
      return s == ast::ScalarType::U8 || s == ast::ScalarType::U16 || s == ast::ScalarType::U32 ||
             s == ast::ScalarType::U64;
    };
    return emit::cast(builder_, loc(at), v.value, castType, isU(*from), isU(*dt));
  }
  mlir::Type el = tt->getElementType();
  mlir::Location l = loc(at);
  mlir::Value scalar;
  if (v.kind == Val::Kind::Element) {
    scalar = v.value;
  } else if (v.kind == Val::Kind::Float) {
    if (!mlir::isa<mlir::FloatType>(el))
      return unsupported(at, "a float literal where an integer is needed");
    scalar = builder_.create<mlir::arith::ConstantOp>(l, builder_.getFloatAttr(el, v.number));
  } else if (v.kind == Val::Kind::Bool) {
    scalar = builder_.create<mlir::arith::ConstantOp>(l, builder_.getIntegerAttr(el, v.flag ? 1 : 0));
  } else if (v.kind == Val::Kind::Int) {
    if (auto c = v.dim.constantValue()) {
      if (mlir::isa<mlir::FloatType>(el))
        scalar = builder_.create<mlir::arith::ConstantOp>(l, builder_.getFloatAttr(el, double(*c)));
      else
        scalar = builder_.create<mlir::arith::ConstantOp>(l, builder_.getIntegerAttr(el, *c));
    } else {
      auto index = dimValue(v.dim, at);
      if (!index) return std::nullopt;
      mlir::Value i64 = builder_.create<mlir::arith::IndexCastOp>(l, builder_.getI64Type(), *index);
      scalar = emit::scalarCast(builder_, l, i64, el, false, false);
    }
  } else {
    return unsupported(at, "a value of this kind where a tensor is needed");
  }
  if (notation_) return scalar;  // inside a notation body elements stay scalars
  mlir::Value t = emit::scalarTensor(builder_, l, scalar);
  if (tt->getRank() == 0) return t;
  auto dims = dynamicDims(type, at);
  if (!dims) return std::nullopt;
  return emit::fill(builder_, l, t, *tt, *dims);
}

Result Lowerer::lowerUnary(const ast::UnaryExpr* e) {
  auto x = lowerExpr(e->operand);
  if (!x) return std::nullopt;
  switch (e->op) {
    case ast::UnaryOp::Plus: return x;
    case ast::UnaryOp::Negate:
      if (x->kind == Val::Kind::Int) return Val::integer(-x->dim);
      if (x->kind == Val::Kind::Float) return Val::floating(-x->number);
      break;
    case ast::UnaryOp::Not:
      if (x->kind == Val::Kind::Bool) return Val::boolean(!x->flag);
      break;
  }
  if (!x->isData()) return unsupported(e->span, "this operand");
  UnaryKind k = e->op == ast::UnaryOp::Not ? UnaryKind::Not : UnaryKind::Neg;
  // An untyped operand computed at run time keeps its own (widest) type.
  check::Type t = typeOf(e);
  if (!t.isTensor()) t = x->type;
  if (x->kind == Val::Kind::Element)
    return Val::element(emit::scalarUnary(builder_, loc(e->span), k, x->value), t);
  if (notation_) {
    // A scalar from outside the body (`-t`, `!flag`, `-s.k`, a parameter of
    // a function called there): read as an element, as a binary operator's
    // operands are; a tensor op here would use a value from outside the body.
    auto d = t.isTensor() ? concreteDType(t.dtype(), e->span) : std::nullopt;
    auto element = d ? asElement(*x, *d, e->operand->span) : std::nullopt;
    if (!element) return std::nullopt;
    return Val::element(emit::scalarUnary(builder_, loc(e->span), k, *element), t);
  }
  return Val::tensor(emit::unary(builder_, loc(e->span), k, x->value), t);
}

std::optional<check::DType> Lowerer::scalarFieldDType(const check::Type& structType, size_t field) const {
  const ast::TypeNode* declared = structType.structItem()->fields[field].type;
  if (auto* scalar = ast::as<ast::ScalarTypeNode>(declared)) return check::DType::of(scalar->scalar);
  auto* named = ast::as<ast::NamedTypeNode>(declared);
  if (!named || named->path.size() != 1 || named->hasGenericArgs) return std::nullopt;
  for (const ast::GenericParam& g : structType.structItem()->generics)
    if (g.name.name == named->path[0].name) {
      auto it = structType.structArgs().dtypes.find(&g);
      if (it != structType.structArgs().dtypes.end()) return instantiate(check::Type::scalar(it->second)).dtype();
    }
  return std::nullopt;
}

static bool isComparison(ast::BinaryOp op) {
  switch (op) {
    case ast::BinaryOp::Eq:
    case ast::BinaryOp::Ne:
    case ast::BinaryOp::Lt:
    case ast::BinaryOp::Le:
    case ast::BinaryOp::Gt:
    case ast::BinaryOp::Ge: return true;
    default: return false;
  }
}

Result Lowerer::lowerBinary(const ast::BinaryExpr* e) {
  auto l = lowerExpr(e->lhs);
  auto r = l ? lowerExpr(e->rhs) : std::nullopt;
  if (!r) return std::nullopt;
  // Both untyped: compile-time arithmetic.
  if (!l->isData() && !r->isData()) {
    if (l->kind == Val::Kind::Int && r->kind == Val::Kind::Int) {
      const shape::DimExpr &a = l->dim, &b = r->dim;
      auto ca = a.constantValue(), cb = b.constantValue();
      switch (e->op) {
        case ast::BinaryOp::Add: return Val::integer(a + b);
        case ast::BinaryOp::Sub: return Val::integer(a - b);
        case ast::BinaryOp::Mul: return Val::integer(a * b);
        // As values divide: toward zero, total (a shape's floor division
        // is the same wherever the checker allows it: operands >= 0).
        case ast::BinaryOp::Div: return Val::integer(shape::DimExpr::truncatingDivision(a, b, false));
        case ast::BinaryOp::Rem: return Val::integer(shape::DimExpr::truncatingDivision(a, b, true));
        default:
          if (ca && cb) {
            switch (e->op) {
              case ast::BinaryOp::Eq: return Val::boolean(*ca == *cb);
              case ast::BinaryOp::Ne: return Val::boolean(*ca != *cb);
              case ast::BinaryOp::Lt: return Val::boolean(*ca < *cb);
              case ast::BinaryOp::Le: return Val::boolean(*ca <= *cb);
              case ast::BinaryOp::Gt: return Val::boolean(*ca > *cb);
              case ast::BinaryOp::Ge: return Val::boolean(*ca >= *cb);
              case ast::BinaryOp::BitAnd: return Val::integer(shape::DimExpr::constant(*ca & *cb));
              case ast::BinaryOp::BitOr: return Val::integer(shape::DimExpr::constant(*ca | *cb));
              case ast::BinaryOp::BitXor: return Val::integer(shape::DimExpr::constant(*ca ^ *cb));
              default: break;
            }
          }
          break;
      }
    }
    auto num = [](const Val& v, double& out) {
      if (v.kind == Val::Kind::Float) out = v.number;
      else if (v.kind == Val::Kind::Int && v.dim.constantValue()) out = double(*v.dim.constantValue());
      else return false;
      return true;
    };
    double a = 0, b = 0;
    if ((l->kind == Val::Kind::Float || r->kind == Val::Kind::Float) && num(*l, a) && num(*r, b)) {
      switch (e->op) {
        case ast::BinaryOp::Add: return Val::floating(a + b);
        case ast::BinaryOp::Sub: return Val::floating(a - b);
        case ast::BinaryOp::Mul: return Val::floating(a * b);
        case ast::BinaryOp::Div: return Val::floating(a / b);
        case ast::BinaryOp::Lt: return Val::boolean(a < b);
        case ast::BinaryOp::Le: return Val::boolean(a <= b);
        case ast::BinaryOp::Gt: return Val::boolean(a > b);
        case ast::BinaryOp::Ge: return Val::boolean(a >= b);
        case ast::BinaryOp::Eq: return Val::boolean(a == b);
        case ast::BinaryOp::Ne: return Val::boolean(a != b);
        default: break;
      }
    }
    // `==`/`!=` of two enum values: decided here when both variants are
    // known, else a comparison of their indices (a `bool` scalar).
    if (l->kind == Val::Kind::Enum && r->kind == Val::Kind::Enum &&
        (e->op == ast::BinaryOp::Eq || e->op == ast::BinaryOp::Ne)) {
      if (!l->isRuntimeEnum() && !r->isRuntimeEnum()) {
        bool same = l->enumItem == r->enumItem && l->variant == r->variant;
        return Val::boolean(e->op == ast::BinaryOp::Eq ? same : !same);
      }
      // Inside notation the indices are elements, and so is the comparison.
      auto a = enumIndex(*l, e->lhs->span);
      auto b = enumIndex(*r, e->rhs->span);
      if (!a || !b) return std::nullopt;
      mlir::Location at = loc(e->span);
      auto predicate = e->op == ast::BinaryOp::Eq ? mlir::arith::CmpIPredicate::eq : mlir::arith::CmpIPredicate::ne;
      mlir::Value flag = builder_.create<mlir::arith::CmpIOp>(at, predicate, *a, *b);
      if (notation_) return Val::element(flag, scalarTypeOf(ast::ScalarType::Bool));
      return Val::tensor(emit::scalarTensor(builder_, at, flag),
                         scalarTypeOf(ast::ScalarType::Bool));
    }
    if (l->kind == Val::Kind::Bool && r->kind == Val::Kind::Bool) {
      switch (e->op) {
        case ast::BinaryOp::And:
        case ast::BinaryOp::BitAnd: return Val::boolean(l->flag && r->flag);
        case ast::BinaryOp::Or:
        case ast::BinaryOp::BitOr: return Val::boolean(l->flag || r->flag);
        case ast::BinaryOp::BitXor:
        case ast::BinaryOp::Ne: return Val::boolean(l->flag != r->flag);
        case ast::BinaryOp::Eq: return Val::boolean(l->flag == r->flag);
        default: break;
      }
    }
    // Compile-time integers compared with runtime-only dims: computed as data.
  }
  // Untyped operands of which one is computed at run time: computed in the
  // widest type of their kind.
  check::Type result = computedLiteralType(typeOf(e));
  if (!result.isTensor()) return unsupported(e->span, "this operator on these operands");
  // The operands' dtype: the typed operand's (comparisons), else the result's;
  // a comparison of two numbers without a dtype (a dimension known only at
  // run time and a literal: `N > 2`) compares them as i64 (f64 with a float).
  check::Type lt = typeOf(e->lhs), rt = typeOf(e->rhs);
  check::DType operand = result.dtype();
  if (lt.isTensor()) operand = lt.dtype();
  else if (rt.isTensor()) operand = rt.dtype();
  else if (isComparison(e->op)) {
    auto isFloat = [&](const Val& v) {
      if (v.kind == Val::Kind::Float) return true;
      if (v.kind != Val::Kind::Tensor && v.kind != Val::Kind::Element) return false;
      return v.type.isTensor() && check::isFloat(v.type.dtype());
    };
    operand = check::DType::of(isFloat(*l) || isFloat(*r) ? ast::ScalarType::F64 : ast::ScalarType::I64);
  }
  auto od = concreteDType(operand, e->span);
  if (!od) return std::nullopt;
  auto kind = binaryKind(e->op, false);
  if (!kind) return unsupported(e->opSpan, "this operator");
  bool isUnsigned = isUnsignedScalar(*od);
  mlir::Location at = loc(e->span);
  if (notation_) {
    auto a = asElement(*l, *od, e->lhs->span);
    auto b = a ? asElement(*r, *od, e->rhs->span) : std::nullopt;
    if (!b) return std::nullopt;
    return Val::element(emit::scalarBinary(builder_, at, *kind, *a, *b, isUnsigned), result);
  }
  // A tensor the checker types as a literal (an `if` on data between
  // literals, computed in the widest type of its kind) takes the operands' dtype.
  auto operandType = [&](const Val& v, const check::Type& t) {
    return v.kind == Val::Kind::Tensor && t.isTensor() ? v.type : scalarTypeOf(*od);
  };
  auto a = asTensor(*l, operandType(*l, lt), e->lhs->span);
  auto b = a ? asTensor(*r, operandType(*r, rt), e->rhs->span) : std::nullopt;
  auto tt = b ? tensorType(result, e->span) : std::nullopt;
  if (!tt) return std::nullopt;
  return Val::tensor(emit::binary(builder_, at, *kind, pinProvenOnes(*a, e->lhs, e), pinProvenOnes(*b, e->rhs, e),
                                  *tt, isUnsigned),
                     result);
}

Result Lowerer::lowerCall(const ast::CallExpr* e) {
  if (frame().fn) {
    auto it = frame().fn->calls.find(e);
    if (it != frame().fn->calls.end()) {
      const check::CallBinding& binding = it->second;
      std::optional<Val> receiver;
      const check::Signature* sig = inputs_.checked->signatureOf(binding.callee);
      if (sig && sig->owner) {
        // A receiver chosen on data is called in each branch.
        if (auto* m = ast::as<ast::MemberExpr>(e->callee))
          return lowerThrough(m->base, typeOf(e),
                              [&](const Val& base) { return callFunction(binding, e, base); });
        receiver = selfBlock();
      }
      return callFunction(binding, e, receiver);
    }
  }
  check::Type callee = frame().fn && frame().fn->typeOf(e->callee) ? *frame().fn->typeOf(e->callee)
                                                                   : check::Type::error();
  if (callee.kind() == check::TypeKind::Function && !callee.functionItem())
    return lowerPrelude(e, callee.preludeName());
  check::Type t = typeOf(e);
  if (t.kind() == check::TypeKind::Struct) {
    Val v = Val::of(Val::Kind::Struct);
    v.structItem = t.structItem();
    std::vector<std::optional<Val>> fields(v.structItem->fields.size());
    size_t positional = 0;
    for (const ast::Argument& a : e->args) {
      size_t i = positional;
      if (a.isNamed()) {
        for (i = 0; i < fields.size() && v.structItem->fields[i].name.name != a.name.name; ++i) {}
      } else {
        ++positional;
      }
      if (i >= fields.size()) return unsupported(a.span, "this struct field");
      fields[i] = lowerExpr(a.value);
      if (!fields[i]) return std::nullopt;
      // A number for a field of a scalar type is a scalar of that dtype, as
      // the checker typed it (`Inner(n = 7)` with `n: i32`, or `n: T` with
      // the struct's `T` bound).
      Val& field = *fields[i];
      if (!field.isData() &&
          (field.kind == Val::Kind::Int || field.kind == Val::Kind::Float || field.kind == Val::Kind::Bool))
        if (std::optional<check::DType> dtype = scalarFieldDType(t, i)) {
          check::Type ft = check::Type::scalar(*dtype);
          if (notation_) {
            // Inside notation an element: a tensor made in the body is no
            // input of it (asElement could not read it back).
            auto scalar = concreteDType(*dtype, a.span);
            auto element = scalar ? asElement(field, *scalar, a.span) : std::nullopt;
            if (!element) return std::nullopt;
            field = Val::element(*element, ft);
            continue;
          }
          auto tensor = asTensor(field, ft, a.span);
          if (!tensor) return std::nullopt;
          field = Val::tensor(*tensor, ft);
        }
    }
    for (auto& f : fields) {
      if (!f) return unsupported(e->span, "a struct with a field left out");
      v.elements.push_back(*f);
    }
    return v;
  }
  return unsupported(e->span, "this call");
}

// Untyped values become tensors of the declared type; structure is kept.
static Result coerceTo(Lowerer& l, const Val& v, const check::Type& type, Span at) {
  switch (type.kind()) {
    case check::TypeKind::Tensor: {
      if (v.isData()) return v;  // a tensor, or an element inside notation
      auto t = l.asTensor(v, type, at);
      if (!t) return std::nullopt;
      // Inside a notation body asTensor gives a scalar: an element there.
      if (!mlir::isa<mlir::RankedTensorType>(t->getType())) return Val::element(*t, type);
      return Val::tensor(*t, type);
    }
    case check::TypeKind::Tuple: {
      if (v.kind != Val::Kind::Tuple || v.elements.size() != type.elements().size()) return v;
      Val out = v;
      for (size_t i = 0; i < v.elements.size(); ++i) {
        auto part = coerceTo(l, v.elements[i], type.elements()[i], at);
        if (!part) return std::nullopt;
        out.elements[i] = *part;
      }
      return out;
    }
    case check::TypeKind::Optional: {
      // The payload: a Some's only element, a Maybe's second (after its presence).
      size_t k = v.kind == Val::Kind::Some ? 0 : v.kind == Val::Kind::Maybe ? 1 : v.elements.size();
      if (k >= v.elements.size()) return v;
      auto inner = coerceTo(l, v.elements[k], type.optionalInner(), at);
      if (!inner) return std::nullopt;
      Val out = v;
      out.elements[k] = *inner;
      return out;
    }
    default: return v;
  }
}

Result Lowerer::coerceToType(const Val& v, const check::Type& type, Span at) { return coerceTo(*this, v, type, at); }

Result Lowerer::callFunction(const check::CallBinding& binding, const ast::CallExpr* call,
                             std::optional<Val> receiver) {
  const ast::FunctionItem& f = *binding.callee;
  const check::CheckedFunction* checked = inputs_.checked->functionOf(&f);
  if (!checked || !checked->signature) return unsupported(call->span, fmt::format("the call of `{}`", f.name.name));
  if (f.function == ast::FunctionKind::Kernel) return unsupported(call->span, "a kernel");
  // An op's kernel binding is a GPU lowering; on CPU its body, the reference
  // semantics, is compiled.
  if (depth_ > 64) return unsupported(call->span, "calls nested this deep (recursion?)");
  Frame callee;
  callee.module = binding.module;
  callee.fn = checked;
  callee.item = &f;
  // The callee's generics in the entry's terms. A method called on its own
  // block by bare name shares the caller's block generics, which the
  // binding does not repeat.
  if (receiver && !binding.owner) callee.subst = frame().subst;
  for (const auto& [id, d] : binding.subst.shapes.dims)
    callee.subst.shapes.dims[id] = shape::instantiate(d, frame().subst.shapes);
  for (const auto& [id, s] : binding.subst.shapes.packs)
    callee.subst.shapes.packs[id] = shape::instantiate(s, frame().subst.shapes);
  for (const auto& [g, d] : binding.subst.dtypes)
    callee.subst.dtypes[g] = check::instantiate(d, frame().subst);
  if (receiver) {
    if (receiver->kind != Val::Kind::Block) return unsupported(call->span, "this method's receiver");
    callee.blockPath = receiver->path;
    callee.block = receiver->block;
  }
  // Arguments in the caller's frame, defaults in the callee's.
  std::vector<std::optional<Val>> args(f.params.size());
  for (size_t i = 0; i < f.params.size(); ++i) {
    if (i < binding.argFor.size() && binding.argFor[i]) {
      args[i] = lowerExpr(binding.argFor[i]);
      if (!args[i]) return std::nullopt;
    }
  }
  ++depth_;
  Result result;
  bool ok = true;
  {
    FrameGuard guard(*this, callee);
    for (size_t i = 0; i < f.params.size() && ok; ++i) {
      if (!args[i]) {
        if (!f.params[i].defaultValue) ok = false;
        else args[i] = lowerExpr(f.params[i].defaultValue);
        if (!args[i]) ok = false;
      }
      if (!ok) break;
      auto coerced = coerceTo(*this, *args[i], instantiate(checked->signature->params[i]),
                              f.params[i].span);
      if (!coerced) ok = false;
      else callee.params.push_back(*coerced);
    }
  }
  if (ok) {
    if (Result known = lowerKnownOp(f, callee, call->span)) {
      --depth_;
      return known;
    }
  }
  if (ok && shouldOutline(receiver)) {
    if (auto outlined = callOutlined(f, callee, *receiver, callee.params, call->span)) {
      --depth_;
      return *outlined;
    }
  }
  // Every other call is compiled in place: a chain of functions each
  // calling the next twice doubles the code at every link, so the entry has
  // a budget of bodies (an error, not unbounded memory).
  if (ok && ++inlinedBodies_ > kMaxInlinedBodies) {
    if (inlinedBodies_ == kMaxInlinedBodies + 1)
      unsupported(call->span, fmt::format("the call of `{}`, past the {} function bodies one entry may compile "
                                          "in place,",
                                          f.name.name, kMaxInlinedBodies));
    ok = false;
  }
  if (ok) {
    FrameGuard guard(*this, callee);
    if (lowerBody(f.body)) result = callee.returned ? *callee.returned : Val::of(Val::Kind::Unit);
  }
  --depth_;
  return result;
}

Result Lowerer::lowerIndex(const ast::IndexExpr* e) {
  auto base = lowerExpr(e->base);
  if (!base) return std::nullopt;
  if (base->kind == Val::Kind::BlockArray)
    return useBlockArrayElement(*base, e, [](const Val& element) -> Result { return element; });
  if (base->kind != Val::Kind::Tensor) return unsupported(e->span, "indexing this value");
  check::Type bt = base->type;
  check::Type result = typeOf(e);
  auto rt = tensorType(result, e->span);
  auto rank = bt.rank();
  if (!rt || !rank) return std::nullopt;
  mlir::Location at = loc(e->span);
  // Which axis each component addresses: leading ones, or trailing after `...`.
  size_t ellipsis = e->components.size();
  for (size_t k = 0; k < e->components.size(); ++k)
    if (e->components[k].kind == ast::IndexComponentKind::Ellipsis) ellipsis = k;
  std::vector<mlir::Value> starts(*rank);
  std::vector<int64_t> steps(*rank, 1);
  std::vector<int64_t> dropped;
  std::vector<bool> sliced(*rank, false);
  auto zero = [&] { return builder_.create<mlir::arith::ConstantIndexOp>(at, 0).getResult(); };
  // Axes whose start is read from data: clamped once the sizes are known.
  std::vector<size_t> dataStarts;
  bool fromData = false;
  auto indexOf = [&](const ast::Expr* x, const shape::DimExpr& extent) -> std::optional<mlir::Value> {
    auto v = lowerExpr(x);
    if (!v) return std::nullopt;
    if (v->kind == Val::Kind::Int) {
      shape::DimExpr d = v->dim;
      if (auto c = d.constantValue(); c && *c < 0) d = extent + d;
      return dimValue(d, x->span);
    }
    if (v->kind == Val::Kind::Tensor && v->type.isScalar()) {
      mlir::Value s = builder_.create<mlir::tensor::ExtractOp>(at, v->value, mlir::ValueRange{});
      auto dt = concreteDType(v->type.dtype(), x->span);
      if (!dt) return std::nullopt;
      fromData = true;
      return emit::subscriptIndex(builder_, at, s, isUnsignedScalar(*dt));
    }
    unsupported(x->span, "this index");
    return std::nullopt;
  };
  for (size_t k = 0; k < e->components.size(); ++k) {
    const ast::IndexComponent& c = e->components[k];
    if (c.kind == ast::IndexComponentKind::Ellipsis) continue;
    size_t axis = k < ellipsis ? k : *rank - (e->components.size() - k);
    auto extent = dimOfShape(bt.shape()[axis], c.span);
    if (!extent) return std::nullopt;
    if (c.kind == ast::IndexComponentKind::Expr) {
      fromData = false;
      auto s = indexOf(c.value, *extent);
      if (!s) return std::nullopt;
      starts[axis] = *s;
      if (fromData) dataStarts.push_back(axis);
      dropped.push_back(int64_t(axis));
      sliced[axis] = true;
    } else if (c.kind == ast::IndexComponentKind::Slice) {
      if (c.start) {
        fromData = false;
        auto s = indexOf(c.start, *extent);
        if (!s) return std::nullopt;
        starts[axis] = *s;
        if (fromData) dataStarts.push_back(axis);
      }
      if (c.step) {
        auto st = lowerExpr(c.step);
        if (!st) return std::nullopt;
        auto cst = st->kind == Val::Kind::Int ? st->dim.constantValue() : std::nullopt;
        if (!cst || *cst <= 0) return unsupported(c.step->span, "this slice step");
        steps[axis] = *cst;
      }
      sliced[axis] = true;
    } else {
      return unsupported(c.span, "a pack component outside index notation");
    }
  }
  for (auto& s : starts)
    if (!s) s = zero();
  // Sizes of the kept axes are the result's dims.
  auto dyn = dynamicDims(result, e->span);
  if (!dyn) return std::nullopt;
  if (dataStarts.empty())
    return Val::tensor(emit::slice(builder_, at, base->value, *rt, starts, *dyn, steps, dropped), result);
  // A start read from data is clamped so that the whole slice lies inside
  // its axis; a slice of an axis empty at run time is zeros
  // (LowerIndexBounds.cpp).
  std::vector<mlir::Value> sizes(*rank);
  for (size_t axis = 0, r = 0, d = 0; axis < *rank; ++axis) {
    if (llvm::is_contained(dropped, int64_t(axis))) {
      sizes[axis] = builder_.create<mlir::arith::ConstantIndexOp>(at, 1);
      continue;
    }
    sizes[axis] = rt->isDynamicDim(r) ? (*dyn)[d++]
                                      : builder_.create<mlir::arith::ConstantIndexOp>(at, rt->getDimSize(r)).getResult();
    ++r;
  }
  mlir::Value empty;
  for (size_t axis : dataStarts) {
    // Elements spanned: (size - 1) * step + 1 (0 for an empty slice: any start).
    mlir::Value one = builder_.create<mlir::arith::ConstantIndexOp>(at, 1);
    mlir::Value step = builder_.create<mlir::arith::ConstantIndexOp>(at, steps[axis]);
    mlir::Value last = builder_.createOrFold<mlir::arith::SubIOp>(at, sizes[axis], one);
    mlir::Value reach = builder_.createOrFold<mlir::arith::AddIOp>(
        at, builder_.createOrFold<mlir::arith::MulIOp>(at, last, step), one);
    starts[axis] = clampIndex(at, starts[axis], base->value, int64_t(axis), reach);
    mlir::Value axisEmpty = isEmptyAxis(at, base->value, int64_t(axis));
    empty = empty ? builder_.createOrFold<mlir::arith::OrIOp>(at, empty, axisEmpty) : axisEmpty;
  }
  auto read = [&]() -> mlir::Value {
    return emit::slice(builder_, at, base->value, *rt, starts, *dyn, steps, dropped);
  };
  auto zeros = [&]() -> mlir::Value {
    mlir::Type el = rt->getElementType();
    mlir::Value z = emit::scalarTensor(
        builder_, at, builder_.create<mlir::arith::ConstantOp>(at, el, builder_.getZeroAttr(el)));
    return rt->getRank() == 0 ? z : emit::fill(builder_, at, z, *rt, *dyn);
  };
  return Val::tensor(unlessEmpty(at, empty, *rt, read, zeros), result);
}

Result Lowerer::lowerMatch(const ast::MatchExpr* e, const ArmUse* through) {
  auto s = lowerExpr(e->scrutinee);
  if (!s) return std::nullopt;
  if (s->kind == Val::Kind::Maybe) return lowerMaybeMatch(e, *s, through);
  return lowerMatchOn(e, *s, through);
}

Result Lowerer::lowerMatchOn(const ast::MatchExpr* e, const Val& scrutinee, const ArmUse* through) {
  if (scrutinee.isRuntimeEnum()) return lowerRuntimeEnumMatch(e, scrutinee, 0, through);
  const Val* s = &scrutinee;
  for (const ast::MatchArm& arm : e->arms) {
    const ast::Pattern* p = arm.pattern;
    bool matches = false;
    std::optional<Val> bound;
    switch (p->kind) {
      case ast::PatternKind::None: matches = s->kind == Val::Kind::None; break;
      case ast::PatternKind::Some:
        if (s->kind == Val::Kind::Some) {
          matches = true;
          if (!bindPattern(p->inner, s->elements[0])) return std::nullopt;
        }
        break;
      case ast::PatternKind::Binding: {
        const Symbol* sym = module().symbolOf(p->name);
        if (sym && sym->kind == SymbolKind::EnumVariant) {
          matches = s->kind == Val::Kind::Enum && s->variant == sym->variant;
        } else {
          matches = true;
          if (!bindPattern(p, *s)) return std::nullopt;
        }
        break;
      }
      case ast::PatternKind::Tuple:
        matches = true;
        if (!bindPattern(p, *s)) return std::nullopt;
        break;
    }
    if (matches) return lowerArm(arm.value, through);
  }
  return unsupported(e->span, "a `match` whose arm is chosen at run time");
}

Result Lowerer::lowerIf(const ast::IfExpr* e, const ArmUse* through) {
  auto c = lowerExpr(e->condition);
  if (!c) return std::nullopt;
  if (c->kind == Val::Kind::Bool) return lowerArm(c->flag ? e->thenValue : e->elseValue, through);
  return lowerRuntimeIf(e, *c, through);
}

mlir::Location Lowerer::loc(Span s) {
  // Spans become file:line:col locations, so a late failure still points at the source.
  if (!inputs_.sources || !s.valid()) return mlir::UnknownLoc::get(&context_);
  const SourceFile& f = inputs_.sources->file(s.file);
  LineColumn lc = f.lineColumn(s.begin);
  return mlir::FileLineColLoc::get(&context_, f.path(), lc.line, lc.column);
}

}  // namespace linnet::lower
