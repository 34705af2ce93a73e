// The renderer's inside, shared by Render.cpp (statements, expressions,
// globals) and Builtins.cpp (filters, tests, methods). Not part of the
// engine's interface (that is Template.h).
#pragma once

#include "runtime/tokenizer/jinja/Ast.h"
#include "runtime/tokenizer/jinja/Template.h"

#include <string>
#include <vector>

namespace linnet::rt::jinja {

struct Scope {
  DictData vars;
  Scope *parent = nullptr;
};

enum class Flow { Normal, Break, Continue };

struct Args {
  std::vector<Value> positional;
  DictData keyword;
};

class Renderer {
public:
  explicit Renderer(const RenderOptions &options);
  Expected<std::string> run(const Program &program, const DictData &context);

private:
  Expected<Flow> execBody(const Body &body, Scope &scope, std::string &out);
  Expected<Flow> exec(const Stmt &stmt, Scope &scope, std::string &out);
  Expected<Flow> execFor(const Stmt &stmt, Scope &scope, std::string &out);
  Status assign(Scope &scope, const std::vector<std::string> &targets, const Value &value,
                int line);

  // evalNode, refusing a result that nests deeper than kMaxValueDepth.
  Expected<Value> eval(const Expr &e, Scope &scope);
  Expected<Value> evalNode(const Expr &e, Scope &scope);
  Status evalArgs(const Expr &e, std::size_t first, Scope &scope, Args &args);
  Expected<Value> evalCall(const Expr &e, Scope &scope);
  Expected<Value> callMacro(const MacroNode &macro, const Args &args, int line);
  Expected<Value> callGlobal(const std::string &name, const Args &args, int line);

  Value lookup(const Scope &scope, const std::string &name) const;
  Value getAttr(const Value &object, const std::string &name) const;
  Value getItem(const Value &object, const Value &key) const;
  Expected<Value> slice(const Value &object, const Value &start, const Value &stop,
                        const Value &step, int line) const;
  Expected<Value> binary(const std::string &op, const Value &a, const Value &b, int line) const;
  Expected<bool> compare(const std::string &op, const Value &a, const Value &b, int line) const;
  Expected<std::vector<Value>> iterate(const Value &value, int line) const;

  // Builtins.cpp
  Expected<Value> applyFilter(const std::string &name, const Value &subject, const Args &args,
                              Scope &scope, int line);
  Expected<bool> applyTest(const std::string &name, const Value &subject,
                           const std::vector<Value> &args, int line) const;
  Expected<Value> callMethod(const Value &object, const std::string &name, const Args &args,
                             int line) const;

  Status step(int line);
  Status checkSize(std::size_t size, int line) const;
  // str() of a value, bounded by maxOutputBytes; errors name the line.
  Expected<std::string> text(const Value &value, int line) const;

  // What a list or dict being built holds so far. A Value holds its string
  // (copying a list copies its strings), so both the item count and the
  // bytes of the strings held directly are bounded (maxItems,
  // maxOutputBytes), checked before the items are added.
  struct Growth {
    std::size_t items = 0;
    std::size_t bytes = 0;
  };
  Status grow(Growth &growth, std::size_t items, std::size_t bytes, int line) const;
  Status grow(Growth &growth, const Value &item, int line) const;

  const RenderOptions &options_;
  Scope *root_ = nullptr;
  std::size_t steps_ = 0;
  std::size_t bytesAtStart_ = 0; // valueBytesBuilt() when the render began
  std::size_t workAtStart_ = 0;  // valueWorkDone() when the render began
  int callDepth_ = 0;
  int renderDepth_ = 0;
};

} // namespace linnet::rt::jinja
