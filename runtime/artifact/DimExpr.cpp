// Parser and evaluator of dimension expressions (see DimExpr.h).
//
// A recursive-descent parser over the bytes of the text; recursion is
// bounded by counting nesting (parentheses and unary minus) and the tree's
// depth, so hostile input cannot exhaust the stack in parse() or evaluate().
#include "runtime/artifact/DimExpr.h"

#include <algorithm>
#include <limits>
#include <set>

namespace linnet::rt {

bool isIdentifier(std::string_view text) {
  if (text.empty())
    return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!alpha(text[0]))
    return false;
  return std::all_of(text.begin() + 1, text.end(), [&](char c) { return alpha(c) || digit(c); });
}

class DimExpr::Parser {
public:
  Parser(std::string_view text, DimExpr &out) : text_(text), out_(out) {}

  Expected<int> parseAll() {
    Expected<int> root = parseSum(0);
    if (!root)
      return root;
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected `{}`", text_[pos_]);
    return root;
  }

private:
  template <typename... Args> Error fail(fmt::format_string<Args...> format, Args &&...args) {
    return makeError("dim expression {}: {} at column {}", quoted(), fmt::format(format, std::forward<Args>(args)...),
                     pos_ + 1);
  }
  std::string quoted() const {
    std::string shown;
    for (char c : text_)
      shown += (c >= 0x20 && c < 0x7f) ? c : '?';
    return "`" + shown + "`";
  }
  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }
  int depthOf(int index) const { return index < 0 ? 0 : depths_[index]; }
  Expected<int> add(Node node) {
    int depth = 1 + std::max(depthOf(node.lhs), depthOf(node.rhs));
    for (int operand : node.operands)
      depth = std::max(depth, 1 + depthOf(operand));
    if (depth > kMaxDepth)
      return fail("nested more than {} deep", kMaxDepth);
    out_.nodes_.push_back(std::move(node));
    depths_.push_back(depth);
    return static_cast<int>(out_.nodes_.size() - 1);
  }

  Expected<int> parseSum(int nesting) {
    Expected<int> lhs = parseProduct(nesting);
    while (lhs) {
      skipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '+' && text_[pos_] != '-'))
        break;
      Kind kind = text_[pos_++] == '+' ? Kind::Add : Kind::Sub;
      Expected<int> rhs = parseProduct(nesting);
      if (!rhs)
        return rhs;
      lhs = add({kind, 0, {}, *lhs, *rhs, {}});
    }
    return lhs;
  }

  Expected<int> parseProduct(int nesting) {
    Expected<int> lhs = parseUnary(nesting);
    while (lhs) {
      skipSpace();
      if (pos_ >= text_.size() || (text_[pos_] != '*' && text_[pos_] != '/' && text_[pos_] != '%'))
        break;
      char op = text_[pos_++];
      Kind kind = op == '*' ? Kind::Mul : op == '/' ? Kind::Div : Kind::Mod;
      Expected<int> rhs = parseUnary(nesting);
      if (!rhs)
        return rhs;
      lhs = add({kind, 0, {}, *lhs, *rhs, {}});
    }
    return lhs;
  }

  Expected<int> parseUnary(int nesting) {
    if (nesting > kMaxDepth)
      return fail("nested more than {} deep", kMaxDepth);
    skipSpace();
    if (pos_ >= text_.size())
      return fail("expected a number, a name or `(`");
    char c = text_[pos_];
    auto digit = [&](std::size_t at) { return at < text_.size() && text_[at] >= '0' && text_[at] <= '9'; };
    // The digits at pos_, accumulated toward the literal's sign: a literal
    // written negative may be -2^63, whose magnitude is no int64.
    auto integer = [&](bool negative) -> Expected<int> {
      std::int64_t value = 0;
      for (; digit(pos_); ++pos_) {
        int d = text_[pos_] - '0';
        if (__builtin_mul_overflow(value, 10, &value) ||
            (negative ? __builtin_sub_overflow(value, d, &value) : __builtin_add_overflow(value, d, &value)))
          return fail("integer too large");
      }
      return add({Kind::Integer, value, {}, -1, -1, {}});
    };
    if (c == '-' && digit(pos_ + 1)) {
      ++pos_;
      return integer(true);
    }
    if (c == '-') {
      ++pos_;
      Expected<int> operand = parseUnary(nesting + 1);
      if (!operand)
        return operand;
      return add({Kind::Negate, 0, {}, *operand, -1, {}});
    }
    if (c == '(') {
      ++pos_;
      Expected<int> inner = parseSum(nesting + 1);
      if (!inner)
        return inner;
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ')')
        return fail("expected `)`");
      ++pos_;
      return inner;
    }
    if (digit(pos_))
      return integer(false);
    std::size_t begin = pos_;
    auto nameChar = [](char ch, bool first) {
      return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_' || (!first && ch >= '0' && ch <= '9');
    };
    while (pos_ < text_.size() && nameChar(text_[pos_], pos_ == begin))
      ++pos_;
    if (pos_ == begin)
      return fail("unexpected `{}`", c >= 0x20 && c < 0x7f ? std::string(1, c) : std::string("?"));
    std::string name(text_.substr(begin, pos_ - begin));
    std::size_t end = pos_;
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '(') {
      if (name != "min" && name != "max") {
        pos_ = begin;
        return fail("`{}` is not a function of dim expressions (only `min` and `max` are)", name);
      }
      return parseCall(name == "min" ? Kind::Min : Kind::Max, nesting);
    }
    pos_ = end;
    return add({Kind::Name, 0, std::move(name), -1, -1, {}});
  }

  // `min(` or `max(` has been read up to the `(`: one or more operands.
  Expected<int> parseCall(Kind kind, int nesting) {
    ++pos_; // `(`
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ')')
      return fail("`{}` needs at least one operand", kind == Kind::Min ? "min" : "max");
    Node node{kind, 0, {}, -1, -1, {}};
    for (;;) {
      Expected<int> operand = parseSum(nesting + 1);
      if (!operand)
        return operand;
      node.operands.push_back(*operand);
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ')') {
        ++pos_;
        return add(std::move(node));
      }
      return fail("expected `,` or `)`");
    }
  }

  std::string_view text_;
  DimExpr &out_;
  std::vector<int> depths_;
  std::size_t pos_ = 0;
};

