// ConfigConstants: the numbers of a checkpoint's config.json that a model
// does not take as generics but fixes in its source (phi3: rope_theta,
// rms_norm_eps, sliding_window as `pub const`s of phi3.config), and the
// rotary-embedding variants it implements. The package says which config
// key each constant stands for in `constants.json`:
//
//   {"constants": {"<config.json key>": "<module>::<CONST>", ...},
//    "from_config": {"<config.json key path>": "<module>::<CONST>", ...},
//    "requires": [{"key": "<path>", "is": <value>, ...}, ...],
//    "rope_types": ["default", ...]}
//
// Every member is optional; the file is optional. Binding compares each key
// with its constant, in config.json's top level and in transformers 5's
// `rope_parameters` object, and refuses (E5109) a checkpoint that disagrees
// or asks for a `rope_scaling`/`rope_parameters.rope_type` not listed: such a
// checkpoint would otherwise bind and run with the wrong numbers.
//
// `from_config` goes the other way, for a package that serves a family of
// checkpoints (rope_theta 1e4 in one, 1e6 in the next): the named constant
// takes config.json's value when the checkpoint is bound, and keeps its
// declared value (its default) when the key is absent or null. Only typed
// scalar constants (`const THETA: f32 = 1e4`) qualify: their values are data,
// never part of a type, so replacing one changes no checked shape. A key is a
// dotted path (`rope_scaling.factor`); a top-level key is also looked up in
// transformers 5's `rope_parameters`, and so is a `rope_scaling.` one. An
// entry may instead be `{"constant": "...", "unless": {"<key>": <value>}}`:
// when config.json holds that value at that key, the default holds (Qwen2
// writes a `sliding_window` it does not use when `use_sliding_window` is
// false). Which keys matter is the package's knowledge; nothing here names a
// model.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/modules/Program.h"

namespace linnet::bind {

struct ConfigConstant {
  std::string key;       // config.json key: "sliding_window"
  std::string constant;  // as written: "phi3.config::WINDOW"
  // What transformers' config class takes when the key is absent, where that
  // is not the constant (Phi3Config's sliding_window: null): compared as if
  // written. Unset: an absent key is not checked.
  std::optional<nlohmann::json> absent;
};

// key path -> value, all of which must hold; a null value matches an absent
// key too.
using ConfigCondition = std::vector<std::pair<std::string, nlohmann::json>>;

// A `from_config` entry.
struct ConfigValue {
  std::string key;       // dotted config.json path: "rope_scaling.factor"
  std::string constant;  // "llama.config::ROPE_FACTOR"
  std::vector<ConfigCondition> unless;  // any one holding: the default holds
};

// A `requires` rule: what config.json must say for the model to compute what
// transformers does, for keys that are no constant of the program
// (`hidden_act` is "silu": the MLP applies SiLU). An absent or null key
// passes (transformers' default is meant to be what the model does).
struct ConfigRequirement {
  std::string key;                      // dotted path, also looked up in `rope_parameters`
  std::optional<nlohmann::json> is;     // the value, numbers compared as numbers
  std::optional<nlohmann::json> oneOf;  // or: an array of values, any of which will do (spellings of one thing)
  std::string sameAs;                   // or: the value of this other key, when present
  std::optional<nlohmann::json> every;  // or: an array whose every element is this
  bool present = false;                 // or: the key must be given (not absent, not null)
  ConfigCondition when;                 // checked only when all of these hold
  std::vector<ConfigCondition> whenAny; // `when` as a list: when one of these holds
  std::string whenTensor;               // and, if set, when the checkpoint has this tensor
  std::string why;                      // for the note: what the model computes
};

struct ConfigConstants {
  std::vector<ConfigConstant> constants;
  std::vector<ConfigValue> values;
  std::vector<ConfigRequirement> requirements;
  // The rope types the model implements; unset: not checked. An absent or
  // null `rope_scaling` is the type "default".
  std::optional<std::vector<std::string>> ropeTypes;
};

// The top-level config.json keys `constants` reads (a dotted path's first
// part; `rope_parameters`, where every key is also looked up, and
// `rope_scaling` with the rope types; the keys a `same_as` expression names).
std::set<std::string> configKeysRead(const ConfigConstants& constants);

// Reads `constants.json` of `packageDir` (absent: no constants). nullopt
// after reporting a malformed file (E5102).
std::optional<ConfigConstants> readConfigConstants(const std::string& packageDir,
                                                   DiagnosticEmitter& diagnostics);

// Compares `config` (a checkpoint's config.json; anything but an object is
// skipped) with the constants of `program`. A constant that does not exist or
// cannot be evaluated is the package's mistake (E5102); a disagreement is
// E5109. Reports every problem; returns whether there were none. A key absent
// from config.json is not checked: Hugging Face then uses its own default,
// which the package's constant is meant to be.
// `hasTensor` answers `when_tensor` conditions (null: none holds).
bool checkConfigConstants(const ConfigConstants& constants, const Program& program,
                          const nlohmann::json& config, DiagnosticEmitter& diagnostics,
                          const std::function<bool(const std::string&)>& hasTensor = nullptr);

// A `from_config` constant's value for one checkpoint.
struct BoundConstant {
  const ast::ConstItem* item = nullptr;
  std::string constant;  // "llama.config::ROPE_THETA"
  std::string source;    // the config.json key it came from; "" when the default holds
  ast::ScalarType dtype = ast::ScalarType::F32;
  double real = 0;       // float constants, rounded to `dtype`
  int64_t integer = 0;   // integer and bool constants
  std::string text() const;  // the value as the manifest and messages spell it
};

// The `from_config` constants' values for `config` (anything but an object:
// every default). A constant that does not exist or is not a typed scalar is
// the package's mistake (E5102); a value its dtype cannot hold, or two places
// of config.json that disagree, is E5109. nullopt after reporting.
std::optional<std::vector<BoundConstant>> resolveConfigValues(const ConfigConstants& constants,
                                                             const Program& program,
                                                             const nlohmann::json& config,
                                                             DiagnosticEmitter& diagnostics);

}  // namespace linnet::bind
