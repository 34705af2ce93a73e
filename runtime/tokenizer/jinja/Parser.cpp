// Tokens -> Program: the statements and the expression grammar of jinja2,
// with jinja2's precedence (lowest first): `x if c else y`, or, and, not,
// comparisons and `in`, `~`, `+ -`, `* / // %`, `**`, unary `- +`, then a
// primary with `.attr`, `[...]`, `(...)`, `| filter` and `is test`.
// Statements jinja2 has that chat templates do not use (include, extends,
// block, import, call, filter, raw, recursive loops) are refused by name.
#include "runtime/tokenizer/jinja/Ast.h"
#include "runtime/tokenizer/jinja/Lexer.h"

#include <charconv>
#include <cstdlib>
#include <initializer_list>

namespace linnet::rt::jinja {

namespace {

using TK = Token::Kind;

class Parser {
public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  Expected<Program> run() {
    Program program;
    std::string endTag;
    if (Status s = parseBody(program.body, {}, endTag); !s)
      return s.error();
    return program;
  }

private:
  const Token &cur() const { return tokens_[pos_]; }
  const Token &peek(std::size_t ahead = 1) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  bool isOp(std::string_view op) const { return cur().kind == TK::Operator && cur().text == op; }
  bool isName(std::string_view name) const { return cur().kind == TK::Name && cur().text == name; }
  void advance() {
    if (pos_ + 1 < tokens_.size())
      ++pos_;
  }

  std::string describe(const Token &t) const {
    switch (t.kind) {
    case TK::Text: return "template text";
    case TK::VarBegin: return "`{{`";
    case TK::VarEnd: return "`}}`";
    case TK::BlockBegin: return "`{%`";
    case TK::BlockEnd: return "`%}`";
    case TK::Name: return fmt::format("`{}`", t.text);
    case TK::String: return "a string";
    case TK::Integer:
    case TK::Float: return fmt::format("`{}`", t.text);
    case TK::Operator: return fmt::format("`{}`", t.text);
    case TK::End: return "the end of the template";
    }
    return "a token";
  }

  Error unexpected(std::string_view expected) const {
    return makeError("line {}: expected {}, got {}", cur().line, expected, describe(cur()));
  }

  Status expectOp(std::string_view op) {
    if (!isOp(op))
      return unexpected(fmt::format("`{}`", op));
    advance();
    return Status::success();
  }
  Status expectBlockEnd() {
    if (cur().kind != TK::BlockEnd)
      return unexpected("`%}`");
    advance();
    return Status::success();
  }
  Expected<std::string> expectName() {
    if (cur().kind != TK::Name)
      return unexpected("a name");
    std::string name = cur().text;
    advance();
    return name;
  }

  Status enter() {
    if (++depth_ > kMaxNesting)
      return makeError("line {}: the template nests deeper than {} levels", cur().line,
                       kMaxNesting);
    return Status::success();
  }

  // A chain (`a + b + c`, `x.a.b`, `x[0][0]`, `s | f | g`, `a if b if c`)
  // is parsed by a loop but builds a left-deep tree that the renderer and
  // Expr's destructor walk recursively: each link counts as one level of
  // nesting while the rest of the chain is parsed, so every tree stays
  // within kMaxNesting however it was written. Links are given back when
  // the chain ends.
  class Chain {
  public:
    explicit Chain(Parser &parser) : parser_(parser) {}
    ~Chain() { parser_.depth_ -= links_; }
    Status link() {
      ++links_;
      return parser_.enter();
    }

  private:
    Parser &parser_;
    int links_ = 0;
  };

