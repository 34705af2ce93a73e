// Value: construction, Python's truth, str(), repr(), == and json.dumps.
#include "runtime/tokenizer/jinja/Value.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace linnet::rt::jinja {

const Value *DictData::find(std::string_view key) const {
  chargeWork(entries.size());
  for (const auto &[k, v] : entries)
    if (k == key)
      return &v;
  return nullptr;
}

void DictData::set(std::string key, Value value) {
  for (auto &[k, v] : entries)
    if (k == key) {
      v = std::move(value);
      return;
    }
  entries.emplace_back(std::move(key), std::move(value));
}

Value Value::undefined(std::string hint) {
  Value v;
  v.s_ = std::move(hint);
  return v;
}
Value Value::none() {
  Value v;
  v.kind_ = Kind::None;
  return v;
}
Value Value::boolean(bool b) {
  Value v;
  v.kind_ = Kind::Bool;
  v.b_ = b;
  v.i_ = b ? 1 : 0;
  return v;
}
Value Value::integer(std::int64_t i) {
  Value v;
  v.kind_ = Kind::Int;
  v.i_ = i;
  return v;
}
Value Value::number(double f) {
  Value v;
  v.kind_ = Kind::Float;
  v.f_ = f;
  return v;
}
namespace {
thread_local std::size_t bytesBuilt = 0;
thread_local std::size_t workDone = 0;
} // namespace

std::size_t valueBytesBuilt() { return bytesBuilt; }
void chargeWork(std::size_t units) { workDone += units; }
std::size_t valueWorkDone() { return workDone; }

Value Value::string(std::string s) {
  bytesBuilt += s.size();
  Value v;
  v.kind_ = Kind::String;
  v.s_ = std::move(s);
  return v;
}
Value Value::list(std::vector<Value> items, bool tuple) {
  bytesBuilt += items.size() * sizeof(Value);
  Value v;
  v.kind_ = Kind::List;
  int depth = 0;
  for (const Value &item : items)
    depth = std::max(depth, item.depth());
  v.list_ = std::make_shared<ListData>(ListData{std::move(items), tuple, depth + 1});
  return v;
}
Value Value::dict(DictData data) {
  for (const auto &[key, value] : data.entries)
    bytesBuilt += sizeof(std::pair<std::string, Value>) + key.size();
  Value v;
  v.kind_ = Kind::Dict;
  int depth = 0;
  for (const auto &[key, value] : data.entries)
    depth = std::max(depth, value.depth());
  data.depth = depth + 1;
  v.dict_ = std::make_shared<DictData>(std::move(data));
  return v;
}
Value Value::ns(DictData data) {
  Value v = dict(std::move(data));
  v.kind_ = Kind::Namespace;
  return v;
}
Value Value::callable(Callable c) {
  Value v;
  v.kind_ = Kind::Callable;
  v.callable_ = std::make_shared<const Callable>(std::move(c));
  return v;
}

Value Value::fromJson(const nlohmann::json &json) {
  switch (json.type()) {
  case nlohmann::json::value_t::null:
  case nlohmann::json::value_t::discarded:
    return none();
  case nlohmann::json::value_t::boolean:
    return boolean(json.get<bool>());
  case nlohmann::json::value_t::number_integer:
    return integer(json.get<std::int64_t>());
  case nlohmann::json::value_t::number_unsigned:
    return integer(static_cast<std::int64_t>(json.get<std::uint64_t>()));
  case nlohmann::json::value_t::number_float:
    return number(json.get<double>());
  case nlohmann::json::value_t::string:
    return string(json.get<std::string>());
  case nlohmann::json::value_t::array: {
    std::vector<Value> items;
    for (const auto &item : json)
      items.push_back(fromJson(item));
    return list(std::move(items));
  }
  case nlohmann::json::value_t::object: {
    DictData data;
    for (const auto &[key, item] : json.items())
      data.entries.emplace_back(key, fromJson(item));
    return dict(std::move(data));
  }
  case nlohmann::json::value_t::binary:
    break;
  }
  return none();
}

int Value::depth() const {
  switch (kind_) {
  case Kind::List:
    return list_->depth;
  case Kind::Dict:
  case Kind::Namespace:
    return dict_->depth;
  default:
    return 0;
  }
}

bool Value::truthy() const {
  switch (kind_) {
  case Kind::Undefined:
  case Kind::None:
    return false;
  case Kind::Bool:
    return b_;
  case Kind::Int:
    return i_ != 0;
  case Kind::Float:
    return f_ != 0;
  case Kind::String:
    return !s_.empty();
  case Kind::List:
    return !list_->items.empty();
  case Kind::Dict:
    return !dict_->entries.empty();
  case Kind::Namespace:
  case Kind::Callable:
    return true;
  }
  return false;
}

