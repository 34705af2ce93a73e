// ConstantValues: folding a constant's initializer (see ConstantValues.h).
#include "compiler/modules/ConstantValues.h"

#include <algorithm>
#include <climits>

namespace linnet {

namespace {

constexpr int kMaxDepth = 64;  // constants defined through constants, at most this deep

bool isFloatType(ast::ScalarType t) {
  return t == ast::ScalarType::F16 || t == ast::ScalarType::BF16 || t == ast::ScalarType::F32 ||
         t == ast::ScalarType::F64;
}

std::optional<ConstantNumber> integer(int64_t v) { return ConstantNumber{ConstantNumber::Kind::Integer, v, 0}; }
std::optional<ConstantNumber> real(double v) { return ConstantNumber{ConstantNumber::Kind::Float, 0, v}; }

std::optional<ConstantNumber> foldBinary(ast::BinaryOp op, const ConstantNumber& l, const ConstantNumber& r) {
  if (l.kind == ConstantNumber::Kind::Bool || r.kind == ConstantNumber::Kind::Bool) return std::nullopt;
  if (l.isFloat() || r.isFloat()) {
    double a = l.asDouble(), z = r.asDouble();
    switch (op) {
      case ast::BinaryOp::Add: return real(a + z);
      case ast::BinaryOp::Sub: return real(a - z);
      case ast::BinaryOp::Mul: return real(a * z);
      case ast::BinaryOp::Div: return real(a / z);
      default: return std::nullopt;
    }
  }
  int64_t a = l.integer, z = r.integer, out = 0;
  switch (op) {
    case ast::BinaryOp::Add: if (__builtin_add_overflow(a, z, &out)) return std::nullopt; break;
    case ast::BinaryOp::Sub: if (__builtin_sub_overflow(a, z, &out)) return std::nullopt; break;
    case ast::BinaryOp::Mul: if (__builtin_mul_overflow(a, z, &out)) return std::nullopt; break;
    case ast::BinaryOp::Div:
      if (z == 0 || (a == INT64_MIN && z == -1)) return std::nullopt;
      out = a / z;
      break;
    case ast::BinaryOp::Rem:
      if (z == 0 || (a == INT64_MIN && z == -1)) return std::nullopt;
      out = a % z;
      break;
    default: return std::nullopt;
  }
  return integer(out);
}

}  // namespace

std::optional<ConstantNumber> foldConstantExpr(const Module& m, const ast::Expr* e, int depth) {
  if (!e || depth > kMaxDepth) return std::nullopt;
  if (auto* i = ast::as<ast::IntLiteralExpr>(e)) {
    if (i->value > uint64_t(INT64_MAX)) return std::nullopt;
    return integer(static_cast<int64_t>(i->value));
  }
  if (auto* f = ast::as<ast::FloatLiteralExpr>(e)) return real(f->value);
  if (auto* b = ast::as<ast::BoolLiteralExpr>(e)) return ConstantNumber{ConstantNumber::Kind::Bool, b->value ? 1 : 0, 0};
  if (auto* p = ast::as<ast::ParenExpr>(e)) return foldConstantExpr(m, p->inner, depth);
  if (auto* u = ast::as<ast::UnaryExpr>(e)) {
    std::optional<ConstantNumber> v = foldConstantExpr(m, u->operand, depth);
    if (!v || v->kind == ConstantNumber::Kind::Bool || u->op == ast::UnaryOp::Not) return std::nullopt;
    if (u->op == ast::UnaryOp::Plus) return v;
    if (v->isFloat()) return real(-v->real);
    if (v->integer == INT64_MIN) return std::nullopt;
    return integer(-v->integer);
  }
  if (auto* n = ast::as<ast::NameExpr>(e)) {
    const Symbol* s = m.symbolOf(n->name);
    auto* c = s && s->kind == SymbolKind::Item && s->module ? ast::as<ast::ConstItem>(s->item) : nullptr;
    if (!c) return std::nullopt;
    return foldConstant(*s->module, *c, depth + 1);
  }
  if (auto* b = ast::as<ast::BinaryExpr>(e)) {
    std::optional<ConstantNumber> l = foldConstantExpr(m, b->lhs, depth), r = foldConstantExpr(m, b->rhs, depth);
    if (!l || !r) return std::nullopt;
    return foldBinary(b->op, *l, *r);
  }
  if (auto* call = ast::as<ast::CallExpr>(e)) {
    auto* callee = ast::as<ast::NameExpr>(call->callee);
    if (!callee || call->args.size() != 2 || call->hasGenericArgs) return std::nullopt;
    std::optional<ConstantNumber> a = foldConstantExpr(m, call->args[0].value, depth),
                                  z = foldConstantExpr(m, call->args[1].value, depth);
    if (!a || !z || a->kind != ConstantNumber::Kind::Integer || z->kind != ConstantNumber::Kind::Integer)
      return std::nullopt;
    if (callee->name.name == "min") return integer(std::min(a->integer, z->integer));
    if (callee->name.name == "max") return integer(std::max(a->integer, z->integer));
    // Shifts of i64 as the generated code shifts: total, a count outside
    // [0, 64) shifts every bit out (0, or the sign for `shr`), `shl` wraps.
    int64_t v = a->integer, bits = z->integer;
    bool inRange = bits >= 0 && bits < 64;
    if (callee->name.name == "shl")
      return integer(inRange ? static_cast<int64_t>(static_cast<uint64_t>(v) << bits) : 0);
    if (callee->name.name == "shr") return integer(inRange ? v >> bits : (v < 0 ? -1 : 0));
  }
  return std::nullopt;
}

std::optional<ConstantNumber> foldConstant(const Module& m, const ast::ConstItem& c, int depth) {
  std::optional<ConstantNumber> value = foldConstantExpr(m, c.value, depth);
  if (!value || !c.type) return value;
  auto* scalar = ast::as<ast::ScalarTypeNode>(c.type);
  if (!scalar) return std::nullopt;  // not a scalar
  bool isBool = scalar->scalar == ast::ScalarType::Bool;
  if (isBool != (value->kind == ConstantNumber::Kind::Bool)) return std::nullopt;
  if (isFloatType(scalar->scalar)) {
    if (!value->isFloat()) return real(double(value->integer));
  } else if (value->isFloat()) {
    return std::nullopt;
  }
  return value;
}

}  // namespace linnet