  // Parses statements until a `{% name %}` whose name is in `ends` (left
  // unconsumed after the name: `endTag` gets it) or the end of input (an
  // error when `ends` is not empty).
  Status parseBody(Body &body, std::initializer_list<std::string_view> ends, std::string &endTag) {
    if (Status s = enter(); !s)
      return s;
    int startLine = cur().line;
    while (true) {
      const Token &t = cur();
      if (t.kind == TK::End) {
        if (ends.size() == 0)
          break;
        std::string names;
        for (std::string_view e : ends)
          names += fmt::format("{}`{}`", names.empty() ? "" : " or ", e);
        return makeError("line {}: unexpected end of template: missing {} for the block opened "
                         "at line {}",
                         t.line, names, startLine);
      }
      if (t.kind == TK::Text) {
        Stmt stmt{Stmt::Kind::Text};
        stmt.line = t.line;
        stmt.text = t.text;
        body.push_back(std::move(stmt));
        advance();
        continue;
      }
      if (t.kind == TK::VarBegin) {
        Stmt stmt{Stmt::Kind::Output};
        stmt.line = t.line;
        advance();
        auto e = parseExpression();
        if (!e)
          return e.error();
        stmt.expr = std::move(*e);
        if (cur().kind != TK::VarEnd)
          return unexpected("`}}`");
        advance();
        body.push_back(std::move(stmt));
        continue;
      }
      if (t.kind != TK::BlockBegin)
        return unexpected("template text or a tag");
      const Token &nameTok = peek();
      if (nameTok.kind != TK::Name) {
        advance();
        return unexpected("a statement name");
      }
      for (std::string_view e : ends)
        if (nameTok.text == e) {
          advance();
          endTag = nameTok.text;
          advance();
          --depth_;
          return Status::success();
        }
      advance();
      if (Status s = parseStatement(body); !s)
        return s;
    }
    --depth_;
    return Status::success();
  }

  Status parseStatement(Body &body) {
    const Token nameTok = cur();
    const std::string &name = nameTok.text;
    int line = nameTok.line;
    advance();
    if (name == "if")
      return parseIf(body, line);
    if (name == "for")
      return parseFor(body, line);
    if (name == "set")
      return parseSet(body, line);
    if (name == "macro")
      return parseMacro(body, line);
    if (name == "break" || name == "continue") {
      Stmt stmt{name == "break" ? Stmt::Kind::Break : Stmt::Kind::Continue};
      stmt.line = line;
      if (loopDepth_ == 0)
        return makeError("line {}: `{}` outside a for loop", line, name);
      body.push_back(std::move(stmt));
      return expectBlockEnd();
    }
    if (name == "generation") {
      Stmt stmt{Stmt::Kind::Generation};
      stmt.line = line;
      if (Status s = expectBlockEnd(); !s)
        return s;
      stmt.bodies.emplace_back();
      std::string end;
      if (Status s = parseBody(stmt.bodies[0], {"endgeneration"}, end); !s)
        return s;
      body.push_back(std::move(stmt));
      return expectBlockEnd();
    }
    static const char *const kRefused[] = {"include", "extends", "block", "import", "from",
                                           "call",    "filter",  "raw",   "with",   "autoescape",
                                           "do"};
    for (const char *refused : kRefused)
      if (name == refused)
        return makeError("line {}: the `{}` statement is not supported in chat templates", line,
                         name);
    return makeError("line {}: unknown statement `{}`", line, name);
  }

  Status parseIf(Body &body, int line) {
    Stmt stmt{Stmt::Kind::If};
    stmt.line = line;
    while (true) {
      auto cond = parseExpression();
      if (!cond)
        return cond.error();
      if (Status s = expectBlockEnd(); !s)
        return s;
      stmt.conditions.push_back(std::move(*cond));
      stmt.bodies.emplace_back();
      std::string end;
      if (Status s = parseBody(stmt.bodies.back(), {"elif", "else", "endif"}, end); !s)
        return s;
      if (end == "elif")
        continue;
      if (end == "else") {
        if (Status s = expectBlockEnd(); !s)
          return s;
        if (Status s = parseBody(stmt.elseBody, {"endif"}, end); !s)
          return s;
      }
      break;
    }
    body.push_back(std::move(stmt));
    return expectBlockEnd();
  }

  Status parseTargets(std::vector<std::string> &targets) {
    bool paren = isOp("(");
    if (paren)
      advance();
    while (true) {
      auto name = expectName();
      if (!name)
        return name.error();
      targets.push_back(std::move(*name));
      if (!isOp(","))
        break;
      advance();
      if (paren && isOp(")"))
        break;
    }
    if (paren)
      return expectOp(")");
    return Status::success();
  }

