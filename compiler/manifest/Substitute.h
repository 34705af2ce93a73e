// Substitute: a copy of a type or dimension expression with a block's generics
// replaced by the arguments its parent wrote (`Linear<H, 3 * H, T>` turns the
// child's `Tensor[Out, In; T]` into `Tensor[3 * H, H; T]`). Copies go into a
// scratch arena; the source tree is untouched. Replacements that are binary
// expressions are parenthesized when they become operands, so printing keeps
// the meaning (`(3 * H) / 2`). No simplification: that is the checker's job.
#pragma once

#include <map>
#include <string>

#include "compiler/parse/AST.h"

namespace linnet::manifest {

using Substitution = std::map<std::string, ast::GenericArg>;

const ast::TypeNode* substituteType(const ast::TypeNode* type, const Substitution& substitution,
                                    ast::Arena& arena);
const ast::Expr* substituteExpr(const ast::Expr* expr, const Substitution& substitution,
                                ast::Arena& arena);
ast::GenericArg substituteArg(const ast::GenericArg& arg, const Substitution& substitution,
                              ast::Arena& arena);

// The substitution for instantiating `generics` with `args` (defaults fill in
// omitted trailing arguments), each argument first substituted by `outer`.
Substitution bindArguments(const std::vector<ast::GenericParam>& generics,
                           const std::vector<ast::GenericArg>& args, const Substitution& outer,
                           ast::Arena& arena);

}  // namespace linnet::manifest
