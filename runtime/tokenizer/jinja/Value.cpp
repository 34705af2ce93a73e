// Value: construction, Python's truth, str(), repr(), == and json.dumps.
#include "runtime/tokenizer/jinja/Value.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace linnet::rt::jinja {

const Value *DictData::find(std::string_view key) const {
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
Value Value::string(std::string s) {
  Value v;
  v.kind_ = Kind::String;
  v.s_ = std::move(s);
  return v;
}
Value Value::list(std::vector<Value> items, bool tuple) {
  Value v;
  v.kind_ = Kind::List;
  v.list_ = std::make_shared<ListData>(ListData{std::move(items), tuple});
  return v;
}
Value Value::dict(DictData data) {
  Value v;
  v.kind_ = Kind::Dict;
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

// `'k': v, ...` as Python prints a dict's items.
std::string entriesRepr(const DictData &dict) {
  std::string out;
  bool first = true;
  for (const auto &[k, v] : dict.entries) {
    if (!first)
      out += ", ";
    first = false;
    out += quotePython(k) + ": " + v.repr();
  }
  return out;
}

} // namespace

std::string Value::repr() const {
  switch (kind_) {
  case Kind::String:
    return quotePython(s_);
  case Kind::List: {
    std::string out = list_->tuple ? "(" : "[";
    for (std::size_t i = 0; i < list_->items.size(); ++i) {
      if (i)
        out += ", ";
      out += list_->items[i].repr();
    }
    if (list_->tuple && list_->items.size() == 1)
      out += ',';
    out += list_->tuple ? ")" : "]";
    return out;
  }
  case Kind::Dict:
    return "{" + entriesRepr(*dict_) + "}";
  case Kind::Namespace:
    return "<Namespace {" + entriesRepr(*dict_) + "}>";
  default:
    return str();
  }
}

std::string Value::str() const {
  switch (kind_) {
  case Kind::Undefined:
    return "";
  case Kind::None:
    return "None";
  case Kind::Bool:
    return b_ ? "True" : "False";
  case Kind::Int:
    return std::to_string(i_);
  case Kind::Float:
    return pythonFloat(f_);
  case Kind::String:
    return s_;
  case Kind::List:
  case Kind::Dict:
  case Kind::Namespace:
    return repr();
  case Kind::Callable:
    return fmt::format("<function {}>", callable_->name);
  }
  return "";
}

bool Value::equals(const Value &other) const {
  if (isNumber() && other.isNumber()) {
    if (kind_ == Kind::Float || other.kind_ == Kind::Float)
      return asFloat() == other.asFloat();
    return i_ == other.i_;
  }
  if (kind_ != other.kind_)
    return false;
  switch (kind_) {
  case Kind::Undefined:
  case Kind::None:
    return true;
  case Kind::String:
    return s_ == other.s_;
  case Kind::List: {
    if (list_->tuple != other.list_->tuple || list_->items.size() != other.list_->items.size())
      return false;
    for (std::size_t i = 0; i < list_->items.size(); ++i)
      if (!list_->items[i].equals(other.list_->items[i]))
        return false;
    return true;
  }
  case Kind::Dict: {
    if (dict_->entries.size() != other.dict_->entries.size())
      return false;
    for (const auto &[k, v] : dict_->entries) {
      const Value *o = other.dict_->find(k);
      if (!o || !v.equals(*o))
        return false;
    }
    return true;
  }
  case Kind::Namespace:
    return dict_ == other.dict_;
  case Kind::Callable:
    return callable_ == other.callable_;
  default:
    return false;
  }
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

Status jsonValue(std::string &out, const Value &value, int indent, int level) {
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
    jsonString(out, value.asString());
    return Status::success();
  case Value::Kind::List: {
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
      if (Status s = jsonValue(out, item, indent, level + 1); !s)
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
      jsonString(out, k);
      out += ": ";
      if (Status s = jsonValue(out, v, indent, level + 1); !s)
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

Expected<std::string> toJson(const Value &value, int indent) {
  std::string out;
  if (Status s = jsonValue(out, value, indent, 0); !s)
    return s.error();
  return out;
}

} // namespace linnet::rt::jinja
