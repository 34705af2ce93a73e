// The filters, tests and str/dict methods chat templates use, with the
// behaviour of jinja2's builtins and Python's str methods (transformers'
// tojson is json.dumps with ensure_ascii=False). Case mapping is ASCII-only;
// whitespace is Python's str.isspace() set. Anything else is an Error naming
// the filter, test or method, never a guess.
#include "runtime/tokenizer/jinja/Render.h"

#include "runtime/tokenizer/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

namespace linnet::rt::jinja {

namespace {

bool isPyWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

char32_t decodeOne(std::string_view cp) {
  auto decoded = decodeUtf8(cp);
  if (!decoded || decoded->size() != 1)
    return 0xFFFD;
  return (*decoded)[0];
}

// str.strip / lstrip / rstrip: `chars` null means whitespace.
std::string pyStrip(std::string_view text, const std::string *chars, bool left, bool right) {
  auto cps = splitCodePoints(text);
  std::vector<std::string_view> set;
  bool whitespace = chars == nullptr;
  if (!whitespace)
    set = splitCodePoints(*chars);
  auto strip = [&](std::string_view cp) {
    if (whitespace)
      return isPyWhitespace(decodeOne(cp));
    return std::find(set.begin(), set.end(), cp) != set.end();
  };
  std::size_t lo = 0, hi = cps.size();
  if (left)
    while (lo < hi && strip(cps[lo]))
      ++lo;
  if (right)
    while (hi > lo && strip(cps[hi - 1]))
      --hi;
  std::string out;
  for (std::size_t i = lo; i < hi; ++i)
    out += cps[i];
  return out;
}

std::string asciiUpper(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
std::string asciiLower(std::string s) {
  for (char &c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string pyCapitalize(std::string s) {
  s = asciiLower(std::move(s));
  if (!s.empty())
    s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s;
}
// str.title(): a letter after a non-letter is upper-cased, others lower.
std::string pyTitle(std::string s) {
  bool previousIsLetter = false;
  for (char &c : s) {
    auto u = static_cast<unsigned char>(c);
    bool letter = std::isalpha(u) || u >= 0x80;
    if (std::isalpha(u))
      c = static_cast<char>(previousIsLetter ? std::tolower(u) : std::toupper(u));
    previousIsLetter = letter;
  }
  return s;
}

// jinja2's title filter (not str.title()): words are split at runs of
// whitespace and `-({[<`, and each word is capitalize()d.
std::string jinjaTitle(const std::string &s) {
  auto isBreak = [](char c) {
    return c == '-' || c == '(' || c == '{' || c == '[' || c == '<' ||
           std::isspace(static_cast<unsigned char>(c));
  };
  std::string out;
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t j = i;
    while (j < s.size() && isBreak(s[j]))
      ++j;
    out.append(s, i, j - i);
    std::size_t k = j;
    while (k < s.size() && !isBreak(s[k]))
      ++k;
    out += pyCapitalize(s.substr(j, k - j));
    i = k;
  }
  return out;
}

// Python's str.split; nullopt when it would give more than `maxParts` parts.
std::optional<std::vector<Value>> pySplit(const std::string &text, const Value &sep,
                                          std::int64_t maxSplit, std::size_t maxParts) {
  std::vector<Value> parts;
  if (sep.isUndefined() || sep.isNone()) {
    // Runs of whitespace; no empty strings.
    auto cps = splitCodePoints(text);
    std::size_t i = 0;
    while (i < cps.size()) {
      while (i < cps.size() && isPyWhitespace(decodeOne(cps[i])))
        ++i;
      if (i == cps.size())
        break;
      std::string part;
      if (maxSplit >= 0 && static_cast<std::int64_t>(parts.size()) == maxSplit) {
        for (; i < cps.size(); ++i)
          part += cps[i];
        // Python keeps the rest as is, minus trailing whitespace.
        parts.push_back(Value::string(pyStrip(part, nullptr, false, true)));
        break;
      }
      while (i < cps.size() && !isPyWhitespace(decodeOne(cps[i])))
        part += cps[i++];
      if (parts.size() >= maxParts)
        return std::nullopt;
      parts.push_back(Value::string(std::move(part)));
    }
    return parts;
  }
  const std::string &s = sep.asString();
  std::size_t start = 0;
  while (maxSplit < 0 || static_cast<std::int64_t>(parts.size()) < maxSplit) {
    std::size_t at = text.find(s, start);
    if (at == std::string::npos)
      break;
    if (parts.size() + 1 >= maxParts)
      return std::nullopt;
    parts.push_back(Value::string(text.substr(start, at - start)));
    start = at + s.size();
  }
  parts.push_back(Value::string(text.substr(start)));
  return parts;
}

// Python's str.replace; nullopt (before building anything) when the result
// would be longer than `limit` bytes.
std::optional<std::string> pyReplace(const std::string &text, const std::string &from,
                                     const std::string &to, std::int64_t count,
                                     std::size_t limit) {
  // Count the replacements first: `('a' * 100000).replace('', s)` is 1e5
  // copies of s.
  std::size_t replacements = 0;
  if (from.empty()) {
    replacements = codePointCount(text) + 1;
  } else {
    for (std::size_t at = text.find(from); at != std::string::npos;
         at = text.find(from, at + from.size()))
      ++replacements;
  }
  if (count >= 0)
    replacements = std::min(replacements, static_cast<std::size_t>(count));
  std::size_t removed = from.size() * replacements;
  if (text.size() - removed > limit ||
      (to.size() != 0 && replacements > (limit - (text.size() - removed)) / to.size()))
    return std::nullopt;
  std::string out;
  if (from.empty()) {
    // Python inserts `to` between code points (and at both ends).
    auto cps = splitCodePoints(text);
    std::int64_t done = 0;
    for (std::size_t i = 0; i <= cps.size(); ++i) {
      if (count < 0 || done < count) {
        out += to;
        ++done;
      }
      if (i < cps.size())
        out += cps[i];
    }
    return out;
  }
  std::size_t start = 0;
  std::int64_t done = 0;
  while (count < 0 || done < count) {
    std::size_t at = text.find(from, start);
    if (at == std::string::npos)
      break;
    out.append(text, start, at - start);
    out += to;
    start = at + from.size();
    ++done;
  }
  out.append(text, start);
  return out;
}

// `replace` as the filter and the string method both give it: `count` is
// used when it is an integer, and a result past `limit` is an error.
Expected<Value> boundedReplace(const std::string &text, const std::string &from, const std::string &to,
                               const Value &count, std::size_t limit, int line) {
  auto out = pyReplace(text, from, to, count.kind() == Value::Kind::Int ? count.asInt() : -1, limit);
  if (!out)
    return makeError("line {}: replace would give more than {} bytes", line, limit);
  return Value::string(std::move(*out));
}

const Value *argument(const Args &args, std::size_t i, std::string_view key) {
  if (i < args.positional.size())
    return &args.positional[i];
  return args.keyword.find(key);
}

Value argumentOr(const Args &args, std::size_t i, std::string_view key, Value fallback) {
  const Value *v = argument(args, i, key);
  return v ? *v : fallback;
}

// What a filter or method may scan: a string's bytes, a list's items, a
// dict's entries (chargeWork).
std::size_t scanSize(const Value &v) {
  if (v.isString())
    return v.asString().size();
  if (v.isList())
    return v.items().size();
  if (v.isDict())
    return v.dictData().entries.size();
  return 1;
}

} // namespace

Expected<Value> Renderer::applyFilter(const std::string &name, const Value &subject,
                                      const Args &args, Scope &scope, int line) {
  chargeWork(scanSize(subject));
  auto needString = [&](const Value &v, std::string_view what) -> Expected<std::string> {
    if (!v.isString())
      return makeError("line {}: {} must be a string, got {}", line, what, v.typeName());
    return v.asString();
  };
  auto sized = [&](std::string s) -> Expected<Value> {
    if (Status st = checkSize(s.size(), line); !st)
      return st.error();
    return Value::string(std::move(s));
  };

  // str() of the subject, bounded.
  auto subjectText = [&]() { return text(subject, line); };
  // What strip's `chars` argument is: null for whitespace.
  std::string charsText;
  auto chars = [&](const Value &v) -> Expected<const std::string *> {
    if (v.isUndefined() || v.isNone())
      return static_cast<const std::string *>(nullptr);
    auto t = text(v, line);
    if (!t)
      return t.error();
    charsText = std::move(*t);
    return &charsText;
  };

  if (name == "trim") {
    auto t = subjectText();
    if (!t)
      return t.error();
    auto c = chars(argumentOr(args, 0, "chars", Value()));
    if (!c)
      return c.error();
    return Value::string(pyStrip(*t, *c, true, true));
  }
  if (name == "length" || name == "count") {
    if (subject.isString())
      return Value::integer(static_cast<std::int64_t>(codePointCount(subject.asString())));
    if (subject.isList())
      return Value::integer(static_cast<std::int64_t>(subject.items().size()));
    if (subject.isDict())
      return Value::integer(static_cast<std::int64_t>(subject.dictData().entries.size()));
    if (subject.isUndefined())
      return Value::integer(0);
    return makeError("line {}: object of type '{}' has no len()", line, subject.typeName());
  }
  if (name == "upper" || name == "lower" || name == "capitalize" || name == "title" ||
      name == "string") {
    auto t = subjectText();
    if (!t)
      return t.error();
    if (name == "upper")
      return Value::string(asciiUpper(std::move(*t)));
    if (name == "lower")
      return Value::string(asciiLower(std::move(*t)));
    if (name == "capitalize")
      return Value::string(pyCapitalize(std::move(*t)));
    if (name == "title")
      return Value::string(jinjaTitle(*t));
    return Value::string(std::move(*t));
  }
  if (name == "safe")
    return subject;
  if (name == "e" || name == "escape") {
    auto t = subjectText();
    if (!t)
      return t.error();
    std::string out;
    for (char c : *t) {
      switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
      }
    }
    return sized(std::move(out));
  }
  if (name == "tojson") {
    for (const auto &[key, value] : args.keyword.entries)
      if (key != "indent" && !(key == "ensure_ascii" && !value.truthy()) &&
          !(key == "sort_keys" && !value.truthy()) &&
          !(key == "separators" && value.isNone()))
        return makeError("line {}: tojson({}=...) is not supported", line, key);
    if (args.positional.size() > 1)
      return makeError("line {}: tojson takes only indent positionally here", line);
    Value indent = argumentOr(args, 1, "indent", Value::none());
    if (!args.positional.empty())
      return makeError("line {}: tojson's first positional argument (ensure_ascii) is not "
                       "supported",
                       line);
    int width = -1;
    if (indent.kind() == Value::Kind::Int) {
      if (indent.asInt() < 0 || indent.asInt() > 64)
        return makeError("line {}: tojson indent {} is out of range", line, indent.asInt());
      width = static_cast<int>(indent.asInt());
    } else if (!indent.isNone()) {
      return makeError("line {}: tojson indent must be an integer", line);
    }
    auto json = toJson(subject, width, options_.limits.maxOutputBytes);
    if (!json)
      return makeError("line {}: {}", line, json.message());
    return sized(std::move(*json));
  }
  if (name == "int" || name == "float") {
    Value fallback = argumentOr(args, 0, "default", name == "int" ? Value::integer(0)
                                                                   : Value::number(0));
    double f = 0;
    if (subject.isNumber()) {
      f = subject.asFloat();
      if (name == "int" && subject.kind() != Value::Kind::Float)
        return Value::integer(subject.asInt());
    } else if (subject.isString()) {
      std::string text = pyStrip(subject.asString(), nullptr, true, true);
      char *end = nullptr;
      if (name == "int") {
        long long i = std::strtoll(text.c_str(), &end, 10);
        if (!text.empty() && end == text.c_str() + text.size())
          return Value::integer(i);
      }
      f = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size())
        return fallback;
    } else {
      return fallback;
    }
    if (name == "float")
      return Value::number(f);
    if (!std::isfinite(f) || std::fabs(f) > 9.2e18)
      return fallback;
    return Value::integer(static_cast<std::int64_t>(f));
  }
  if (name == "abs") {
    if (subject.kind() == Value::Kind::Float)
      return Value::number(std::fabs(subject.asFloat()));
    if (subject.isNumber() && subject.asInt() != INT64_MIN)
      return Value::integer(std::llabs(subject.asInt()));
    return makeError("line {}: bad operand type for abs(): '{}'", line, subject.typeName());
  }
  if (name == "first" || name == "last") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    if (items->empty())
      return Value::undefined(fmt::format("No {} item, sequence was empty.", name));
    return name == "first" ? items->front() : items->back();
  }
  if (name == "list") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    return Value::list(std::move(*items));
  }
  if (name == "reverse") {
    if (subject.isString()) {
      auto cps = splitCodePoints(subject.asString());
      std::string out;
      for (auto it = cps.rbegin(); it != cps.rend(); ++it)
        out += *it;
      return Value::string(std::move(out));
    }
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    std::reverse(items->begin(), items->end());
    return Value::list(std::move(*items));
  }
  if (name == "join") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    auto separator = text(argumentOr(args, 0, "d", Value::string("")), line);
    if (!separator)
      return separator.error();
    const Value *attribute = argument(args, 1, "attribute");
    std::string out;
    for (std::size_t i = 0; i < items->size(); ++i) {
      if (i)
        out += *separator;
      const Value &item = (*items)[i];
      auto piece = text(attribute ? getItem(item, *attribute) : item, line);
      if (!piece)
        return piece.error();
      out += *piece;
      if (Status st = checkSize(out.size(), line); !st)
        return st.error();
    }
    return Value::string(std::move(out));
  }
  if (name == "replace") {
    const Value *from = argument(args, 0, "old");
    const Value *to = argument(args, 1, "new");
    if (!from || !to)
      return makeError("line {}: replace needs two arguments", line);
    Value count = argumentOr(args, 2, "count", Value::none());
    auto t = subjectText();
    if (!t)
      return t.error();
    auto old = text(*from, line);
    if (!old)
      return old.error();
    auto replacement = text(*to, line);
    if (!replacement)
      return replacement.error();
    return boundedReplace(*t, *old, *replacement, count, options_.limits.maxOutputBytes, line);
  }
  if (name == "default" || name == "d") {
    Value fallback = argumentOr(args, 0, "default_value", Value::string(""));
    bool boolean = argumentOr(args, 1, "boolean", Value::boolean(false)).truthy();
    if (subject.isUndefined() || (boolean && !subject.truthy()))
      return fallback;
    return subject;
  }
  if (name == "items") {
    if (subject.isUndefined())
      return Value::list({});
    if (!subject.isDict())
      return makeError("line {}: can only get item pairs from a mapping", line);
    std::vector<Value> pairs;
    for (const auto &[k, v] : subject.dictData().entries)
      pairs.push_back(Value::list({Value::string(k), v}, true));
    return Value::list(std::move(pairs));
  }
  if (name == "unique") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    // Quadratic in the items, as jinja2's is for unhashable ones: one budget
    // bounds all the comparisons.
    std::vector<Value> out;
    std::size_t budget = kMaxCompareWork;
    for (const Value &item : *items) {
      bool seen = false;
      for (const Value &o : out) {
        if (budget == 0)
          return makeError("line {}: unique: comparing more than {} items", line,
                           kMaxCompareWork);
        --budget;
        auto same = o.equals(item, budget);
        if (!same)
          return makeError("line {}: {}", line, same.message());
        if (*same) {
          seen = true;
          break;
        }
      }
      if (!seen)
        out.push_back(item);
    }
    return Value::list(std::move(out));
  }
  if (name == "select" || name == "reject" || name == "selectattr" || name == "rejectattr") {
    bool byAttribute = name.ends_with("attr");
    bool keep = name.starts_with("select");
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    std::size_t next = 0;
    Value attribute;
    if (byAttribute) {
      if (args.positional.empty() || !args.positional[0].isString())
        return makeError("line {}: {} needs an attribute name", line, name);
      attribute = args.positional[next++];
    }
    std::string test;
    if (next < args.positional.size()) {
      auto t = needString(args.positional[next++], "the test name");
      if (!t)
        return t.error();
      test = *t;
    }
    std::vector<Value> testArgs(args.positional.begin() + static_cast<std::ptrdiff_t>(next),
                                args.positional.end());
    std::vector<Value> out;
    for (const Value &item : *items) {
      if (Status s = step(line); !s)
        return s.error();
      Value probe = byAttribute ? getItem(item, attribute) : item;
      bool passed = false;
      if (test.empty()) {
        passed = probe.truthy();
      } else {
        auto r = applyTest(test, probe, testArgs, line);
        if (!r)
          return r.error();
        passed = *r;
      }
      if (passed == keep)
        out.push_back(item);
    }
    return Value::list(std::move(out));
  }
  if (name == "map") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    std::vector<Value> out;
    if (const Value *attribute = args.keyword.find("attribute")) {
      const Value *fallback = args.keyword.find("default");
      for (const Value &item : *items) {
        Value v = getItem(item, *attribute);
        out.push_back(v.isUndefined() && fallback ? *fallback : v);
      }
      return Value::list(std::move(out));
    }
    if (args.positional.empty() || !args.positional[0].isString())
      return makeError("line {}: map needs a filter name or attribute=", line);
    Args rest;
    rest.positional.assign(args.positional.begin() + 1, args.positional.end());
    rest.keyword = args.keyword;
    Growth growth; // `[l] * 100000 | map('string')` holds each item's text
    for (const Value &item : *items) {
      if (Status s = step(line); !s)
        return s.error();
      auto v = applyFilter(args.positional[0].asString(), item, rest, scope, line);
      if (!v)
        return v;
      if (Status s = grow(growth, *v, line); !s)
        return s.error();
      out.push_back(std::move(*v));
    }
    return Value::list(std::move(out));
  }
  if (name == "sort") {
    auto items = iterate(subject, line);
    if (!items)
      return items.error();
    bool reverse = argumentOr(args, 0, "reverse", Value::boolean(false)).truthy();
    bool caseSensitive = argumentOr(args, 1, "case_sensitive", Value::boolean(false)).truthy();
    const Value *attribute = argument(args, 2, "attribute");
    auto key = [&](const Value &v) {
      Value k = attribute ? getItem(v, *attribute) : v;
      if (k.isString() && !caseSensitive)
        return Value::string(asciiLower(k.asString()));
      return k;
    };
    Status failure;
    std::stable_sort(items->begin(), items->end(), [&](const Value &a, const Value &b) {
      auto less = compare("<", reverse ? key(b) : key(a), reverse ? key(a) : key(b), line);
      if (!less) {
        if (failure.ok())
          failure = less.error();
        return false;
      }
      return *less;
    });
    if (!failure)
      return failure.error();
    return Value::list(std::move(*items));
  }
  return makeError("line {}: unknown or unsupported filter '{}'", line, name);
}

