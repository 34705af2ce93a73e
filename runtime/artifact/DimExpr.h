// Dimension expressions of an artifact's manifest: `S`, `32064`, `H / Heads`,
// `(S + 1) * 2 - B % 3`, `max(0, N - 1)`.
//
// The grammar is integers, names, unary minus, `+ - * / %` with the usual
// precedence (left-associative), parentheses, and the calls `min(e, ...)`
// and `max(e, ...)` of one or more operands (`min`/`max` followed by `(`;
// without one they are plain names). `/` and `%` are floor
// division and modulo (Python's: `-7 / 2 == -4`, `-7 % 2 == 1`). Evaluation
// is in int64 with every operation overflow-checked; division or modulo by
// zero is an error. The text comes from a file we do not trust, so it is
// bounded: at most kMaxTextLength characters and a tree at most kMaxDepth
// deep (so evaluation recursion is bounded too).
//
// A DimExpr is an immutable value (copyable); parse() owns nothing outside.
#pragma once

#include "runtime/support/Status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

// Values of the names an expression may use (dims and integer generics).
using DimEnv = std::map<std::string, std::int64_t, std::less<>>;

// True for a name of the form [A-Za-z_][A-Za-z0-9_]*.
bool isIdentifier(std::string_view text);

class DimExpr {
public:
  static constexpr std::size_t kMaxTextLength = 1024;
  static constexpr int kMaxDepth = 64;

  // Parses `text`; the error says what is wrong and where (column).
  static Expected<DimExpr> parse(std::string_view text);
  // The expression for a constant (used by tests and callers building specs).
  static DimExpr constant(std::int64_t value);

  // Evaluates with `env`; an unknown name, overflow or division by zero is
  // an Error naming the expression.
  Expected<std::int64_t> evaluate(const DimEnv &env) const;

  // The text it was parsed from (for messages).
  const std::string &text() const { return text_; }
  // The names it mentions, sorted and unique.
  std::vector<std::string> names() const;
  // The name, when the expression is exactly one name (`S`, not `S + 0`).
  std::optional<std::string_view> asName() const;

private:
  enum class Kind : std::uint8_t { Integer, Name, Negate, Add, Sub, Mul, Div, Mod, Min, Max };
  struct Node {
    Kind kind;
    std::int64_t value = 0;    // Integer
    std::string name;          // Name
    int lhs = -1, rhs = -1;    // operands: indices into nodes_
    std::vector<int> operands; // Min, Max: one or more, indices into nodes_
  };
  class Parser;

  Expected<std::int64_t> evaluateNode(int index, const DimEnv &env) const;

  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
};

} // namespace linnet::rt
