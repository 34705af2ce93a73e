// Template::render: walks the Program with jinja2's semantics as
// transformers configures it. Scopes follow jinja2: `set` inside a for loop
// (or a macro) is local to that iteration, `set` inside `if` is not;
// namespace() objects are how templates carry state out of loops. Undefined
// values print as "" and are false, and using one in arithmetic, attribute
// access or a call is an error with jinja2's message ("'x' is undefined",
// "'dict object' has no attribute 'y'"). Filters, tests and methods are in
// Builtins.cpp.
#include "runtime/tokenizer/jinja/Render.h"

#include "runtime/tokenizer/jinja/Template.h"
#include "runtime/support/ShownName.h"

#include <algorithm>
#include <unordered_set>
#include <cmath>
#include <ctime>

namespace linnet::rt::jinja {

Expected<Template> Template::parse(std::string_view source) {
  auto program = parseTemplate(source);
  if (!program)
    return program.error();
  return Template(std::make_shared<const Program>(std::move(*program)));
}

Expected<std::string> Template::render(const DictData &context,
                                       const RenderOptions &options) const {
  Renderer renderer(options);
  return renderer.run(*program_, context);
}

Renderer::Renderer(const RenderOptions &options) : options_(options) {}

Expected<std::string> Renderer::run(const Program &program, const DictData &context) {
  bytesAtStart_ = valueBytesBuilt();
  workAtStart_ = valueWorkDone();
  DictData globals;
  for (const char *name : {"raise_exception", "strftime_now", "namespace", "range", "dict"})
    globals.set(name, Value::callable(Callable{name}));
  Scope globalScope{std::move(globals), nullptr};
  Scope contextScope{context, &globalScope};
  Scope root{{}, &contextScope};
  root_ = &root;
  std::string out;
  auto flow = execBody(program.body, root, out);
  if (!flow)
    return flow.error();
  return out;
}

Value Renderer::lookup(const Scope &scope, const std::string &name) const {
  for (const Scope *s = &scope; s; s = s->parent)
    if (const Value *v = s->vars.find(name))
      return *v;
  return Value::undefined(fmt::format("'{}' is undefined", name));
}

Status Renderer::step(int line) {
  if (++steps_ > options_.limits.maxSteps)
    return makeError("line {}: the template ran more than {} steps", line,
                     options_.limits.maxSteps);
  return Status::success();
}

Status Renderer::checkSize(std::size_t size, int line) const {
  if (size > options_.limits.maxOutputBytes)
    return makeError("line {}: the template produced more than {} bytes", line,
                     options_.limits.maxOutputBytes);
  return Status::success();
}

Expected<std::string> Renderer::text(const Value &value, int line) const {
  auto text = value.str(options_.limits.maxOutputBytes);
  if (!text)
    return makeError("line {}: {}", line, text.message());
  return text;
}

namespace {

// Whether `value` is, or contains, the namespace whose data is `target`.
// Containers are shared (`[l, l]` doubled 60 times is 2^60 paths to one
// list), so each is looked into once (`seen`); values nest at most
// kMaxValueDepth deep, and deeper counts as holding it.
bool holds(const Value &value, const DictData *target, int depth, std::unordered_set<const void *> &seen) {
  if (depth > kMaxValueDepth)
    return true;
  switch (value.kind()) {
  case Value::Kind::Namespace:
    if (&value.mutableNamespace() == target)
      return true;
    [[fallthrough]];
  case Value::Kind::Dict:
    if (!seen.insert(&value.dictData()).second)
      return false;
    for (const auto &[key, entry] : value.dictData().entries)
      if (holds(entry, target, depth + 1, seen))
        return true;
    return false;
  case Value::Kind::List:
    if (!seen.insert(&value.items()).second)
      return false;
    for (const Value &item : value.items())
      if (holds(item, target, depth + 1, seen))
        return true;
    return false;
  default:
    return false;
  }
}

std::size_t stringBytes(const Value &value) {
  return value.isString() ? value.asString().size() : 0;
}

} // namespace

Status Renderer::grow(Growth &growth, std::size_t items, std::size_t bytes, int line) const {
  if (items > options_.limits.maxItems - std::min(options_.limits.maxItems, growth.items))
    return makeError("line {}: a list or dict would have more than {} items", line,
                     options_.limits.maxItems);
  if (bytes > options_.limits.maxOutputBytes -
                  std::min(options_.limits.maxOutputBytes, growth.bytes))
    return makeError("line {}: a list or dict would hold more than {} bytes of strings", line,
                     options_.limits.maxOutputBytes);
  growth.items += items;
  growth.bytes += bytes;
  return Status::success();
}

Status Renderer::grow(Growth &growth, const Value &item, int line) const {
  return grow(growth, 1, stringBytes(item), line);
}

Expected<Flow> Renderer::execBody(const Body &body, Scope &scope, std::string &out) {
  // Blocks nest at most kMaxNesting deep in the source, but macro calls
  // stack them: bound the sum, so that the C++ stack stays small (well under
  // 1 MiB) whatever the template does.
  if (renderDepth_ >= options_.limits.maxRenderDepth)
    return makeError("line {}: the template nests deeper than {} blocks and macro calls",
                     body.empty() ? 0 : body.front().line, options_.limits.maxRenderDepth);
  ++renderDepth_;
  Expected<Flow> result = Flow::Normal;
  for (const Stmt &stmt : body) {
    result = exec(stmt, scope, out);
    if (!result || *result != Flow::Normal)
      break;
  }
  --renderDepth_;
  return result;
}

Status Renderer::assign(Scope &scope, const std::vector<std::string> &targets, const Value &value,
                        int line) {
  if (targets.size() == 1) {
    scope.vars.set(targets[0], value);
    return Status::success();
  }
  std::vector<Value> items;
  if (value.isString() && codePointCount(value.asString()) != targets.size())
    return makeError("line {}: cannot unpack {} values into {} names", line,
                     codePointCount(value.asString()), targets.size());
  if (value.isList())
    items = value.items();
  else if (value.isString())
    for (std::string_view c : splitCodePoints(value.asString()))
      items.push_back(Value::string(std::string(c)));
  else if (value.isDict())
    for (const auto &[k, v] : value.dictData().entries)
      items.push_back(Value::string(k));
  else
    return makeError("line {}: cannot unpack a {} into {} names", line, value.typeName(),
                     targets.size());
  if (items.size() != targets.size())
    return makeError("line {}: cannot unpack {} values into {} names", line, items.size(),
                     targets.size());
  for (std::size_t i = 0; i < targets.size(); ++i)
    scope.vars.set(targets[i], items[i]);
  return Status::success();
}

Expected<std::vector<Value>> Renderer::iterate(const Value &value, int line) const {
  std::vector<Value> items;
  switch (value.kind()) {
  case Value::Kind::Undefined:
    return items;
  case Value::Kind::List:
    return value.items();
  case Value::Kind::String: {
    Growth growth;
    if (Status s = grow(growth, codePointCount(value.asString()), value.asString().size(), line);
        !s)
      return s.error();
    for (std::string_view c : splitCodePoints(value.asString()))
      items.push_back(Value::string(std::string(c)));
    return items;
  }
  case Value::Kind::Dict:
    for (const auto &[k, v] : value.dictData().entries)
      items.push_back(Value::string(k));
    return items;
  default:
    return makeError("line {}: '{}' object is not iterable", line, value.typeName());
  }
}

Expected<Flow> Renderer::exec(const Stmt &stmt, Scope &scope, std::string &out) {
  if (Status s = step(stmt.line); !s)
    return s.error();
  switch (stmt.kind) {
  case Stmt::Kind::Text:
    out += stmt.text;
    if (Status s = checkSize(out.size(), stmt.line); !s)
      return s.error();
    return Flow::Normal;
  case Stmt::Kind::Output: {
    auto value = eval(*stmt.expr, scope);
    if (!value)
      return value.error();
    auto printed = text(*value, stmt.line);
    if (!printed)
      return printed.error();
    if (Status s = checkSize(out.size() + printed->size(), stmt.line); !s)
      return s.error();
    out += *printed;
    if (Status s = checkSize(out.size(), stmt.line); !s)
      return s.error();
    return Flow::Normal;
  }
  case Stmt::Kind::If:
    for (std::size_t i = 0; i < stmt.conditions.size(); ++i) {
      auto cond = eval(*stmt.conditions[i], scope);
      if (!cond)
        return cond.error();
      if (cond->truthy())
        return execBody(stmt.bodies[i], scope, out);
    }
    return execBody(stmt.elseBody, scope, out);
  case Stmt::Kind::For:
    return execFor(stmt, scope, out);
  case Stmt::Kind::Set: {
    auto value = eval(*stmt.expr, scope);
    if (!value)
      return value.error();
    if (!stmt.attr.empty()) {
      Value target = lookup(scope, stmt.targets[0]);
      if (target.kind() != Value::Kind::Namespace)
        return makeError("line {}: cannot assign attribute on non-namespace object", stmt.line);
      // The namespace may already sit in lists, whose depth is not updated:
      // the walks over values check depth again.
      int depth = value->depth() + 1;
      if (depth > kMaxValueDepth)
        return makeError("line {}: the value nests deeper than {} levels", stmt.line,
                         kMaxValueDepth);
      DictData &attrs = target.mutableNamespace();
      // A namespace holding itself (`{% set ns.a = [ns] %}`) would be a cycle
      // of shared pointers, which nothing frees (and every walk must guard):
      // refused, as the only way to build one.
      std::unordered_set<const void *> seen;
      if (holds(*value, &attrs, 0, seen))
        return makeError("line {}: a namespace cannot hold itself (`{}` would contain its own namespace)", stmt.line,
                         stmt.attr);
      attrs.depth = std::max(attrs.depth, depth);
      attrs.set(stmt.attr, std::move(*value));
      return Flow::Normal;
    }
    if (Status s = assign(scope, stmt.targets, *value, stmt.line); !s)
      return s.error();
    return Flow::Normal;
  }
  case Stmt::Kind::SetBlock: {
    std::string captured;
    auto flow = execBody(stmt.bodies[0], scope, captured);
    if (!flow)
      return flow;
    scope.vars.set(stmt.targets[0], Value::string(std::move(captured)));
    return *flow;
  }
  case Stmt::Kind::Macro:
    scope.vars.set(stmt.macro->name,
                   Value::callable(Callable{stmt.macro->name, stmt.macro.get()}));
    return Flow::Normal;
  case Stmt::Kind::Break:
    return Flow::Break;
  case Stmt::Kind::Continue:
    return Flow::Continue;
  case Stmt::Kind::Generation:
    return execBody(stmt.bodies[0], scope, out);
  }
  return Flow::Normal;
}

Expected<Flow> Renderer::execFor(const Stmt &stmt, Scope &scope, std::string &out) {
  auto iterable = eval(*stmt.expr, scope);
  if (!iterable)
    return iterable.error();
  auto all = iterate(*iterable, stmt.line);
  if (!all)
    return all.error();
  // A loop filter (`for x in xs if cond`) runs before the loop, so loop.length
  // and loop.last count only the items it keeps, as in jinja2.
  std::vector<Value> items;
  if (stmt.filter) {
    for (const Value &item : *all) {
      if (Status s = step(stmt.line); !s)
        return s.error();
      Scope filterScope{{}, &scope};
      if (Status s = assign(filterScope, stmt.targets, item, stmt.line); !s)
        return s.error();
      auto keep = eval(*stmt.filter, filterScope);
      if (!keep)
        return keep.error();
      if (keep->truthy())
        items.push_back(item);
    }
  } else {
    items = std::move(*all);
  }
  if (items.empty())
    return execBody(stmt.elseBody, scope, out);
  auto length = static_cast<std::int64_t>(items.size());
  for (std::int64_t i = 0; i < length; ++i) {
    if (Status s = step(stmt.line); !s)
      return s.error();
    Scope iteration{{}, &scope};
    if (Status s = assign(iteration, stmt.targets, items[static_cast<std::size_t>(i)], stmt.line);
        !s)
      return s.error();
    DictData loop;
    loop.set("index", Value::integer(i + 1));
    loop.set("index0", Value::integer(i));
    loop.set("revindex", Value::integer(length - i));
    loop.set("revindex0", Value::integer(length - i - 1));
    loop.set("first", Value::boolean(i == 0));
    loop.set("last", Value::boolean(i == length - 1));
    loop.set("length", Value::integer(length));
    loop.set("depth", Value::integer(1));
    loop.set("depth0", Value::integer(0));
    loop.set("previtem", i > 0 ? items[static_cast<std::size_t>(i - 1)]
                               : Value::undefined("there is no previous item"));
    loop.set("nextitem", i + 1 < length ? items[static_cast<std::size_t>(i + 1)]
                                        : Value::undefined("there is no next item"));
    iteration.vars.set("loop", Value::dict(std::move(loop)));
    auto flow = execBody(stmt.bodies[0], iteration, out);
    if (!flow)
      return flow;
    if (*flow == Flow::Break)
      break;
  }
  return Flow::Normal;
}

namespace {

Error undefinedError(const Value &value, int line) {
  std::string hint = value.undefinedHint();
  if (hint.empty())
    hint = "value is undefined";
  return makeError("line {}: {}", line, hint);
}

std::string objectName(const Value &value) {
  return fmt::format("{} object", value.typeName());
}

// Python's floor division and modulo on int64 (the sign follows the divisor).
std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}
std::int64_t floorMod(std::int64_t a, std::int64_t b) { return a - floorDiv(a, b) * b; }

} // namespace