Expected<bool> Renderer::applyTest(const std::string &name, const Value &subject,
                                   const std::vector<Value> &args, int line) const {
  auto needArg = [&]() -> Expected<Value> {
    if (args.empty())
      return makeError("line {}: the '{}' test needs an argument", line, name);
    return args[0];
  };
  using K = Value::Kind;
  K kind = subject.kind();
  if (name == "defined")
    return kind != K::Undefined;
  if (name == "undefined")
    return kind == K::Undefined;
  if (name == "none")
    return kind == K::None;
  if (name == "boolean")
    return kind == K::Bool;
  if (name == "true")
    return kind == K::Bool && subject.asBool();
  if (name == "false")
    return kind == K::Bool && !subject.asBool();
  if (name == "integer")
    return kind == K::Int;
  if (name == "float")
    return kind == K::Float;
  if (name == "number")
    return subject.isNumber();
  if (name == "string")
    return kind == K::String;
  if (name == "mapping")
    return kind == K::Dict;
  if (name == "iterable")
    return kind == K::String || kind == K::List || kind == K::Dict || kind == K::Undefined;
  if (name == "sequence")
    return kind == K::String || kind == K::List || kind == K::Dict || kind == K::Undefined;
  if (name == "callable")
    return kind == K::Callable;
  if (name == "lower" || name == "upper") {
    auto s = text(subject, line);
    if (!s)
      return s.error();
    return *s == (name == "lower" ? asciiLower(*s) : asciiUpper(*s));
  }
  if (name == "odd" || name == "even" || name == "divisibleby") {
    if (kind != K::Int && kind != K::Bool)
      return makeError("line {}: the '{}' test needs an integer", line, name);
    std::int64_t divisor = 2;
    if (name == "divisibleby") {
      auto d = needArg();
      if (!d)
        return d.error();
      if (d->kind() != K::Int || d->asInt() == 0)
        return makeError("line {}: divisibleby needs a non-zero integer", line);
      divisor = d->asInt();
    }
    bool divisible = subject.asInt() % divisor == 0;
    return name == "odd" ? !divisible : divisible;
  }
  if (name == "sameas") {
    auto other = needArg();
    if (!other)
      return other.error();
    // `is` identity: the singletons compare by value; everything else by
    // equality of the same kind, which is what templates use it for.
    if (other->kind() != kind)
      return false;
    auto same = subject.equals(*other);
    if (!same)
      return makeError("line {}: {}", line, same.message());
    return *same;
  }
  static const std::pair<const char *, const char *> kComparisons[] = {
      {"equalto", "=="}, {"eq", "=="}, {"==", "=="}, {"ne", "!="}, {"!=", "!="},
      {"lt", "<"},       {"<", "<"},   {"lessthan", "<"}, {"le", "<="}, {"<=", "<="},
      {"gt", ">"},       {">", ">"},   {"greaterthan", ">"}, {"ge", ">="}, {">=", ">="},
      {"in", "in"}};
  for (const auto &[testName, op] : kComparisons)
    if (name == testName) {
      auto other = needArg();
      if (!other)
        return other.error();
      return compare(op, subject, *other, line);
    }
  return makeError("line {}: unknown or unsupported test '{}'", line, name);
}

