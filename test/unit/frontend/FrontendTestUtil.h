// Helpers shared by the front-end unit tests: lex or parse a string held in
// its own SourceManager, and look at the diagnostics by code.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/lex/Lexer.h"
#include "compiler/parse/AST.h"

namespace linnet::test {

struct Lexed {
  SourceManager sources;
  DiagnosticEmitter diagnostics{100000};
  FileId file = kNoFile;
  TokenizedBuffer tokens;
  std::vector<TokenKind> kinds() const;
  std::vector<std::string> codes() const;
};

struct Parsed {
  SourceManager sources;
  DiagnosticEmitter diagnostics{100000};
  FileId file = kNoFile;
  TokenizedBuffer tokens;
  std::unique_ptr<ast::SourceModule> module;
  std::vector<std::string> codes() const;
  std::vector<std::string> messages() const;
  bool ok() const { return !diagnostics.hasErrors(); }
  // The first item's function body, for tests of statements.
  const ast::FunctionItem* function(size_t index = 0) const;
};

std::unique_ptr<Lexed> lexText(const std::string& text);
std::unique_ptr<Parsed> parseText(const std::string& text);
// Parses `module m\nfn f() {\n    let v = <expr>\n}` and returns the value.
const ast::Expr* letValue(const Parsed& parsed, size_t statement = 0);
std::unique_ptr<Parsed> parseExprText(const std::string& expr);

// print(parse(text)); empty if parsing failed.
std::string format(const std::string& text);

}  // namespace linnet::test
