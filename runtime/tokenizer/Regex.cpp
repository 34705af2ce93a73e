// Implementation of Regex.h: a recursive-descent parser into a node tree,
// and a backtracking matcher in continuation-passing style (each node is
// matched and then calls "the rest of the pattern" with its end position,
// so alternatives and quantifiers backtrack by returning false).
#include "runtime/tokenizer/Regex.h"

#include "runtime/tokenizer/UnicodeTables.h"
#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

namespace linnet::rt {

namespace {

enum Property : unsigned {
  kLetter = 1,
  kNotLetter = 2,
  kNumber = 4,
  kNotNumber = 8,
  kSpace = 16,
  kNotSpace = 32,
};

constexpr int kUnbounded = -1;
constexpr int kMaxDepth = 2000;
// The parser recurses once per group, so a hostile tokenizer.json with
// thousands of nested `(` would overflow the stack before matching (bounded
// by kMaxDepth) ever starts. Real pre-tokenizer patterns nest two or three
// groups deep.
constexpr int kMaxGroupNesting = 100;
constexpr std::size_t kMaxCount = 1000; // largest n in {n,m}

struct Node {
  enum class Kind { Char, Class, Seq, Alt, Repeat, Look } kind = Kind::Seq;
  // Char
  char32_t ch = 0;
  bool icase = false;
  // Class (`.` is the negated class {\n})
  bool negated = false;
  std::vector<std::pair<char32_t, char32_t>> ranges;
  unsigned properties = 0;
  // Seq, Alt: children; Repeat, Look: kids[0]
  std::vector<int> kids;
  int min = 0, max = kUnbounded;
  bool greedy = true;
  bool negative = false; // Look: (?!...) rather than (?=...)

