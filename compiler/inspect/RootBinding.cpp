// The root block and its generic values from --checkpoint and --bind (see
// RootBinding.h).
#include "compiler/inspect/RootBinding.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "compiler/bind/BindingFiles.h"

namespace linnet::inspect {

using manifest::BlockRef;

namespace {

// Whether `outer` reaches `inner` through its `sub` members (at any depth).
bool holdsBlock(const BlockRef& outer, const ast::BlockItem* inner) {
  std::vector<BlockRef> seen{outer};
  for (size_t i = 0; i < seen.size(); ++i)
    for (const ast::Item* item : seen[i].block->body) {
      auto* member = ast::as<ast::MemberItem>(item);
      if (!member || member->member != ast::MemberKind::Sub) continue;
      BlockRef child = manifest::subBlock(*seen[i].module, member->type);
      if (!child.block) continue;
      if (child.block == inner) return true;
      if (std::none_of(seen.begin(), seen.end(), [&](const BlockRef& b) { return b.block == child.block; }))
        seen.push_back(child);
    }
  return false;
}

}  // namespace

std::optional<BlockRef> findRootBlock(const Program& program, DiagnosticEmitter& diagnostics,
                                      const std::string& rootName) {
  std::vector<const Module*> roots = program.rootModules();
  std::vector<BlockRef> withEntries;
  for (const BlockRef& ref : manifest::reachableBlocks(roots)) {
    if (std::find(roots.begin(), roots.end(), ref.module) == roots.end()) continue;
    if (manifest::hasEntries(*ref.block)) withEntries.push_back(ref);
  }
  std::vector<manifest::EntryRef> moduleLevel = manifest::moduleEntries(roots);
  if (!rootName.empty()) {
    // `Model` or `phi3::Model`; a block without entries would compile nothing of its own.
    std::vector<BlockRef> named;
    for (const BlockRef& ref : withEntries)
      if (ref.block->name.name == rootName || ref.qualifiedName() == rootName) named.push_back(ref);
    if (named.size() == 1) return named.front();
    std::string why = named.empty() ? "no block of the program's own modules with that name has entries"
                                    : "blocks `" + named[0].qualifiedName() + "` and `" + named[1].qualifiedName() +
                                          "` both have that name; give the qualified one";
    auto d = diagnostics.emit(DiagnosticKind::RootBlockNotFound, Span{}, rootName, why);
    if (named.empty() && !withEntries.empty()) {
      std::string names;
      for (const BlockRef& ref : withEntries) names += (names.empty() ? "`" : ", `") + ref.qualifiedName() + "`";
      d.help("the blocks with entries are " + names);
    }
    return std::nullopt;
  }
  if (withEntries.size() > 1) {
    // A block with entries that another one holds as a sub-block (at any
    // depth) is part of that model, not a second root.
    std::vector<BlockRef> outermost;
    for (const BlockRef& candidate : withEntries) {
      bool inside = false;
      for (const BlockRef& other : withEntries)
        if (other.block != candidate.block && holdsBlock(other, candidate.block)) inside = true;
      if (!inside) outermost.push_back(candidate);
    }
    if (outermost.size() == 1) return outermost.front();
    if (!outermost.empty()) withEntries = outermost;
  }
  if (withEntries.size() > 1) {
    diagnostics
        .emit(DiagnosticKind::SeveralRootBlocks, withEntries[1].block->name.span, withEntries[0].qualifiedName(),
              withEntries[1].qualifiedName())
        .secondary(withEntries[0].block->name.span, "the first block with entries")
        .help(fmt::format("choose the one to compile with `--root {}`", withEntries[0].block->name.name));
    return std::nullopt;
  }
  if (withEntries.size() == 1) return withEntries.front();
  if (!moduleLevel.empty()) return BlockRef{moduleLevel.front().module, nullptr};
  std::string packageName = roots.empty() ? std::string("the program") : roots.front()->name;
  if (const Package* package = program.rootPackage()) packageName = package->name;
  diagnostics.emit(DiagnosticKind::NoRootBlock, Span{}, packageName);
  return std::nullopt;
}

bool checkEntryNames(const std::vector<manifest::EntryRef>& entries, DiagnosticEmitter& diagnostics) {
  auto where = [](const manifest::EntryRef& e) {
    return e.block ? fmt::format("the entry of block `{}`", e.block->name.name)
                   : fmt::format("the module-level entry of `{}`", e.module->name);
  };
  for (size_t i = 0; i < entries.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (entries[j].entry->name.name == entries[i].entry->name.name) {
        diagnostics
            .emit(DiagnosticKind::EntryNameClash, entries[i].entry->name.span, entries[i].entry->name.name,
                  where(entries[j]), where(entries[i]))
            .secondary(entries[j].entry->name.span, "the first entry with this name")
            .help("rename one: the artifact's entries are called by name");
        return false;
      }
  return true;
}

std::optional<RootBinding> bindRootGenerics(const Program& program, const check::CheckedProgram* checked,
                                            const BlockRef& root,
                                            const std::vector<std::string>& binds,
                                            const std::string& checkpoint,
                                            DiagnosticEmitter& diagnostics,
                                            std::vector<std::string>* unclaimed, bool bindDefaults) {
  RootBinding result;
  const Package* package = program.rootPackage();
  if (!root.block) {
    // Module-level entries only: no generics to bind, no parameters.
    bool ok = true;
    if (!checkpoint.empty()) {
      diagnostics.emit(DiagnosticKind::CheckpointWithoutBlock, Span{}, root.qualifiedName());
      ok = false;
    }
    for (const std::string& bind : binds) {
      if (unclaimed) {
        unclaimed->push_back(bind);
        continue;
      }
      diagnostics.emit(DiagnosticKind::UnknownBinding, Span{}, bind.substr(0, bind.find('=')), root.qualifiedName())
          .help("the program has no block with entries, so it has no root generics");
      ok = false;
    }
    if (!ok) return std::nullopt;
    return result;
  }
  if (package) {  // a lone file has no package files
    std::optional<bind::EntryChecks> checks =
        bind::readEntryChecks(package->rootDir, *root.block, root.qualifiedName(), diagnostics);
    if (!checks) return std::nullopt;
    result.checks = std::move(*checks);
  }
  std::vector<std::string> claimed;
  auto isRootGeneric = [&](std::string_view name) {
    return std::any_of(root.block->generics.begin(), root.block->generics.end(),
                       [&](const ast::GenericParam& g) { return g.name.name == name; });
  };
  for (const std::string& bind : binds) {
    if (unclaimed && !isRootGeneric(bind.substr(0, bind.find('=')))) unclaimed->push_back(bind);
    else claimed.push_back(bind);
  }
  if (claimed.empty() && checkpoint.empty() && !bindDefaults) return result;

  result.generics =
      bind::parseBindOverrides(*root.block, root.qualifiedName(), claimed, diagnostics);
  if (!result.generics) return std::nullopt;
  if (checkpoint.empty()) {
    // generics.json's defaults come before the declared ones, as a
    // checkpoint binds them (its `config` keys need a checkpoint's
    // config.json; a build without one left `Batch` unbound).
    if (package) {
      std::optional<bind::BindingFiles> files = bind::readBindingFiles(package->rootDir, diagnostics);
      if (!files) return std::nullopt;
      std::vector<std::string> defaults;
      for (const auto& [name, text] : files->defaults)
        if (isRootGeneric(name) && !result.generics->count(name)) defaults.push_back(name + "=" + text);
      std::optional<bind::GenericBindings> values =
          bind::parseBindOverrides(*root.block, root.qualifiedName(), defaults, diagnostics);
      if (!values) return std::nullopt;
      result.generics->insert(values->begin(), values->end());
    }
    const check::CheckedBlock* block = checked ? checked->blockOf(root.block) : nullptr;
    // An unbound generic takes its declared default (spec 7.7), which may use
    // the generics before it (`Inner: Dim = 4 * H`), as a checkpoint binds it.
    if (block)
      for (const ast::GenericParam& g : root.block->generics) {
        if (result.generics->count(g.name.name)) continue;
        if (auto d = block->defaults.dtypes.find(&g); d != block->defaults.dtypes.end()) {
          if (auto dtype = bind::evaluateDType(d->second, *result.generics))
            (*result.generics)[g.name.name] = bind::BoundValue{std::nullopt, dtype};
        } else if (auto dim = block->defaults.shapes.dims.find(check::symbolIdOf(g));
                   dim != block->defaults.shapes.dims.end()) {
          if (auto value = bind::evaluateDim(dim->second, bind::dimValues(*root.block, *result.generics)))
            (*result.generics)[g.name.name] = bind::BoundValue{value, std::nullopt};
        }
      }
    if (block && !bind::checkWhereClauses(*block, root.qualifiedName(), *result.generics, diagnostics))
      return std::nullopt;
    if (checked && !bind::checkRequirements(*checked, *root.block, root.qualifiedName(), *result.generics,
                                            diagnostics))
      return std::nullopt;
    if (!bind::checkBoundsEvaluate(result.checks, *result.generics, diagnostics)) return std::nullopt;
    return result;
  }

  rt::Expected<rt::Checkpoint> opened = rt::Checkpoint::open(checkpoint);
  if (!opened.ok()) {
    diagnostics.emit(DiagnosticKind::CheckpointUnreadable, Span{}, opened.message());
    return std::nullopt;
  }
  result.checkpoint = std::make_unique<rt::Checkpoint>(std::move(*opened));
  result.arena = std::make_unique<ast::Arena>();
  result.manifest =
      std::make_unique<manifest::BlockManifest>(manifest::buildManifest(root, *result.arena));
  bind::BindInputs inputs;
  inputs.manifest = result.manifest.get();
  inputs.checked = checked;
  inputs.packageDir = package ? package->rootDir : std::string();
  inputs.checkpoint = result.checkpoint.get();
  inputs.program = &program;
  inputs.overrides = *result.generics;
  result.model = bind::bindCheckpoint(inputs, diagnostics);
  if (!result.model) return std::nullopt;
  result.generics = result.model->generics;
  if (!bind::checkBoundsEvaluate(result.checks, *result.generics, diagnostics)) return std::nullopt;
  return result;
}

}  // namespace linnet::inspect
