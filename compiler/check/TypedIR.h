// TypedIR: what the checker hands to later stages (graph views, lowering).
// For every checked function: its generics, parameter and return types, the
// shape facts of its `where` clauses (its block's included), and the type of
// every expression it contains, keyed by the AST node (spans stay on the
// nodes). Later stages read types from here and never infer them again. An
// expression whose type is Error was either reported or is a construct the
// checker does not check yet (docs/checker.md lists them); consumers must
// treat it as "unknown", never as valid.
#pragma once

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "compiler/check/Type.h"
#include "compiler/shape/Facts.h"

namespace linnet::check {

// One `where` clause as the shape solver reads it.
struct WhereClause {
  shape::DimExpr lhs;
  shape::Relation relation = shape::Relation::Equal;
  shape::DimExpr rhs;
  Span span;
  // A requirement's subject, for messages: a compile-time "index", or a
  // "dimension" the code builds (CheckedFunction::requirements).
  const char* what = "index";
};

// A function's signature in its own generics (and its block's).
struct Signature {
  const Module* module = nullptr;
  const ast::FunctionItem* item = nullptr;
  const ast::BlockItem* owner = nullptr;              // the enclosing block, if a method
  std::vector<const ast::GenericParam*> generics;     // the block's, then the function's own
  std::vector<Type> params;                           // parallel to item->params
  Type result;                                        // Unit when there is no `-> T`
  shape::Facts facts;                                 // block and function `where` clauses
  std::vector<WhereClause> where;                     // the function's own clauses
  bool complete = true;                               // false: some part could not be typed
};

// A call of a user function (fn, op, entry or block method) as the checker
// bound it, so that later stages instantiate the callee without inferring
// its generics again.
struct CallBinding {
  const Module* module = nullptr;                   // the callee's module
  const ast::FunctionItem* callee = nullptr;
  std::shared_ptr<const BlockInstance> owner;       // a method's block instance (args in the caller's generics)
  std::vector<const ast::Expr*> argFor;             // per callee parameter; null: its default
  Substitution subst;                               // every generic of the callee (its block's too), in the caller's generics
};

struct CheckedFunction {
  const Signature* signature = nullptr;
  // Every well-typed call of a user function in the body.
  std::unordered_map<const ast::CallExpr*, CallBinding> calls;
  // The type of every expression of the body (and of parameter defaults).
  std::unordered_map<const ast::Expr*, Type> exprTypes;
  // What the body's compile-time indices need of the generics but the
  // checker could neither prove nor refute from the `where` clauses
  // (`x[0]` on an axis of extent `S`: `0 < S`), in the function's generics
  // (its block's included), each at its index. Binding evaluates those of
  // the root block's methods once their generics are bound
  // (bind::checkRequirements); docs/checker.md, "Constant indices".
  std::vector<WhereClause> requirements;
  // An op with a `grad` clause: what that clause returns (the gradient of
  // each floating tensor parameter in order, a tuple when several). The
  // clause's expressions are in `exprTypes` too.
  std::optional<Type> gradient;

  const Type* typeOf(const ast::Expr* e) const {
    auto it = exprTypes.find(e);
    return it == exprTypes.end() ? nullptr : &it->second;
  }
};

// A block's members, typed in the block's generics.
struct CheckedBlock {
  const Module* module = nullptr;
  const ast::BlockItem* item = nullptr;
  shape::Facts facts;
  std::vector<WhereClause> where;  // proved wherever the block is instantiated
  std::unordered_map<const ast::MemberItem*, Type> members;
  // The declared defaults of its generics (`Batch: Dim = 1`, `T: Float =
  // bf16`), in its generics: binding a root block falls back to them.
  Substitution defaults;
};

class CheckedProgram {
 public:
  const Signature* signatureOf(const ast::FunctionItem* f) const {
    auto it = signatures_.find(f);
    return it == signatures_.end() ? nullptr : it->second.get();
  }
  const CheckedFunction* functionOf(const ast::FunctionItem* f) const {
    auto it = functions_.find(f);
    return it == functions_.end() ? nullptr : it->second.get();
  }
  const CheckedBlock* blockOf(const ast::BlockItem* b) const {
    auto it = blocks_.find(b);
    return it == blocks_.end() ? nullptr : it->second.get();
  }
  // The type of any checked expression of the program; null if unchecked.
  const Type* typeOf(const ast::Expr* e) const;
  // A struct's field types in declaration order, in its own generics
  // (instantiate with a struct type's structArgs()); null if unchecked.
  const std::vector<Type>* structFieldsOf(const ast::StructItem* s) const {
    auto it = structFields_.find(s);
    return it == structFields_.end() ? nullptr : &it->second;
  }

 private:
  friend class Checker;
  std::unordered_map<const ast::FunctionItem*, std::unique_ptr<Signature>> signatures_;
  std::unordered_map<const ast::FunctionItem*, std::unique_ptr<CheckedFunction>> functions_;
  std::unordered_map<const ast::BlockItem*, std::unique_ptr<CheckedBlock>> blocks_;
  std::unordered_map<const ast::StructItem*, std::vector<Type>> structFields_;
};

}  // namespace linnet::check