Expected<Value> Renderer::callMethod(const Value &object, const std::string &name,
                                     const Args &args, int line) const {
  chargeWork(scanSize(object));
  auto noSuch = [&]() -> Error {
    return makeError("line {}: '{} object' has no callable attribute '{}'", line,
                     object.typeName(), name);
  };
  if (object.isDict()) {
    const DictData &d = object.dictData();
    if (name == "items") {
      std::vector<Value> pairs;
      for (const auto &[k, v] : d.entries)
        pairs.push_back(Value::list({Value::string(k), v}, true));
      return Value::list(std::move(pairs));
    }
    if (name == "keys" || name == "values") {
      std::vector<Value> out;
      for (const auto &[k, v] : d.entries)
        out.push_back(name == "keys" ? Value::string(k) : v);
      return Value::list(std::move(out));
    }
    if (name == "get") {
      const Value *key = argument(args, 0, "key");
      if (!key)
        return makeError("line {}: get expected at least 1 argument", line);
      if (key->isString())
        if (const Value *v = d.find(key->asString()))
          return *v;
      return argumentOr(args, 1, "default", Value::none());
    }
    // A key holding a callable is not something JSON gives us.
    return noSuch();
  }
  if (object.isList())
    return makeError("line {}: access to attribute '{}' of 'list' object is unsafe or not "
                     "supported",
                     line, name);
  const std::string &s = object.asString();
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    Value chars = argumentOr(args, 0, "chars", Value());
    std::string charsText;
    if (!chars.isUndefined() && !chars.isNone()) {
      auto t = text(chars, line);
      if (!t)
        return t.error();
      charsText = std::move(*t);
    }
    return Value::string(pyStrip(s, chars.isUndefined() || chars.isNone() ? nullptr : &charsText,
                                 name != "rstrip", name != "lstrip"));
  }
  if (name == "upper")
    return Value::string(asciiUpper(s));
  if (name == "lower")
    return Value::string(asciiLower(s));
  if (name == "title")
    return Value::string(pyTitle(s));
  if (name == "capitalize")
    return Value::string(pyCapitalize(s));
  if (name == "split") {
    Value sep = argumentOr(args, 0, "sep", Value::none());
    if (!sep.isNone() && !sep.isString())
      return makeError("line {}: must be str or None, not {}", line, sep.typeName());
    if (sep.isString() && sep.asString().empty())
      return makeError("line {}: empty separator", line);
    Value maxSplit = argumentOr(args, 1, "maxsplit", Value::integer(-1));
    auto parts = pySplit(s, sep, maxSplit.kind() == Value::Kind::Int ? maxSplit.asInt() : -1,
                         options_.limits.maxItems);
    if (!parts)
      return makeError("line {}: split would give more than {} items", line,
                       options_.limits.maxItems);
    return Value::list(std::move(*parts));
  }
  if (name == "startswith" || name == "endswith") {
    const Value *affix = argument(args, 0, "prefix");
    if (!affix)
      return makeError("line {}: {} takes at least 1 argument", line, name);
    std::vector<Value> options = affix->isList() ? affix->items() : std::vector<Value>{*affix};
    for (const Value &o : options) {
      if (!o.isString())
        return makeError("line {}: {} first arg must be str or a tuple of str", line, name);
      if (name == "startswith" ? s.starts_with(o.asString()) : s.ends_with(o.asString()))
        return Value::boolean(true);
    }
    return Value::boolean(false);
  }
  if (name == "replace") {
    const Value *from = argument(args, 0, "old");
    const Value *to = argument(args, 1, "new");
    if (!from || !to || !from->isString() || !to->isString())
      return makeError("line {}: replace needs two strings", line);
    Value count = argumentOr(args, 2, "count", Value::integer(-1));
    return boundedReplace(s, from->asString(), to->asString(), count, options_.limits.maxOutputBytes, line);
  }
  if (name == "find" || name == "count") {
    const Value *needle = argument(args, 0, "sub");
    if (!needle || !needle->isString())
      return makeError("line {}: {} needs a string", line, name);
    if (name == "find") {
      std::size_t at = s.find(needle->asString());
      return Value::integer(at == std::string::npos
                                ? -1
                                : static_cast<std::int64_t>(codePointCount(s.substr(0, at))));
    }
    if (needle->asString().empty())
      return Value::integer(static_cast<std::int64_t>(codePointCount(s) + 1));
    std::int64_t n = 0;
    for (std::size_t at = s.find(needle->asString()); at != std::string::npos;
         at = s.find(needle->asString(), at + needle->asString().size()))
      ++n;
    return Value::integer(n);
  }
  if (name == "join") {
    const Value *items = argument(args, 0, "iterable");
    if (!items)
      return makeError("line {}: join takes exactly one argument", line);
    auto list = iterate(*items, line);
    if (!list)
      return list.error();
    std::string out;
    for (std::size_t i = 0; i < list->size(); ++i) {
      if (!(*list)[i].isString())
        return makeError("line {}: sequence item {}: expected str instance, {} found", line, i,
                         (*list)[i].typeName());
      if (i)
        out += s;
      out += (*list)[i].asString();
      if (Status st = checkSize(out.size(), line); !st)
        return st.error();
    }
    return Value::string(std::move(out));
  }
  return noSuch();
}

} // namespace linnet::rt::jinja
