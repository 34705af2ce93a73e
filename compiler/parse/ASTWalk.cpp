// The child relation of expressions and statements (see ASTWalk.h).
#include "compiler/parse/ASTWalk.h"

namespace linnet::ast {

void forEachChild(const Expr* e, const std::function<void(const Expr*)>& visit) {
  if (!e) return;
  auto each = [&](const Expr* x) {
    if (x) visit(x);
  };
  switch (e->kind) {
    case ExprKind::IntLiteral:
    case ExprKind::FloatLiteral:
    case ExprKind::StringLiteral:
    case ExprKind::BoolLiteral:
    case ExprKind::NoneLiteral:
    case ExprKind::Name:
      return;
    case ExprKind::Some: each(static_cast<const SomeExpr*>(e)->value); return;
    case ExprKind::Unary: each(static_cast<const UnaryExpr*>(e)->operand); return;
    case ExprKind::Binary: {
      auto* b = static_cast<const BinaryExpr*>(e);
      each(b->lhs);
      each(b->rhs);
      return;
    }
    case ExprKind::Call: {
      auto* c = static_cast<const CallExpr*>(e);
      each(c->callee);
      for (const GenericArg& g : c->genericArgs) each(g.expr);
      for (const Argument& a : c->args) each(a.value);
      return;
    }
    case ExprKind::Index: {
      auto* i = static_cast<const IndexExpr*>(e);
      each(i->base);
      for (const IndexComponent& c : i->components) {
        each(c.value);
        each(c.start);
        each(c.stop);
        each(c.step);
      }
      return;
    }
    case ExprKind::Member: each(static_cast<const MemberExpr*>(e)->base); return;
    case ExprKind::Tuple:
      for (const Expr* x : static_cast<const TupleExpr*>(e)->elements) each(x);
      return;
    case ExprKind::ShapeLiteral:
      for (const ShapeElement& d : static_cast<const ShapeLiteralExpr*>(e)->elements) each(d.dim);
      return;
    case ExprKind::Reduction: each(static_cast<const ReductionExpr*>(e)->body); return;
    case ExprKind::If: {
      auto* i = static_cast<const IfExpr*>(e);
      each(i->condition);
      each(i->thenValue);
      each(i->elseValue);
      return;
    }
    case ExprKind::Match: {
      auto* m = static_cast<const MatchExpr*>(e);
      each(m->scrutinee);
      for (const MatchArm& arm : m->arms) each(arm.value);
      return;
    }
    case ExprKind::Paren: each(static_cast<const ParenExpr*>(e)->inner); return;
    case ExprKind::ForScan: {
      auto* f = static_cast<const ForScanExpr*>(e);
      each(f->start);
      each(f->end);
      return;
    }
  }
}

void forEachChild(const TypeNode* t, const std::function<void(const Expr*)>& visitExpr,
                  const std::function<void(const TypeNode*)>& visitType) {
  if (!t) return;
  auto expr = [&](const Expr* x) {
    if (x) visitExpr(x);
  };
  auto type = [&](const TypeNode* x) {
    if (x) visitType(x);
  };
  switch (t->kind) {
    case TypeKind::Scalar: return;
    case TypeKind::Tensor: {
      auto* tensor = static_cast<const TensorTypeNode*>(t);
      for (const ShapeElement& d : tensor->shape) expr(d.dim);
      type(tensor->dtype);
      return;
    }
    case TypeKind::Tuple:
      for (const TypeNode* x : static_cast<const TupleTypeNode*>(t)->elements) type(x);
      return;
    case TypeKind::Optional: type(static_cast<const OptionalTypeNode*>(t)->inner); return;
    case TypeKind::Array: {
      auto* array = static_cast<const ArrayTypeNode*>(t);
      type(array->element);
      expr(array->count);
      return;
    }
    case TypeKind::Named:
      for (const GenericArg& g : static_cast<const NamedTypeNode*>(t)->genericArgs) {
        type(g.type);
        expr(g.expr);
      }
      return;
  }
}

void forEachChild(const Stmt* s, const std::function<void(const Expr*)>& visit) {
  if (!s) return;
  auto each = [&](const Expr* x) {
    if (x) visit(x);
  };
  switch (s->kind) {
    case StmtKind::Let: each(static_cast<const LetStmt*>(s)->value); return;
    case StmtKind::LetComprehension: each(static_cast<const LetComprehensionStmt*>(s)->value); return;
    case StmtKind::Var: each(static_cast<const VarStmt*>(s)->value); return;
    case StmtKind::Assign: each(static_cast<const AssignStmt*>(s)->value); return;
    case StmtKind::Return: each(static_cast<const ReturnStmt*>(s)->value); return;
    case StmtKind::StaticFor: {
      auto* loop = static_cast<const StaticForStmt*>(s);
      each(loop->iterable);
      each(loop->rangeEnd);
      return;
    }
    case StmtKind::While: each(static_cast<const WhileStmt*>(s)->condition); return;
    case StmtKind::For: {
      auto* loop = static_cast<const ForStmt*>(s);
      each(loop->start);
      each(loop->end);
      return;
    }
    case StmtKind::Yield: each(static_cast<const YieldStmt*>(s)->value); return;
    case StmtKind::KernelCall: each(static_cast<const KernelCallStmt*>(s)->call); return;
  }
}

void forEachChildStmt(const Stmt* s, const std::function<void(const Stmt*)>& visit) {
  if (!s) return;
  const std::vector<Stmt*>* body = nullptr;
  switch (s->kind) {
    case StmtKind::StaticFor: body = &static_cast<const StaticForStmt*>(s)->body; break;
    case StmtKind::While: body = &static_cast<const WhileStmt*>(s)->body; break;
    case StmtKind::For: body = &static_cast<const ForStmt*>(s)->body; break;
    case StmtKind::Let:
    case StmtKind::LetComprehension:
    case StmtKind::Var:
    case StmtKind::Assign:
    case StmtKind::Return:
    case StmtKind::Yield:
    case StmtKind::KernelCall:
      return;
  }
  for (const Stmt* x : *body) visit(x);
}

void forEachChildStmt(const Expr* e, const std::function<void(const Stmt*)>& visit) {
  if (auto* scan = as<ForScanExpr>(e))
    for (const Stmt* x : scan->body) visit(x);
}

namespace {

void walkStmt(const Stmt* s, const std::function<void(const Expr*)>& visit);

void walkExpr(const Expr* e, const std::function<void(const Expr*)>& visit) {
  visit(e);
  forEachChild(e, [&](const Expr* child) { walkExpr(child, visit); });
  forEachChildStmt(e, [&](const Stmt* child) { walkStmt(child, visit); });
}

void walkStmt(const Stmt* s, const std::function<void(const Expr*)>& visit) {
  forEachChild(s, [&](const Expr* child) { walkExpr(child, visit); });
  forEachChildStmt(s, [&](const Stmt* child) { walkStmt(child, visit); });
}

}  // namespace

void forEachExpr(const std::vector<Stmt*>& body, const std::function<void(const Expr*)>& visit) {
  for (const Stmt* s : body) walkStmt(s, visit);
}

void forEachExpr(const Expr* e, const std::function<void(const Expr*)>& visit) {
  if (e) walkExpr(e, visit);
}

}  // namespace linnet::ast