Value Renderer::getAttr(const Value &object, const std::string &name) const {
  if (object.isDict() || object.kind() == Value::Kind::Namespace) {
    if (const Value *v = object.dictData().find(name))
      return *v;
  }
  return Value::undefined(fmt::format("'{}' has no attribute '{}'", objectName(object), name));
}

Value Renderer::getItem(const Value &object, const Value &key) const {
  if (object.isDict() || object.kind() == Value::Kind::Namespace) {
    if (key.isString())
      if (const Value *v = object.dictData().find(key.asString()))
        return *v;
    return Value::undefined(
        fmt::format("'{}' has no attribute '{}'", objectName(object),
                    key.isString() ? key.asString() : key.reprForMessage()));
  }
  if ((object.isList() || object.isString()) && key.kind() == Value::Kind::Int) {
    std::int64_t index = key.asInt();
    if (object.isList()) {
      auto size = static_cast<std::int64_t>(object.items().size());
      std::int64_t i = index < 0 ? index + size : index;
      if (i >= 0 && i < size)
        return object.items()[static_cast<std::size_t>(i)];
    } else {
      auto chars = splitCodePoints(object.asString());
      auto size = static_cast<std::int64_t>(chars.size());
      std::int64_t i = index < 0 ? index + size : index;
      if (i >= 0 && i < size)
        return Value::string(std::string(chars[static_cast<std::size_t>(i)]));
    }
    return Value::undefined(fmt::format("{} has no element {}", objectName(object), index));
  }
  if (key.isString())
    return getAttr(object, key.asString());
  return Value::undefined(
      fmt::format("{} has no element {}", objectName(object), key.reprForMessage()));
}

