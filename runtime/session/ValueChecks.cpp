// Implementation of ValueChecks.h.
#include "runtime/session/ValueChecks.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>

namespace linnet::rt {

namespace {

// "[0, 2]": the row-major index `flat` of `shape`, for messages.
std::string formatIndex(std::int64_t flat, std::span<const std::int64_t> shape) {
  std::vector<std::int64_t> index(shape.size(), 0);
  for (std::size_t i = shape.size(); i-- > 0;) {
    if (shape[i] == 0)
      break;
    index[i] = flat % shape[i];
    flat /= shape[i];
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

std::string formatBound(const DimExpr &expr, std::int64_t value) {
  if (expr.names().empty())
    return std::to_string(value);
  return fmt::format("{} = {}", expr.text(), value);
}

// The dims two bounds mention, with their values (`MaxSeq = 4096, Steps =
// 5000`): what a range empty for every value is to blame on.
std::string boundDims(const DimExpr &min, const DimExpr &max, const DimEnv &env) {
  std::set<std::string> names;
  for (const DimExpr *e : {&min, &max})
    for (const std::string &name : e->names())
      names.insert(name);
  std::vector<std::string> shown;
  for (const std::string &name : names)
    if (auto it = env.find(name); it != env.end())
      shown.push_back(fmt::format("{} = {}", name, it->second));
  return fmt::format("{}", fmt::join(shown, ", "));
}

// Element `i` of `arg` as a message shows it: as an integer of its dtype, or
// a double.
std::string formatElement(const HostTensor &arg, std::int64_t i) {
  if (arg.dtype() == DType::U64)
    return std::to_string(arg.elementAsUnsigned(i));
  if (!isFloatingPoint(arg.dtype()))
    return std::to_string(arg.elementAsInt(i));
  return fmt::format("{}", arg.elementAsDouble(i));
}

} // namespace

Status checkDimRequirements(const EntrySpec &entry, const DimEnv &env) {
  for (const DimRequirement &requirement : entry.requirements) {
    std::string relation = fmt::format("{} {} {}", requirement.lhs.text(), dimRelationSpelling(requirement.relation),
                                       requirement.rhs.text());
    Expected<std::int64_t> lhs = requirement.lhs.evaluate(env);
    if (!lhs)
      return makeError("entry `{}` needs {}: {}", entry.name, relation, lhs.message());
    Expected<std::int64_t> rhs = requirement.rhs.evaluate(env);
    if (!rhs)
      return makeError("entry `{}` needs {}: {}", entry.name, relation, rhs.message());
    if (dimRelationHolds(requirement.relation, *lhs, *rhs))
      continue;
    // The values of the names it uses, in order of appearance.
    std::vector<std::string> names = requirement.lhs.names();
    for (const std::string &name : requirement.rhs.names())
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(name);
    std::vector<std::string> values;
    for (const std::string &name : names)
      values.push_back(fmt::format("{} = {}", name, env.find(name)->second));
    std::string why = requirement.why.empty() ? std::string() : fmt::format(" ({})", requirement.why);
    // A side that is more than a name or an integer gets its value shown.
    bool compound = !(requirement.lhs.asName() || requirement.lhs.names().empty()) ||
                    !(requirement.rhs.asName() || requirement.rhs.names().empty());
    std::string evaluated =
        compound ? fmt::format(" ({} {} {} is false)", *lhs, dimRelationSpelling(requirement.relation), *rhs) : "";
    if (values.empty())
      return makeError("entry `{}` needs {}{}, which is false", entry.name, relation, why);
    return makeError("entry `{}` needs {}{}, but {}{}", entry.name, relation, why, fmt::join(values, ", "),
                     evaluated);
  }
  return Status::success();
}

// A strict weak order on the elements of `t`: integers as integers (u64 as
// unsigned), floats as doubles with NaNs last and equal to each other.
auto elementOrder(const HostTensor &t) {
  const bool integral = !isFloatingPoint(t.dtype());
  const bool wide = t.dtype() == DType::U64;
  return [&t, integral, wide](std::int64_t a, std::int64_t b) {
    if (wide)
      return t.elementAsUnsigned(a) < t.elementAsUnsigned(b);
    if (integral)
      return t.elementAsInt(a) < t.elementAsInt(b);
    double x = t.elementAsDouble(a), y = t.elementAsDouble(b);
    return std::isnan(x) || std::isnan(y) ? !std::isnan(x) && std::isnan(y) : x < y;
  };
}

// No two elements of `arg` equal (a `distinct` check), or, with `per`, no two
// equal among the elements whose `per` elements are equal (each cache row's
// positions), leaving out elements equal to `except`: the first repeat, in
// row-major order, names both elements. Sorted indices, so a long argument
// costs n log n.
Status checkDistinct(const ValueCheck &check, const HostTensor &arg, const HostTensor *per,
                     std::optional<std::int64_t> except) {
  if (per && per->elementCount() != arg.elementCount())
    return makeError("argument `{}` has {} elements and `{}` {}: they must have as many", check.arg,
                     arg.elementCount(), *check.per, per->elementCount());
  std::vector<std::int64_t> order;
  order.reserve(static_cast<std::size_t>(arg.elementCount()));
  for (std::int64_t i = 0; i < arg.elementCount(); ++i) {
    bool excepted = false;
    if (except) {
      if (arg.dtype() == DType::U64)
        excepted = *except >= 0 && arg.elementAsUnsigned(i) == static_cast<std::uint64_t>(*except);
      else if (!isFloatingPoint(arg.dtype()))
        excepted = arg.elementAsInt(i) == *except;
      else
        excepted = arg.elementAsDouble(i) == static_cast<double>(*except);
    }
    if (!excepted)
      order.push_back(i);
  }
  auto argLess = elementOrder(arg);
  std::function<bool(std::int64_t, std::int64_t)> less = argLess;
  if (per) {
    auto perLess = elementOrder(*per);
    less = [argLess, perLess](std::int64_t a, std::int64_t b) {
      if (perLess(a, b))
        return true;
      if (perLess(b, a))
        return false;
      return argLess(a, b);
    };
  }
  std::stable_sort(order.begin(), order.end(), less);
  // The repeat whose second element comes first in the argument.
  std::optional<std::pair<std::int64_t, std::int64_t>> first;
  for (std::size_t i = 1; i < order.size(); ++i)
    if (!less(order[i - 1], order[i]) && (!first || order[i] < first->second))
      first = {order[i - 1], order[i]};
  if (!first)
    return Status::success();
  if (!per)
    return makeError("argument `{}` element {} is {}, as is element {}: its elements must be distinct", check.arg,
                     formatIndex(first->second, arg.shape()), formatElement(arg, first->second),
                     formatIndex(first->first, arg.shape()));
  std::string unless = except ? fmt::format(" ({} may repeat)", formatBound(*check.except, *except)) : std::string();
  return makeError("argument `{}` element {} is {}, as is element {}, and both have `{}` {}: elements with the "
                   "same `{}` must differ{}",
                   check.arg, formatIndex(first->second, arg.shape()), formatElement(arg, first->second),
                   formatIndex(first->first, arg.shape()), *check.per, formatElement(*per, first->second),
                   *check.per, unless);
}

Status checkArgumentValues(const EntrySpec &entry, std::span<const HostTensor *const> args, const DimEnv &env) {
  for (const ValueCheck &check : entry.checks) {
    const HostTensor &arg = *args[check.argIndex];
    if (check.kind == ValueCheckKind::Distinct) {
      std::optional<std::int64_t> except;
      if (check.except) {
        Expected<std::int64_t> value = check.except->evaluate(env);
        if (!value)
          return makeError("argument `{}`: `except`: {}", check.arg, value.message());
        except = *value;
      }
      if (Status s = checkDistinct(check, arg, check.per ? args[check.perIndex] : nullptr, except); !s)
        return s;
      continue;
    }
    std::optional<std::int64_t> min, max;
    if (check.min) {
      Expected<std::int64_t> value = check.min->evaluate(env);
      if (!value)
        return makeError("argument `{}`: lower bound: {}", check.arg, value.message());
      min = *value;
    }
    if (check.max) {
      Expected<std::int64_t> value = check.max->evaluate(env);
      if (!value)
        return makeError("argument `{}`: upper bound: {}", check.arg, value.message());
      max = *value;
    }
    const bool integral = !isFloatingPoint(arg.dtype());
    for (std::int64_t i = 0; i < arg.elementCount(); ++i) {
      bool below = false, above = false;
      std::string shown = formatElement(arg, i);
      constexpr auto kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
      if (arg.dtype() == DType::U64 && arg.elementAsUnsigned(i) > kInt64Max) {
        // Past every int64 bound: above any upper bound, below no lower one.
        above = max.has_value();
      } else if (integral) {
        std::int64_t v = arg.elementAsInt(i);
        below = min && v < *min;
        above = max && v >= *max;
      } else {
        double v = arg.elementAsDouble(i);
        // NaN is no number a bound could hold ("must be >= 0" misled).
        if (std::isnan(v)) {
          std::string where = arg.rank() == 0 ? std::string() : " element " + formatIndex(i, arg.shape());
          return makeError("argument `{}`{} is {}: it must be a finite number", check.arg, where, shown);
        }
        below = min && !(v >= static_cast<double>(*min));
        above = max && !(v < static_cast<double>(*max));
        // A checked float is a finite number: an infinity passes a lone
        // `>= 0` (an .npy can hold one; a literal cannot).
        if (!below && !above && !std::isfinite(v)) {
          std::string where = arg.rank() == 0 ? std::string() : " element " + formatIndex(i, arg.shape());
          return makeError("argument `{}`{} is {}: it must be a finite number", check.arg, where, shown);
        }
      }
      if (!below && !above)
        continue;
      std::string where = arg.rank() == 0 ? std::string() : " element " + formatIndex(i, arg.shape());
      if (const std::optional<EnumSpec> &e = entry.args[check.argIndex].enumType) {
        std::vector<std::string> variants;
        for (std::size_t k = 0; k < e->variants.size(); ++k)
          variants.push_back(fmt::format("{} {}", k, e->variants[k]));
        return makeError("argument `{}`{} is {}: not a variant of `{}` ({})", check.arg, where, shown, e->name,
                         fmt::join(variants, ", "));
      }
      std::string range;
      if (min && max && *max <= *min) // `pos` of a prefill longer than the cache: no value is right
        return makeError("argument `{}`{} is {}, but no value fits these dims ({}): its range {}..{} (>= {} and < {}) "
                         "is empty",
                         check.arg, where, shown, boundDims(*check.min, *check.max, env), *min, *max,
                         formatBound(*check.min, *min), formatBound(*check.max, *max));
      if (min && max)
        range = fmt::format("must be in {}..{} (>= {} and < {})", *min, *max, formatBound(*check.min, *min),
                            formatBound(*check.max, *max));
      else if (min)
        range = fmt::format("must be >= {}", formatBound(*check.min, *min));
      else
        range = fmt::format("must be < {}", formatBound(*check.max, *max));
      return makeError("argument `{}`{} is {}: it {}", check.arg, where, shown, range);
    }
  }
  return Status::success();
}

} // namespace linnet::rt
