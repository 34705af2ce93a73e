// Parsing and validation of the artifact manifest (see Manifest.h).
//
// Each object is read by a function that first rejects unknown keys, then
// reads every known field with its type checked. Errors carry a path to the
// field (`entries[2].args[0].dtype`), built as the reader descends.
#include "runtime/artifact/Manifest.h"

#include "runtime/checkpoint/StrictJson.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

namespace linnet::rt {

using nlohmann::json;

std::string_view stateAccessName(StateAccess access) {
  switch (access) {
  case StateAccess::None:
    return "none";
  case StateAccess::Read:
    return "read";
  case StateAccess::Write:
    return "write";
  }
  return "none";
}

std::string_view dimRelationSpelling(DimRelation relation) {
  switch (relation) {
  case DimRelation::Equal:
    return "==";
  case DimRelation::NotEqual:
    return "!=";
  case DimRelation::Less:
    return "<";
  case DimRelation::LessEqual:
    return "<=";
  case DimRelation::Greater:
    return ">";
  case DimRelation::GreaterEqual:
    return ">=";
  }
  return "==";
}

std::optional<DimRelation> dimRelationFromSpelling(std::string_view spelling) {
  for (DimRelation r : {DimRelation::Equal, DimRelation::NotEqual, DimRelation::Less, DimRelation::LessEqual,
                        DimRelation::Greater, DimRelation::GreaterEqual})
    if (dimRelationSpelling(r) == spelling)
      return r;
  return std::nullopt;
}

bool dimRelationHolds(DimRelation relation, std::int64_t lhs, std::int64_t rhs) {
  switch (relation) {
  case DimRelation::Equal:
    return lhs == rhs;
  case DimRelation::NotEqual:
    return lhs != rhs;
  case DimRelation::Less:
    return lhs < rhs;
  case DimRelation::LessEqual:
    return lhs <= rhs;
  case DimRelation::Greater:
    return lhs > rhs;
  case DimRelation::GreaterEqual:
    return lhs >= rhs;
  }
  return false;
}

std::optional<std::int32_t> EnumSpec::indexOf(std::string_view text) const {
  if (text.size() > name.size() + 1 && text.substr(0, name.size()) == name && text[name.size()] == '.')
    text.remove_prefix(name.size() + 1);
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i] == text)
      return static_cast<std::int32_t>(i);
  return std::nullopt;
}

const ArgSpec *EntrySpec::findArg(std::string_view argName) const {
  for (const ArgSpec &arg : args)
    if (arg.name == argName)
      return &arg;
  return nullptr;
}

bool EntrySpec::computesDefault(std::string_view argName) const {
  return std::find(defaulted.begin(), defaulted.end(), argName) != defaulted.end();
}

bool fitsLeftOutDefaults(std::span<const EntrySpec *const> variants, const EntrySpec &variant,
                         const std::function<bool(const std::string &)> &leftOut) {
  for (const EntrySpec *other : variants)
    for (const std::string &name : other->defaulted)
      if (leftOut(name) != variant.computesDefault(name))
        return false;
  return true;
}

