// The parsed form of a chat template: statements (text, output, if, for,
// set, macro, ...) holding expression trees. Built by parseTemplate
// (Parser.cpp) and walked by the renderer (Render.cpp); every node keeps its
// source line for error messages.
#pragma once

#include "runtime/tokenizer/jinja/Value.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linnet::rt::jinja {

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct Expr {
  enum class Kind {
    Literal,   // literal
    Name,      // name
    List,      // args
    Tuple,     // args
    Dict,      // args: key, value, key, value, ...
    GetAttr,   // args[0].name
    GetItem,   // args[0][args[1]]
    Slice,     // args[0][args[1]:args[2]:args[3]] (null where omitted)
    Call,      // args[0](args[1:], kwargs)
    Filter,    // args[0] | name(args[1:], kwargs)
    Test,      // args[0] is [not] name(args[1:]); negated
    Unary,     // name ("-", "+", "not") args[0]
    Binary,    // args[0] name args[1]: + - * / // % ** ~ and or
    Compare,   // args[0] ops[0] args[1] ops[1] args[2] ...
    Conditional // args[0] if args[1] else args[2] (args[2] null: undefined)
  };
  Kind kind;
  int line = 0;
  std::string name;
  Value literal;
  std::vector<ExprPtr> args;
  std::vector<std::pair<std::string, ExprPtr>> kwargs;
  std::vector<std::string> ops;
  bool negated = false;
};

struct Stmt;
using Body = std::vector<Stmt>;

struct MacroNode {
  std::string name;
  std::vector<std::string> params;
  std::vector<ExprPtr> defaults; // aligned with params; null where none
  Body body;
};

struct Stmt {
  enum class Kind {
    Text,       // text
    Output,     // {{ expr }}
    If,         // conditions[i] -> bodies[i]; elseBody
    For,        // for targets in expr [if filter]: bodies[0]; elseBody
    Set,        // set targets[0][.attr] = expr, or set a, b = expr
    SetBlock,   // set targets[0] %}bodies[0]{% endset
    Macro,      // macro
    Break,
    Continue,
    Generation, // HF's {% generation %}: bodies[0], rendered as is
  };
  Kind kind;
  int line = 0;
  std::string text;
  ExprPtr expr;
  ExprPtr filter;
  std::vector<std::string> targets;
  std::string attr;
  std::vector<ExprPtr> conditions;
  std::vector<Body> bodies;
  Body elseBody;
  std::unique_ptr<MacroNode> macro;
};

struct Program {
  Body body;
};

// Limits that keep a hostile template from exhausting the stack at parse
// time.
inline constexpr int kMaxNesting = 200;

// Parses template source the way transformers configures jinja2
// (trim_blocks, lstrip_blocks, no trailing newline kept, loopcontrols and
// the generation tag). Errors name the line.
Expected<Program> parseTemplate(std::string_view source);

} // namespace linnet::rt::jinja
