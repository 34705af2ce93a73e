// Bindings: values for a root block's generics given on the command line
// (`--bind H=3072 --bind T=f32`), checked against each generic's kind and the
// block's `where` clauses. Later a checkpoint supplies them the same way.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/parse/AST.h"

namespace linnet::inspect {

struct BoundValue {
  std::optional<int64_t> dim;          // for Dim generics
  std::optional<ast::ScalarType> dtype;  // for DType/Numeric/Integer/Float generics
  std::string text() const;
};

using GenericBindings = std::map<std::string, BoundValue>;

// Parses and checks `NAME=VALUE` strings against `block`'s generics; returns
// nullopt after reporting when any is invalid or a `where` clause whose
// generics are all bound evaluates to false.
std::optional<GenericBindings> bindGenerics(const ast::BlockItem& block, std::string_view blockName,
                                            const std::vector<std::string>& binds,
                                            DiagnosticEmitter& diagnostics);

// Integer value of a dimension expression under `bindings`, or nullopt when a
// name is unbound or the arithmetic is undefined (division by zero).
std::optional<int64_t> evaluateDim(const ast::Expr* expr, const GenericBindings& bindings);

}  // namespace linnet::inspect
