// ASTWalk: the one place that knows which expressions and statements a node
// contains. Passes that only need "every sub-expression" (lints, checks of
// what a program mentions, tests that every expression was typed) walk with
// these instead of writing their own switch over every node kind. Passes
// with per-kind meaning (the resolver's scopes, the checker itself) keep
// their own switches.
#pragma once

#include <functional>
#include <vector>

#include "compiler/parse/AST.h"

namespace linnet::ast {

// The direct sub-expressions of `e`, in source order: operands, callee,
// generic arguments that are expressions, call arguments, index components
// (values and slice bounds), tuple elements, shape-literal dimensions, a
// reduction's body, branches and arms, a scan's bounds. Statements inside a
// scan's body are not expressions of `e`: see forEachStmt.
void forEachChild(const Expr* e, const std::function<void(const Expr*)>& visit);

// The direct parts of a written type: its dimension expressions (and an
// array's count, expression generic arguments) and its sub-types (a
// tensor's dtype, tuple elements, an optional's inner type, type generic
// arguments).
void forEachChild(const TypeNode* t, const std::function<void(const Expr*)>& visitExpr,
                  const std::function<void(const TypeNode*)>& visitType);

// The expressions a statement holds directly (its value, condition, bounds),
// not those of nested statements.
void forEachChild(const Stmt* s, const std::function<void(const Expr*)>& visit);

// The statements nested in a statement (loop bodies) or in an expression
// (a scan's body).
void forEachChildStmt(const Stmt* s, const std::function<void(const Stmt*)>& visit);
void forEachChildStmt(const Expr* e, const std::function<void(const Stmt*)>& visit);

// Every expression of `body`, nested statements and scan bodies included,
// each parent before its children.
void forEachExpr(const std::vector<Stmt*>& body, const std::function<void(const Expr*)>& visit);
void forEachExpr(const Expr* e, const std::function<void(const Expr*)>& visit);

}  // namespace linnet::ast