std::string pythonFloat(double f) {
  if (std::isnan(f))
    return "nan";
  if (std::isinf(f))
    return f < 0 ? "-inf" : "inf";
  // fmt's shortest round-trip form is Python's repr() except that Python
  // uses exponent notation from 1e16 and below 1e-4, and writes "1.0".
  double magnitude = std::fabs(f);
  std::string text;
  if (magnitude != 0 && (magnitude >= 1e16 || magnitude < 1e-4)) {
    text = fmt::format("{:e}", f); // placeholder, refined below
    // The shortest digits, in exponent form: 1e+20, 1.5e-05.
    std::string digits = fmt::format("{}", f);
    if (digits.find('e') == std::string::npos) {
      // fmt chose fixed notation; rebuild from the shortest scientific form.
      std::string sci = fmt::format("{:.17e}", f);
      // Trim to the shortest mantissa that round-trips.
      for (int precision = 0; precision <= 17; ++precision) {
        std::string candidate = fmt::format("{:.{}e}", f, precision);
        if (std::stod(candidate) == f) {
          sci = candidate;
          break;
        }
      }
      digits = sci;
    }
    // Python writes at least two exponent digits, no leading '+0' padding
    // beyond that: 1e+20, 1e-05.
    std::size_t e = digits.find('e');
    std::string mantissa = digits.substr(0, e);
    std::string exponent = digits.substr(e + 1);
    char sign = '+';
    if (!exponent.empty() && (exponent[0] == '+' || exponent[0] == '-')) {
      sign = exponent[0];
      exponent.erase(0, 1);
    }
    while (exponent.size() > 2 && exponent[0] == '0')
      exponent.erase(0, 1);
    if (exponent.size() < 2)
      exponent.insert(0, "0");
    return mantissa + 'e' + sign + exponent;
  }
  text = fmt::format("{}", f);
  if (text.find('e') != std::string::npos) {
    // fmt used exponent form where Python does not: write it out fixed.
    for (int precision = 0; precision <= 20; ++precision) {
      std::string candidate = fmt::format("{:.{}f}", f, precision);
      if (std::stod(candidate) == f) {
        text = candidate;
        break;
      }
    }
  }
  if (text.find('.') == std::string::npos)
    text += ".0";
  return text;
}

