// GenericValues: concrete values for a root block's generics, from the
// command line (`--bind H=3072 --bind T=f32`) or solved from a checkpoint,
// checked against each generic's kind and the block's `where` clauses, and
// the evaluation of the checker's types under them. Dimensions are read from
// the typed IR (`shape::DimExpr`, in the root block's generics), never from
// the AST: the checker is the one place that interprets a written dimension,
// and shape::evaluate the one place that computes its value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/parse/AST.h"
#include "compiler/shape/DimExpr.h"

namespace linnet::bind {

struct BoundValue {
  std::optional<int64_t> dim;          // for Dim generics
  std::optional<ast::ScalarType> dtype;  // for DType/Numeric/Integer/Float generics
  std::string text() const;
};

using GenericBindings = std::map<std::string, BoundValue>;

// The dtypes of the entries' own type generics (`pub entry f<T: Float>`):
// they fix the entry's code, so they are bound when it is built, by name
// (every entry built with a generic of that name takes the value).
using EntryTypeBindings = std::map<std::string, ast::ScalarType>;
// The number of axes of the entries' pack generics (`*S`), where the build
// fixes it (`--bind S=2`); the rest are compiled for every length the
// arguments may give (docs/lowering.md "Entry variants").
using EntryPackBindings = std::map<std::string, int64_t>;

// Parses `NAME=VALUE` strings that name a type generic (not a dimension) of
// one of `entries` (those a build compiles; `root` is their block, null for
// module-level entries only, named `rootName`) and checks each value against
// the kind of every such generic; one naming a pack generic is its number of
// axes (0..16, into `*packs`); a name no entry has as a type generic or pack
// is UnknownBinding. Returns nullopt after reporting.
std::optional<EntryTypeBindings> parseEntryTypeBinds(const std::vector<const ast::FunctionItem*>& entries,
                                                     const ast::BlockItem* root, std::string_view rootName,
                                                     const std::vector<std::string>& binds,
                                                     DiagnosticEmitter& diagnostics,
                                                     EntryPackBindings* packs = nullptr);

// A root dim written as text (`--bind H=8`, config.json's `8`): an integer
// from 0 to the runtime's largest dim (rt::kMaxDim, which a call's arguments
// and binds take: a model bound past it would build and then not run; a
// `static for` over 2^62 steps was a loop that never ended); else nullopt.
std::optional<int64_t> parseRootDim(std::string_view text);

// Parses and checks `NAME=VALUE` strings against `block`'s generics; returns
// nullopt after reporting when any is invalid.
std::optional<GenericBindings> parseBindOverrides(const ast::BlockItem& block,
                                                  std::string_view blockName,
                                                  const std::vector<std::string>& binds,
                                                  DiagnosticEmitter& diagnostics);

// Reports every `where` clause of the checked `block` whose generics are all
// bound and which evaluates to false; returns whether all hold.
bool checkWhereClauses(const check::CheckedBlock& block, std::string_view blockName,
                       const GenericBindings& bindings, DiagnosticEmitter& diagnostics);

// Reports every requirement a compile-time index of a method of `block` left
// (check::CheckedFunction::requirements: `0 < S` for `x[0]` on `[S]`) whose
// generics are all bound and which evaluates to false; returns whether all
// hold. Those naming a method's own generics wait for them (entry dims are
// given at call time).
bool checkRequirements(const check::CheckedProgram& program, const ast::BlockItem& block,
                       std::string_view blockName, const GenericBindings& bindings,
                       DiagnosticEmitter& diagnostics);

// Why `type` does not satisfy the dtype constraint `kind`; empty when it does.
std::string dtypeViolation(ast::GenericKind kind, ast::ScalarType type);

// The Dim values of `bindings`, keyed as the shape solver knows `block`'s
// generics (check::symbolIdOf).
shape::Values dimValues(const ast::BlockItem& block, const GenericBindings& bindings);

// The value of `dim` at `values`, or nullopt when it names an unbound
// generic, divides by zero or overflows.
std::optional<int64_t> evaluateDim(const shape::DimExpr& dim, const shape::Values& values);

// Each extent of the tensor type `tensor` at `values`; nullopt where one
// cannot be evaluated (an unbound generic, a pack).
std::vector<std::optional<int64_t>> evaluateShape(const check::Type& tensor, const shape::Values& values);

// A tensor's dtype: its scalar, or the bound value of its dtype generic.
std::optional<ast::ScalarType> evaluateDType(const check::DType& dtype, const GenericBindings& bindings);

}  // namespace linnet::bind
