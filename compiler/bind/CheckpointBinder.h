// CheckpointBinder: binds a Hugging Face checkpoint to a model's root block
// (spec chapter 10). Starting from the block's parameter manifest (paths,
// array levels, optionality, the types as written for messages) and the
// checker's type of each member (what is evaluated: dims are DimExprs in the
// root block's generics) it
//   1. maps each parameter path to a tensor name through the package's
//      `bindings.json` (a flat object, `{i}` placeholders for array indices;
//      a path with no entry is looked up under its own name),
//   2. solves the root generics: `--bind` overrides first, then array lengths
//      and tensor dimensions from the bound tensors' shapes (a checked
//      dimension linear in one unbound generic), then the
//      package's `generics.json` (`config`: generic -> config.json key,
//      `defaults`: generic -> value), and the dtype generic from the tensors,
//   3. compares config.json with the constants the package's
//      `constants.json` names (ConfigConstants.h) and checks the root
//      block's `where` clauses on the bound values,
//   4. checks every tensor: present (unless optional), rank, each dimension,
//      dtype; and that the checkpoint holds no tensor bound to nothing,
//   5. sizes every `state` member for the bound generics.
// All problems are reported, not just the first; nothing is half-bound: the
// result exists only when there are none. Model knowledge (tensor names,
// config keys) lives in the model package, never here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bind/ConfigConstants.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/manifest/ParameterManifest.h"
#include "compiler/modules/Program.h"
#include "runtime/checkpoint/Checkpoint.h"

namespace linnet::bind {

// Arrays longer than this, or more concrete paths than this in all, are not a
// model but a mistake (or a hostile --bind): refused before they are
// enumerated, with a checkpoint (here) or without one (lower/ collectState).
inline constexpr int64_t kMaxArrayLength = int64_t{1} << 16;
inline constexpr int64_t kMaxConcretePaths = int64_t{1} << 20;

struct BoundTensor {
  std::string path;                    // concrete: `layers.3.attention.qkv.weight`
  std::string tensorName;              // in the checkpoint
  const rt::TensorView* tensor;        // null for an absent optional parameter
  std::vector<int64_t> shape;          // expected, concrete
  ast::ScalarType dtype;               // the model's dtype (may differ from the file's when overridden)
  const manifest::ManifestEntry* entry;
};

struct BoundState {
  std::string path;
  std::vector<int64_t> shape;
  ast::ScalarType dtype;
  uint64_t bytes;
  const manifest::ManifestEntry* entry;
};

struct BoundModel {
  GenericBindings generics;
  std::vector<BoundTensor> tensors;
  std::vector<BoundState> state;
  std::vector<BoundConstant> constants;  // constants.json `from_config`, valued for this checkpoint
  // The config.json keys the binding read (generics.json's, constants.json's)
  // with their values here, `{"values": {KEY: VALUE}, "absent": [KEY]}`: the
  // manifest's `config`, which the runtime compares with the config.json of
  // the checkpoint it is given (docs/abi.md).
  nlohmann::json config;
  uint64_t weightBytes = 0;  // of the model's dtype, as the runtime holds them
  uint64_t stateBytes = 0;
};

struct BindInputs {
  const manifest::BlockManifest* manifest = nullptr;
  const check::CheckedProgram* checked = nullptr;  // the checked program the manifest's block is in
  std::string packageDir;           // holds bindings.json, generics.json, constants.json
  const Program* program = nullptr; // whose constants constants.json names; null: not compared
  const rt::Checkpoint* checkpoint = nullptr;
  GenericBindings overrides;        // --bind values, already checked against kinds
};

std::optional<BoundModel> bindCheckpoint(const BindInputs& inputs, DiagnosticEmitter& diagnostics);

// Size in bytes of one element of `type` (bool is one byte).
uint64_t scalarSize(ast::ScalarType type);

}  // namespace linnet::bind
