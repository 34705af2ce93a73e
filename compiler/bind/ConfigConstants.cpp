// ConfigConstants: reading constants.json and comparing config.json with the
// program's constants (see ConfigConstants.h).
//
// A constant's value is folded from its declaration (modules/ConstantValues.h:
// literals, other constants, arithmetic, min/max). A typed constant (`const EPS: f32 = 1e-5`) is
// compared in its dtype: the config value rounded to f32 must equal the
// literal rounded to f32, since that is the number the model computes with.
#include "compiler/bind/ConfigConstants.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>

#include "compiler/bind/BindingFiles.h"
#include "compiler/modules/ConstantValues.h"
#include "compiler/parse/ASTPrinter.h"
#include "runtime/support/HalfFloat.h"

namespace linnet::bind {

namespace {

struct ConstantValue {
  ConstantNumber number;
  std::optional<ast::ScalarType> dtype;  // the declared type, if any
};

bool isFloatType(ast::ScalarType t) {
  return t == ast::ScalarType::F16 || t == ast::ScalarType::BF16 || t == ast::ScalarType::F32 ||
         t == ast::ScalarType::F64;
}

// `value` as the model holds it in `dtype` (f64, or untyped: unchanged).
double roundTo(double value, std::optional<ast::ScalarType> dtype) {
  if (!dtype) return value;
  switch (*dtype) {
    case ast::ScalarType::F32: return static_cast<float>(value);
    case ast::ScalarType::BF16: return rt::bf16ToF32(rt::f32ToBf16(static_cast<float>(value)));
    case ast::ScalarType::F16: return rt::f16ToF32(rt::f32ToF16(static_cast<float>(value)));
    default: return value;
  }
}

// A numeric constant (not bool) of a scalar type or untyped.
std::optional<ConstantValue> evaluateConstant(const Module& m, const ast::ConstItem& c) {
  std::optional<ConstantNumber> number = foldConstant(m, c);
  if (!number || number->kind == ConstantNumber::Kind::Bool) return std::nullopt;
  ConstantValue value{*number, std::nullopt};
  if (auto* scalar = ast::as<ast::ScalarTypeNode>(c.type)) value.dtype = scalar->scalar;
  return value;
}

// Whether config.json's `raw` is the model's `value`.
bool agrees(const nlohmann::json& raw, const ConstantValue& value) {
  if (!raw.is_number()) return false;
  const ConstantNumber& n = value.number;
  if (n.isFloat()) return roundTo(raw.get<double>(), value.dtype) == roundTo(n.real, value.dtype);
  if (raw.is_number_unsigned()) return n.integer >= 0 && raw.get<uint64_t>() == uint64_t(n.integer);
  if (raw.is_number_integer()) return raw.get<int64_t>() == n.integer;
  return raw.get<double>() == double(n.integer);
}

// The model's value as its declaration writes it (`1e-5`), with the value
// when that is an expression (`2 * W = 4094`).
std::string describe(const ast::ConstItem& c, const ConstantValue& value) {
  std::string text = ast::printExpr(c.value);
  const ast::Expr* e = c.value;
  if (auto* u = ast::as<ast::UnaryExpr>(e)) e = u->operand;
  if (ast::as<ast::IntLiteralExpr>(e) || ast::as<ast::FloatLiteralExpr>(e)) return text;
  return text + " = " + (value.number.isFloat() ? nlohmann::json(value.number.real).dump()
                                              : std::to_string(value.number.integer));
}

// The constant `qualified` (`module::NAME`) names, and its module; reports
// the package's mistake (E5102) when there is none.
const ast::ConstItem* namedConstant(const Program& program, const std::string& qualified, const std::string& key,
                                    const Module** module, DiagnosticEmitter& diagnostics) {
  size_t sep = qualified.rfind("::");
  const Module* m = program.findModule(qualified.substr(0, sep));
  const ast::Item* item = m ? m->findItem(qualified.substr(sep + 2)) : nullptr;
  auto* c = item ? ast::as<ast::ConstItem>(item) : nullptr;
  if (!c)
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, "constants.json",
                     "`" + qualified + "` (for `" + key + "`) is not a constant of the program");
  *module = m;
  return c;
}

// config.json's value at a dotted `path`, or null when any part is missing.
const nlohmann::json* lookup(const nlohmann::json& config, const std::string& path) {
  const nlohmann::json* at = &config;
  size_t start = 0;
  while (true) {
    size_t dot = path.find('.', start);
    std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string::npos) return at;
    start = dot + 1;
  }
}

