// ASTPrinter: Linnet source text from the AST, in the one canonical style
// (`Tensor[B, S, 3 * H; T]`, `Linear<H, 3 * H, T>`, `x: Tensor[*S, In; T]`),
// used by `linnet inspect` and by round-trip tests; and `dumpAST`, the
// indented tree behind `linnet inspect --ast`.
#pragma once

#include <iosfwd>
#include <string>

#include "compiler/parse/AST.h"

namespace linnet::ast {

std::string printType(const TypeNode* type);
std::string printExpr(const Expr* expr);
std::string printGenericArg(const GenericArg& arg);
std::string printGenericParams(const std::vector<GenericParam>& generics);  // "<A: Dim, T: Float = bf16>" or ""
// "fn name<G>(a: T, b: U = 1) -> R" with the `pub` prefix when public; no
// where clause, no body. Kernel headers print their results and settings.
std::string printSignature(const FunctionItem& function);
// The whole file, formatted (the basis of `linnet fmt`).
std::string printModule(const SourceModule& module);
void dumpAST(const SourceModule& module, std::ostream& out);

}  // namespace linnet::ast