  bool isSingle() const { return kind == Kind::Char || kind == Kind::Class; }
};

bool isAsciiLetter(char32_t c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
char32_t asciiLower(char32_t c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

} // namespace

struct Regex::Program {
  std::vector<Node> nodes;
  int root = -1;
};

namespace {

class Parser {
public:
  Parser(std::u32string pattern, Regex::Program &program)
      : p_(std::move(pattern)), program_(program) {}

  Expected<int> parse() {
    Expected<int> root = parseAlt(false);
    if (!root)
      return root;
    if (pos_ < p_.size())
      return fail("unmatched ')'");
    return root;
  }

private:
  std::u32string p_;
  Regex::Program &program_;
  std::size_t pos_ = 0;
  int groupDepth_ = 0;

  Error fail(std::string_view what) const {
    return makeError("unsupported regex construct at offset {}: {}", pos_, what);
  }
  bool atEnd() const { return pos_ >= p_.size(); }
  char32_t peek() const { return p_[pos_]; }

  int add(Node node) {
    program_.nodes.push_back(std::move(node));
    return static_cast<int>(program_.nodes.size() - 1);
  }

  Expected<int> parseAlt(bool icase) {
    Node alt;
    alt.kind = Node::Kind::Alt;
    while (true) {
      Expected<int> seq = parseSeq(icase);
      if (!seq)
        return seq;
      alt.kids.push_back(*seq);
      if (!atEnd() && peek() == '|') {
        ++pos_;
        continue;
      }
      break;
    }
    if (alt.kids.size() == 1)
      return alt.kids[0];
    return add(std::move(alt));
  }

  Expected<int> parseSeq(bool icase) {
    Node seq;
    seq.kind = Node::Kind::Seq;
    while (!atEnd() && peek() != '|' && peek() != ')') {
      Expected<int> atom = parseAtom(icase);
      if (!atom)
        return atom;
      Expected<int> quantified = parseQuantifier(*atom);
      if (!quantified)
        return quantified;
      seq.kids.push_back(*quantified);
    }
    if (seq.kids.size() == 1)
      return seq.kids[0];
    return add(std::move(seq));
  }

  std::optional<std::size_t> parseNumber() {
    std::size_t start = pos_, value = 0;
    while (!atEnd() && peek() >= '0' && peek() <= '9') {
      value = value * 10 + (peek() - '0');
      if (value > kMaxCount)
        return std::nullopt;
      ++pos_;
    }
    if (pos_ == start)
      return std::nullopt;
    return value;
  }

  Expected<int> parseQuantifier(int atom) {
    if (atEnd())
      return atom;
    int min, max;
    char32_t c = peek();
    if (c == '?' || c == '*' || c == '+') {
      ++pos_;
      min = c == '+' ? 1 : 0;
      max = c == '?' ? 1 : kUnbounded;
    } else if (c == '{') {
      ++pos_;
      std::optional<std::size_t> lo = parseNumber();
      if (!lo)
        return fail("'{' must start a counted repetition {n}, {n,} or {n,m} (n <= 1000)");
      std::optional<std::size_t> hi = lo;
      if (!atEnd() && peek() == ',') {
        ++pos_;
        hi = (!atEnd() && peek() == '}') ? std::nullopt : parseNumber();
        if (!hi && (atEnd() || peek() != '}'))
          return fail("bad counted repetition");
      }
      if (atEnd() || peek() != '}')
        return fail("unterminated counted repetition");
      ++pos_;
      if (hi && *hi < *lo)
        return fail("counted repetition {n,m} with m < n");
      min = static_cast<int>(*lo);
      max = hi ? static_cast<int>(*hi) : kUnbounded;
    } else {
      return atom;
    }
    Node repeat;
    repeat.kind = Node::Kind::Repeat;
    repeat.kids = {atom};
    repeat.min = min;
    repeat.max = max;
    if (!atEnd() && peek() == '?') {
      ++pos_;
      repeat.greedy = false;
    } else if (!atEnd() && peek() == '+') {
      return fail("possessive quantifier");
    }
    if (!atEnd() && (peek() == '?' || peek() == '*' || peek() == '+' || peek() == '{'))
      return fail("nested quantifier");
    return add(std::move(repeat));
  }

  // After a backslash: fills `node` (a Char or a class item). In a class,
  // `inClass` adds properties to `node` instead of making a Char.
  Status parseEscape(Node &node, bool &isChar) {
    if (atEnd())
      return fail("trailing backslash");
    char32_t c = p_[pos_++];
    isChar = false;
    switch (c) {
    case 's':
      node.properties |= kSpace;
      return Status::success();
    case 'S':
      node.properties |= kNotSpace;
      return Status::success();
    case 'p':
    case 'P': {
      bool negate = c == 'P';
      char32_t name;
      if (!atEnd() && peek() == '{') {
        if (pos_ + 2 >= p_.size() || p_[pos_ + 2] != '}')
          return fail("only \\p{L} and \\p{N} are supported");
        name = p_[pos_ + 1];
        pos_ += 3;
      } else if (!atEnd()) {
        name = p_[pos_++];
      } else {
        return fail("unterminated \\p");
      }
      if (name == 'L')
        node.properties |= negate ? kNotLetter : kLetter;
      else if (name == 'N')
        node.properties |= negate ? kNotNumber : kNumber;
      else
        return fail("only the properties \\p{L} and \\p{N} are supported");
      return Status::success();
    }
    case 'r':
      node.ch = '\r';
      break;
    case 'n':
      node.ch = '\n';
      break;
    case 't':
      node.ch = '\t';
      break;
    case 'f':
      node.ch = '\f';
      break;
    case 'v':
      node.ch = '\v';
      break;
    default:
      if (c < 0x80 && !isAsciiLetter(c) && !(c >= '0' && c <= '9')) {
        node.ch = c; // escaped punctuation
        break;
      }
      return fail("escape \\" + toUtf8(std::u32string(1, c)) +
                  " (supported: \\s \\S \\p{L} \\p{N} \\P{L} \\P{N} \\r \\n \\t \\f \\v and "
                  "escaped punctuation)");
    }
    isChar = true;
    return Status::success();
  }

  Expected<int> parseClass(bool icase) {
    Node cls;
    cls.kind = Node::Kind::Class;
    cls.icase = icase;
    if (!atEnd() && peek() == '^') {
      cls.negated = true;
      ++pos_;
    }
    bool first = true;
    while (true) {
      if (atEnd())
        return fail("unterminated character class");
      char32_t c = peek();
      if (c == ']' && !first) {
        ++pos_;
        break;
      }
      if (c == ']' || c == '[')
        return fail("'[' or a leading ']' inside a character class");
      first = false;
      ++pos_;
      char32_t lo;
      if (c == '\\') {
        Node item;
        bool isChar = false;
        if (Status status = parseEscape(item, isChar); !status)
          return status.error();
        if (!isChar) {
          cls.properties |= item.properties;
          continue;
        }
        lo = item.ch;
      } else {
        lo = c;
      }
      char32_t hi = lo;
      if (pos_ + 1 < p_.size() && peek() == '-' && p_[pos_ + 1] != ']') {
        ++pos_;
        char32_t end = p_[pos_++];
        if (end == '\\') {
          Node item;
          bool isChar = false;
          if (Status status = parseEscape(item, isChar); !status)
            return status.error();
          if (!isChar)
            return fail("a class escape cannot end a range");
          end = item.ch;
        }
        if (end < lo)
          return fail("character class range out of order");
        hi = end;
      }
      cls.ranges.emplace_back(lo, hi);
    }
    return add(std::move(cls));
  }

  Expected<int> parseAtom(bool icase) {
    char32_t c = p_[pos_];
    switch (c) {
    case '(': {
      if (groupDepth_ >= kMaxGroupNesting)
        return fail(fmt::format("groups nested deeper than {}", kMaxGroupNesting));
      ++pos_;
      bool groupIcase = icase;
      std::optional<bool> look; // negative?
      if (!atEnd() && peek() == '?') {
        ++pos_;
        if (atEnd())
          return fail("unterminated group");
        char32_t kind = p_[pos_++];
        if (kind == ':') {
        } else if (kind == '!' || kind == '=') {
          look = kind == '!';
        } else if (kind == 'i' && !atEnd() && peek() == ':') {
          ++pos_;
          groupIcase = true;
        } else {
          --pos_;
          return fail("group kind (supported: (...), (?:...), (?i:...), (?=...), (?!...))");
        }
      }
      ++groupDepth_;
      Expected<int> inner = parseAlt(groupIcase);
      --groupDepth_;
      if (!inner)
        return inner;
      if (atEnd() || peek() != ')')
        return fail("unterminated group");
      ++pos_;
      if (!look)
        return inner;
      Node node;
      node.kind = Node::Kind::Look;
      node.negative = *look;
      node.kids = {*inner};
      return add(std::move(node));
    }
    case '[':
      ++pos_;
      return parseClass(icase);
    case '.': {
      ++pos_;
      Node node;
      node.kind = Node::Kind::Class;
      node.negated = true;
      node.ranges = {{'\n', '\n'}};
      return add(std::move(node));
    }
    case '\\': {
      ++pos_;
      Node node;
      bool isChar = false;
      if (Status status = parseEscape(node, isChar); !status)
        return status.error();
      node.kind = isChar ? Node::Kind::Char : Node::Kind::Class;
      node.icase = icase;
      return add(std::move(node));
    }
    case '^':
    case '$':
      return fail("anchors ^ and $");
    case '?':
    case '*':
    case '+':
    case '{':
      return fail("a quantifier with nothing to repeat");
    default: {
      ++pos_;
      Node node;
      node.kind = Node::Kind::Char;
      node.ch = c;
      node.icase = icase;
      return add(std::move(node));
    }
    }
  }
};

// A non-owning reference to a callable bool(size_t), for continuations.
class Cont {
public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, Cont>>>
  Cont(F &&f) // NOLINT: implicit on purpose
      : object_(const_cast<void *>(static_cast<const void *>(&f))),
        call_([](void *o, std::size_t p) { return (*static_cast<std::remove_reference_t<F> *>(o))(p); }) {}
  bool operator()(std::size_t pos) const { return call_(object_, pos); }

private:
  void *object_;
  bool (*call_)(void *, std::size_t);
};

class Matcher {
public:
  Matcher(const Regex::Program &program, std::u32string_view text, std::size_t stepLimit)
      : nodes_(program.nodes), text_(text), stepLimit_(stepLimit) {}

  bool aborted() const { return aborted_; }

  bool match(int index, std::size_t pos, Cont k) {
    if (aborted_ || ++steps_ > stepLimit_ || depth_ >= kMaxDepth) {
      aborted_ = true;
      return false;
    }
    ++depth_;
    bool result = matchNode(nodes_[static_cast<std::size_t>(index)], pos, k);
    --depth_;
    return result;
  }

private:
  const std::vector<Node> &nodes_;
  std::u32string_view text_;
  std::size_t stepLimit_;
  std::size_t steps_ = 0;
  int depth_ = 0;
  bool aborted_ = false;

  static bool classHas(const Node &node, char32_t c) {
    unsigned p = node.properties;
    if (p) {
      if ((p & kLetter) && unicode::isLetter(c))
        return true;
      if ((p & kNotLetter) && !unicode::isLetter(c))
        return true;
      if ((p & kNumber) && unicode::isNumber(c))
        return true;
      if ((p & kNotNumber) && !unicode::isNumber(c))
        return true;
      if ((p & kSpace) && unicode::isWhiteSpace(c))
        return true;
      if ((p & kNotSpace) && !unicode::isWhiteSpace(c))
        return true;
    }
    for (const auto &[lo, hi] : node.ranges)
      if (c >= lo && c <= hi)
        return true;
    return false;
  }

  static bool single(const Node &node, char32_t c) {
    if (node.kind == Node::Kind::Char)
      return c == node.ch ||
             (node.icase && isAsciiLetter(c) && isAsciiLetter(node.ch) &&
              asciiLower(c) == asciiLower(node.ch));
    bool in = classHas(node, c);
    if (!in && node.icase && isAsciiLetter(c))
      in = classHas(node, c ^ 0x20);
    return in != node.negated;
  }

  bool matchSeq(const Node &seq, std::size_t i, std::size_t pos, Cont k) {
    if (i == seq.kids.size())
      return k(pos);
    auto rest = [&](std::size_t p) { return matchSeq(seq, i + 1, p, k); };
    return match(seq.kids[i], pos, rest);
  }

  bool matchRepeat(const Node &rep, int count, std::size_t pos, Cont k) {
    auto more = [&]() {
      if (rep.max != kUnbounded && count >= rep.max)
        return false;
      auto next = [&](std::size_t p) {
        if (p == pos && count >= rep.min)
          return false; // an empty iteration would loop forever
        return matchRepeat(rep, count + 1, p, k);
      };
      return match(rep.kids[0], pos, next);
    };
    if (count < rep.min)
      return more();
    if (rep.greedy)
      return more() || (!aborted_ && k(pos));
    return k(pos) || (!aborted_ && more());
  }

  bool matchNode(const Node &node, std::size_t pos, Cont k) {
    switch (node.kind) {
    case Node::Kind::Char:
    case Node::Kind::Class:
      return pos < text_.size() && single(node, text_[pos]) && k(pos + 1);
    case Node::Kind::Seq:
      return matchSeq(node, 0, pos, k);
    case Node::Kind::Alt:
      for (int kid : node.kids) {
        if (match(kid, pos, k))
          return true;
        if (aborted_)
          return false;
      }
      return false;
    case Node::Kind::Look: {
      auto accept = [](std::size_t) { return true; };
      bool found = match(node.kids[0], pos, accept);
      if (aborted_ || found == node.negative)
        return false;
      return k(pos);
    }
    case Node::Kind::Repeat: {
      const Node &kid = nodes_[static_cast<std::size_t>(node.kids[0])];
      if (!kid.isSingle())
        return matchRepeat(node, 0, pos, k);
      // One code point per iteration: count the run, then try its lengths.
      std::size_t limit = node.max == kUnbounded ? text_.size() - pos
                                                 : std::min<std::size_t>(node.max, text_.size() - pos);
      std::size_t run = 0;
      while (run < limit && single(kid, text_[pos + run]))
        ++run;
      steps_ += run;
      if (run < static_cast<std::size_t>(node.min))
        return false;
      if (node.greedy) {
        for (std::size_t n = run + 1; n-- > static_cast<std::size_t>(node.min);) {
          if (k(pos + n))
            return true;
          if (aborted_)
            return false;
        }
      } else {
        for (std::size_t n = node.min; n <= run; ++n) {
          if (k(pos + n))
            return true;
          if (aborted_)
            return false;
        }
      }
      return false;
    }
    }
    return false;
  }
};

} // namespace

Regex::Regex(std::unique_ptr<Program> program) : program_(std::move(program)) {}
Regex::Regex(Regex &&) noexcept = default;
Regex &Regex::operator=(Regex &&) noexcept = default;
Regex::~Regex() = default;

Expected<Regex> Regex::compile(std::string_view pattern) {
  Expected<std::u32string> codePoints = decodeUtf8(pattern);
  if (!codePoints)
    return makeError("regex pattern: {}", codePoints.message());
  auto program = std::make_unique<Program>();
  Parser parser(std::move(*codePoints), *program);
  Expected<int> root = parser.parse();
  if (!root)
    return root.error();
  program->root = *root;
  return Regex(std::move(program));
}

Expected<std::vector<std::pair<std::size_t, std::size_t>>>
Regex::findAll(std::u32string_view text) const {
  std::vector<std::pair<std::size_t, std::size_t>> matches;
  // Linear in the text for the supported patterns; the bound only stops
  // pathological ones.
  std::size_t stepLimit = 2000 * (text.size() + 64);
  Matcher matcher(*program_, text, stepLimit);
  std::size_t pos = 0;
  while (pos < text.size()) {
    bool found = false;
    for (std::size_t start = pos; start < text.size(); ++start) {
      std::size_t end = start;
      auto accept = [&](std::size_t p) {
        if (p == start)
          return false;
        end = p;
        return true;
      };
      if (matcher.match(program_->root, start, accept)) {
        matches.emplace_back(start, end);
        pos = end;
        found = true;
        break;
      }
      if (matcher.aborted())
        return makeError("the pre-tokenizer regex gave up on a text of {} code points (too "
                         "much backtracking or nesting)",
                         text.size());
    }
    if (!found)
      break;
  }
  return matches;
}

} // namespace linnet::rt