// The value a `same_as` rule names: a key's (`num_attention_heads`), or the
// quotient or product of two keys' numbers (`hidden_size /
// num_attention_heads`: transformers' default head width). Null when a key
// it needs is missing, null or not a number, or a divisor is zero.
std::optional<nlohmann::json> sameAsValue(const nlohmann::json& config, const std::string& text) {
  for (const char* op : {" / ", " * "}) {
    size_t at = text.find(op);
    if (at == std::string::npos) continue;
    const nlohmann::json* a = lookup(config, text.substr(0, at));
    const nlohmann::json* b = lookup(config, text.substr(at + 3));
    if (!a || !b || !a->is_number() || !b->is_number()) return std::nullopt;
    double x = a->get<double>(), y = b->get<double>();
    if (op[1] == '*') return nlohmann::json(x * y);
    if (y == 0) return std::nullopt;
    return nlohmann::json(x / y);
  }
  const nlohmann::json* v = lookup(config, text);
  if (!v || v->is_null()) return std::nullopt;
  return *v;
}

// The places transformers may have written `key`: itself and, for a top-level
// or `rope_scaling.` key, the same field of 5's `rope_parameters`.
std::vector<std::string> placesOf(const std::string& key) {
  std::vector<std::string> places{key};
  const std::string scaling = "rope_scaling.";
  if (key.find('.') == std::string::npos) places.push_back("rope_parameters." + key);
  else if (key.compare(0, scaling.size(), scaling) == 0) places.push_back("rope_parameters." + key.substr(scaling.size()));
  return places;
}

// JSON values equal as config.json means them: numbers as numbers (`1` is
// `1.0`), anything else exactly.
bool sameValue(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

// Whether every pair of `condition` holds in `config` (a null value: the key
// is absent or null).
bool holds(const nlohmann::json& config, const ConfigCondition& condition) {
  for (const auto& [path, expected] : condition) {
    const nlohmann::json* raw = lookup(config, path);
    bool missing = !raw || raw->is_null();
    if (expected.is_null() ? !missing : (missing || !sameValue(*raw, expected))) return false;
  }
  return true;
}

// Reads a condition object (`{"key": value, ...}`) into `out`; false if it is
// not an object.
bool readCondition(const nlohmann::json& body, ConfigCondition& out) {
  if (!body.is_object()) return false;
  for (auto& [key, value] : body.items()) out.emplace_back(key, value);
  return true;
}

// A config value for a message; long ones (longrope's factor lists) cut.
std::string shown(const nlohmann::json& raw) {
  std::string text = raw.dump();
  return text.size() <= 80 ? text : text.substr(0, 77) + "...";
}

}  // namespace

