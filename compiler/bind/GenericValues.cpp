// GenericValues: generic values, their checks, and dimension evaluation.
#include "compiler/bind/GenericValues.h"

#include <charconv>

#include "compiler/parse/ASTPrinter.h"

namespace linnet::bind {

std::string BoundValue::text() const {
  if (dim) return std::to_string(*dim);
  if (dtype) return std::string(ast::scalarTypeName(*dtype));
  return "?";
}

namespace {

bool isFloat(ast::ScalarType t) {
  using ast::ScalarType;
  return t == ScalarType::F16 || t == ScalarType::BF16 || t == ScalarType::F32 || t == ScalarType::F64;
}
bool isInteger(ast::ScalarType t) { return !isFloat(t) && t != ast::ScalarType::Bool; }

}  // namespace

std::string dtypeViolation(ast::GenericKind kind, ast::ScalarType type) {
  switch (kind) {
    case ast::GenericKind::DType: return "";
    case ast::GenericKind::Numeric: return type == ast::ScalarType::Bool ? "`bool` is not Numeric" : "";
    case ast::GenericKind::Integer: return isInteger(type) ? "" : "it is not an Integer dtype";
    case ast::GenericKind::Float: return isFloat(type) ? "" : "it is not a Float dtype";
    case ast::GenericKind::Dim:
    case ast::GenericKind::Shape: return "not a dtype generic";
  }
  return "";
}

namespace {

std::optional<int64_t> checkedOp(ast::BinaryOp op, int64_t a, int64_t b) {
  int64_t r = 0;
  switch (op) {
    case ast::BinaryOp::Add: if (__builtin_add_overflow(a, b, &r)) return std::nullopt; return r;
    case ast::BinaryOp::Sub: if (__builtin_sub_overflow(a, b, &r)) return std::nullopt; return r;
    case ast::BinaryOp::Mul: if (__builtin_mul_overflow(a, b, &r)) return std::nullopt; return r;
    case ast::BinaryOp::Div: if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt; return a / b;
    case ast::BinaryOp::Rem: if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt; return a % b;
    case ast::BinaryOp::Eq: return a == b;
    case ast::BinaryOp::Ne: return a != b;
    case ast::BinaryOp::Lt: return a < b;
    case ast::BinaryOp::Le: return a <= b;
    case ast::BinaryOp::Gt: return a > b;
    case ast::BinaryOp::Ge: return a >= b;
    case ast::BinaryOp::Or:
    case ast::BinaryOp::And:
    case ast::BinaryOp::BitOr:
    case ast::BinaryOp::BitXor:
    case ast::BinaryOp::BitAnd: return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> evaluateDim(const ast::Expr* expr, const GenericBindings& bindings) {
  if (!expr) return std::nullopt;
  switch (expr->kind) {
    case ast::ExprKind::IntLiteral:
      return static_cast<int64_t>(ast::as<ast::IntLiteralExpr>(expr)->value);
    case ast::ExprKind::Name: {
      auto it = bindings.find(ast::as<ast::NameExpr>(expr)->name.name);
      if (it == bindings.end() || !it->second.dim) return std::nullopt;
      return it->second.dim;
    }
    case ast::ExprKind::Paren:
      return evaluateDim(ast::as<ast::ParenExpr>(expr)->inner, bindings);
    case ast::ExprKind::Unary: {
      auto* unary = ast::as<ast::UnaryExpr>(expr);
      auto value = evaluateDim(unary->operand, bindings);
      if (!value || unary->op == ast::UnaryOp::Not) return std::nullopt;
      if (unary->op == ast::UnaryOp::Negate) {
        if (*value == INT64_MIN) return std::nullopt;
        return -*value;
      }
      return value;
    }
    case ast::ExprKind::Binary: {
      auto* binary = ast::as<ast::BinaryExpr>(expr);
      auto lhs = evaluateDim(binary->lhs, bindings);
      auto rhs = evaluateDim(binary->rhs, bindings);
      if (!lhs || !rhs) return std::nullopt;
      return checkedOp(binary->op, *lhs, *rhs);
    }
    case ast::ExprKind::Call: {
      // min(a, b) and max(a, b) on dimensions.
      auto* call = ast::as<ast::CallExpr>(expr);
      auto* callee = ast::as<ast::NameExpr>(call->callee);
      if (!callee || call->args.size() != 2 || call->hasGenericArgs) return std::nullopt;
      auto a = evaluateDim(call->args[0].value, bindings);
      auto b = evaluateDim(call->args[1].value, bindings);
      if (!a || !b) return std::nullopt;
      if (callee->name.name == "min") return std::min(*a, *b);
      if (callee->name.name == "max") return std::max(*a, *b);
      return std::nullopt;
    }
    case ast::ExprKind::FloatLiteral:
    case ast::ExprKind::StringLiteral:
    case ast::ExprKind::BoolLiteral:
    case ast::ExprKind::NoneLiteral:
    case ast::ExprKind::Some:
    case ast::ExprKind::Index:
    case ast::ExprKind::Member:
    case ast::ExprKind::Tuple:
    case ast::ExprKind::ShapeLiteral:
    case ast::ExprKind::Reduction:
    case ast::ExprKind::If:
    case ast::ExprKind::Match:
    case ast::ExprKind::ForScan:
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<GenericBindings> parseBindOverrides(const ast::BlockItem& block,
                                                  std::string_view blockName,
                                                  const std::vector<std::string>& binds,
                                                  DiagnosticEmitter& diagnostics) {
  GenericBindings bindings;
  bool ok = true;
  for (const std::string& bind : binds) {
    size_t eq = bind.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == bind.size()) {
      diagnostics.emit(DiagnosticKind::MalformedBinding, Span{}, bind);
      ok = false;
      continue;
    }
    std::string name = bind.substr(0, eq), value = bind.substr(eq + 1);
    const ast::GenericParam* generic = nullptr;
    for (const ast::GenericParam& g : block.generics)
      if (g.name.name == name) generic = &g;
    if (!generic) {
      diagnostics.emit(DiagnosticKind::UnknownBinding, Span{}, name, blockName)
          .help("the root block's generics are " + ast::printGenericParams(block.generics));
      ok = false;
      continue;
    }
    std::string kind(ast::genericKindName(generic->constraint));
    BoundValue bound;
    if (generic->constraint == ast::GenericKind::Shape) {
      diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                       "shape packs cannot be bound from the command line");
      ok = false;
      continue;
    }
    if (generic->constraint == ast::GenericKind::Dim) {
      int64_t number = 0;
      auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
      if (ec != std::errc() || end != value.data() + value.size() || number < 0) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                         "a dimension is a non-negative integer");
        ok = false;
        continue;
      }
      bound.dim = number;
    } else {
      std::optional<ast::ScalarType> dtype = ast::scalarTypeFromName(value);
      if (!dtype) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value,
                         "it is not a scalar dtype");
        ok = false;
        continue;
      }
      std::string why = dtypeViolation(generic->constraint, *dtype);
      if (!why.empty()) {
        diagnostics.emit(DiagnosticKind::InvalidBindingValue, Span{}, name, kind, value, why);
        ok = false;
        continue;
      }
      bound.dtype = dtype;
    }
    bindings[name] = bound;
  }
  if (!ok) return std::nullopt;
  return bindings;
}

bool checkWhereClauses(const ast::BlockItem& block, std::string_view blockName,
                       const GenericBindings& bindings, DiagnosticEmitter& diagnostics) {
  bool ok = true;
  for (const ast::Constraint& constraint : block.where) {
    auto lhs = evaluateDim(constraint.lhs, bindings);
    auto rhs = evaluateDim(constraint.rhs, bindings);
    if (!lhs || !rhs) continue;  // not every generic it names is bound
    auto holds = checkedOp(constraint.relation, *lhs, *rhs);
    if (holds && *holds) continue;
    std::string text = ast::printExpr(constraint.lhs) + " " +
                       std::string(ast::binaryOpSpelling(constraint.relation)) + " " +
                       ast::printExpr(constraint.rhs);
    diagnostics.emit(DiagnosticKind::BindingViolatesWhere, Span{}, text, blockName)
        .secondary(constraint.span, "declared here")
        .note(std::to_string(*lhs) + " " + std::string(ast::binaryOpSpelling(constraint.relation)) +
              " " + std::to_string(*rhs) + " is false");
    ok = false;
  }
  return ok;
}

}  // namespace linnet::bind