Expected<DimExpr> DimExpr::parse(std::string_view text) {
  if (text.size() > kMaxTextLength)
    return makeError("dim expression is longer than {} characters", kMaxTextLength);
  DimExpr expr;
  expr.text_ = std::string(text);
  Parser parser(text, expr);
  Expected<int> root = parser.parseAll();
  if (!root)
    return root.error();
  expr.root_ = *root;
  return expr;
}

DimExpr DimExpr::constant(std::int64_t value) {
  DimExpr expr;
  expr.text_ = std::to_string(value);
  if (value >= 0) {
    expr.nodes_.push_back({Kind::Integer, value, {}, -1, -1, {}});
    expr.root_ = 0;
  } else {
    // -value may overflow; build 0 - |value| the safe way: -(value+1) - 1.
    expr.nodes_.push_back({Kind::Integer, -(value + 1), {}, -1, -1, {}});
    expr.nodes_.push_back({Kind::Negate, 0, {}, 0, -1, {}});
    expr.nodes_.push_back({Kind::Integer, 1, {}, -1, -1, {}});
    expr.nodes_.push_back({Kind::Sub, 0, {}, 1, 2, {}});
    expr.root_ = 3;
  }
  return expr;
}

std::vector<std::string> DimExpr::names() const {
  std::set<std::string> names;
  for (const Node &node : nodes_)
    if (node.kind == Kind::Name)
      names.insert(node.name);
  return {names.begin(), names.end()};
}

std::optional<std::string_view> DimExpr::asName() const {
  if (root_ >= 0 && nodes_[root_].kind == Kind::Name)
    return std::string_view(nodes_[root_].name);
  return std::nullopt;
}

Expected<std::int64_t> DimExpr::evaluate(const DimEnv &env) const {
  if (root_ < 0)
    return makeError("dim expression `{}` is empty", text_);
  return evaluateNode(root_, env);
}

