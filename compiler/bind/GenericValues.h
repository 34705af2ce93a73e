// GenericValues: concrete values for a root block's generics, from the
// command line (`--bind H=3072 --bind T=f32`) or solved from a checkpoint,
// checked against each generic's kind and the block's `where` clauses, and
// the evaluation of dimension expressions under them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/parse/AST.h"

namespace linnet::bind {

struct BoundValue {
  std::optional<int64_t> dim;          // for Dim generics
  std::optional<ast::ScalarType> dtype;  // for DType/Numeric/Integer/Float generics
  std::string text() const;
};

using GenericBindings = std::map<std::string, BoundValue>;

// Parses and checks `NAME=VALUE` strings against `block`'s generics; returns
// nullopt after reporting when any is invalid.
std::optional<GenericBindings> parseBindOverrides(const ast::BlockItem& block,
                                                  std::string_view blockName,
                                                  const std::vector<std::string>& binds,
                                                  DiagnosticEmitter& diagnostics);

// Reports every `where` clause of `block` whose generics are all bound and
// which evaluates to false; returns whether all hold.
bool checkWhereClauses(const ast::BlockItem& block, std::string_view blockName,
                       const GenericBindings& bindings, DiagnosticEmitter& diagnostics);

// Why `type` does not satisfy the dtype constraint `kind`; empty when it does.
std::string dtypeViolation(ast::GenericKind kind, ast::ScalarType type);

// Integer value of a dimension expression under `bindings`, or nullopt when a
// name is unbound or the arithmetic is undefined (division by zero).
std::optional<int64_t> evaluateDim(const ast::Expr* expr, const GenericBindings& bindings);

}  // namespace linnet::bind
