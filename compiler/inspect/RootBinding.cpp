// The root block and its generic values from --checkpoint and --bind (see
// RootBinding.h).
#include "compiler/inspect/RootBinding.h"

#include <algorithm>

namespace linnet::inspect {

using manifest::BlockRef;

std::optional<BlockRef> findRootBlock(const Program& program, DiagnosticEmitter& diagnostics) {
  std::vector<const Module*> roots = program.rootModules();
  BlockRef root;
  for (const BlockRef& ref : manifest::reachableBlocks(roots)) {
    if (std::find(roots.begin(), roots.end(), ref.module) == roots.end()) continue;
    if (!manifest::hasEntries(*ref.block)) continue;
    if (root.block) {
      diagnostics.emit(DiagnosticKind::SeveralRootBlocks, ref.block->name.span,
                       root.qualifiedName(), ref.qualifiedName())
          .secondary(root.block->name.span, "the first block with entries");
      return std::nullopt;
    }
    root = ref;
  }
  if (!root.block) {
    std::string packageName = roots.empty() ? std::string("the program") : roots.front()->name;
    if (const Package* package = program.rootPackage()) packageName = package->name;
    diagnostics.emit(DiagnosticKind::NoRootBlock, Span{}, packageName);
    return std::nullopt;
  }
  return root;
}

std::optional<RootBinding> bindRootGenerics(const Program& program, const check::CheckedProgram* checked,
                                            const BlockRef& root,
                                            const std::vector<std::string>& binds,
                                            const std::string& checkpoint,
                                            DiagnosticEmitter& diagnostics,
                                            std::vector<std::string>* unclaimed) {
  RootBinding result;
  const Package* package = program.rootPackage();
  if (package) {  // a lone file has no package files
    std::optional<bind::EntryChecks> checks =
        bind::readEntryChecks(package->rootDir, *root.block, root.qualifiedName(), diagnostics);
    if (!checks) return std::nullopt;
    result.checks = std::move(*checks);
  }
  std::vector<std::string> claimed;
  for (const std::string& bind : binds) {
    std::string name = bind.substr(0, bind.find('='));
    bool isRootGeneric = std::any_of(root.block->generics.begin(), root.block->generics.end(),
                                     [&](const ast::GenericParam& g) { return g.name.name == name; });
    if (unclaimed && !isRootGeneric) unclaimed->push_back(bind);
    else claimed.push_back(bind);
  }
  if (claimed.empty() && checkpoint.empty()) return result;

  result.generics =
      bind::parseBindOverrides(*root.block, root.qualifiedName(), claimed, diagnostics);
  if (!result.generics) return std::nullopt;
  if (checkpoint.empty()) {
    const check::CheckedBlock* block = checked ? checked->blockOf(root.block) : nullptr;
    if (block && !bind::checkWhereClauses(*block, root.qualifiedName(), *result.generics, diagnostics))
      return std::nullopt;
    if (checked && !bind::checkRequirements(*checked, *root.block, root.qualifiedName(), *result.generics,
                                            diagnostics))
      return std::nullopt;
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
  return result;
}

}  // namespace linnet::inspect