Expected<std::int64_t> DimExpr::evaluateNode(int index, const DimEnv &env) const {
  const Node &node = nodes_[index];
  switch (node.kind) {
  case Kind::Integer:
    return node.value;
  case Kind::Name: {
    auto it = env.find(node.name);
    if (it == env.end())
      return makeError("dim expression `{}`: `{}` is not bound", text_, node.name);
    return it->second;
  }
  case Kind::Negate: {
    Expected<std::int64_t> operand = evaluateNode(node.lhs, env);
    if (!operand)
      return operand;
    std::int64_t result = 0;
    if (__builtin_sub_overflow(std::int64_t{0}, *operand, &result))
      return makeError("dim expression `{}` overflows", text_);
    return result;
  }
  case Kind::Min:
  case Kind::Max: {
    std::int64_t result = 0;
    for (std::size_t i = 0; i < node.operands.size(); ++i) {
      Expected<std::int64_t> operand = evaluateNode(node.operands[i], env);
      if (!operand)
        return operand;
      if (i == 0)
        result = *operand;
      else
        result = node.kind == Kind::Min ? std::min(result, *operand) : std::max(result, *operand);
    }
    return result;
  }
  case Kind::Add:
  case Kind::Sub:
  case Kind::Mul:
  case Kind::Div:
  case Kind::Mod:
    break;
  }
  // `(N + c) / k` with an offset near 2^63 (the extent of a slice whose step
  // is near 2^63: `(N + 2^63 - 2) / (2^63 - 1)`): the sum may pass 64 bits
  // where the quotient does not, so it is taken in 128.
  if (node.kind == Kind::Div &&
      (nodes_[node.lhs].kind == Kind::Add || nodes_[node.lhs].kind == Kind::Sub)) {
    const Node &sum = nodes_[node.lhs];
    Expected<std::int64_t> x = evaluateNode(sum.lhs, env);
    if (!x)
      return x;
    Expected<std::int64_t> y = evaluateNode(sum.rhs, env);
    if (!y)
      return y;
    Expected<std::int64_t> k = evaluateNode(node.rhs, env);
    if (!k)
      return k;
    if (*k == 0)
      return makeError("dim expression `{}` divides by zero", text_);
    __int128 n = sum.kind == Kind::Add ? static_cast<__int128>(*x) + *y : static_cast<__int128>(*x) - *y;
    __int128 q = n / *k;
    if (n % *k != 0 && ((n < 0) != (*k < 0)))
      --q;
    if (q > std::numeric_limits<std::int64_t>::max() || q < std::numeric_limits<std::int64_t>::min())
      return makeError("dim expression `{}` overflows", text_);
    return static_cast<std::int64_t>(q);
  }
  Expected<std::int64_t> lhs = evaluateNode(node.lhs, env);
  if (!lhs)
    return lhs;
  Expected<std::int64_t> rhs = evaluateNode(node.rhs, env);
  if (!rhs)
    return rhs;
  std::int64_t a = *lhs, b = *rhs, result = 0;
  bool overflow = false;
  switch (node.kind) {
  case Kind::Add:
    overflow = __builtin_add_overflow(a, b, &result);
    break;
  case Kind::Sub:
    overflow = __builtin_sub_overflow(a, b, &result);
    break;
  case Kind::Mul:
    overflow = __builtin_mul_overflow(a, b, &result);
    break;
  case Kind::Div:
  case Kind::Mod:
    if (b == 0)
      return makeError("dim expression `{}` divides by zero", text_);
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
      if (node.kind == Kind::Div)
        return makeError("dim expression `{}` overflows", text_);
      return std::int64_t{0};
    }
    if (node.kind == Kind::Div) {
      result = a / b;
      if (a % b != 0 && ((a < 0) != (b < 0)))
        --result;
    } else {
      result = a % b;
      if (result != 0 && ((result < 0) != (b < 0)))
        result += b;
    }
    break;
  case Kind::Integer:
  case Kind::Name:
  case Kind::Negate:
  case Kind::Min:
  case Kind::Max:
    break;
  }
  if (overflow)
    return makeError("dim expression `{}` overflows", text_);
  return result;
}

} // namespace linnet::rt