namespace {

std::string quotePython(std::string_view s) {
  char quote = '\'';
  if (s.find('\'') != std::string_view::npos && s.find('"') == std::string_view::npos)
    quote = '"';
  std::string out(1, quote);
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

Error tooLong(std::size_t limit) {
  return makeError("the value's text would be longer than {} bytes", limit);
}
Error tooDeep() {
  return makeError("the value nests deeper than {} levels", kMaxValueDepth);
}

// One str()/repr() walk: the output, its byte limit, the depth reached and
// the lists and dicts being printed (Python's Py_ReprEnter: one met again
// inside itself prints as [...] or {...}, which only a namespace that holds
// itself can cause).
struct ReprWalk {
  ReprWalk(std::size_t limit, bool truncate) : limit(limit), truncate(truncate) {}
  std::string out;
  std::size_t limit;
  bool truncate; // cut the text at the limit instead of failing
  int depth = 0;
  std::vector<const void *> active;

  Status append(std::string_view text) {
    if (text.size() > limit || out.size() > limit - text.size()) {
      if (truncate && out.size() < limit)
        out.append(text.substr(0, limit - out.size()));
      return tooLong(limit);
    }
    out += text;
    return Status::success();
  }
};

std::string scalarStr(const Value &v) {
  switch (v.kind()) {
  case Value::Kind::None:
    return "None";
  case Value::Kind::Bool:
    return v.asBool() ? "True" : "False";
  case Value::Kind::Int:
    return std::to_string(v.asInt());
  case Value::Kind::Float:
    return pythonFloat(v.asFloat());
  case Value::Kind::Callable:
    return fmt::format("<function {}>", v.callableData().name);
  default:
    return "";
  }
}

Status appendRepr(ReprWalk &walk, const Value &value) {
  switch (value.kind()) {
  case Value::Kind::String:
    // Quoting at most quadruples a string: refuse before building that.
    if (value.asString().size() > walk.limit && !walk.truncate)
      return tooLong(walk.limit);
    return walk.append(quotePython(value.asString().substr(0, walk.limit + 1)));
  case Value::Kind::List:
  case Value::Kind::Dict:
  case Value::Kind::Namespace: {
    bool isList = value.isList();
    bool isNs = value.kind() == Value::Kind::Namespace;
    const void *identity = isList ? static_cast<const void *>(&value.items())
                                  : static_cast<const void *>(&value.dictData());
    const char *open = isList ? (value.isTuple() ? "(" : "[") : "{";
    const char *close = isList ? (value.isTuple() ? ")" : "]") : "}";
    if (isNs)
      if (Status s = walk.append("<Namespace "); !s)
        return s;
    if (std::find(walk.active.begin(), walk.active.end(), identity) != walk.active.end()) {
      if (Status s = walk.append(fmt::format("{}...{}", open, close)); !s)
        return s;
    } else {
      if (walk.depth >= kMaxValueDepth)
        return tooDeep();
      ++walk.depth;
      walk.active.push_back(identity);
      if (Status s = walk.append(open); !s)
        return s;
      if (isList) {
        const std::vector<Value> &items = value.items();
        for (std::size_t i = 0; i < items.size(); ++i) {
          if (i)
            if (Status s = walk.append(", "); !s)
              return s;
          if (Status s = appendRepr(walk, items[i]); !s)
            return s;
        }
        if (value.isTuple() && items.size() == 1)
          if (Status s = walk.append(","); !s)
            return s;
      } else {
        bool first = true;
        for (const auto &[k, v] : value.dictData().entries) {
          if (!first)
            if (Status s = walk.append(", "); !s)
              return s;
          first = false;
          if (k.size() > walk.limit && !walk.truncate)
            return tooLong(walk.limit);
          if (Status s = walk.append(quotePython(std::string_view(k).substr(0, walk.limit + 1)));
              !s)
            return s;
          if (Status s = walk.append(": "); !s)
            return s;
          if (Status s = appendRepr(walk, v); !s)
            return s;
        }
      }
      if (Status s = walk.append(close); !s)
        return s;
      walk.active.pop_back();
      --walk.depth;
    }
    if (isNs)
      return walk.append(">");
    return Status::success();
  }
  default:
    return walk.append(scalarStr(value));
  }
}

// ==, recursing into lists and dicts (a namespace equals only itself, as
// jinja2's Namespace has no __eq__, so cycles never recurse here).
Expected<bool> equalsAt(const Value &a, const Value &b, std::size_t &budget, int depth) {
  using K = Value::Kind;
  if (a.isNumber() && b.isNumber()) {
    if (a.kind() == K::Float || b.kind() == K::Float)
      return a.asFloat() == b.asFloat();
    return a.asInt() == b.asInt();
  }
  if (a.kind() != b.kind())
    return false;
  switch (a.kind()) {
  case K::Undefined:
  case K::None:
    return true;
  case K::String:
    chargeWork(a.asString().size() == b.asString().size() ? a.asString().size() : 1);
    return a.asString() == b.asString();
  case K::List: {
    // Python compares identical items as equal without looking inside.
    if (&a.items() == &b.items())
      return true;
    if (a.isTuple() != b.isTuple() || a.items().size() != b.items().size())
      return false;
    if (depth >= kMaxValueDepth)
      return makeError("comparing values that nest deeper than {} levels", kMaxValueDepth);
    for (std::size_t i = 0; i < a.items().size(); ++i) {
      if (budget == 0)
        return makeError("comparing more than {} items", kMaxCompareWork);
      --budget;
      chargeWork(1);
      auto same = equalsAt(a.items()[i], b.items()[i], budget, depth + 1);
      if (!same || !*same)
        return same;
    }
    return true;
  }
  case K::Dict: {
    if (&a.dictData() == &b.dictData())
      return true;
    if (a.dictData().entries.size() != b.dictData().entries.size())
      return false;
    if (depth >= kMaxValueDepth)
      return makeError("comparing values that nest deeper than {} levels", kMaxValueDepth);
    for (const auto &[k, v] : a.dictData().entries) {
      if (budget == 0)
        return makeError("comparing more than {} items", kMaxCompareWork);
      --budget;
      const Value *o = b.dictData().find(k);
      if (!o)
        return false;
      auto same = equalsAt(v, *o, budget, depth + 1);
      if (!same || !*same)
        return same;
    }
    return true;
  }
  case K::Namespace:
    return &a.dictData() == &b.dictData();
  case K::Callable:
    return &a.callableData() == &b.callableData();
  default:
    return false;
  }
}

} // namespace

Expected<std::string> Value::repr(std::size_t limit) const {
  ReprWalk walk(limit, false);
  if (Status s = appendRepr(walk, *this); !s)
    return s.error();
  return std::move(walk.out);
}

Expected<std::string> Value::str(std::size_t limit) const {
  switch (kind_) {
  case Kind::Undefined:
    return std::string();
  case Kind::String:
    if (s_.size() > limit)
      return tooLong(limit);
    return s_;
  case Kind::List:
  case Kind::Dict:
  case Kind::Namespace:
    return repr(limit);
  default:
    return scalarStr(*this);
  }
}

std::string Value::reprForMessage() const {
  ReprWalk walk(100, true);
  if (Status s = appendRepr(walk, *this); !s)
    walk.out += "...";
  return std::move(walk.out);
}

Expected<bool> Value::equals(const Value &other, std::size_t &budget) const {
  return equalsAt(*this, other, budget, 0);
}

Expected<bool> Value::equals(const Value &other) const {
  std::size_t budget = kMaxCompareWork;
  return equalsAt(*this, other, budget, 0);
}

std::string Value::typeName() const {
  switch (kind_) {
  case Kind::Undefined:
    return "Undefined";
  case Kind::None:
    return "NoneType";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return "int";
  case Kind::Float:
    return "float";
  case Kind::String:
    return "str";
  case Kind::List:
    return list_->tuple ? "tuple" : "list";
  case Kind::Dict:
    return "dict";
  case Kind::Namespace:
    return "Namespace";
  case Kind::Callable:
    return "function";
  }
  return "object";
}

std::vector<std::string_view> splitCodePoints(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i + 1;
    while (j < text.size() && (static_cast<unsigned char>(text[j]) & 0xC0) == 0x80 &&
           j - i < 4)
      ++j;
    out.push_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::size_t codePointCount(std::string_view text) {
  std::size_t n = 0;
  for (char c : text)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80)
      ++n;
  return n;
}

namespace {

void jsonString(std::string &out, std::string_view s) {
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default:
      if (u < 0x20)
        out += fmt::format("\\u{:04x}", u);
      else
        out += c;
    }
  }
  out += '"';
}

