// RootBinding: a package's root block (its one block with entries) and the
// values of that block's generics from `--checkpoint DIR` and `--bind
// NAME=VALUE`. Both views of `linnet inspect PACKAGE` that show bound values
// get them here, so they bind, and fail, identically: the model page
// (ModelPage.cpp) and the typed graph (`--graph`, whose driver hands the
// values to compiler/graph). The binding itself is compiler/bind's
// (docs/binding.md); this only strings its steps together.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/bind/CheckpointBinder.h"
#include "compiler/bind/EntryChecks.h"
#include "compiler/bind/GenericValues.h"
#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/manifest/ParameterManifest.h"
#include "compiler/manifest/ProgramBlocks.h"
#include "compiler/modules/Program.h"
#include "runtime/checkpoint/Checkpoint.h"

namespace linnet::inspect {

struct RootBinding {
  // Set when --bind or --checkpoint was given: every generic the values fix
  // (with a checkpoint, every generic of the root block).
  std::optional<bind::GenericBindings> generics;
  // Set with --checkpoint: the bound tensors and state.
  std::optional<bind::BoundModel> model;
  // The package's rules on entry argument values (checks.json), validated
  // against the root block; empty without the file. `build` writes them into
  // the manifest.
  bind::EntryChecks checks;
  // What `model` points into, kept alive with it.
  std::unique_ptr<rt::Checkpoint> checkpoint;
  std::unique_ptr<ast::Arena> arena;
  std::unique_ptr<manifest::BlockManifest> manifest;
};

// The one block of the root modules with entries, or the one `rootName`
// names (`--root Model` or `--root phi3::Model`) when there are several. A
// program with no such block but module-level entries gets a BlockRef whose
// `block` is null (its entries are manifest::programEntries'). Reports a
// program with no entry at all, two blocks with entries and no `rootName`, or
// a `rootName` that names no block with entries, and returns nullopt.
std::optional<manifest::BlockRef> findRootBlock(const Program& program, DiagnosticEmitter& diagnostics,
                                                const std::string& rootName = "");

// Reports two of `entries` with one name (an artifact names its entries) and
// returns false.
bool checkEntryNames(const std::vector<manifest::EntryRef>& entries, DiagnosticEmitter& diagnostics);

// Binds `root`'s generics. `binds` (NAME=VALUE) are checked against the
// generics' kinds (bind::parseBindOverrides). With `checkpoint` set, the
// checkpoint is opened and bound (bind::bindCheckpoint: --bind values win,
// then tensors, config.json and generics.json, then defaults; every tensor
// checked, the `where` clauses evaluated); without, the `where` clauses are
// evaluated on the --bind values alone. With neither, nothing is bound,
// unless `bindDefaults` (a build, which needs every root generic's value):
// then the declared defaults are, as with binds.
// The package's checks.json is read and validated in every case.
//
// Binding evaluates the checker's types and `where` clauses, so `checked`
// (the program checked without errors) must be given whenever `binds` or
// `checkpoint` is; with neither it may be null.
//
// When `unclaimed` is given, a bind whose name (the text before `=`) is no
// generic of the root block is moved there instead of being reported: the
// graph view binds the drawn entry's own generics (`B`, `S`) itself.
//
// Returns nullopt after reporting every problem.
std::optional<RootBinding> bindRootGenerics(const Program& program, const check::CheckedProgram* checked,
                                            const manifest::BlockRef& root,
                                            const std::vector<std::string>& binds,
                                            const std::string& checkpoint,
                                            DiagnosticEmitter& diagnostics,
                                            std::vector<std::string>* unclaimed = nullptr,
                                            bool bindDefaults = false);

}  // namespace linnet::inspect
