// Front-end unit test helpers (see FrontendTestUtil.h).
#include "FrontendTestUtil.h"

#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/Parser.h"

namespace linnet::test {

std::vector<TokenKind> Lexed::kinds() const {
  std::vector<TokenKind> out;
  for (const Token& token : tokens.tokens) out.push_back(token.kind);
  return out;
}

std::vector<std::string> Lexed::codes() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics.diagnostics()) out.emplace_back(d.code());
  return out;
}

std::vector<std::string> Parsed::codes() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics.sorted()) out.emplace_back(d.code());
  return out;
}

std::vector<std::string> Parsed::messages() const {
  std::vector<std::string> out;
  for (const Diagnostic& d : diagnostics.sorted()) out.push_back(d.message);
  return out;
}

const ast::FunctionItem* Parsed::function(size_t index) const {
  size_t seen = 0;
  for (const ast::Item* item : module->items) {
    if (auto* fn = ast::as<ast::FunctionItem>(item)) {
      if (seen++ == index) return fn;
    }
  }
  return nullptr;
}

std::unique_ptr<Lexed> lexText(const std::string& text) {
  auto lexed = std::make_unique<Lexed>();
  lexed->file = lexed->sources.addBuffer("test.linnet", text);
  lexed->tokens = lex(lexed->sources, lexed->file, lexed->diagnostics);
  return lexed;
}

std::unique_ptr<Parsed> parseText(const std::string& text) {
  auto parsed = std::make_unique<Parsed>();
  parsed->file = parsed->sources.addBuffer("test.linnet", text);
  parsed->tokens = lex(parsed->sources, parsed->file, parsed->diagnostics);
  parsed->module = parse(parsed->sources, parsed->tokens, parsed->diagnostics);
  return parsed;
}

std::unique_ptr<Parsed> parseExprText(const std::string& expr) {
  return parseText("module m\nfn f() {\n    let v = " + expr + "\n}\n");
}

const ast::Expr* letValue(const Parsed& parsed, size_t statement) {
  const ast::FunctionItem* fn = parsed.function();
  if (!fn || fn->body.size() <= statement) return nullptr;
  auto* let = ast::as<ast::LetStmt>(fn->body[statement]);
  return let ? let->value : nullptr;
}

std::string format(const std::string& text) {
  std::unique_ptr<Parsed> parsed = parseText(text);
  if (!parsed->ok()) return {};
  return ast::printModule(*parsed->module);
}

}  // namespace linnet::test