std::optional<ConfigConstants> readConfigConstants(const std::string& packageDir,
                                                   DiagnosticEmitter& diagnostics) {
  ConfigConstants out;
  bool ok = true;
  std::string path = (std::filesystem::path(packageDir) / "constants.json").string();
  std::optional<nlohmann::json> json = readPackageJson(packageDir, "constants.json", ok, diagnostics);
  if (!ok) return std::nullopt;
  if (!json) return out;
  auto invalid = [&](const std::string& why) {
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path, why);
    ok = false;
  };
  for (auto& [section, body] : json->items()) {
    if (section == "constants" && body.is_object()) {
      for (auto& [key, value] : body.items()) {
        ConfigConstant entry{key, "", std::nullopt};
        const nlohmann::json* name = &value;
        if (value.is_object()) {
          name = value.contains("constant") ? &value["constant"] : nullptr;
          for (auto& [field, content] : value.items()) {
            if (field == "absent") entry.absent = content;
            else if (field != "constant")
              invalid("`constants." + key + "` takes only `constant` and `absent`, found `" + field + "`");
          }
        }
        entry.constant = name && name->is_string() ? name->get<std::string>() : "";
        size_t sep = entry.constant.rfind("::");
        if (sep == std::string::npos || sep == 0 || sep + 2 == entry.constant.size())
          invalid("`constants." + key + "` must name a constant as `module::NAME`");
        else
          out.constants.push_back(std::move(entry));
      }
    } else if (section == "from_config" && body.is_object()) {
      for (auto& [key, value] : body.items()) {
        ConfigValue entry{key, "", {}};
        const nlohmann::json* name = &value;
        if (value.is_object()) {
          name = value.contains("constant") ? &value["constant"] : nullptr;
          for (auto& [field, content] : value.items()) {
            if (field == "unless" && content.is_object()) {
              // `{"a": 1, "b": 2}`: either pair alone.
              for (auto& [when, expected] : content.items()) entry.unless.push_back({{when, expected}});
            } else if (field == "unless" && content.is_array()) {
              // `[{"a": 1, "b": 2}, ...]`: every pair of one object.
              for (const nlohmann::json& item : content) {
                entry.unless.emplace_back();
                if (!readCondition(item, entry.unless.back()))
                  invalid("`from_config." + key + ".unless` must list objects of `key: value` pairs");
              }
            } else if (field != "constant") {
              invalid("`from_config." + key + "` takes only `constant` and `unless` (an object, or a list of "
                      "objects), found `" + field + "`");
            }
          }
        }
        entry.constant = name && name->is_string() ? name->get<std::string>() : "";
        size_t sep = entry.constant.rfind("::");
        bool pathOk = !key.empty() && key.front() != '.' && key.back() != '.' && key.find("..") == std::string::npos;
        if (!pathOk)
          invalid("`from_config` key `" + key + "` must be a config.json key or a dotted path of keys");
        else if (sep == std::string::npos || sep == 0 || sep + 2 == entry.constant.size())
          invalid("`from_config." + key + "` must name a constant as `module::NAME`");
        else
          out.values.push_back(std::move(entry));
      }
    } else if (section == "requires" && body.is_array()) {
      for (const nlohmann::json& rule : body) {
        ConfigRequirement r;
        bool good = rule.is_object() && rule.contains("key") && rule["key"].is_string();
        int expectations = 0;
        if (good) {
          r.key = rule["key"].get<std::string>();
          for (auto& [field, content] : rule.items()) {
            if (field == "key") continue;
            if (field == "is") r.is = content, ++expectations;
            else if (field == "one_of" && content.is_array() && !content.empty()) r.oneOf = content, ++expectations;
            else if (field == "same_as" && content.is_string()) r.sameAs = content.get<std::string>(), ++expectations;
            else if (field == "every") r.every = content, ++expectations;
            else if (field == "present" && content == true) r.present = true, ++expectations;
            else if (field == "when" && content.is_array() && !content.empty()) {
              for (const nlohmann::json& item : content)
                if (!readCondition(item, r.whenAny.emplace_back())) good = false;
            }
            else if (field == "why" && content.is_string()) r.why = content.get<std::string>();
            else if (field == "when_tensor" && content.is_string()) r.whenTensor = content.get<std::string>();
            else if (!(field == "when" && readCondition(content, r.when))) good = false;
          }
        }
        if (!good || expectations != 1)
          invalid("each `requires` rule is {\"key\": PATH, and one of \"is\": VALUE, \"one_of\": [VALUE, ...], \"same_as\": PATH (or \"PATH / PATH\", \"PATH * PATH\"), "
                  "\"every\": VALUE, \"present\": true; optionally \"when\": {PATH: VALUE, ...} (or a list of "
                  "them, any of which), \"when_tensor\": NAME and \"why\": TEXT}");
        else
          out.requirements.push_back(std::move(r));
      }
    } else if (section == "rope_types" && body.is_array()) {
      out.ropeTypes.emplace();
      for (const nlohmann::json& type : body) {
        if (type.is_string()) out.ropeTypes->push_back(type.get<std::string>());
        else invalid("`rope_types` must list rope type names (strings)");
      }
    } else {
      invalid("expected only the objects `constants` and `from_config` and the arrays `requires` and "
              "`rope_types`, found `" + section + "`");
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

bool checkConfigConstants(const ConfigConstants& constants, const Program& program,
                          const nlohmann::json& config, DiagnosticEmitter& diagnostics,
                          const std::function<bool(const std::string&)>& hasTensor) {
  if (!config.is_object()) return true;
  bool ok = true;
  const nlohmann::json* ropeParameters =
      config.contains("rope_parameters") ? &config["rope_parameters"] : nullptr;
  for (const ConfigConstant& entry : constants.constants) {
    const Module* m = nullptr;
    const ast::ConstItem* c = namedConstant(program, entry.constant, entry.key, &m, diagnostics);
    if (!c) {
      ok = false;
      continue;
    }
    std::optional<ConstantValue> value = evaluateConstant(*m, *c);
    if (!value) {
      diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, "constants.json",
                       "`" + entry.constant + "` is not a number the binder can evaluate")
          .secondary(c->name.span, "declared here");
      ok = false;
      continue;
    }
    // transformers < 5 writes the key at the top level; 5 moves the rotary
    // ones into `rope_parameters`. Either, or both, must agree.
    std::vector<std::pair<std::string, const nlohmann::json*>> found;
    if (config.contains(entry.key)) found.emplace_back(entry.key, &config[entry.key]);
    if (ropeParameters && ropeParameters->is_object() && ropeParameters->contains(entry.key))
      found.emplace_back("rope_parameters." + entry.key, &(*ropeParameters)[entry.key]);
    for (const auto& [key, raw] : found) {
      if (agrees(*raw, *value)) continue;
      diagnostics.emit(DiagnosticKind::ConfigConstantMismatch, Span{}, key, shown(*raw), describe(*c, *value),
                       entry.constant)
          .secondary(c->name.span, "declared here")
          .help("a checkpoint with another value needs a model whose constant says so");
      ok = false;
    }
    // Absent, transformers takes its class default, which may not be the
    // constant (Phi3Config's sliding_window is null: no window).
    if (found.empty() && entry.absent && !agrees(*entry.absent, *value)) {
      diagnostics.emit(DiagnosticKind::ConfigConstantMismatch, Span{}, entry.key,
                       "absent (transformers then takes " + shown(*entry.absent) + ")", describe(*c, *value),
                       entry.constant)
          .secondary(c->name.span, "declared here")
          .help("a checkpoint for this model states `" + entry.key + "`");
      ok = false;
    }
  }
  for (const ConfigRequirement& rule : constants.requirements) {
    if (!holds(config, rule.when)) continue;
    const ConfigCondition* held = &rule.when;
    if (!rule.whenAny.empty()) {
      auto any = std::find_if(rule.whenAny.begin(), rule.whenAny.end(),
                              [&](const ConfigCondition& c) { return holds(config, c); });
      if (any == rule.whenAny.end()) continue;
      held = &*any;
    }
    if (!rule.whenTensor.empty() && !(hasTensor && hasTensor(rule.whenTensor))) continue;
    auto conditionText = [&]() {
      std::string condition;
      for (const auto& [path, v] : *held)
        condition += (condition.empty() ? " (with `" : ", `") + path + "` " + (v.is_null() ? "absent" : shown(v));
      if (!rule.whenTensor.empty())
        condition += (condition.empty() ? " (" : ", ") + std::string("as the checkpoint has `") + rule.whenTensor + "`";
      return condition.empty() ? condition : condition + ")";
    };
    if (rule.present) {
      std::vector<std::string> places = placesOf(rule.key);
      bool given = std::any_of(places.begin(), places.end(), [&](const std::string& place) {
        const nlohmann::json* raw = lookup(config, place);
        return raw && !raw->is_null();
      });
      if (given) continue;
      auto d = diagnostics.emit(DiagnosticKind::ConfigRequirementBroken, Span{}, rule.key, "absent",
                                "a value" + conditionText());
      if (!rule.why.empty()) d.note(rule.why);
      d.help("give `" + rule.key + "` in config.json, as the model's own checkpoint does");
      ok = false;
      continue;
    }
    for (const std::string& place : placesOf(rule.key)) {
      const nlohmann::json* raw = lookup(config, place);
      if (!raw || raw->is_null()) continue;
      std::string expected;
      if (rule.is && !sameValue(*raw, *rule.is)) expected = shown(*rule.is);
      if (rule.oneOf && std::none_of(rule.oneOf->begin(), rule.oneOf->end(),
                                     [&](const nlohmann::json& v) { return sameValue(*raw, v); })) {
        expected = "one of ";
        for (const nlohmann::json& v : *rule.oneOf) expected += (&v == &rule.oneOf->front() ? "" : ", ") + shown(v);
      }
      if (!rule.sameAs.empty()) {
        std::optional<nlohmann::json> other = sameAsValue(config, rule.sameAs);
        if (other && !sameValue(*raw, *other))
          expected = "the value of `" + rule.sameAs + "`, " + shown(*other);
      }
      if (rule.every && !(raw->is_array() && std::all_of(raw->begin(), raw->end(), [&](const nlohmann::json& x) {
                            return sameValue(x, *rule.every);
                          })))
        expected = "a list of " + shown(*rule.every) + " only";
      if (expected.empty()) continue;
      auto d = diagnostics.emit(DiagnosticKind::ConfigRequirementBroken, Span{}, place, shown(*raw),
                                expected + conditionText());
      if (!rule.why.empty()) d.note(rule.why);
      d.help("a checkpoint with another value needs a model that computes it");
      ok = false;
    }
  }
  if (!constants.ropeTypes) return ok;
  const std::vector<std::string>& types = *constants.ropeTypes;
  std::string implemented;
  for (const std::string& type : types) implemented += (implemented.empty() ? "`" : ", `") + type + "`";
  auto unsupported = [&](const std::string& key, const nlohmann::json& raw) {
    diagnostics.emit(DiagnosticKind::ConfigRopeUnsupported, Span{}, key, shown(raw))
        .note("the model implements " + (implemented.empty() ? std::string("no rope type") : implemented) +
              " (no `rope_scaling`, or a null one, is `default`)");
    ok = false;
  };
  // `rope_scaling` (transformers < 5: its `type` or `rope_type`; null means
  // none, an object without a type is some scaling we cannot name) and
  // `rope_parameters` (5: its `rope_type`, "default" when missing).
  auto checkType = [&](const std::string& name, bool isParameters) {
    if (!config.contains(name)) return;
    const nlohmann::json& raw = config[name];
    if (raw.is_null() && !isParameters) return;
    if (!raw.is_object()) return unsupported(name, raw);
    for (const char* field : {"rope_type", "type"}) {
      if (!raw.contains(field)) continue;
      const nlohmann::json& type = raw[field];
      if (!type.is_string() || std::find(types.begin(), types.end(), type.get<std::string>()) == types.end())
        unsupported(name + "." + field, type);
      return;
    }
    if (!isParameters || std::find(types.begin(), types.end(), "default") == types.end()) unsupported(name, raw);
  };
  checkType("rope_scaling", false);
  checkType("rope_parameters", true);
  return ok;
}

namespace {

// The range of an integer dtype, as int64 (u64 is capped at INT64_MAX).
std::pair<int64_t, int64_t> integerRange(ast::ScalarType t) {
  switch (t) {
    case ast::ScalarType::I8: return {INT8_MIN, INT8_MAX};
    case ast::ScalarType::I16: return {INT16_MIN, INT16_MAX};
    case ast::ScalarType::I32: return {INT32_MIN, INT32_MAX};
    case ast::ScalarType::U8: return {0, UINT8_MAX};
    case ast::ScalarType::U16: return {0, UINT16_MAX};
    case ast::ScalarType::U32: return {0, UINT32_MAX};
    case ast::ScalarType::U64: return {0, INT64_MAX};
    default: return {INT64_MIN, INT64_MAX};
  }
}

// `raw` held in `dtype`: nullopt when it is not a value of that dtype (a
// string, a fraction for an integer, out of range, not finite in a float).
bool holdValue(const nlohmann::json& raw, BoundConstant& out) {
  if (out.dtype == ast::ScalarType::Bool) {
    if (!raw.is_boolean()) return false;
    out.integer = raw.get<bool>() ? 1 : 0;
    return true;
  }
  if (!raw.is_number()) return false;
  if (isFloatType(out.dtype)) {
    out.real = roundTo(raw.get<double>(), out.dtype);
    return std::isfinite(out.real);
  }
  auto [lo, hi] = integerRange(out.dtype);
  if (raw.is_number_unsigned()) {
    uint64_t v = raw.get<uint64_t>();
    if (v > uint64_t(hi)) return false;
    out.integer = int64_t(v);
    return true;
  }
  if (raw.is_number_integer()) {
    int64_t v = raw.get<int64_t>();
    if (v < lo || v > hi) return false;
    out.integer = v;
    return true;
  }
  double v = raw.get<double>();  // 4096.0 is an integer; 0.5 is not
  if (!(v >= double(lo) && v <= double(hi)) || v != std::floor(v)) return false;
  out.integer = int64_t(v);
  return true;
}

}  // namespace

std::string BoundConstant::text() const {
  if (dtype == ast::ScalarType::Bool) return integer ? "true" : "false";
  if (isFloatType(dtype)) return nlohmann::json(real).dump();
  return std::to_string(integer);
}

std::optional<std::vector<BoundConstant>> resolveConfigValues(const ConfigConstants& constants,
                                                             const Program& program,
                                                             const nlohmann::json& config,
                                                             DiagnosticEmitter& diagnostics) {
  std::vector<BoundConstant> out;
  bool ok = true;
  for (const ConfigValue& entry : constants.values) {
    const Module* m = nullptr;
    const ast::ConstItem* c = namedConstant(program, entry.constant, entry.key, &m, diagnostics);
    if (!c) {
      ok = false;
      continue;
    }
    auto* scalar = ast::as<ast::ScalarTypeNode>(c->type);
    std::optional<ConstantNumber> declared = scalar ? foldConstant(*m, *c) : std::nullopt;
    if (!declared) {
      diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, "constants.json",
                       "`" + entry.constant + "` takes its value from config.json, so it must be a typed scalar "
                       "constant with a constant default (`const NAME: f32 = 1.0`): an untyped one may size "
                       "tensors, which are fixed before a checkpoint is bound")
          .secondary(c->name.span, "declared here");
      ok = false;
      continue;
    }
    BoundConstant bound;
    bound.item = c;
    bound.constant = entry.constant;
    bound.dtype = scalar->scalar;
    if (isFloatType(bound.dtype)) bound.real = roundTo(declared->real, bound.dtype);
    else bound.integer = declared->integer;

    bool skipped = false;
    if (config.is_object())
      for (const ConfigCondition& condition : entry.unless) skipped = skipped || holds(config, condition);
    std::optional<BoundConstant> chosen;
    for (const std::string& place : skipped || !config.is_object() ? std::vector<std::string>{} : placesOf(entry.key)) {
      const nlohmann::json* raw = lookup(config, place);
      if (!raw || raw->is_null()) continue;
      BoundConstant candidate = bound;
      candidate.source = place;
      if (!holdValue(*raw, candidate)) {
        diagnostics.emit(DiagnosticKind::ConfigValueInvalid, Span{}, place, shown(*raw), entry.constant,
                         std::string(ast::scalarTypeName(bound.dtype)))
            .secondary(c->name.span, "declared here");
        ok = false;
        chosen.reset();
        break;
      }
      if (chosen && (chosen->real != candidate.real || chosen->integer != candidate.integer)) {
        diagnostics.emit(DiagnosticKind::ConfigValuesDisagree, Span{}, place, shown(*raw), chosen->source,
                         chosen->text(), entry.constant)
            .secondary(c->name.span, "declared here");
        ok = false;
        break;
      }
      if (!chosen) chosen = candidate;
    }
    out.push_back(chosen ? *chosen : bound);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::set<std::string> configKeysRead(const ConfigConstants& constants) {
  std::set<std::string> keys;
  auto add = [&](const std::string& path) { keys.insert(path.substr(0, path.find('.'))); };
  auto addCondition = [&](const ConfigCondition& condition) {
    for (const auto& [path, value] : condition) add(path);
  };
  for (const ConfigConstant& c : constants.constants) add(c.key);
  for (const ConfigValue& v : constants.values) {
    add(v.key);
    for (const ConfigCondition& c : v.unless) addCondition(c);
  }
  for (const ConfigRequirement& r : constants.requirements) {
    add(r.key);
    addCondition(r.when);
    for (const ConfigCondition& c : r.whenAny) addCondition(c);
    // `hidden_size / num_attention_heads`: its names.
    std::string name;
    for (char ch : r.sameAs + " ") {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.') {
        name += ch;
      } else {
        if (!name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]))) add(name);
        name.clear();
      }
    }
  }
  if (!keys.empty() || constants.ropeTypes) keys.insert("rope_parameters");
  if (constants.ropeTypes) keys.insert("rope_scaling");
  return keys;
}

}  // namespace linnet::bind