const EntrySpec *Manifest::findEntry(std::string_view name) const {
  for (const EntrySpec &entry : entries)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

std::vector<const EntrySpec *> Manifest::findVariants(std::string_view name) const {
  std::vector<const EntrySpec *> out;
  for (const EntrySpec &entry : entries)
    if (entry.name == name)
      out.push_back(&entry);
  return out;
}

const GenericValue *Manifest::findGeneric(std::string_view name) const {
  for (const GenericValue &generic : generics)
    if (generic.name == name)
      return &generic;
  return nullptr;
}

DimEnv Manifest::genericDims() const {
  DimEnv env;
  for (const GenericValue &generic : generics)
    if (generic.dim)
      env.emplace(generic.name, *generic.dim);
  return env;
}

namespace {

// An argument's name: an identifier, or for a part of a tuple or struct
// parameter the parameter's name and the part's position or field
// (`pair.0`, `pair.1.0`, `opts.scale`).
bool isArgumentName(std::string_view name) {
  std::size_t dot = name.find('.');
  if (!isIdentifier(name.substr(0, dot)))
    return false;
  auto position = [](std::string_view part) {
    return !part.empty() && part.size() <= 9 &&
           std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  while (dot != std::string_view::npos) {
    std::size_t next = name.find('.', dot + 1);
    std::string_view part =
        name.substr(dot + 1, next == std::string_view::npos ? std::string_view::npos : next - dot - 1);
    if (!position(part) && !isIdentifier(part))
      return false;
    dot = next;
  }
  return true;
}

} // namespace

namespace {

// Reads one manifest; `source` prefixes every message.
class ManifestReader {
public:
  explicit ManifestReader(std::string_view source) : source_(source) {}

  Expected<Manifest> read(const json &root);

private:
  template <typename... Args>
  Error fail(const std::string &where, fmt::format_string<Args...> format, Args &&...args) const {
    return makeError("{}: manifest: {}{}{}", source_, where, where.empty() ? "" : ": ",
                     fmt::format(format, std::forward<Args>(args)...));
  }

  Status checkObject(const json &value, const std::string &where,
                     std::initializer_list<std::string_view> allowed) const {
    if (!value.is_object())
      return fail(where, "expected an object");
    for (const auto &item : value.items())
      if (std::find(allowed.begin(), allowed.end(), item.key()) == allowed.end())
        return fail(where, "unknown key {}", jsonQuoted(item.key()));
    return Status::success();
  }

  static std::string join(const std::string &where, std::string_view key) {
    return where.empty() ? std::string(key) : where + "." + std::string(key);
  }

  Expected<const json *> member(const json &object, std::string_view key, const std::string &where,
                                bool required) const {
    auto it = object.find(key);
    if (it == object.end()) {
      if (required)
        return fail(where, "missing `{}`", key);
      return static_cast<const json *>(nullptr);
    }
    return &*it;
  }

  Expected<std::string> string(const json &object, std::string_view key, const std::string &where,
                               bool required) const {
    Expected<const json *> value = member(object, key, where, required);
    if (!value)
      return value.error();
    if (!*value)
      return std::string();
    if (!(*value)->is_string())
      return fail(join(where, key), "expected a string");
    return (*value)->get<std::string>();
  }

  Expected<const json *> array(const json &object, std::string_view key, const std::string &where,
                               bool required) const {
    Expected<const json *> value = member(object, key, where, required);
    if (!value || !*value)
      return value;
    if (!(*value)->is_array())
      return fail(join(where, key), "expected an array");
    if ((*value)->size() > Manifest::kMaxListLength)
      return fail(join(where, key), "more than {} items", Manifest::kMaxListLength);
    return value;
  }

  // An arg's or result's `enum`: an i32 scalar, a name and its variants,
  // identifiers, unique, at least one.
  Expected<std::optional<EnumSpec>> readEnum(const json &object, const std::string &where, DType type,
                                             const std::vector<DimExpr> &shape) const {
    auto it = object.find("enum");
    if (it == object.end())
      return std::optional<EnumSpec>();
    const std::string at = join(where, "enum");
    if (type != DType::I32 || !shape.empty())
      return fail(at, "an enum value is an i32 scalar");
    if (Status s = checkObject(*it, at, {"name", "variants"}); !s)
      return s.error();
    Expected<std::string> name = string(*it, "name", at, true);
    if (!name)
      return name.error();
    if (!isIdentifier(*name))
      return fail(join(at, "name"), "{} is not an identifier", jsonQuoted(*name));
    Expected<const json *> list = array(*it, "variants", at, true);
    if (!list)
      return list.error();
    EnumSpec spec{*name, {}};
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      const json &v = (**list)[i];
      std::string vat = fmt::format("{}.variants[{}]", at, i);
      if (!v.is_string() || !isIdentifier(v.get<std::string>()))
        return fail(vat, "expected an identifier");
      if (spec.indexOf(v.get<std::string>()))
        return fail(vat, "`{}` is listed twice", v.get<std::string>());
      spec.variants.push_back(v.get<std::string>());
    }
    if (spec.variants.empty())
      return fail(join(at, "variants"), "an enum needs at least one variant");
    return std::optional<EnumSpec>(std::move(spec));
  }

  Expected<DType> dtype(const json &object, const std::string &where, const char *key = "dtype") const {
    Expected<std::string> name = string(object, key, where, true);
    if (!name)
      return name.error();
    std::optional<DType> parsed = dtypeFromName(*name);
    if (!parsed)
      return fail(join(where, key), "unknown dtype {}", jsonQuoted(*name));
    return *parsed;
  }

  Expected<std::int64_t> nonNegativeInteger(const json &value, const std::string &where) const {
    if (value.is_number_unsigned()) {
      auto v = value.get<std::uint64_t>();
      if (v > static_cast<std::uint64_t>(INT64_MAX))
        return fail(where, "integer too large");
      return static_cast<std::int64_t>(v);
    }
    if (value.is_number_integer()) {
      auto v = value.get<std::int64_t>();
      if (v < 0)
        return fail(where, "{} is negative", v);
      return v;
    }
    return fail(where, "expected a non-negative integer");
  }

  // A concrete shape: non-negative integers whose product (times the
  // element size) fits in 64 bits.
  Expected<std::vector<std::int64_t>> concreteShape(const json &object, const std::string &where,
                                                    DType elementType) const {
    Expected<const json *> list = array(object, "shape", where, true);
    if (!list)
      return list.error();
    const std::string at = join(where, "shape");
    if ((*list)->size() > Manifest::kMaxRank)
      return fail(at, "rank {} exceeds the limit of {}", (*list)->size(), Manifest::kMaxRank);
    std::vector<std::int64_t> shape;
    std::uint64_t bytes = dtypeSize(elementType);
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      Expected<std::int64_t> dim = nonNegativeInteger((**list)[i], fmt::format("{}[{}]", at, i));
      if (!dim)
        return dim.error();
      if (__builtin_mul_overflow(bytes, static_cast<std::uint64_t>(*dim), &bytes))
        return fail(at, "the byte size overflows");
      shape.push_back(*dim);
    }
    return shape;
  }

  Expected<DimExpr> expression(const json &value, const std::string &where, const std::set<std::string> &names) const {
    if (!value.is_string())
      return fail(where, "expected a string (an integer, a dim name or an expression)");
    Expected<DimExpr> expr = DimExpr::parse(value.get<std::string>());
    if (!expr)
      return fail(where, "{}", expr.message());
    for (const std::string &name : expr->names())
      if (!names.count(name))
        return fail(where, "`{}` is neither a dim of the entry nor an integer generic", name);
    return expr;
  }

  Expected<std::vector<DimExpr>> expressionShape(const json &object, const std::string &where,
                                                 const std::set<std::string> &names) const {
    Expected<const json *> list = array(object, "shape", where, true);
    if (!list)
      return list.error();
    const std::string at = join(where, "shape");
    if ((*list)->size() > Manifest::kMaxRank)
      return fail(at, "rank {} exceeds the limit of {}", (*list)->size(), Manifest::kMaxRank);
    std::vector<DimExpr> shape;
    for (std::size_t i = 0; i < (*list)->size(); ++i) {
      Expected<DimExpr> expr = expression((**list)[i], fmt::format("{}[{}]", at, i), names);
      if (!expr)
        return expr.error();
      shape.push_back(std::move(*expr));
    }
    return shape;
  }

  Status readTarget(const json &root, Manifest &out) const;
  Status readSource(const json &root, Manifest &out) const;
  Status readConfig(const json &root, Manifest &out) const;
  Status readGenerics(const json &root, Manifest &out) const;
  Status readParameters(const json &root, Manifest &out) const;
  Status readState(const json &root, Manifest &out) const;
  Status readTensorSlots(const json &root, const char *key, bool withTensor,
                         const std::function<void(ParameterSpec)> &add) const;
  Expected<EntrySpec> readEntry(const json &value, const std::string &where, const Manifest &manifest) const;
  Status readChecks(const json &entryJson, const std::string &where, const std::set<std::string> &names,
                    EntrySpec &entry) const;
  Status readRequires(const json &entryJson, const std::string &where, const std::set<std::string> &names,
                      EntrySpec &entry) const;

  std::string_view source_;
};

Status ManifestReader::readTarget(const json &root, Manifest &out) const {
  Expected<const json *> target = member(root, "target", "", true);
  if (!target)
    return target.status();
  const json &t = **target;
  if (Status s = checkObject(t, "target", {"kind", "triple", "cpu", "features"}); !s)
    return s;
  Expected<std::string> kind = string(t, "kind", "target", true);
  if (!kind)
    return kind.status();
  if (*kind != "cpu")
    return fail("target.kind", "unsupported target kind {} (this runtime runs \"cpu\")", jsonQuoted(*kind));
  Expected<std::string> triple = string(t, "triple", "target", true);
  Expected<std::string> cpu = string(t, "cpu", "target", false);
  Expected<std::string> features = string(t, "features", "target", false);
  for (auto *field : {&triple, &cpu, &features})
    if (!*field)
      return field->status();
  out.target = {*kind, *triple, *cpu, *features};
  return Status::success();
}

Status ManifestReader::readSource(const json &root, Manifest &out) const {
  Expected<const json *> source = member(root, "source", "", false);
  if (!source)
    return source.status();
  if (!*source)
    return Status::success();
  if (Status s = checkObject(**source, "source", {"package", "block", "hash"}); !s)
    return s;
  Expected<std::string> package = string(**source, "package", "source", false);
  Expected<std::string> block = string(**source, "block", "source", false);
  Expected<std::string> hash = string(**source, "hash", "source", false);
  for (auto *field : {&package, &block, &hash})
    if (!*field)
      return field->status();
  out.source = {*package, *block, *hash};
  return Status::success();
}

Status ManifestReader::readConfig(const json &root, Manifest &out) const {
  Expected<const json *> config = member(root, "config", "", false);
  if (!config)
    return config.status();
  if (!*config)
    return Status::success();
  if (Status s = checkObject(**config, "config", {"values", "absent"}); !s)
    return s;
  ConfigRecord record;
  const json &c = **config;
  if (c.contains("values")) {
    if (!c.at("values").is_object())
      return fail("config.values", "expected an object");
    if (c.at("values").size() > Manifest::kMaxListLength)
      return fail("config.values", "more than {} keys", Manifest::kMaxListLength);
    for (const auto &[key, value] : c.at("values").items())
      record.values.emplace_back(key, value);
  }
  if (c.contains("absent")) {
    if (!c.at("absent").is_array())
      return fail("config.absent", "expected an array");
    if (c.at("absent").size() > Manifest::kMaxListLength)
      return fail("config.absent", "more than {} keys", Manifest::kMaxListLength);
    for (const json &key : c.at("absent")) {
      if (!key.is_string())
        return fail("config.absent", "expected an array of strings");
      record.absent.push_back(key.get<std::string>());
    }
  }
  out.config = std::move(record);
  return Status::success();
}

Status ManifestReader::readGenerics(const json &root, Manifest &out) const {
  Expected<const json *> generics = member(root, "generics", "", false);
  if (!generics)
    return generics.status();
  if (!*generics)
    return Status::success();
  if (!(*generics)->is_object())
    return fail("generics", "expected an object");
  for (const auto &item : (*generics)->items()) {
    std::string where = "generics." + item.key();
    if (!isIdentifier(item.key()))
      return fail("generics", "{} is not a valid name", jsonQuoted(item.key()));
    GenericValue generic{item.key(), std::nullopt, std::nullopt};
    if (item.value().is_string()) {
      std::optional<DType> parsed = dtypeFromName(item.value().get<std::string>());
      if (!parsed)
        return fail(where, "unknown dtype {}", jsonQuoted(item.value().get<std::string>()));
      generic.dtype = *parsed;
    } else {
      Expected<std::int64_t> dim = nonNegativeInteger(item.value(), where);
      if (!dim)
        return fail(where, "expected a non-negative integer (a dim) or a dtype name");
      generic.dim = *dim;
    }
    out.generics.push_back(std::move(generic));
  }
  return Status::success();
}

// `parameters` and `state` list the same kind of item: a unique non-empty
// path, a dtype and a concrete shape (parameters may also name their
// checkpoint tensor). Each item read is handed to `add`.
Status ManifestReader::readTensorSlots(const json &root, const char *key, bool withTensor,
                                       const std::function<void(ParameterSpec)> &add) const {
  Expected<const json *> list = array(root, key, "", false);
  if (!list)
    return list.status();
  if (!*list)
    return Status::success();
  std::set<std::string> paths;
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json &p = (**list)[i];
    std::string where = fmt::format("{}[{}]", key, i);
    Status fields = withTensor ? checkObject(p, where, {"path", "tensor", "dtype", "shape", "stored"})
                               : checkObject(p, where, {"path", "dtype", "shape"});
    if (!fields)
      return fields;
    Expected<std::string> path = string(p, "path", where, true);
    if (!path)
      return path.status();
    if (path->empty())
      return fail(where + ".path", "empty path");
    if (!paths.insert(*path).second)
      return fail(where + ".path", "{} is listed twice", jsonQuoted(*path));
    ParameterSpec spec{*path, std::nullopt, DType::F32, {}};
    if (withTensor && p.contains("tensor")) {
      Expected<std::string> tensor = string(p, "tensor", where, true);
      if (!tensor)
        return tensor.status();
      if (tensor->empty())
        return fail(where + ".tensor", "empty tensor name");
      spec.tensor = *tensor;
    }
    Expected<DType> type = dtype(p, where);
    if (!type)
      return type.status();
    spec.dtype = *type;
    if (withTensor && p.contains("stored")) {
      Expected<DType> stored = dtype(p, where, "stored");
      if (!stored)
        return stored.status();
      if (!isFloatingPoint(*stored) || !isFloatingPoint(spec.dtype) || *stored == spec.dtype)
        return fail(where + ".stored", "a float dtype other than the parameter's");
      spec.stored = *stored;
    }
    Expected<std::vector<std::int64_t>> shape = concreteShape(p, where, spec.dtype);
    if (!shape)
      return shape.status();
    spec.shape = std::move(*shape);
    add(std::move(spec));
  }
  return Status::success();
}