Expected<Value> Renderer::slice(const Value &object, const Value &start, const Value &stop,
                                const Value &stepValue, int line) const {
  std::vector<Value> items;
  std::vector<std::string_view> chars;
  std::int64_t size = 0;
  if (object.isList()) {
    size = static_cast<std::int64_t>(object.items().size());
  } else if (object.isString()) {
    chars = splitCodePoints(object.asString());
    size = static_cast<std::int64_t>(chars.size());
  } else if (object.isUndefined()) {
    return undefinedError(object, line);
  } else {
    return makeError("line {}: '{}' object is not subscriptable", line, object.typeName());
  }
  auto intOr = [&](const Value &v, std::int64_t fallback) -> Expected<std::int64_t> {
    if (v.isUndefined() || v.isNone())
      return fallback;
    if (v.kind() != Value::Kind::Int && v.kind() != Value::Kind::Bool)
      return makeError("line {}: slice indices must be integers or None", line);
    return v.asInt();
  };
  auto step = intOr(stepValue, 1);
  if (!step)
    return step.error();
  if (*step == 0)
    return makeError("line {}: slice step cannot be zero", line);
  // Python's slice.indices().
  auto clamp = [&](std::int64_t i, bool isStart) {
    if (i < 0)
      i += size;
    if (*step > 0)
      return std::clamp<std::int64_t>(i, 0, size);
    (void)isStart;
    return std::clamp<std::int64_t>(i, -1, size - 1);
  };
  std::int64_t lo, hi;
  if (start.isUndefined() || start.isNone()) {
    lo = *step > 0 ? 0 : size - 1;
  } else {
    auto v = intOr(start, 0);
    if (!v)
      return v.error();
    lo = clamp(*v, true);
  }
  if (stop.isUndefined() || stop.isNone()) {
    hi = *step > 0 ? size : -1;
  } else {
    auto v = intOr(stop, 0);
    if (!v)
      return v.error();
    hi = clamp(*v, false);
  }
  std::string text;
  for (std::int64_t i = lo; *step > 0 ? i < hi : i > hi; i += *step) {
    if (object.isList())
      items.push_back(object.items()[static_cast<std::size_t>(i)]);
    else
      text += chars[static_cast<std::size_t>(i)];
  }
  if (object.isList())
    return Value::list(std::move(items), object.isTuple());
  return Value::string(std::move(text));
}