  Status parseFor(Body &body, int line) {
    Stmt stmt{Stmt::Kind::For};
    stmt.line = line;
    if (Status s = parseTargets(stmt.targets); !s)
      return s;
    if (!isName("in"))
      return unexpected("`in`");
    advance();
    // The iterable is parsed without the conditional expression, so that
    // `for x in xs if cond` is a loop filter (as in jinja2).
    auto iter = parseOr();
    if (!iter)
      return iter.error();
    stmt.expr = std::move(*iter);
    if (isName("if")) {
      advance();
      auto filter = parseExpression();
      if (!filter)
        return filter.error();
      stmt.filter = std::move(*filter);
    }
    if (isName("recursive"))
      return makeError("line {}: recursive for loops are not supported", cur().line);
    if (Status s = expectBlockEnd(); !s)
      return s;
    stmt.bodies.emplace_back();
    std::string end;
    ++loopDepth_;
    Status s = parseBody(stmt.bodies[0], {"else", "endfor"}, end);
    --loopDepth_;
    if (!s)
      return s;
    if (end == "else") {
      if (Status e = expectBlockEnd(); !e)
        return e;
      int savedLoops = loopDepth_;
      loopDepth_ = 0; // break/continue in a for's else belong to no loop here
      Status e = parseBody(stmt.elseBody, {"endfor"}, end);
      loopDepth_ = savedLoops;
      if (!e)
        return e;
    }
    body.push_back(std::move(stmt));
    return expectBlockEnd();
  }

  Status parseSet(Body &body, int line) {
    Stmt stmt{Stmt::Kind::Set};
    stmt.line = line;
    auto first = expectName();
    if (!first)
      return first.error();
    stmt.targets.push_back(std::move(*first));
    if (isOp(".")) {
      advance();
      auto attr = expectName();
      if (!attr)
        return attr.error();
      stmt.attr = std::move(*attr);
    } else {
      while (isOp(",")) {
        advance();
        auto name = expectName();
        if (!name)
          return name.error();
        stmt.targets.push_back(std::move(*name));
      }
    }
    if (cur().kind == TK::BlockEnd && stmt.attr.empty() && stmt.targets.size() == 1) {
      advance();
      stmt.kind = Stmt::Kind::SetBlock;
      stmt.bodies.emplace_back();
      std::string end;
      if (Status s = parseBody(stmt.bodies[0], {"endset"}, end); !s)
        return s;
      body.push_back(std::move(stmt));
      return expectBlockEnd();
    }
    if (Status s = expectOp("="); !s)
      return s;
    auto value = parseTupleOrExpression();
    if (!value)
      return value.error();
    stmt.expr = std::move(*value);
    body.push_back(std::move(stmt));
    return expectBlockEnd();
  }

  Status parseMacro(Body &body, int line) {
    Stmt stmt{Stmt::Kind::Macro};
    stmt.line = line;
    stmt.macro = std::make_unique<MacroNode>();
    auto name = expectName();
    if (!name)
      return name.error();
    stmt.macro->name = std::move(*name);
    if (Status s = expectOp("("); !s)
      return s;
    while (!isOp(")")) {
      auto param = expectName();
      if (!param)
        return param.error();
      stmt.macro->params.push_back(std::move(*param));
      ExprPtr def;
      if (isOp("=")) {
        advance();
        auto e = parseExpression();
        if (!e)
          return e.error();
        def = std::move(*e);
      }
      stmt.macro->defaults.push_back(std::move(def));
      if (!isOp(","))
        break;
      advance();
    }
    if (Status s = expectOp(")"); !s)
      return s;
    if (Status s = expectBlockEnd(); !s)
      return s;
    std::string end;
    int savedLoops = loopDepth_;
    loopDepth_ = 0;
    Status s = parseBody(stmt.macro->body, {"endmacro"}, end);
    loopDepth_ = savedLoops;
    if (!s)
      return s;
    body.push_back(std::move(stmt));
    return expectBlockEnd();
  }

  // ---- expressions ----

  static ExprPtr node(Expr::Kind kind, int line) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->line = line;
    return e;
  }

  Expected<ExprPtr> parseTupleOrExpression() {
    int line = cur().line;
    auto first = parseExpression();
    if (!first || !isOp(","))
      return first;
    ExprPtr tuple = node(Expr::Kind::Tuple, line);
    tuple->args.push_back(std::move(*first));
    while (isOp(",")) {
      advance();
      auto next = parseExpression();
      if (!next)
        return next;
      tuple->args.push_back(std::move(*next));
    }
    return tuple;
  }

  Expected<ExprPtr> parseExpression() {
    if (Status s = enter(); !s)
      return s.error();
    auto value = parseOr();
    if (!value)
      return value;
    ExprPtr result = std::move(*value);
    Chain chain(*this);
    while (isName("if")) {
      int line = cur().line;
      if (Status s = chain.link(); !s)
        return s.error();
      advance();
      auto cond = parseOr();
      if (!cond)
        return cond;
      ExprPtr e = node(Expr::Kind::Conditional, line);
      e->args.push_back(std::move(result));
      e->args.push_back(std::move(*cond));
      if (isName("else")) {
        advance();
        auto other = parseExpression();
        if (!other)
          return other;
        e->args.push_back(std::move(*other));
      } else {
        e->args.push_back(nullptr);
      }
      result = std::move(e);
    }
    --depth_;
    return result;
  }

