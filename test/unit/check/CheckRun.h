// CheckRun: a program written to a temporary file, loaded, resolved and
// checked, with accessors for what the checker recorded. Shared by the
// check unit tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "compiler/check/Checker.h"

namespace linnet::check::testutil {

// A program written to a temporary file, loaded, resolved and checked.
struct CheckRun {
  std::filesystem::path dir;
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program;
  CheckedProgram checked;

  explicit CheckRun(const std::vector<std::string>& paths, CheckOptions options = {}) {
    program = loadProgram(sources, diagnostics, paths,
                          LoadOptions{std::string(LINNET_SOURCE_DIR) + "/stdlib"});
    if (!diagnostics.hasErrors()) resolveProgram(*program, diagnostics);
    if (!diagnostics.hasErrors()) checked = checkProgram(*program, diagnostics, options);
  }

  static std::unique_ptr<CheckRun> fromText(const std::string& text, CheckOptions options = {}) {
    std::mt19937_64 rng(std::random_device{}());
    auto dir = std::filesystem::temp_directory_path() / ("linnet-check-" + std::to_string(rng()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "main.linnet") << text;
    auto run = std::make_unique<CheckRun>(std::vector<std::string>{(dir / "main.linnet").string()},
                                          options);
    run->dir = dir;
    return run;
  }
  ~CheckRun() {
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }

  const ast::FunctionItem* function(const std::string& name) const {
    for (const auto& m : program->modules())
      if (m->ast)
        if (auto* f = ast::as<ast::FunctionItem>(m->findItem(name))) return f;
    return nullptr;
  }
  // The type of the value of the last `return` of `name`.
  std::string returned(const std::string& name) const {
    const ast::FunctionItem* f = function(name);
    if (!f || f->body.empty()) return "<no function>";
    auto* ret = ast::as<ast::ReturnStmt>(f->body.back());
    const CheckedFunction* cf = checked.functionOf(f);
    if (!ret || !cf) return "<unchecked>";
    const Type* t = cf->typeOf(ret->value);
    return t ? str(*t) : "<untyped>";
  }
  std::string errors() const {
    std::string out;
    for (const Diagnostic& d : diagnostics.diagnostics())
      out += std::string(d.code()) + " " + d.message + "\n";
    return out;
  }
  std::string typeOf(const ast::Expr* e) const {
    const Type* t = checked.typeOf(e);
    return t ? str(*t) : "<untyped>";
  }
  // The type of the value of `let name = ...` in the body of `fn`.
  std::string let(const std::string& fn, const std::string& name) const {
    const ast::FunctionItem* f = function(fn);
    if (!f) return "<no function>";
    for (const ast::Stmt* s : f->body)
      if (auto* let = ast::as<ast::LetStmt>(s))
        if (let->pattern && let->pattern->name.name == name) return typeOf(let->value);
    return "<no let>";
  }
  // The codes of every diagnostic, one a line.
  std::string codes() const {
    std::string out;
    for (const Diagnostic& d : diagnostics.diagnostics()) out += std::string(d.code()) + "\n";
    return out;
  }
};

}  // namespace linnet::check::testutil