Expected<Value> Renderer::binary(const std::string &op, const Value &a, const Value &b,
                                 int line) const {
  if (op == "~") {
    auto left = text(a, line);
    if (!left)
      return left.error();
    auto right = text(b, line);
    if (!right)
      return right.error();
    if (Status st = checkSize(left->size() + right->size(), line); !st)
      return st.error();
    return Value::string(*left + *right);
  }
  if (a.isUndefined())
    return undefinedError(a, line);
  if (b.isUndefined())
    return undefinedError(b, line);
  auto typeError = [&]() -> Error {
    return makeError("line {}: unsupported operand type(s) for {}: '{}' and '{}'", line, op,
                     a.typeName(), b.typeName());
  };
  if (a.isNumber() && b.isNumber()) {
    bool useFloat = a.kind() == Value::Kind::Float || b.kind() == Value::Kind::Float;
    if (op == "/") {
      if (b.asFloat() == 0)
        return makeError("line {}: division by zero", line);
      return Value::number(a.asFloat() / b.asFloat());
    }
    if (useFloat) {
      double x = a.asFloat(), y = b.asFloat();
      if (op == "+")
        return Value::number(x + y);
      if (op == "-")
        return Value::number(x - y);
      if (op == "*")
        return Value::number(x * y);
      if (op == "**")
        return Value::number(std::pow(x, y));
      if (y == 0)
        return makeError("line {}: float division by zero", line);
      if (op == "//")
        return Value::number(std::floor(x / y));
      if (op == "%") {
        double m = std::fmod(x, y);
        if (m != 0 && ((m < 0) != (y < 0)))
          m += y;
        return Value::number(m);
      }
      return typeError();
    }
    std::int64_t x = a.asInt(), y = b.asInt(), r = 0;
    bool overflow = false;
    if (op == "+")
      overflow = __builtin_add_overflow(x, y, &r);
    else if (op == "-")
      overflow = __builtin_sub_overflow(x, y, &r);
    else if (op == "*")
      overflow = __builtin_mul_overflow(x, y, &r);
    else if (op == "//" || op == "%") {
      if (y == 0)
        return makeError("line {}: integer division or modulo by zero", line);
      if (x == INT64_MIN && y == -1)
        overflow = true;
      else
        r = op == "//" ? floorDiv(x, y) : floorMod(x, y);
    } else if (op == "**") {
      if (y < 0)
        return Value::number(std::pow(static_cast<double>(x), static_cast<double>(y)));
      r = 1;
      for (std::int64_t i = 0; i < y && !overflow; ++i) {
        overflow = __builtin_mul_overflow(r, x, &r);
        if (r == 0 || r == 1)
          break;
      }
      if (!overflow && x == -1 && y % 2 == 0)
        r = 1;
    } else {
      return typeError();
    }
    if (overflow)
      return makeError("line {}: integer overflow in `{}`", line, op);
    return Value::integer(r);
  }
  if (op == "+") {
    if (a.isString() && b.isString()) {
      if (Status s = checkSize(a.asString().size() + b.asString().size(), line); !s)
        return s.error();
      return Value::string(a.asString() + b.asString());
    }
    if (a.isList() && b.isList()) {
      Growth growth;
      for (const Value *list : {&a, &b})
        for (const Value &item : list->items())
          if (Status s = grow(growth, item, line); !s)
            return s.error();
      std::vector<Value> items = a.items();
      items.insert(items.end(), b.items().begin(), b.items().end());
      return Value::list(std::move(items), a.isTuple() && b.isTuple());
    }
    if (a.isString())
      return makeError("line {}: can only concatenate str (not \"{}\") to str", line,
                       b.typeName());
    if (a.isList())
      return makeError("line {}: can only concatenate list (not \"{}\") to list", line,
                       b.typeName());
    return typeError();
  }
  if (op == "*") {
    const Value &seq = a.isNumber() ? b : a;
    const Value &count = a.isNumber() ? a : b;
    if ((seq.isString() || seq.isList()) &&
        (count.kind() == Value::Kind::Int || count.kind() == Value::Kind::Bool)) {
      std::int64_t n = std::max<std::int64_t>(count.asInt(), 0);
      std::size_t unit = seq.isString() ? seq.asString().size() : 0;
      if (seq.isList())
        for (const Value &item : seq.items())
          unit += stringBytes(item);
      if (unit != 0 && static_cast<std::uint64_t>(n) > options_.limits.maxOutputBytes / unit)
        return makeError("line {}: the repeated value would be larger than {} bytes", line,
                         options_.limits.maxOutputBytes);
      if (seq.isList() && !seq.items().empty() &&
          static_cast<std::uint64_t>(n) > options_.limits.maxItems / seq.items().size())
        return makeError("line {}: the repeated list would be larger than {} items", line,
                         options_.limits.maxItems);
      if (seq.isString()) {
        std::string s;
        for (std::int64_t i = 0; i < n; ++i)
          s += seq.asString();
        return Value::string(std::move(s));
      }
      std::vector<Value> items;
      for (std::int64_t i = 0; i < n; ++i)
        items.insert(items.end(), seq.items().begin(), seq.items().end());
      return Value::list(std::move(items), seq.isTuple());
    }
  }
  if (op == "%" && a.isString())
    return makeError("line {}: printf-style string formatting (`%`) is not supported", line);
  return typeError();
}

