// Lowering: the typed IR of a root block's entries, and of the root modules'
// module-level entries, to the `linnet` MLIR dialect (docs/dialect.md), one
// `func.func` per entry.
//
// Nothing is inferred again: every type comes from the checker's typed IR
// (check::CheckedFunction::exprTypes) and every call's generic arguments from
// its check::CallBinding. Root-block generics are bound (they fix the weights'
// shapes) and become static dimensions; an entry's own Dim generics stay
// symbolic and become `index` arguments of its function, so an entry is
// compiled once for every shape. Calls of fn/op/methods are instantiated in
// place (their generics substituted down to the entry's); a construct the
// lowering does not handle yet is E2190 naming it.
//
// An entry function's arguments are, in order (docs/abi.md): its Dim generics
// (`index`), every parameter tensor of the model, every state tensor, then the
// entry's own parameters (scalars as rank-0 tensors). Its results are tensors
// (a tuple's parts in order).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bind/ConfigConstants.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/manifest/ProgramBlocks.h"
#include "compiler/modules/Program.h"
#include "compiler/source/SourceManager.h"

#include <mlir/IR/BuiltinOps.h>
#include <mlir/IR/MLIRContext.h>
#include <mlir/IR/OwningOpRef.h>

namespace linnet::lower {

// One tensor the entries read: a parameter (bound from the checkpoint) or a
// state buffer. Paths are concrete (`layers.3.attention.qkv.weight`).
struct TensorSlot {
  std::string path;
  ast::ScalarType dtype;
  std::vector<int64_t> shape;
  std::string checkpointName;  // parameters bound from a checkpoint; "" otherwise
  // The checkpoint tensor's dtype where the build converts it (`--bind T=f32`
  // on a bf16 checkpoint): the manifest's `stored`.
  std::optional<ast::ScalarType> stored;
};

// An argument or result of an entry: dims spelled in the entry's generics
// (docs/abi.md: integers, names of `dims`, expressions).
struct SlotType {
  std::string name;
  ast::ScalarType dtype;
  std::vector<std::string> shape;
  // An enum value (an i32 scalar, its variant's index): the enum's name and
  // its variants in order, for the manifest (docs/abi.md "Enums").
  const ast::EnumItem* enumItem = nullptr;
  // A scalar parameter's default (`k: f32 = 2.0`) when it is a number or a
  // bool the compiler folds: the value the runtime passes when the call
  // gives none (docs/abi.md "args[].default").
  std::optional<double> defaultValue;
};

struct LoweredEntry {
  std::string name;
  // The function's name, exported as `linnet_entry_<symbol>`: the entry's
  // name, or for one of several variants that name and what fixes it
  // (`scale__S2`, `loss__Tf32`).
  std::string symbol;
  std::vector<std::string> dims;
  // A dim generic's default (`<Steps: Dim = 16>`) as the manifest spells it,
  // in the model's generics (bound: numbers) and the entry's earlier dims.
  std::map<std::string, std::string> defaults;
  std::vector<SlotType> args;
  std::vector<SlotType> results;
  bool readsState = false;
  bool writesState = false;
  // The parameters this variant computes from their defaults: a call that
  // leaves one out runs it (EntryVariant::defaulted).
  std::vector<std::string> defaulted;
  // Dims the function takes but its code never reads: the manifest gives
  // them a default of 0 where nothing else in it names them.
  std::vector<std::string> unreadDims;
};

struct LoweredProgram {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<TensorSlot> parameters;
  std::vector<TensorSlot> state;
  std::vector<LoweredEntry> entries;
};

// One compiled instance of an entry (docs/lowering.md "Entry variants"): the
// lengths of its pack generics and the dtypes of the type generics that the
// build left to the arguments, and which optional parameters it takes.
struct EntryVariant {
  std::map<const ast::GenericParam*, int64_t> packLengths;
  std::map<const ast::GenericParam*, ast::ScalarType> dtypes;
  // The optionals this variant leaves out (`none`), by argument path: a
  // parameter's name (`p`), or a field or part inside one (`s.b`, `p.1`).
  std::set<std::string> absent;
  // The parameters this variant leaves out and computes from their defaults,
  // by name: one whose default the manifest cannot carry (`k: i64 = N * 2`,
  // a tensor's), an optional whose default is not `none` (also in `absent`:
  // its variant without it takes an explicit `none`).
  std::set<std::string> defaulted;
  std::string symbol;  // LoweredEntry::symbol
};

struct LowerInputs {
  const SourceManager* sources = nullptr;  // for locations
  const Program* program = nullptr;
  const check::CheckedProgram* checked = nullptr;
  manifest::BlockRef root;           // `block` null: module-level entries only
  // The entries a build compiles (manifest::programEntries: the root
  // block's, then the module-level ones); empty: the root block's.
  std::vector<manifest::EntryRef> compiled;
  bind::GenericBindings generics;    // every generic of the root block, bound
  std::vector<TensorSlot> parameters;  // every parameter tensor, as bound (manifest order)
  std::vector<TensorSlot> state;       // every state tensor, sized
  std::vector<std::string> entries;    // the entries to lower; empty: all
  // The entries' own type generics, bound at build time (`--bind T=f32`);
  // one without a value takes its default.
  bind::EntryTypeBindings entryTypes;
  // The entries' pack generics fixed at build time (`--bind S=2`: two axes).
  bind::EntryPackBindings entryPacks;
  // Constants valued from config.json at binding (constants.json
  // `from_config`); every other constant is its declaration.
  std::vector<bind::BoundConstant> constants;
};

// Lowers the entries. Reports E2190 (naming the construct) for what cannot
// be lowered yet and returns nullopt after reporting.
std::optional<LoweredProgram> lowerProgram(mlir::MLIRContext& context, const LowerInputs& inputs,
                                           DiagnosticEmitter& diagnostics);

}  // namespace linnet::lower
