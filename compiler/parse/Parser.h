// Parser: a recursive-descent parser from a TokenizedBuffer to the AST of one
// source file (spec grammar plus the prose-only forms: kernels, op kernel
// bindings and grad clauses, `for`/`yield`, kernel statements). It recovers at
// statement and item boundaries so one run reports several errors, and bounds
// its nesting depth so hostile input cannot overflow the stack.
#pragma once

#include <memory>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/lex/Token.h"
#include "compiler/parse/AST.h"

namespace linnet {

std::unique_ptr<ast::SourceModule> parse(const SourceManager& sources,
                                         const TokenizedBuffer& tokens,
                                         DiagnosticEmitter& diagnostics);

}  // namespace linnet