  Expected<ExprPtr> binaryLoop(Expected<ExprPtr> (Parser::*next)(),
                               std::initializer_list<std::string_view> ops, bool names) {
    auto left = (this->*next)();
    if (!left)
      return left;
    ExprPtr result = std::move(*left);
    Chain chain(*this);
    while (true) {
      std::string op;
      for (std::string_view o : ops)
        if (names ? isName(o) : isOp(o))
          op = o;
      if (op.empty())
        break;
      int line = cur().line;
      if (Status s = chain.link(); !s)
        return s.error();
      advance();
      auto right = (this->*next)();
      if (!right)
        return right;
      ExprPtr e = node(Expr::Kind::Binary, line);
      e->name = op;
      e->args.push_back(std::move(result));
      e->args.push_back(std::move(*right));
      result = std::move(e);
    }
    return result;
  }

  Expected<ExprPtr> parseOr() { return binaryLoop(&Parser::parseAnd, {"or"}, true); }
  Expected<ExprPtr> parseAnd() { return binaryLoop(&Parser::parseNot, {"and"}, true); }

  Expected<ExprPtr> parseNot() {
    if (isName("not")) {
      if (Status s = enter(); !s)
        return s.error();
      int line = cur().line;
      advance();
      auto operand = parseNot();
      if (!operand)
        return operand;
      ExprPtr e = node(Expr::Kind::Unary, line);
      e->name = "not";
      e->args.push_back(std::move(*operand));
      --depth_;
      return e;
    }
    return parseCompare();
  }

  Expected<ExprPtr> parseCompare() {
    int line = cur().line;
    auto left = parseConcat();
    if (!left)
      return left;
    ExprPtr result = std::move(*left);
    ExprPtr compare;
    while (true) {
      std::string op;
      if (cur().kind == TK::Operator &&
          (cur().text == "==" || cur().text == "!=" || cur().text == "<" || cur().text == "<=" ||
           cur().text == ">" || cur().text == ">=")) {
        op = cur().text;
        advance();
      } else if (isName("in")) {
        op = "in";
        advance();
      } else if (isName("not") && peek().kind == TK::Name && peek().text == "in") {
        op = "not in";
        advance();
        advance();
      } else {
        break;
      }
      auto right = parseConcat();
      if (!right)
        return right;
      if (!compare) {
        compare = node(Expr::Kind::Compare, line);
        compare->args.push_back(std::move(result));
      }
      compare->ops.push_back(op);
      compare->args.push_back(std::move(*right));
    }
    if (compare)
      return compare;
    return result;
  }

  Expected<ExprPtr> parseConcat() { return binaryLoop(&Parser::parseAdd, {"~"}, false); }
  Expected<ExprPtr> parseAdd() { return binaryLoop(&Parser::parseMul, {"+", "-"}, false); }
  Expected<ExprPtr> parseMul() {
    return binaryLoop(&Parser::parsePow, {"*", "/", "//", "%"}, false);
  }
  Expected<ExprPtr> parsePow() {
    return binaryLoop(&Parser::parseUnaryWithFilters, {"**"}, false);
  }

  Expected<ExprPtr> parseUnaryWithFilters() { return parseUnary(true); }

  Expected<ExprPtr> parseUnary(bool withFilters) {
    if (Status s = enter(); !s)
      return s.error();
    ExprPtr result;
    if (isOp("-") || isOp("+")) {
      int line = cur().line;
      std::string op = cur().text;
      advance();
      auto operand = parseUnary(false);
      if (!operand)
        return operand;
      result = node(Expr::Kind::Unary, line);
      result->name = op;
      result->args.push_back(std::move(*operand));
    } else {
      auto primary = parsePrimary();
      if (!primary)
        return primary;
      result = std::move(*primary);
    }
    auto postfix = parsePostfix(std::move(result));
    if (!postfix)
      return postfix;
    result = std::move(*postfix);
    if (withFilters) {
      auto filtered = parseFiltersAndTests(std::move(result));
      if (!filtered)
        return filtered;
      result = std::move(*filtered);
    }
    --depth_;
    return result;
  }

