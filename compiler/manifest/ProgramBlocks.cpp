// ProgramBlocks: block discovery through `sub` members.
#include "compiler/manifest/ProgramBlocks.h"

namespace linnet::manifest {

std::string BlockRef::qualifiedName() const {
  return block ? module->name + "::" + block->name.name : module->name;
}

BlockRef subBlock(const Module& from, const ast::TypeNode* type) {
  while (type) {
    if (auto* optional = ast::as<ast::OptionalTypeNode>(type)) {
      type = optional->inner;
    } else if (auto* array = ast::as<ast::ArrayTypeNode>(type)) {
      type = array->element;
    } else {
      break;
    }
  }
  auto* named = ast::as<ast::NamedTypeNode>(type);
  if (!named) return {};
  ResolvedItem resolved = resolveTypeName(from, *named);
  if (!resolved.module || !resolved.item) return {};
  auto* block = ast::as<ast::BlockItem>(resolved.item);
  if (!block) return {};
  return {resolved.module, block};
}

std::vector<BlockRef> reachableBlocks(const std::vector<const Module*>& modules) {
  std::vector<BlockRef> blocks;
  auto add = [&](BlockRef ref) {
    for (const BlockRef& seen : blocks)
      if (seen.block == ref.block) return;
    blocks.push_back(ref);
  };
  for (const Module* module : modules)
    for (const ast::Item* item : module->ast->items)
      if (auto* block = ast::as<ast::BlockItem>(item)) add({module, block});
  // Breadth-first over `sub` members; `blocks` grows while we walk it.
  for (size_t i = 0; i < blocks.size(); ++i) {
    BlockRef current = blocks[i];
    for (const ast::Item* item : current.block->body) {
      auto* member = ast::as<ast::MemberItem>(item);
      if (!member || member->member != ast::MemberKind::Sub) continue;
      BlockRef child = subBlock(*current.module, member->type);
      if (child.block) add(child);
    }
  }
  return blocks;
}

bool hasEntries(const ast::BlockItem& block) {
  for (const ast::Item* item : block.body)
    if (auto* fn = ast::as<ast::FunctionItem>(item); fn && fn->function == ast::FunctionKind::Entry)
      return true;
  return false;
}

std::vector<EntryRef> moduleEntries(const std::vector<const Module*>& modules) {
  std::vector<EntryRef> out;
  for (const Module* module : modules)
    for (const ast::Item* item : module->ast->items)
      if (auto* fn = ast::as<ast::FunctionItem>(item); fn && fn->function == ast::FunctionKind::Entry)
        out.push_back({module, fn, nullptr});
  return out;
}

std::vector<EntryRef> programEntries(const std::vector<const Module*>& modules, const BlockRef& root) {
  std::vector<EntryRef> out;
  if (root.block)
    for (const ast::Item* item : root.block->body)
      if (auto* fn = ast::as<ast::FunctionItem>(item); fn && fn->function == ast::FunctionKind::Entry)
        out.push_back({root.module, fn, root.block});
  for (const EntryRef& e : moduleEntries(modules)) out.push_back(e);
  return out;
}

}  // namespace linnet::manifest