// `level` is also the depth: lists and dicts cannot contain themselves (only
// a namespace can, and json.dumps refuses namespaces), so the depth and the
// size limit are all that bound the walk.
Status jsonValue(std::string &out, const Value &value, int indent, int level,
                 std::size_t limit) {
  if (out.size() > limit)
    return tooLong(limit);
  auto newline = [&](int depth) {
    if (indent < 0)
      return;
    out += '\n';
    out.append(static_cast<std::size_t>(indent * depth), ' ');
  };
  const char *itemSeparator = indent < 0 ? ", " : ",";
  switch (value.kind()) {
  case Value::Kind::None:
    out += "null";
    return Status::success();
  case Value::Kind::Bool:
    out += value.asBool() ? "true" : "false";
    return Status::success();
  case Value::Kind::Int:
    out += std::to_string(value.asInt());
    return Status::success();
  case Value::Kind::Float: {
    double f = value.asFloat();
    out += std::isnan(f) ? "NaN" : std::isinf(f) ? (f < 0 ? "-Infinity" : "Infinity") : pythonFloat(f);
    return Status::success();
  }
  case Value::Kind::String:
    // Escaping at most sextuples a string: refuse before building that.
    if (value.asString().size() > limit - std::min(limit, out.size()))
      return tooLong(limit);
    jsonString(out, value.asString());
    return Status::success();
  case Value::Kind::List: {
    if (level >= kMaxValueDepth)
      return tooDeep();
    if (value.items().empty()) {
      out += "[]";
      return Status::success();
    }
    out += '[';
    bool first = true;
    for (const Value &item : value.items()) {
      if (!first)
        out += itemSeparator;
      first = false;
      newline(level + 1);
      if (Status s = jsonValue(out, item, indent, level + 1, limit); !s)
        return s;
    }
    newline(level);
    out += ']';
    return Status::success();
  }
  case Value::Kind::Dict:
  case Value::Kind::Namespace: {
    if (value.kind() == Value::Kind::Namespace)
      break;
    if (level >= kMaxValueDepth)
      return tooDeep();
    if (value.dictData().entries.empty()) {
      out += "{}";
      return Status::success();
    }
    out += '{';
    bool first = true;
    for (const auto &[k, v] : value.dictData().entries) {
      if (!first)
        out += itemSeparator;
      first = false;
      newline(level + 1);
      if (k.size() > limit - std::min(limit, out.size()))
        return tooLong(limit);
      jsonString(out, k);
      out += ": ";
      if (Status s = jsonValue(out, v, indent, level + 1, limit); !s)
        return s;
    }
    newline(level);
    out += '}';
    return Status::success();
  }
  case Value::Kind::Undefined:
  case Value::Kind::Callable:
    break;
  }
  return makeError("Object of type {} is not JSON serializable", value.typeName());
}

} // namespace

Expected<std::string> toJson(const Value &value, int indent, std::size_t limit) {
  std::string out;
  if (Status s = jsonValue(out, value, indent, 0, limit); !s)
    return s.error();
  if (out.size() > limit)
    return tooLong(limit);
  return out;
}

} // namespace linnet::rt::jinja