Expected<bool> Renderer::compare(const std::string &op, const Value &a, const Value &b,
                                 int line) const {
  auto failed = [&](const Error &error) -> Error {
    return makeError("line {}: {}", line, error.message());
  };
  if (op == "==" || op == "!=") {
    auto same = a.equals(b);
    if (!same)
      return failed(same.error());
    return *same == (op == "==");
  }
  if (op == "in" || op == "not in") {
    bool found = false;
    if (b.isString()) {
      if (!a.isString())
        return makeError("line {}: 'in <string>' requires string as left operand, not {}", line,
                         a.typeName());
      chargeWork(b.asString().size());
      found = b.asString().find(a.asString()) != std::string::npos;
    } else if (b.isList()) {
      std::size_t budget = kMaxCompareWork;
      for (const Value &item : b.items()) {
        if (budget == 0)
          return makeError("line {}: comparing more than {} items", line, kMaxCompareWork);
        --budget;
        chargeWork(1);
        auto same = item.equals(a, budget);
        if (!same)
          return failed(same.error());
        if (*same) {
          found = true;
          break;
        }
      }
    } else if (b.isDict()) {
      found = a.isString() && b.dictData().find(a.asString()) != nullptr;
    } else if (b.isUndefined()) {
      found = false;
    } else {
      return makeError("line {}: argument of type '{}' is not iterable", line, b.typeName());
    }
    return op == "in" ? found : !found;
  }
  if (a.isUndefined())
    return undefinedError(a, line);
  if (b.isUndefined())
    return undefinedError(b, line);
  int order = 0;
  if (a.isNumber() && b.isNumber()) {
    double x = a.asFloat(), y = b.asFloat();
    if (a.kind() != Value::Kind::Float && b.kind() != Value::Kind::Float)
      order = a.asInt() < b.asInt() ? -1 : a.asInt() > b.asInt() ? 1 : 0;
    else if (std::isnan(x) || std::isnan(y))
      return false;
    else
      order = x < y ? -1 : x > y ? 1 : 0;
  } else if (a.isString() && b.isString()) {
    chargeWork(std::min(a.asString().size(), b.asString().size()) + 1);
    int c = a.asString().compare(b.asString());
    order = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else {
    return makeError("line {}: '{}' not supported between instances of '{}' and '{}'", line, op,
                     a.typeName(), b.typeName());
  }
  if (op == "<")
    return order < 0;
  if (op == "<=")
    return order <= 0;
  if (op == ">")
    return order > 0;
  return order >= 0;
}

Expected<Value> Renderer::eval(const Expr &e, Scope &scope) {
  // Checked before each expression: one expression builds at most one
  // bounded string, list or dict beyond what its operands did.
  if (valueBytesBuilt() - bytesAtStart_ > options_.limits.maxValueBytes)
    return makeError("line {}: the template built more than {} bytes of values", e.line,
                     options_.limits.maxValueBytes);
  if (valueWorkDone() - workAtStart_ > options_.limits.maxWork)
    return makeError("line {}: the template compared or scanned values more than {} times (bytes and items)",
                     e.line, options_.limits.maxWork);
  auto value = evalNode(e, scope);
  if (value && value->depth() > kMaxValueDepth)
    return makeError("line {}: the value nests deeper than {} levels", e.line, kMaxValueDepth);
  return value;
}

Expected<Value> Renderer::evalNode(const Expr &e, Scope &scope) {
  switch (e.kind) {
  case Expr::Kind::Literal:
    return e.literal;
  case Expr::Kind::Name:
    return lookup(scope, e.name);
  case Expr::Kind::List:
  case Expr::Kind::Tuple: {
    std::vector<Value> items;
    Growth growth;
    for (const ExprPtr &arg : e.args) {
      auto v = eval(*arg, scope);
      if (!v)
        return v;
      if (Status s = grow(growth, *v, e.line); !s)
        return s.error();
      items.push_back(std::move(*v));
    }
    return Value::list(std::move(items), e.kind == Expr::Kind::Tuple);
  }
  case Expr::Kind::Dict: {
    DictData data;
    Growth growth;
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      auto key = eval(*e.args[i], scope);
      if (!key)
        return key;
      if (!key->isString())
        return makeError("line {}: dict keys must be strings here, got {}", e.line,
                         key->typeName());
      auto value = eval(*e.args[i + 1], scope);
      if (!value)
        return value;
      if (Status s = grow(growth, 1, key->asString().size() + stringBytes(*value), e.line); !s)
        return s.error();
      data.set(key->asString(), std::move(*value));
    }
    return Value::dict(std::move(data));
  }
  case Expr::Kind::GetAttr: {
    auto object = eval(*e.args[0], scope);
    if (!object)
      return object;
    if (object->isUndefined())
      return undefinedError(*object, e.line);
    return getAttr(*object, e.name);
  }
  case Expr::Kind::GetItem: {
    auto object = eval(*e.args[0], scope);
    if (!object)
      return object;
    if (object->isUndefined())
      return undefinedError(*object, e.line);
    auto key = eval(*e.args[1], scope);
    if (!key)
      return key;
    return getItem(*object, *key);
  }
  case Expr::Kind::Slice: {
    auto object = eval(*e.args[0], scope);
    if (!object)
      return object;
    Value parts[3];
    for (int i = 0; i < 3; ++i)
      if (e.args[static_cast<std::size_t>(i + 1)]) {
        auto v = eval(*e.args[static_cast<std::size_t>(i + 1)], scope);
        if (!v)
          return v;
        parts[i] = std::move(*v);
      }
    return slice(*object, parts[0], parts[1], parts[2], e.line);
  }
  case Expr::Kind::Call:
    return evalCall(e, scope);
  case Expr::Kind::Filter:
  case Expr::Kind::Test: {
    Value subject;
    auto v = eval(*e.args[0], scope);
    if (!v)
      return v;
    subject = std::move(*v);
    Args args;
    if (Status s = evalArgs(e, 1, scope, args); !s)
      return s.error();
    if (e.kind == Expr::Kind::Filter)
      return applyFilter(e.name, subject, args, scope, e.line);
    auto result = applyTest(e.name, subject, args.positional, e.line);
    if (!result)
      return result.error();
    return Value::boolean(*result != e.negated);
  }
  case Expr::Kind::Unary: {
    auto v = eval(*e.args[0], scope);
    if (!v)
      return v;
    if (e.name == "not")
      return Value::boolean(!v->truthy());
    if (v->isUndefined())
      return undefinedError(*v, e.line);
    if (!v->isNumber())
      return makeError("line {}: bad operand type for unary {}: '{}'", e.line, e.name,
                       v->typeName());
    if (e.name == "+")
      return v->kind() == Value::Kind::Float ? *v : Value::integer(v->asInt());
    if (v->kind() == Value::Kind::Float)
      return Value::number(-v->asFloat());
    if (v->asInt() == INT64_MIN)
      return makeError("line {}: integer overflow in unary -", e.line);
    return Value::integer(-v->asInt());
  }
  case Expr::Kind::Binary: {
    auto a = eval(*e.args[0], scope);
    if (!a)
      return a;
    if (e.name == "and")
      return a->truthy() ? eval(*e.args[1], scope) : a;
    if (e.name == "or")
      return a->truthy() ? a : eval(*e.args[1], scope);
    auto b = eval(*e.args[1], scope);
    if (!b)
      return b;
    return binary(e.name, *a, *b, e.line);
  }
  case Expr::Kind::Compare: {
    auto left = eval(*e.args[0], scope);
    if (!left)
      return left;
    Value current = std::move(*left);
    for (std::size_t i = 0; i < e.ops.size(); ++i) {
      auto right = eval(*e.args[i + 1], scope);
      if (!right)
        return right;
      auto ok = compare(e.ops[i], current, *right, e.line);
      if (!ok)
        return ok.error();
      if (!*ok)
        return Value::boolean(false);
      current = std::move(*right);
    }
    return Value::boolean(true);
  }
  case Expr::Kind::Conditional: {
    auto cond = eval(*e.args[1], scope);
    if (!cond)
      return cond;
    if (cond->truthy())
      return eval(*e.args[0], scope);
    if (e.args[2])
      return eval(*e.args[2], scope);
    return Value::undefined("the conditional expression had no else branch");
  }
  }
  return Value();
}

