// Fuzzes the front end: any bytes must lex and parse without a crash, hang
// or stack overflow, give diagnostics whose spans lie inside the text, and
// print and dump without trouble. When the input has no errors the printed
// module must parse without errors and print to the same text again (the
// formatter's round trip).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/lex/Lexer.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/Parser.h"

namespace {

struct Result {
  std::string printed;
  bool errors = false;
};

Result runFrontEnd(const std::string& text) {
  linnet::SourceManager sources;
  linnet::DiagnosticEmitter diagnostics;
  linnet::FileId file = sources.addBuffer("fuzz.linnet", text);
  linnet::TokenizedBuffer tokens = linnet::lex(sources, file, diagnostics);
  if (tokens.tokens.empty() || tokens.tokens.back().kind != linnet::TokenKind::EndOfFile)
    __builtin_trap();
  for (const linnet::Token& token : tokens.tokens)
    if (token.span.begin > token.span.end || token.span.end > text.size()) __builtin_trap();

  std::unique_ptr<linnet::ast::SourceModule> module = linnet::parse(sources, tokens, diagnostics);
  for (const linnet::Diagnostic& diagnostic : diagnostics.diagnostics()) {
    for (const linnet::DiagnosticLabel& label : diagnostic.labels)
      if (label.span.begin > label.span.end || label.span.end > text.size()) __builtin_trap();
  }
  std::ostringstream rendered;
  linnet::renderText(sources, diagnostics.sorted(), rendered);
  std::ostringstream dump;
  linnet::ast::dumpAST(*module, dump);
  return {linnet::ast::printModule(*module), diagnostics.hasErrors()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  Result first = runFrontEnd(text);
  if (first.errors) return 0;
  Result second = runFrontEnd(first.printed);
  if (second.errors || second.printed != first.printed) __builtin_trap();
  return 0;
}
