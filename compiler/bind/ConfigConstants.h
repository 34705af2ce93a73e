// ConfigConstants: the numbers of a checkpoint's config.json that a model
// does not take as generics but fixes in its source (phi3: rope_theta,
// rms_norm_eps, sliding_window as `pub const`s of phi3.config), and the
// rotary-embedding variants it implements. The package says which config
// key each constant stands for in `constants.json`:
//
//   {"constants": {"<config.json key>": "<module>::<CONST>", ...},
//    "rope_types": ["default", ...]}
//
// Both members are optional; the file is optional. Binding compares each key
// with its constant, in config.json's top level and in transformers 5's
// `rope_parameters` object, and refuses (E5109) a checkpoint that disagrees
// or asks for a `rope_scaling`/`rope_parameters.rope_type` not listed: such a
// checkpoint would otherwise bind and run with the wrong numbers. Which keys
// matter is the package's knowledge; nothing here names a model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/modules/Program.h"

namespace linnet::bind {

struct ConfigConstant {
  std::string key;       // config.json key: "sliding_window"
  std::string constant;  // as written: "phi3.config::WINDOW"
};

struct ConfigConstants {
  std::vector<ConfigConstant> constants;
  // The rope types the model implements; unset: not checked. An absent or
  // null `rope_scaling` is the type "default".
  std::optional<std::vector<std::string>> ropeTypes;
};

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
bool checkConfigConstants(const ConfigConstants& constants, const Program& program,
                          const nlohmann::json& config, DiagnosticEmitter& diagnostics);

}  // namespace linnet::bind