Status Renderer::evalArgs(const Expr &e, std::size_t first, Scope &scope, Args &args) {
  // The arguments are held at once, as a list's items are.
  Growth growth;
  for (std::size_t i = first; i < e.args.size(); ++i) {
    auto v = eval(*e.args[i], scope);
    if (!v)
      return v.error();
    if (Status s = grow(growth, *v, e.line); !s)
      return s;
    args.positional.push_back(std::move(*v));
  }
  for (const auto &[key, expr] : e.kwargs) {
    auto v = eval(*expr, scope);
    if (!v)
      return v.error();
    if (Status s = grow(growth, *v, e.line); !s)
      return s;
    args.keyword.set(key, std::move(*v));
  }
  return Status::success();
}

Expected<Value> Renderer::evalCall(const Expr &e, Scope &scope) {
  const Expr &callee = *e.args[0];
  Args args;
  if (callee.kind == Expr::Kind::GetAttr) {
    auto object = eval(*callee.args[0], scope);
    if (!object)
      return object;
    if (object->isUndefined())
      return undefinedError(*object, e.line);
    if (object->isString() || object->isDict() || object->isList()) {
      if (Status s = evalArgs(e, 1, scope, args); !s)
        return s.error();
      return callMethod(*object, callee.name, args, e.line);
    }
  }
  auto function = eval(callee, scope);
  if (!function)
    return function;
  if (function->isUndefined())
    return undefinedError(*function, e.line);
  if (function->kind() != Value::Kind::Callable)
    return makeError("line {}: '{}' object is not callable", e.line, function->typeName());
  if (Status s = evalArgs(e, 1, scope, args); !s)
    return s.error();
  const Callable &c = function->callableData();
  if (c.macro)
    return callMacro(*c.macro, args, e.line);
  return callGlobal(c.name, args, e.line);
}

