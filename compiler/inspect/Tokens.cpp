// `linnet inspect --tokens`.
#include "compiler/inspect/Tokens.h"

#include <ostream>

namespace linnet::inspect {

void printTokens(const SourceManager& sources, const TokenizedBuffer& tokens, std::ostream& out) {
  const SourceFile& file = sources.file(tokens.file);
  for (const Token& token : tokens.tokens) {
    LineColumn at = file.lineColumn(token.span.begin);
    out << at.line << ":" << at.column << " ";
    if (isKeyword(token.kind) || isPunctuation(token.kind) || token.kind == TokenKind::EndOfFile) {
      out << tokenKindSpelling(token.kind) << "\n";
    } else {
      out << tokenKindSpelling(token.kind) << " " << sources.text(token.span) << "\n";
    }
  }
}

}  // namespace linnet::inspect