Status ManifestReader::readParameters(const json &root, Manifest &out) const {
  return readTensorSlots(root, "parameters", true,
                         [&](ParameterSpec spec) { out.parameters.push_back(std::move(spec)); });
}

Status ManifestReader::readState(const json &root, Manifest &out) const {
  return readTensorSlots(root, "state", false, [&](ParameterSpec spec) {
    out.state.push_back({std::move(spec.path), spec.dtype, std::move(spec.shape)});
  });
}

Status ManifestReader::readChecks(const json &entryJson, const std::string &where,
                                  const std::set<std::string> &names, EntrySpec &entry) const {
  Expected<const json *> list = array(entryJson, "checks", where, false);
  if (!list)
    return list.status();
  if (!*list)
    return Status::success();
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json &c = (**list)[i];
    std::string at = fmt::format("{}.checks[{}]", where, i);
    if (Status s = checkObject(c, at, {"arg", "kind", "min", "max", "per", "except"}); !s)
      return s;
    Expected<std::string> kind = string(c, "kind", at, true);
    if (!kind)
      return kind.status();
    if (*kind != "range" && *kind != "distinct")
      return fail(at + ".kind", "unknown check kind {} (this runtime knows \"range\" and \"distinct\")",
                  jsonQuoted(*kind));
    bool distinct = *kind == "distinct";
    Expected<std::string> arg = string(c, "arg", at, true);
    if (!arg)
      return arg.status();
    const ArgSpec *spec = entry.findArg(*arg);
    if (!spec)
      return fail(at + ".arg", "{} is not an argument of the entry", jsonQuoted(*arg));
    ValueCheck check{distinct ? ValueCheckKind::Distinct : ValueCheckKind::Range,
                     *arg,
                     static_cast<std::size_t>(spec - entry.args.data()),
                     std::nullopt,
                     std::nullopt,
                     std::nullopt,
                     0,
                     std::nullopt};
    if (spec->dtype == DType::Bool)
      return fail(at + ".arg", "a {} check needs a numeric argument, `{}` is bool", *kind, *arg);
    if (distinct) {
      if (c.contains("min") || c.contains("max"))
        return fail(at, "a distinct check has no `min` or `max`");
      if (c.contains("per")) {
        Expected<std::string> per = string(c, "per", at, true);
        if (!per)
          return per.status();
        const ArgSpec *owner = entry.findArg(*per);
        if (!owner || *per == *arg)
          return fail(at + ".per", "{} is not another argument of the entry", jsonQuoted(*per));
        if (owner->dtype == DType::Bool)
          return fail(at + ".per", "`{}` is bool", *per);
        check.per = *per;
        check.perIndex = static_cast<std::size_t>(owner - entry.args.data());
      }
      if (c.contains("except")) {
        Expected<DimExpr> except = expression(c["except"], at + ".except", names);
        if (!except)
          return except.status();
        check.except = std::move(*except);
      }
      entry.checks.push_back(std::move(check));
      continue;
    }
    if (c.contains("per") || c.contains("except"))
      return fail(at, "a range check has no `per` or `except`");
    for (auto [key, slot] : {std::pair{"min", &check.min}, std::pair{"max", &check.max}}) {
      if (!c.contains(key))
        continue;
      Expected<DimExpr> bound = expression(c[key], at + "." + key, names);
      if (!bound)
        return bound.status();
      *slot = std::move(*bound);
    }
    if (!check.min && !check.max)
      return fail(at, "a range check needs `min` or `max`");
    entry.checks.push_back(std::move(check));
  }
  return Status::success();
}