Expected<Value> Renderer::callMacro(const MacroNode &macro, const Args &args, int line) {
  if (callDepth_ >= options_.limits.maxCallDepth)
    return makeError("line {}: macro calls nest deeper than {}", line,
                     options_.limits.maxCallDepth);
  if (args.positional.size() > macro.params.size())
    return makeError("line {}: macro '{}' takes not more than {} argument(s)", line, macro.name,
                     macro.params.size());
  Scope local{{}, root_};
  for (std::size_t i = 0; i < macro.params.size(); ++i) {
    const std::string &param = macro.params[i];
    if (i < args.positional.size()) {
      local.vars.set(param, args.positional[i]);
    } else if (const Value *v = args.keyword.find(param)) {
      local.vars.set(param, *v);
    } else if (macro.defaults[i]) {
      auto v = eval(*macro.defaults[i], local);
      if (!v)
        return v;
      local.vars.set(param, std::move(*v));
    } else {
      local.vars.set(param, Value::undefined(fmt::format(
                                "parameter '{}' was not provided", param)));
    }
  }
  for (const auto &[key, value] : args.keyword.entries)
    if (std::find(macro.params.begin(), macro.params.end(), key) == macro.params.end())
      return makeError("line {}: macro '{}' takes no keyword argument '{}'", line, macro.name,
                       key);
  ++callDepth_;
  std::string out;
  auto flow = execBody(macro.body, local, out);
  --callDepth_;
  if (!flow)
    return flow.error();
  return Value::string(std::move(out));
}

