// Implementation of ShapeMatch.h.
#include "runtime/artifact/ShapeMatch.h"

#include "runtime/support/ShownName.h"

#include <fmt/ranges.h>

#include <algorithm>

namespace linnet::rt {

std::string formatShapeExprs(std::span<const DimExpr> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    out += (i ? ", " : "") + shape[i].text();
  return out + "]";
}

std::string formatVariants(std::span<const EntrySpec *const> variants) {
  constexpr std::size_t kShown = 6; // an entry may have 64
  std::string out;
  for (const EntrySpec *variant : variants.first(std::min(variants.size(), kShown))) {
    out += out.empty() ? "(" : ", (";
    for (std::size_t a = 0; a < variant->args.size(); ++a)
      out += fmt::format("{}{}: {}{}", a ? ", " : "", variant->args[a].name, dtypeName(variant->args[a].dtype),
                         formatShapeExprs(variant->args[a].shape));
    out += ")";
  }
  if (variants.size() > kShown)
    out += fmt::format(" and {} more", variants.size() - kShown);
  return out;
}

namespace {

// Binds `dim` from an argument axis whose expression is linear in it and
// names nothing else unknown (`8 * D`, `N + 1`, `2 * S - 1`): for extent e and
// axis a * dim + b, dim = (e - b) / a where that divides exactly, checked by
// evaluating the axis again. matchShapes binds the dims that an axis names
// exactly first, so the other names such an axis uses are known by then.
// `unsolvable` names the first axis linear in `dim` whose extent no value of
// it gives (`2 * N` of 7 elements), for the message when nothing fixes it.
bool solveFromAxes(const EntrySpec &entry, std::span<const std::vector<std::int64_t>> argShapes,
                   const std::string &dim, DimEnv &env, std::string *unsolvable = nullptr) {
  for (std::size_t a = 0; a < entry.args.size(); ++a)
    for (std::size_t axis = 0; axis < entry.args[a].shape.size(); ++axis) {
      const DimExpr &expr = entry.args[a].shape[axis];
      std::vector<std::string> names = expr.names();
      if (std::find(names.begin(), names.end(), dim) == names.end())
        continue;
      if (!std::all_of(names.begin(), names.end(), [&](const std::string &n) { return n == dim || env.count(n); }))
        continue;
      auto at = [&](std::int64_t value) -> std::optional<std::int64_t> {
        DimEnv trial = env;
        trial[dim] = value;
        Expected<std::int64_t> v = expr.evaluate(trial);
        return v ? std::optional<std::int64_t>(*v) : std::nullopt;
      };
      std::optional<std::int64_t> f0 = at(0), f1 = at(1), f2 = at(2);
      if (!f0 || !f1 || !f2 || *f1 == *f0 || *f2 - *f1 != *f1 - *f0)
        continue;  // not linear in `dim` (or not at all)
      std::int64_t slope = *f1 - *f0, extent = argShapes[a][axis];
      std::int64_t value = (extent - *f0) / slope;
      if ((extent - *f0) % slope != 0 || value < 0 || value > kMaxDim || at(value) != extent) {
        if (unsolvable && unsolvable->empty())
          *unsolvable = fmt::format("argument `{}` axis {} is {}, and `{}` is that for no `{}` >= 0", entry.args[a].name,
                                    axis, extent, expr.text(), dim);
        continue;
      }
      env[dim] = value;
      return true;
    }
  return false;
}

} // namespace

Expected<DimEnv> matchShapes(const Manifest &manifest, const EntrySpec &entry,
                             std::span<const std::vector<std::int64_t>> argShapes, const DimEnv &binds) {
  if (argShapes.size() != entry.args.size())
    return makeError("entry `{}` takes {} arguments, not {}", entry.name, entry.args.size(), argShapes.size());
  for (std::size_t a = 0; a < entry.args.size(); ++a)
    if (argShapes[a].size() != entry.args[a].shape.size())
      return makeError("argument `{}` has rank {} but entry `{}` expects rank {} {}", entry.args[a].name,
                       argShapes[a].size(), entry.name, entry.args[a].shape.size(),
                       formatShapeExprs(entry.args[a].shape));

  DimEnv env = manifest.genericDims();
  // Binds of generics must agree with the build; other binds must be dims.
  for (const auto &[name, value] : binds) {
    if (const GenericValue *generic = manifest.findGeneric(name)) {
      if (!generic->dim)
        return makeError("`{}` is a dtype generic; it cannot be bound to {}", name, value);
      if (*generic->dim != value)
        return makeError("the artifact was built with {} = {}; it cannot run with {} = {} (rebuild it)", name,
                         *generic->dim, name, value);
      continue;
    }
    if (std::find(entry.dims.begin(), entry.dims.end(), name) == entry.dims.end())
      return makeError("`{}` is not a dim of entry `{}` (its dims: {})", shownName(name), entry.name,
                       entry.dims.empty() ? std::string("none") : fmt::format("{}", fmt::join(entry.dims, ", ")));
  }

  // 1. Each dim from the first axis that is exactly its name.
  for (const std::string &dim : entry.dims) {
    bool bound = false;
    for (std::size_t a = 0; a < entry.args.size() && !bound; ++a) {
      for (std::size_t axis = 0; axis < entry.args[a].shape.size(); ++axis) {
        std::optional<std::string_view> name = entry.args[a].shape[axis].asName();
        if (!name || *name != dim)
          continue;
        std::int64_t size = argShapes[a][axis];
        if (size < 0 || size > kMaxDim)
          return makeError("argument `{}` axis {} is {}, outside 0..{}", entry.args[a].name, axis, size, kMaxDim);
        auto bind = binds.find(dim);
        if (bind != binds.end() && bind->second != size)
          return makeError("bind {} = {} disagrees with argument `{}` axis {}, which is {}", dim, bind->second,
                           entry.args[a].name, axis, size);
        env[dim] = size;
        bound = true;
        break;
      }
    }
  }
  for (const std::string &dim : entry.dims) {
    if (env.count(dim))
      continue;
    // 2. From the caller's binds, else from an axis linear in it.
    auto bind = binds.find(dim);
    std::string unsolvable;
    if (bind == binds.end() && solveFromAxes(entry, argShapes, dim, env, &unsolvable))
      continue;
    if (auto fallback = entry.defaults.find(dim); bind == binds.end() && fallback != entry.defaults.end()) {
      Expected<std::int64_t> value = fallback->second.evaluate(env);
      if (!value)
        return makeError("dim `{}` of entry `{}`: its default `{}`: {}", dim, entry.name, fallback->second.text(),
                         value.message());
      if (*value < 0 || *value > kMaxDim)
        return makeError("dim `{}` of entry `{}`: its default `{}` is {}, outside 0..{}", dim, entry.name,
                         fallback->second.text(), *value, kMaxDim);
      env[dim] = *value;
      continue;
    }
    if (bind == binds.end() && !unsolvable.empty())
      return makeError("dim `{}` of entry `{}` cannot be fixed: {}", dim, entry.name, unsolvable);
    if (bind == binds.end()) {
      // Where the dim appears, if anywhere: an axis like `N + 1` does not fix N.
      std::vector<std::string> uses;
      for (const ArgSpec &arg : entry.args)
        for (std::size_t axis = 0; axis < arg.shape.size(); ++axis) {
          std::vector<std::string> names = arg.shape[axis].names();
          if (std::find(names.begin(), names.end(), dim) != names.end())
            uses.push_back(fmt::format("argument `{}` axis {} is `{}`", arg.name, axis, arg.shape[axis].text()));
        }
      std::string where;
      if (!uses.empty()) {
        std::size_t shown = std::min<std::size_t>(uses.size(), 3);
        where = fmt::format(" (no argument axis is exactly `{}`: {}{})", dim,
                            fmt::join(uses.begin(), uses.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
                            uses.size() > shown ? ", ..." : "");
      }
      return makeError("dim `{}` of entry `{}` is not fixed by any argument{}; give it a value: `--bind {}=<value>`",
                       dim, entry.name, where, dim);
    }
    if (bind->second < 0 || bind->second > kMaxDim)
      return makeError("bind {} = {}: a dim is an integer from 0 to {}", dim, bind->second, kMaxDim);
    env[dim] = bind->second;
  }

  // 3. Every axis of every argument.
  for (std::size_t a = 0; a < entry.args.size(); ++a) {
    const ArgSpec &arg = entry.args[a];
    for (std::size_t axis = 0; axis < arg.shape.size(); ++axis) {
      Expected<std::int64_t> expected = arg.shape[axis].evaluate(env);
      if (!expected)
        return makeError("argument `{}` axis {}: {}", arg.name, axis, expected.message());
      if (argShapes[a][axis] != *expected) {
        const DimExpr &expr = arg.shape[axis];
        bool literal = expr.names().empty();
        return makeError("argument `{}` has shape [{}]: axis {} is {} but must be {}{}", arg.name,
                         fmt::join(argShapes[a], ", "), axis, argShapes[a][axis], expr.text(),
                         literal ? std::string() : fmt::format(" = {}", *expected));
      }
    }
  }
  return env;
}

Expected<std::vector<std::int64_t>> evaluateShape(std::span<const DimExpr> shape, const DimEnv &env,
                                                  std::string_view what) {
  std::vector<std::int64_t> out;
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    Expected<std::int64_t> size = shape[axis].evaluate(env);
    if (!size)
      return makeError("{} axis {}: {}", what, axis, size.message());
    if (*size < 0)
      return makeError("{} axis {}: {} = {} is negative", what, axis, shape[axis].text(), *size);
    out.push_back(*size);
  }
  return out;
}

} // namespace linnet::rt
