// `linnet inspect --tokens`: one token per line as `line:col ` followed by the
// keyword or punctuation spelling, or `<kind> <text>` for identifiers and
// literals (`identifier foo`, `integer literal 42`); the last line is
// `end of file`.
#pragma once

#include <iosfwd>

#include "compiler/lex/Token.h"
#include "compiler/source/SourceManager.h"

namespace linnet::inspect {

void printTokens(const SourceManager& sources, const TokenizedBuffer& tokens, std::ostream& out);

}  // namespace linnet::inspect