  Status parseCallArgs(Expr &call) {
    // After `(`.
    while (!isOp(")")) {
      if (cur().kind == TK::Name && peek().kind == TK::Operator && peek().text == "=") {
        std::string key = cur().text;
        advance();
        advance();
        auto value = parseExpression();
        if (!value)
          return value.error();
        call.kwargs.emplace_back(std::move(key), std::move(*value));
      } else {
        if (isOp("*") || isOp("**"))
          return makeError("line {}: `*args` and `**kwargs` in calls are not supported",
                           cur().line);
        if (!call.kwargs.empty())
          return makeError("line {}: a positional argument follows a keyword argument",
                           cur().line);
        auto value = parseExpression();
        if (!value)
          return value.error();
        call.args.push_back(std::move(*value));
      }
      if (!isOp(","))
        break;
      advance();
    }
    return expectOp(")");
  }

  Expected<ExprPtr> parsePostfix(ExprPtr result) {
    Chain chain(*this);
    while (true) {
      int line = cur().line;
      if (isOp(".") || isOp("[") || isOp("("))
        if (Status s = chain.link(); !s)
          return s.error();
      if (isOp(".")) {
        advance();
        ExprPtr e = node(Expr::Kind::GetAttr, line);
        if (cur().kind == TK::Name) {
          e->name = cur().text;
        } else if (cur().kind == TK::Integer) {
          // `x.0` is jinja2's x[0].
          e->kind = Expr::Kind::GetItem;
          ExprPtr index = node(Expr::Kind::Literal, line);
          index->literal = Value::integer(std::strtoll(cur().text.c_str(), nullptr, 10));
          e->args.push_back(std::move(result));
          e->args.push_back(std::move(index));
          advance();
          result = std::move(e);
          continue;
        } else {
          return unexpected("an attribute name");
        }
        advance();
        e->args.push_back(std::move(result));
        result = std::move(e);
      } else if (isOp("[")) {
        advance();
        auto sub = parseSubscript(std::move(result), line);
        if (!sub)
          return sub;
        result = std::move(*sub);
      } else if (isOp("(")) {
        advance();
        ExprPtr call = node(Expr::Kind::Call, line);
        call->args.push_back(std::move(result));
        if (Status s = parseCallArgs(*call); !s)
          return s.error();
        result = std::move(call);
      } else {
        return result;
      }
    }
  }

  Expected<ExprPtr> parseSubscript(ExprPtr target, int line) {
    // After `[`: an index, or a slice with up to three parts.
    std::vector<ExprPtr> parts(1);
    bool slice = false;
    while (true) {
      if (isOp(":")) {
        slice = true;
        if (parts.size() == 3)
          return unexpected("`]`");
        parts.emplace_back();
        advance();
        continue;
      }
      if (isOp("]"))
        break;
      if (parts.back())
        return unexpected("`]`");
      auto e = parseExpression();
      if (!e)
        return e;
      parts.back() = std::move(*e);
    }
    advance();
    if (!slice) {
      if (!parts[0])
        return makeError("line {}: empty subscript", line);
      ExprPtr e = node(Expr::Kind::GetItem, line);
      e->args.push_back(std::move(target));
      e->args.push_back(std::move(parts[0]));
      return e;
    }
    ExprPtr e = node(Expr::Kind::Slice, line);
    e->args.push_back(std::move(target));
    parts.resize(3);
    for (auto &p : parts)
      e->args.push_back(std::move(p));
    return e;
  }

  Expected<std::string> dottedName() {
    auto name = expectName();
    if (!name)
      return name;
    std::string result = *name;
    while (isOp(".")) {
      advance();
      auto more = expectName();
      if (!more)
        return more;
      result += "." + *more;
    }
    return result;
  }