Status ManifestReader::readRequires(const json &entryJson, const std::string &where,
                                    const std::set<std::string> &names, EntrySpec &entry) const {
  Expected<const json *> list = array(entryJson, "requires", where, false);
  if (!list)
    return list.status();
  if (!*list)
    return Status::success();
  for (std::size_t i = 0; i < (*list)->size(); ++i) {
    const json &r = (**list)[i];
    std::string at = fmt::format("{}.requires[{}]", where, i);
    if (Status s = checkObject(r, at, {"lhs", "relation", "rhs", "why"}); !s)
      return s;
    Expected<std::string> relation = string(r, "relation", at, true);
    if (!relation)
      return relation.status();
    std::optional<DimRelation> parsed = dimRelationFromSpelling(*relation);
    if (!parsed)
      return fail(at + ".relation", "unknown relation {} (expected \"==\", \"!=\", \"<\", \"<=\", \">\" or \">=\")",
                  jsonQuoted(*relation));
    Expected<std::string> why = string(r, "why", at, false);
    if (!why)
      return why.status();
    if (why->size() > Manifest::kMaxWhyLength)
      return fail(at + ".why", "longer than {} characters", Manifest::kMaxWhyLength);
    // It ends up in messages: no control characters (a newline, an escape).
    if (std::any_of(why->begin(), why->end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
      return fail(at + ".why", "contains a control character");
    std::optional<DimExpr> sides[2];
    for (int side = 0; side < 2; ++side) {
      const char *key = side == 0 ? "lhs" : "rhs";
      Expected<const json *> value = member(r, key, at, true);
      if (!value)
        return value.status();
      Expected<DimExpr> expr = expression(**value, at + "." + key, names);
      if (!expr)
        return expr.status();
      sides[side] = std::move(*expr);
    }
    entry.requirements.push_back({std::move(*sides[0]), *parsed, std::move(*sides[1]), std::move(*why)});
  }
  return Status::success();
}

Expected<EntrySpec> ManifestReader::readEntry(const json &e, const std::string &where,
                                              const Manifest &manifest) const {
  if (Status s = checkObject(e, where,
                             {"name", "symbol", "dims", "defaults", "args", "defaulted", "results", "state", "checks",
                              "requires"});
      !s)
    return s.error();
  EntrySpec entry;
  Expected<std::string> name = string(e, "name", where, true);
  if (!name)
    return name.error();
  if (!isIdentifier(*name))
    return fail(where + ".name", "{} is not a valid entry name", jsonQuoted(*name));
  entry.name = *name;
  Expected<std::string> symbol = string(e, "symbol", where, true);
  if (!symbol)
    return symbol.error();
  if (!isIdentifier(*symbol))
    return fail(where + ".symbol", "{} is not a valid C symbol", jsonQuoted(*symbol));
  entry.symbol = *symbol;

  // Names an expression may use: the entry's dims and the integer generics.
  std::set<std::string> names;
  for (const GenericValue &generic : manifest.generics)
    if (generic.dim)
      names.insert(generic.name);
  Expected<const json *> dims = array(e, "dims", where, false);
  if (!dims)
    return dims.error();
  if (*dims) {
    for (std::size_t i = 0; i < (*dims)->size(); ++i) {
      const json &d = (**dims)[i];
      std::string at = fmt::format("{}.dims[{}]", where, i);
      if (!d.is_string() || !isIdentifier(d.get<std::string>()))
        return fail(at, "expected a dim name");
      std::string dim = d.get<std::string>();
      if (manifest.findGeneric(dim))
        return fail(at, "`{}` is also a generic of the model", dim);
      if (!names.insert(dim).second)
        return fail(at, "`{}` is listed twice", dim);
      entry.dims.push_back(dim);
    }
  }
  // Defaults: each in the generics and the dims before its own (declared
  // order, so evaluating them in that order always has their names).
  Expected<const json *> defaults = member(e, "defaults", where, false);
  if (!defaults)
    return defaults.error();
  if (*defaults) {
    if (!(*defaults)->is_object())
      return fail(where + ".defaults", "expected an object");
    std::set<std::string> generics;
    for (const GenericValue &generic : manifest.generics)
      if (generic.dim)
        generics.insert(generic.name);
    for (const auto &[dim, value] : (*defaults)->items()) {
      std::string at = fmt::format("{}.defaults.{}", where, dim);
      auto position = std::find(entry.dims.begin(), entry.dims.end(), dim);
      if (position == entry.dims.end())
        return fail(at, "`{}` is not a dim of the entry", dim);
      std::set<std::string> earlier = generics;
      earlier.insert(entry.dims.begin(), position);
      Expected<DimExpr> expr = expression(value, at, earlier);
      if (!expr)
        return expr.error();
      entry.defaults.emplace(dim, std::move(*expr));
    }
  }

  Expected<const json *> args = array(e, "args", where, true);
  if (!args)
    return args.error();
  for (std::size_t i = 0; i < (*args)->size(); ++i) {
    const json &a = (**args)[i];
    std::string at = fmt::format("{}.args[{}]", where, i);
    if (Status s = checkObject(a, at, {"name", "dtype", "shape", "enum", "default"}); !s)
      return s.error();
    Expected<std::string> argName = string(a, "name", at, true);
    if (!argName)
      return argName.error();
    if (!isArgumentName(*argName))
      return fail(at + ".name", "{} is not a valid argument name", jsonQuoted(*argName));
    if (entry.findArg(*argName))
      return fail(at + ".name", "`{}` is listed twice", *argName);
    Expected<DType> type = dtype(a, at);
    if (!type)
      return type.error();
    Expected<std::vector<DimExpr>> shape = expressionShape(a, at, names);
    if (!shape)
      return shape.error();
    Expected<std::optional<EnumSpec>> enumType = readEnum(a, at, *type, *shape);
    if (!enumType)
      return enumType.error();
    std::optional<double> fallback;
    if (a.contains("default")) {
      const json &d = a.at("default");
      if (!shape->empty())
        return fail(at + ".default", "only a scalar may have a default");
      if (enumType->has_value()) {
        std::optional<std::int32_t> index = d.is_string() ? (*enumType)->indexOf(d.get<std::string>()) : std::nullopt;
        if (!index)
          return fail(at + ".default", "expected the name of a variant of `{}`", (*enumType)->name);
        fallback = *index;
      } else if (d.is_boolean())
        fallback = d.get<bool>() ? 1.0 : 0.0;
      else if (d.is_number() && std::isfinite(d.get<double>()))
        fallback = d.get<double>();
      else
        return fail(at + ".default", "expected a finite number or a bool");
    }
    entry.args.push_back({*argName, *type, std::move(*shape), std::move(*enumType), fallback});
  }
  Expected<const json *> defaulted = array(e, "defaulted", where, false);
  if (!defaulted)
    return defaulted.error();
  if (*defaulted) {
    for (std::size_t i = 0; i < (*defaulted)->size(); ++i) {
      const json &d = (**defaulted)[i];
      std::string at = fmt::format("{}.defaulted[{}]", where, i);
      if (!d.is_string() || !isArgumentName(d.get<std::string>()))
        return fail(at, "expected an argument name");
      std::string argName = d.get<std::string>();
      if (entry.findArg(argName) || entry.computesDefault(argName))
        return fail(at, "`{}` is also an argument of the entry or listed twice", argName);
      entry.defaulted.push_back(std::move(argName));
    }
  }

  Expected<const json *> results = array(e, "results", where, true);
  if (!results)
    return results.error();
  for (std::size_t i = 0; i < (*results)->size(); ++i) {
    const json &r = (**results)[i];
    std::string at = fmt::format("{}.results[{}]", where, i);
    if (Status s = checkObject(r, at, {"dtype", "shape", "enum"}); !s)
      return s.error();
    Expected<DType> type = dtype(r, at);
    if (!type)
      return type.error();
    Expected<std::vector<DimExpr>> shape = expressionShape(r, at, names);
    if (!shape)
      return shape.error();
    Expected<std::optional<EnumSpec>> enumType = readEnum(r, at, *type, *shape);
    if (!enumType)
      return enumType.error();
    entry.results.push_back({*type, std::move(*shape), std::move(*enumType)});
  }

  Expected<std::string> state = string(e, "state", where, true);
  if (!state)
    return state.error();
  if (*state == "none")
    entry.state = StateAccess::None;
  else if (*state == "read")
    entry.state = StateAccess::Read;
  else if (*state == "write")
    entry.state = StateAccess::Write;
  else
    return fail(where + ".state", "expected \"none\", \"read\" or \"write\", not {}", jsonQuoted(*state));

  if (Status s = readChecks(e, where, names, entry); !s)
    return s.error();
  // An enum argument is one of its variants' indices.
  for (std::size_t i = 0; i < entry.args.size(); ++i)
    if (const std::optional<EnumSpec> &type = entry.args[i].enumType)
      entry.checks.push_back({ValueCheckKind::Range, entry.args[i].name, i, DimExpr::constant(0),
                              DimExpr::constant(static_cast<std::int64_t>(type->variants.size()))});
  if (Status s = readRequires(e, where, names, entry); !s)
    return s.error();
  return entry;
}

Expected<Manifest> ManifestReader::read(const json &root) {
  if (Status s = checkObject(root, "",
                             {"format", "version", "target", "source", "config", "generics", "parameters", "state",
                              "entries"});
      !s)
    return s.error();
  Expected<std::string> format = string(root, "format", "", true);
  if (!format)
    return format.error();
  if (*format != kManifestFormat)
    return fail("format", "expected \"{}\", not {}", kManifestFormat, jsonQuoted(*format));
  Expected<const json *> version = member(root, "version", "", true);
  if (!version)
    return version.error();
  if (!(*version)->is_number_integer())
    return fail("version", "expected an integer");
  if ((*version)->get<std::int64_t>() != kManifestVersion || (*version)->is_number_float())
    return fail("version", "manifest version {} is not supported (this runtime reads version {})",
                (*version)->dump(), kManifestVersion);

  Manifest manifest;
  for (auto step : {&ManifestReader::readTarget, &ManifestReader::readSource, &ManifestReader::readConfig,
                    &ManifestReader::readGenerics, &ManifestReader::readParameters, &ManifestReader::readState})
    if (Status s = (this->*step)(root, manifest); !s)
      return s.error();

  Expected<const json *> entries = array(root, "entries", "", true);
  if (!entries)
    return entries.error();
  std::set<std::string> entryNames, symbols;
  for (std::size_t i = 0; i < (*entries)->size(); ++i) {
    std::string where = fmt::format("entries[{}]", i);
    Expected<EntrySpec> entry = readEntry((**entries)[i], where, manifest);
    if (!entry)
      return entry.error();
    // Variants of one entry (docs/abi.md) share its name, told apart by
    // which arguments they take (an optional parameter given or not) or
    // compute from their defaults, and their dtypes and ranks.
    if (!entryNames.insert(entry->name).second)
      for (const EntrySpec &earlier : manifest.entries) {
        if (earlier.name != entry->name || earlier.args.size() != entry->args.size() ||
            std::set<std::string>(earlier.defaulted.begin(), earlier.defaulted.end()) !=
                std::set<std::string>(entry->defaulted.begin(), entry->defaulted.end()))
          continue;
        bool same = true;
        for (std::size_t a = 0; same && a < entry->args.size(); ++a)
          same = earlier.args[a].name == entry->args[a].name && earlier.args[a].dtype == entry->args[a].dtype &&
                 earlier.args[a].shape.size() == entry->args[a].shape.size();
        if (same)
          return fail(where + ".name", "entry `{}` is listed twice with the same arguments, dtypes and ranks",
                      entry->name);
      }
    if (!symbols.insert(entry->symbol).second)
      return fail(where + ".symbol", "symbol `{}` is used by two entries", entry->symbol);
    manifest.entries.push_back(std::move(*entry));
  }
  return manifest;
}

} // namespace

Expected<Manifest> parseManifest(std::string_view json, std::string_view sourceName) {
  std::string name = fmt::format("{}: manifest", sourceName);
  Expected<nlohmann::json> root = parseStrictJson(json, name);
  if (!root)
    return root.error();
  return ManifestReader(sourceName).read(*root);
}

} // namespace linnet::rt
