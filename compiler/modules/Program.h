// Program: every module of one compilation, the packages they belong to, and
// (after resolveProgram) what each name in them refers to. Spec chapter 2
// and §11.1; docs/modules.md explains the rules and our decisions.
//
//   SourceManager sources;
//   DiagnosticEmitter diagnostics;
//   auto program = loadProgram(sources, diagnostics, {"models/phi3"},
//                              LoadOptions{findStdDir(argv[0])});
//   if (!diagnostics.hasErrors()) resolveProgram(*program, diagnostics);
//
// loadProgram reads, lexes and parses the named files and everything they
// import (each file once), reads the `linnet.toml` of every package involved
// and rejects unknown modules (E1202), bad manifests (E5001) and import
// cycles (E1206). resolveProgram builds each module's scope and resolves every
// name in it (E1201 E1203 E1204 E1205 E1207 E1208, W1001). The checker reads
// the result through Module::symbolOf. A Program owns its ASTs; the
// SourceManager must outlive it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/parse/AST.h"
#include "compiler/source/SourceManager.h"

namespace linnet {

struct LoadOptions {
  std::string stdDir;  // the standard library's root; empty: `std` imports fail (E1202)
};

// The standard library directory: $LINNET_STD if set, else a `stdlib` or
// `share/linnet/stdlib` directory in the executable's directory or up to four
// levels above it (build/bin/linnet finds <repo>/stdlib); "" if none.
std::string findStdDir(std::string_view executablePath);
// The same search with the environment value passed in (tests).
std::string findStdDir(std::string_view executablePath, const char* linnetStdEnv);

struct Dependency {
  std::string key;   // first segment of the imports from that package
  std::string dir;   // the dependency's root directory (holds its linnet.toml)
  Span span;         // the key in the manifest
};

// A directory with a `linnet.toml`.
struct Package {
  std::string name;        // as the manifest writes it ("my-model")
  std::string moduleName;  // its root module ("my_model"); "" if the name is invalid
  std::string version;
  std::string language;
  std::string rootDir;     // the directory holding linnet.toml, as reached
  std::string manifestPath;
  FileId manifestFile = kNoFile;
  bool valid = false;      // the manifest had no problems
  std::vector<Dependency> dependencies;

  const Dependency* findDependency(std::string_view key) const;
};

class Module;

// What a name refers to, as resolveProgram found it.
enum class SymbolKind : uint8_t {
  Item,           // a top-level item of `module`, or an item nested in a block
  Member,         // a block's param/buffer/state/sub member (`item` is the MemberItem)
  Module,         // a module bound by `use a.b` (`module` is it)
  Generic,        // `generic`
  Param,          // `param`
  Local,          // let/var/pattern/for/static-for/match binding (a bare match-arm name
                  // is a Local unless it is a variant of an enum in module scope)
  IndexVariable,  // an index of a comprehension or reduction (only inside index notation)
  GradName,       // `y` or `dy` of `grad(y, dy)`
  KernelResult,   // a kernel's named result
  KernelBuiltin,  // program_id load store atomic_add atomic_max atomic_min
  EnumVariant,    // `item` is the EnumItem, `variant` the variant's index
  Prelude,        // a prelude name
  Unresolved,     // refers to something that failed to load or import; not reported again
};

struct Symbol {
  SymbolKind kind = SymbolKind::Unresolved;
  std::string_view name;
  Span declSpan;                          // the declaring identifier, if any
  const Module* module = nullptr;         // Item, Member, Module, EnumVariant: where declared
  const ast::Item* item = nullptr;        // Item, Member, EnumVariant (the enum)
  const ast::GenericParam* generic = nullptr;
  const ast::Param* param = nullptr;
  uint32_t variant = 0;
};

class Module {
 public:
  std::string name;                       // from the `module` line ("" if it is missing)
  std::string path;                       // the file, as loaded (for diagnostics)
  FileId file = kNoFile;
  std::unique_ptr<ast::SourceModule> ast;
  const Package* package = nullptr;       // null for std and for files outside packages
  bool isStd = false;
  bool hasParseErrors = false;            // lex/parse reported errors for this file
  // Parallel to ast->uses: the module each `use` names, null if not found.
  std::vector<const Module*> useTargets;

  // A top-level item by name (the first, if it is defined twice).
  const ast::Item* findItem(std::string_view itemName) const;
  // What an identifier of this module's AST refers to (a NameExpr's name, a
  // NamedType's path segments, a `mod.item` member, a bare enum variant in a
  // match arm, an assignment target, a `*pack`, a kernel binding, an imported
  // name); null if it was not resolved (not a reference, or an error).
  const Symbol* symbolOf(const ast::Ident& ident) const;

  // Filled by the loader and resolveProgram.
  std::unordered_map<std::string_view, const ast::Item*> itemIndex;
  std::unordered_map<const ast::Ident*, Symbol> symbols;
};

// A name a type refers to: the module that declares it and the item.
struct ResolvedItem {
  const Module* module = nullptr;
  const ast::Item* item = nullptr;
};

// What `type` (`Linear`, `attention.Attention`) names as seen from `from`'s
// module scope (its own top-level items and its imports); empty if nothing.
ResolvedItem resolveTypeName(const Module& from, const ast::NamedTypeNode& type);

class Program {
 public:
  // The first loaded module whose `module` line is `name` (root modules first).
  const Module* findModule(std::string_view name) const;
  // The modules of the files named by the paths, in order.
  std::vector<const Module*> rootModules() const;
  // The package of the first path (the nearest linnet.toml at or above it).
  const Package* rootPackage() const;
  // Every module, root modules first, then imported ones in load order.
  const std::vector<std::unique_ptr<Module>>& modules() const { return modules_; }
  const std::vector<std::unique_ptr<Package>>& packages() const { return packages_; }

 private:
  friend class ProgramBuilder;
  std::vector<std::unique_ptr<Module>> modules_;
  std::vector<std::unique_ptr<Package>> packages_;
  std::vector<const Module*> roots_;
  const Package* rootPackage_ = nullptr;
};

// Loads the files named by `paths` (files, or directories searched
// recursively for `*.linnet`, skipping dot-directories and `build`) and all
// they import. Never returns null.
std::unique_ptr<Program> loadProgram(SourceManager& sources, DiagnosticEmitter& diagnostics,
                                     const std::vector<std::string>& paths,
                                     const LoadOptions& options);

// Resolves every name of every module. Warnings (W1001) are emitted only if
// the emitter holds no errors afterwards; a later stage that finds errors
// should drop them (DiagnosticEmitter::dropWarnings).
void resolveProgram(Program& program, DiagnosticEmitter& diagnostics);

}  // namespace linnet