  Expected<ExprPtr> parseFiltersAndTests(ExprPtr result) {
    Chain chain(*this);
    while (true) {
      int line = cur().line;
      if (isOp("|") || isName("is") || isOp("("))
        if (Status s = chain.link(); !s)
          return s.error();
      if (isOp("|")) {
        advance();
        auto name = dottedName();
        if (!name)
          return name.error();
        ExprPtr e = node(Expr::Kind::Filter, line);
        e->name = std::move(*name);
        e->args.push_back(std::move(result));
        if (isOp("(")) {
          advance();
          if (Status s = parseCallArgs(*e); !s)
            return s.error();
        }
        result = std::move(e);
      } else if (isName("is")) {
        advance();
        ExprPtr e = node(Expr::Kind::Test, line);
        if (isName("not")) {
          e->negated = true;
          advance();
        }
        auto name = dottedName();
        if (!name)
          return name.error();
        e->name = std::move(*name);
        e->args.push_back(std::move(result));
        if (isOp("(")) {
          advance();
          if (Status s = parseCallArgs(*e); !s)
            return s.error();
        } else if ((cur().kind == TK::Name && cur().text != "else" && cur().text != "or" &&
                    cur().text != "and") ||
                   cur().kind == TK::String || cur().kind == TK::Integer ||
                   cur().kind == TK::Float || isOp("(") || isOp("[") || isOp("{")) {
          // `x is divisibleby 3`, `x is sameas none`: one argument, no
          // parentheses.
          auto arg = parsePrimary();
          if (!arg)
            return arg.error();
          auto post = parsePostfix(std::move(*arg));
          if (!post)
            return post.error();
          e->args.push_back(std::move(*post));
        }
        result = std::move(e);
      } else if (isOp("(")) {
        advance();
        ExprPtr call = node(Expr::Kind::Call, line);
        call->args.push_back(std::move(result));
        if (Status s = parseCallArgs(*call); !s)
          return s.error();
        result = std::move(call);
      } else {
        return result;
      }
    }
  }

  Expected<ExprPtr> parsePrimary() {
    const Token &t = cur();
    int line = t.line;
    switch (t.kind) {
    case TK::Name: {
      ExprPtr e = node(Expr::Kind::Literal, line);
      if (t.text == "true" || t.text == "True")
        e->literal = Value::boolean(true);
      else if (t.text == "false" || t.text == "False")
        e->literal = Value::boolean(false);
      else if (t.text == "none" || t.text == "None")
        e->literal = Value::none();
      else {
        e->kind = Expr::Kind::Name;
        e->name = t.text;
      }
      advance();
      return e;
    }
    case TK::String: {
      std::string text;
      while (cur().kind == TK::String) { // adjacent literals concatenate
        text += cur().text;
        advance();
      }
      ExprPtr e = node(Expr::Kind::Literal, line);
      e->literal = Value::string(std::move(text));
      return e;
    }
    case TK::Integer: {
      std::int64_t value = 0;
      auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
      if (ec != std::errc())
        return makeError("line {}: integer literal {} is out of range", line, t.text);
      ExprPtr e = node(Expr::Kind::Literal, line);
      e->literal = Value::integer(value);
      advance();
      return e;
    }
    case TK::Float: {
      ExprPtr e = node(Expr::Kind::Literal, line);
      e->literal = Value::number(std::strtod(t.text.c_str(), nullptr));
      advance();
      return e;
    }
    case TK::Operator:
      if (t.text == "(") {
        advance();
        if (isOp(")")) {
          advance();
          return node(Expr::Kind::Tuple, line);
        }
        auto inner = parseExpression();
        if (!inner)
          return inner;
        if (isOp(")")) {
          advance();
          return inner;
        }
        ExprPtr tuple = node(Expr::Kind::Tuple, line);
        tuple->args.push_back(std::move(*inner));
        while (isOp(",")) {
          advance();
          if (isOp(")"))
            break;
          auto next = parseExpression();
          if (!next)
            return next;
          tuple->args.push_back(std::move(*next));
        }
        if (Status s = expectOp(")"); !s)
          return s.error();
        return tuple;
      }
      if (t.text == "[") {
        advance();
        ExprPtr list = node(Expr::Kind::List, line);
        while (!isOp("]")) {
          auto item = parseExpression();
          if (!item)
            return item;
          list->args.push_back(std::move(*item));
          if (!isOp(","))
            break;
          advance();
        }
        if (Status s = expectOp("]"); !s)
          return s.error();
        return list;
      }
      if (t.text == "{") {
        advance();
        ExprPtr dict = node(Expr::Kind::Dict, line);
        while (!isOp("}")) {
          auto key = parseExpression();
          if (!key)
            return key;
          if (Status s = expectOp(":"); !s)
            return s.error();
          auto value = parseExpression();
          if (!value)
            return value;
          dict->args.push_back(std::move(*key));
          dict->args.push_back(std::move(*value));
          if (!isOp(","))
            break;
          advance();
        }
        if (Status s = expectOp("}"); !s)
          return s.error();
        return dict;
      }
      break;
    default:
      break;
    }
    return unexpected("an expression");
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  int loopDepth_ = 0;
};

} // namespace

Expected<Program> parseTemplate(std::string_view source) {
  auto tokens = lexTemplate(source);
  if (!tokens)
    return tokens.error();
  return Parser(std::move(*tokens)).run();
}

} // namespace linnet::rt::jinja
