// Program: the queries over a loaded program (see Program.h). They read only
// what loadProgram built, so `linnet inspect` can use them whether or not
// resolveProgram ran.
#include "compiler/modules/Program.h"

namespace linnet {

const Dependency* Package::findDependency(std::string_view key) const {
  for (const Dependency& dependency : dependencies)
    if (dependency.key == key) return &dependency;
  return nullptr;
}

const ast::Item* Module::findItem(std::string_view itemName) const {
  auto found = itemIndex.find(itemName);
  return found == itemIndex.end() ? nullptr : found->second;
}

const Symbol* Module::symbolOf(const ast::Ident& ident) const {
  auto found = symbols.find(&ident);
  return found == symbols.end() ? nullptr : &found->second;
}

namespace {

// The module a `use a.b` (no selector) binds under `name`, if any.
const Module* importedModule(const Module& from, std::string_view name) {
  for (size_t i = 0; i < from.ast->uses.size(); ++i) {
    const ast::UseDecl* use = from.ast->uses[i];
    if (!use->hasSelector && !use->path.empty() && use->path.back().name == name)
      return from.useTargets[i];
  }
  return nullptr;
}

// The item a `use path::{name as alias}` binds under `name`, if any.
ResolvedItem importedItem(const Module& from, std::string_view name) {
  for (size_t i = 0; i < from.ast->uses.size(); ++i) {
    const ast::UseDecl* use = from.ast->uses[i];
    const Module* target = from.useTargets[i];
    if (!use->hasSelector || !target) continue;
    for (const ast::ImportName& imported : use->names) {
      const std::string& bound = imported.alias.name.empty() ? imported.name.name
                                                              : imported.alias.name;
      if (bound != name) continue;
      if (const ast::Item* item = target->findItem(imported.name.name)) return {target, item};
      return {};
    }
  }
  return {};
}

}  // namespace

ResolvedItem resolveTypeName(const Module& from, const ast::NamedTypeNode& type) {
  if (type.path.empty() || !from.ast) return {};
  const std::string& head = type.path.front().name;
  if (type.path.size() == 1) {
    // An item declared inside a block (a struct or enum beside its
    // methods) is in no module's item list: the resolver's record of the
    // name finds it.
    if (const Symbol* s = from.symbolOf(type.path.front());
        s && s->kind == SymbolKind::Item && s->item && s->module)
      return {s->module, s->item};
    if (const ast::Item* item = from.findItem(head)) return {&from, item};
    return importedItem(from, head);
  }
  if (type.path.size() == 2) {
    const Module* module = importedModule(from, head);
    if (!module) return {};
    if (const ast::Item* item = module->findItem(type.path[1].name)) return {module, item};
  }
  return {};
}

const Module* Program::findModule(std::string_view name) const {
  for (const Module* module : roots_)
    if (module->name == name) return module;
  for (const auto& module : modules_)
    if (module->name == name) return module.get();
  return nullptr;
}

std::vector<const Module*> Program::rootModules() const { return roots_; }

const Package* Program::rootPackage() const { return rootPackage_; }

}  // namespace linnet
