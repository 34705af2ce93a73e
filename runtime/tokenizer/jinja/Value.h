// The values a chat template computes with: Python's None, bool, int, float,
// str, list/tuple and dict as jinja2 sees them, plus jinja2's Undefined, a
// namespace() object and callables (globals such as raise_exception, and
// macros).
//
// Lists and dicts are shared (copying a Value copies a pointer), as Python
// objects are; only a namespace is ever changed after it is built (`set
// ns.x = ...`), everything else is immutable as in transformers'
// ImmutableSandboxedEnvironment. Dict keys are strings (JSON's, and what chat
// templates write); dicts keep insertion order, as Python's do. Strings are
// UTF-8; length, indexing and slicing count code points.
#pragma once

#include "runtime/support/Status.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linnet::rt::jinja {

struct MacroNode;
class Value;

struct ListData {
  std::vector<Value> items;
  bool tuple = false; // printed as (a, b) instead of [a, b]
};

struct DictData {
  std::vector<std::pair<std::string, Value>> entries;
  const Value *find(std::string_view key) const;
  void set(std::string key, Value value);
};

// A global function or a macro; the renderer dispatches on `name`/`macro`.
struct Callable {
  std::string name;
  const MacroNode *macro = nullptr;
};

class Value {
public:
  enum class Kind { Undefined, None, Bool, Int, Float, String, List, Dict, Namespace, Callable };

  Value() = default; // undefined, with no hint
  static Value undefined(std::string hint);
  static Value none();
  static Value boolean(bool b);
  static Value integer(std::int64_t i);
  static Value number(double f);
  static Value string(std::string s);
  static Value list(std::vector<Value> items, bool tuple = false);
  static Value dict(DictData data = {});
  static Value ns(DictData data = {});
  static Value callable(Callable c);
  // JSON's null/bool/number/string/array/object as None/bool/int or
  // float/str/list/dict.
  static Value fromJson(const nlohmann::json &json);

  Kind kind() const { return kind_; }
  bool isUndefined() const { return kind_ == Kind::Undefined; }
  bool isNone() const { return kind_ == Kind::None; }
  bool isString() const { return kind_ == Kind::String; }
  bool isList() const { return kind_ == Kind::List; }
  bool isDict() const { return kind_ == Kind::Dict; }
  bool isNumber() const { return kind_ == Kind::Int || kind_ == Kind::Float || kind_ == Kind::Bool; }

  bool asBool() const { return b_; }
  std::int64_t asInt() const { return i_; }
  double asFloat() const { return kind_ == Kind::Float ? f_ : static_cast<double>(i_); }
  const std::string &asString() const { return s_; }
  // For an undefined value: what jinja2's UndefinedError says when it is used.
  const std::string &undefinedHint() const { return s_; }
  const std::vector<Value> &items() const { return list_->items; }
  bool isTuple() const { return list_->tuple; }
  const DictData &dictData() const { return *dict_; }
  DictData &mutableNamespace() const { return *dict_; }
  const Callable &callableData() const { return *callable_; }

  // Python's truth value (Undefined is false).
  bool truthy() const;
  // Python's str() as jinja2 prints it: None -> "None", True -> "True",
  // lists and dicts as their repr(), Undefined -> "".
  std::string str() const;
  // Python's repr() (strings quoted the way Python quotes them).
  std::string repr() const;
  // Python's ==.
  bool equals(const Value &other) const;
  // "str", "int", "list", "dict", ...: Python's type name, for messages.
  std::string typeName() const;

private:
  Kind kind_ = Kind::Undefined;
  bool b_ = false;
  std::int64_t i_ = 0; // also a bool's 0/1, so arithmetic treats bools as ints
  double f_ = 0;
  std::string s_;
  std::shared_ptr<ListData> list_;
  std::shared_ptr<DictData> dict_;
  std::shared_ptr<const Callable> callable_;
};

// UTF-8 helpers that count code points (ill-formed bytes count one each).
std::vector<std::string_view> splitCodePoints(std::string_view text);
std::size_t codePointCount(std::string_view text);

// Python's float repr ("1.0", "0.30000000000000004", "1e+20", "inf").
std::string pythonFloat(double f);

// json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=False) with
// Python's default separators, as transformers' tojson filter; indent < 0 is
// None. An undefined or callable value is an Error, as json.dumps raises.
Expected<std::string> toJson(const Value &value, int indent);

} // namespace linnet::rt::jinja