Expected<Value> Renderer::callGlobal(const std::string &name, const Args &args, int line) {
  auto arg = [&](std::size_t i, std::string_view key) -> Value {
    if (i < args.positional.size())
      return args.positional[i];
    if (const Value *v = args.keyword.find(key))
      return *v;
    return Value::undefined(fmt::format("missing argument '{}'", key));
  };
  if (name == "raise_exception") {
    auto message = text(arg(0, "message"), line);
    if (!message)
      return message.error();
    return makeError("line {}: {}", line, shownText(*message));
  }
  if (name == "strftime_now") {
    Value format = arg(0, "format");
    if (!format.isString())
      return makeError("line {}: strftime_now() needs a format string", line);
    std::time_t now = options_.now ? *options_.now : std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[512];
    std::size_t n = std::strftime(buffer, sizeof buffer, format.asString().c_str(), &local);
    if (n == 0 && !format.asString().empty())
      return makeError("line {}: strftime_now() format is too long or empty", line);
    return Value::string(std::string(buffer, n));
  }
  if (name == "namespace" || name == "dict") {
    DictData data;
    if (!args.positional.empty()) {
      if (args.positional.size() > 1 || !args.positional[0].isDict())
        return makeError("line {}: {}() takes keyword arguments or one dict", line, name);
      data = args.positional[0].dictData();
    }
    for (const auto &[k, v] : args.keyword.entries)
      data.set(k, v);
    Growth growth;
    for (const auto &[k, v] : data.entries)
      if (Status s = grow(growth, 1, k.size() + stringBytes(v), line); !s)
        return s.error();
    return name == "namespace" ? Value::ns(std::move(data)) : Value::dict(std::move(data));
  }
  if (name == "range") {
    std::int64_t bounds[3] = {0, 0, 1};
    if (args.positional.empty() || args.positional.size() > 3)
      return makeError("line {}: range() takes 1 to 3 integer arguments", line);
    for (std::size_t i = 0; i < args.positional.size(); ++i)
      if (args.positional[i].kind() != Value::Kind::Int)
        return makeError("line {}: range() arguments must be integers", line);
    if (args.positional.size() == 1)
      bounds[1] = args.positional[0].asInt();
    else
      for (std::size_t i = 0; i < args.positional.size(); ++i)
        bounds[i] = args.positional[i].asInt();
    if (bounds[2] == 0)
      return makeError("line {}: range() arg 3 must not be zero", line);
    std::vector<Value> items;
    for (std::int64_t i = bounds[0]; bounds[2] > 0 ? i < bounds[1] : i > bounds[1];
         i += bounds[2]) {
      // The sandbox's MAX_RANGE.
      if (items.size() >= 100000)
        return makeError("line {}: Range too big. The sandbox blocks ranges larger than "
                         "MAX_RANGE (100000).",
                         line);
      items.push_back(Value::integer(i));
    }
    return Value::list(std::move(items));
  }
  return makeError("line {}: unknown function '{}'", line, name);
}

} // namespace linnet::rt::jinja
