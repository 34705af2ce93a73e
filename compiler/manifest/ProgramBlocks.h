// ProgramBlocks: the blocks a program's root modules declare, the blocks their
// `sub` members reach (through imports, into std), the root block (the one
// block with entries) and the entries a build compiles. Shared by the model
// page, the parameter manifest and the build.
#pragma once

#include <string>
#include <vector>

#include "compiler/modules/Program.h"
#include "compiler/parse/AST.h"

namespace linnet::manifest {

// A block, or, with `block` null, a program whose entries are all
// module-level ones (spec 7.6): `module` is then the first root module with
// an entry.
struct BlockRef {
  const Module* module = nullptr;
  const ast::BlockItem* block = nullptr;
  std::string qualifiedName() const;  // "phi3.attention::Attention"; the module's name without a block
};

// An entry a build compiles: the root block's, or a module-level entry of a
// root module, which reads no parameters or state and is exported alone.
struct EntryRef {
  const Module* module = nullptr;
  const ast::FunctionItem* entry = nullptr;
  const ast::BlockItem* block = nullptr;  // null for a module-level entry
};

// The block a `sub` member's type names (through `?` and `[...; N]`), if any.
BlockRef subBlock(const Module& from, const ast::TypeNode* type);

// Blocks declared in `modules`, then every block reachable through `sub`
// members, each once, in discovery order.
std::vector<BlockRef> reachableBlocks(const std::vector<const Module*>& modules);

bool hasEntries(const ast::BlockItem& block);

// The module-level entries of `modules`, in module and declaration order.
std::vector<EntryRef> moduleEntries(const std::vector<const Module*>& modules);

// What a build of `root` compiles: the root block's entries in declaration
// order, then the module-level entries of `modules`.
std::vector<EntryRef> programEntries(const std::vector<const Module*>& modules, const BlockRef& root);

}  // namespace linnet::manifest
