// ManifestWriter: the manifest of a `.lnpkg` (docs/abi.md) for a lowered
// program: its target, the bound root generics, the parameter and state
// slots, and every entry's dims, arguments, results, value checks and dim requirements.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "compiler/artifact/EntryRequirements.h"
#include "compiler/bind/EntryChecks.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/lower/Lowering.h"

namespace linnet::artifact {

struct ManifestSource {
  std::string package;  // the package or file built
  std::string block;    // the root block
  std::string hash;     // of sources, binding and target (the build cache's key)
  nlohmann::json config;  // bind::BoundModel::config (null: built without a checkpoint)
};

struct ManifestTarget {
  std::string triple, cpu, features;
};

// `checks` (the package's checks.json, validated by bind::readEntryChecks)
// become each built entry's `checks`; rules of entries not built are dropped.
// `requirements` (entryRequirements()) become each built entry's `requires`.
std::string manifestJson(const lower::LoweredProgram& program, const bind::GenericBindings& generics,
                         const bind::EntryChecks& checks, const EntryRequirements& requirements,
                         const ManifestSource& source, const ManifestTarget& target);

}  // namespace linnet::artifact
