// The manifest of an artifact (docs/abi.md), parsed into plain structs.
//
// parseManifest() validates everything before returning: the format name
// and version, every field's type, that names are identifiers and unique
// (entries, dims, arguments, generics; parameter and state paths), dtypes
// (rt::DType names), concrete shapes (non-negative, rank <= kMaxRank, byte
// sizes without overflow), and that every dim expression of an entry (its
// shapes, `checks` and `requires`) parses and names only that entry's dims or
// the manifest's integer generics.
// Unknown keys are errors too, so a field the runtime does not understand is
// never silently ignored. After a successful parse, nothing in a Manifest
// needs checking again.
//
// A Manifest is a plain value (copyable, no pointers into the JSON text).
#pragma once

#include "runtime/artifact/DimExpr.h"
#include "runtime/state/StateBuffers.h"
#include "runtime/support/DType.h"
#include "runtime/support/Status.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace linnet::rt {

inline constexpr std::string_view kManifestFormat = "linnet-artifact";
inline constexpr std::int64_t kManifestVersion = 1;

struct TargetSpec {
  std::string kind;     // "cpu"
  std::string triple;   // e.g. "x86_64-unknown-linux-gnu"
  std::string cpu;      // may be empty
  std::string features; // comma-separated "+name"/"-name"; may be empty
};

struct SourceSpec {
  std::string package, block, hash; // informational; may be empty
};

// The config.json keys the build's binding read (docs/abi.md, `config`): a
// checkpoint whose config.json holds another value at one of them, or has
// one of `absent`, is not the model this artifact was built for.
struct ConfigRecord {
  std::vector<std::pair<std::string, nlohmann::json>> values;
  std::vector<std::string> absent;
};

// A root generic as bound at build time: a dim (integer) or a dtype.
struct GenericValue {
  std::string name;
  std::optional<std::int64_t> dim; // set for a dim generic
  std::optional<DType> dtype;      // set for a dtype generic
};

struct ParameterSpec {
  std::string path;                  // the model's name for it
  std::optional<std::string> tensor; // the checkpoint's name; absent without a checkpoint
  DType dtype;
  std::vector<std::int64_t> shape;
  // The checkpoint's dtype for it when the build converted it (`stored`):
  // the only other dtype the runtime converts from at load.
  std::optional<DType> stored;
};

// An enum value, passed as its variant's index (an i32 scalar): the enum's
// name and its variants in order (the manifest's `enum`, docs/abi.md "Enums").
struct EnumSpec {
  std::string name;
  std::vector<std::string> variants;
  // The index of `text`, a variant's name, bare or after the enum's name
  // (`Negate`, `Mode.Negate`); nullopt for any other text.
  std::optional<std::int32_t> indexOf(std::string_view text) const;
};

struct ArgSpec {
  std::string name;
  DType dtype;
  std::vector<DimExpr> shape; // one per axis; empty for a scalar
  std::optional<EnumSpec> enumType;
  std::optional<double> defaultValue; // a scalar's, passed when a call gives none
};

struct ResultSpec {
  DType dtype;
  std::vector<DimExpr> shape;
  std::optional<EnumSpec> enumType;
};

enum class StateAccess : std::uint8_t { None, Read, Write };
std::string_view stateAccessName(StateAccess access);

// A rule on an argument's values, checked before the entry runs (the
// manifest's `entries[].checks`, an extension documented in docs/abi.md).
enum class ValueCheckKind : std::uint8_t {
  Range,    // every element e satisfies min <= e < max (either bound optional)
  Distinct, // no two elements are equal
};
struct ValueCheck {
  ValueCheckKind kind;
  std::string arg;            // the argument's name
  std::size_t argIndex;       // its index in EntrySpec::args
  std::optional<DimExpr> min; // inclusive
  std::optional<DimExpr> max; // exclusive
  // A distinct check's: distinct per value of the argument `per` (at
  // `perIndex`, with as many elements), leaving out elements equal to `except`.
  std::optional<std::string> per;
  std::size_t perIndex = 0;
  std::optional<DimExpr> except;
};

// A relation between dim expressions that the entry's compiled code assumes
// (the manifest's `entries[].requires`: its `where` clauses on its dims, the
// constant indices the compiler could not prove in range), checked once the
// call's dims are bound and before anything runs.
enum class DimRelation : std::uint8_t { Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual };
std::string_view dimRelationSpelling(DimRelation relation); // "==", "!=", "<", ...
std::optional<DimRelation> dimRelationFromSpelling(std::string_view spelling);
bool dimRelationHolds(DimRelation relation, std::int64_t lhs, std::int64_t rhs);

struct DimRequirement {
  DimExpr lhs;
  DimRelation relation = DimRelation::Equal;
  DimExpr rhs;
  std::string why; // where it comes from, for messages ("`where` clause"); may be empty
};

struct EntrySpec {
  std::string name;
  std::string symbol;
  std::vector<std::string> dims;
  // A dim's default (`<Steps: Dim = 16>`), in the entry's earlier dims and
  // the model's generics: its value when no argument fixes it and no bind
  // gives one.
  std::map<std::string, DimExpr> defaults;
  std::vector<ArgSpec> args;
  std::vector<ResultSpec> results;
  StateAccess state = StateAccess::None;
  std::vector<ValueCheck> checks;
  std::vector<DimRequirement> requirements; // `requires`
  // Parameters this variant computes from their defaults: a call that leaves
  // one out (not `none`) runs a variant listing it, and only such a one.
  std::vector<std::string> defaulted;

  const ArgSpec *findArg(std::string_view argName) const;
  bool computesDefault(std::string_view argName) const; // listed in `defaulted`
};

// Whether `variant`, one of `variants`, may run a call that leaves out (not
// `none`) exactly the arguments `leftOut` says: for every argument some
// variant computes from its default, a call leaving it out runs a variant
// that computes it, and only such a call does (docs/abi.md `defaulted`).
bool fitsLeftOutDefaults(std::span<const EntrySpec *const> variants, const EntrySpec &variant,
                         const std::function<bool(const std::string &)> &leftOut);

struct Manifest {
  // The compiler builds no tensor of more axes (numpy 2's bound as well).
  static constexpr std::size_t kMaxRank = 64;
  static constexpr std::size_t kMaxListLength = 1 << 20; // parameters, entries, ... each
  static constexpr std::size_t kMaxWhyLength = 1024;      // a requirement's `why`

  std::int64_t version = kManifestVersion;
  TargetSpec target;
  SourceSpec source;
  std::optional<ConfigRecord> config; // built against a checkpoint with a config.json
  std::vector<GenericValue> generics;
  std::vector<ParameterSpec> parameters;
  std::vector<StateSpec> state;
  std::vector<EntrySpec> entries;

  // The first entry named `name` (an entry's variants share it).
  const EntrySpec *findEntry(std::string_view name) const;
  // Every variant of entry `name` in manifest order: one per length of its
  // shape packs and dtype of its type generics that the build left to the
  // arguments (docs/abi.md); one for most entries, none for an unknown name.
  std::vector<const EntrySpec *> findVariants(std::string_view name) const;
  const GenericValue *findGeneric(std::string_view name) const;
  // The integer generics, as the environment dim expressions start from.
  DimEnv genericDims() const;
};

// Parses and validates `json`. `sourceName` (e.g. the artifact's path)
// prefixes every message, which also names the field: "x.lnpkg: manifest:
// entries[0].args[1].shape[0]: ...".
Expected<Manifest> parseManifest(std::string_view json, std::string_view sourceName);

} // namespace linnet::rt
