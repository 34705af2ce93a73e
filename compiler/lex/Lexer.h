// Lexer: turns one source file into a TokenizedBuffer (spec chapter 1).
// Errors (E1001-E1005) are reported to the emitter and lexing continues, so
// one run reports every lexical error; the buffer always ends in EndOfFile.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/lex/Token.h"
#include "compiler/source/SourceManager.h"

namespace linnet {

TokenizedBuffer lex(const SourceManager& sources, FileId file, DiagnosticEmitter& diagnostics);

// Decoded value of a string literal token (escapes resolved). The lexer has
// already validated it.
std::string decodeStringLiteral(std::string_view spelling);

// Value of an integer literal token (decimal, `0x`, `0b`, `_` separators);
// nullopt when the spelling is malformed or does not fit in i64 (the lexer
// has already reported E1005 for it).
std::optional<uint64_t> decodeIntegerLiteral(std::string_view spelling);
// Value of a float literal token; nullopt when malformed or not finite.
std::optional<double> decodeFloatLiteral(std::string_view spelling);

}  // namespace linnet
