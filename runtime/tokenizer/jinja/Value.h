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

// How deep lists, dicts and namespaces may nest inside one another. The
// walks over values (str(), repr(), json.dumps, ==) and a value's destructor
// recurse once per level, as Python's do (Python stops them at its recursion
// limit with a RecursionError); this keeps them on the stack. The renderer
// refuses to build a value deeper than this, and the walks check it again
// (a namespace can be changed after it was put in a list).
inline constexpr int kMaxValueDepth = 256;

// How many list items and dict entries one == may look at: lists and dicts
// share their items, so `[l, l]` built 60 times over is small in memory but
// 2^60 items deep-compared.
inline constexpr std::size_t kMaxCompareWork = 10'000'000;

// Bytes of strings, list items and dict entries built on this thread so far
// (Value::string, list, dict, ns), never decreasing: a render's budget is
// the growth of this count while it runs (RenderLimits::maxValueBytes).
std::size_t valueBytesBuilt();

// Work done on this thread so far comparing and scanning values (a byte of a
// string compared or searched, an item or entry looked at), never
// decreasing: a render's budget is its growth (RenderLimits::maxWork). A
// step may compare two 16 MiB strings: counting steps alone bounds no time.
void chargeWork(std::size_t units);
std::size_t valueWorkDone();

struct ListData {
  std::vector<Value> items;
  bool tuple = false; // printed as (a, b) instead of [a, b]
  int depth = 1;      // 1 + the deepest item's depth (set by Value::list)
};

struct DictData {
  std::vector<std::pair<std::string, Value>> entries;
  int depth = 1; // 1 + the deepest value's depth (set by Value::dict/ns)
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
  // 0 for a scalar; 1 + the deepest item for a list, dict or namespace (as
  // it was built: a namespace changed later may be deeper).
  int depth() const;
  // Python's str() as jinja2 prints it: None -> "None", True -> "True",
  // lists and dicts as their repr(), Undefined -> "". A namespace that
  // contains itself prints as Python prints it ({...} where it recurs). An
  // Error when the text would be longer than `limit` bytes or the value
  // nests deeper than kMaxValueDepth.
  Expected<std::string> str(std::size_t limit) const;
  // Python's repr() (strings quoted the way Python quotes them); errors as
  // str().
  Expected<std::string> repr(std::size_t limit) const;
  // repr() cut to about 100 bytes ("..." where cut), for error messages.
  std::string reprForMessage() const;
  // Python's ==. An Error when the values nest deeper than kMaxValueDepth or
  // more than `budget` items have been compared (`budget` counts down, so a
  // caller comparing many values, as `in` and unique do, shares one).
  Expected<bool> equals(const Value &other, std::size_t &budget) const;
  Expected<bool> equals(const Value &other) const;
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
// None. An undefined or callable value is an Error, as json.dumps raises; so
// is text longer than `limit` bytes or a value deeper than kMaxValueDepth.
Expected<std::string> toJson(const Value &value, int indent, std::size_t limit);

} // namespace linnet::rt::jinja
