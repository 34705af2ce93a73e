// ProgramBlocks: the blocks a program's root modules declare, the blocks their
// `sub` members reach (through imports, into std), and the root block (the one
// block with entries). Shared by the model page and the parameter manifest.
#pragma once

#include <string>
#include <vector>

#include "compiler/modules/Program.h"
#include "compiler/parse/AST.h"

namespace linnet::manifest {

struct BlockRef {
  const Module* module = nullptr;
  const ast::BlockItem* block = nullptr;
  std::string qualifiedName() const;  // "phi3.attention::Attention"
};

// The block a `sub` member's type names (through `?` and `[...; N]`), if any.
BlockRef subBlock(const Module& from, const ast::TypeNode* type);

// Blocks declared in `modules`, then every block reachable through `sub`
// members, each once, in discovery order.
std::vector<BlockRef> reachableBlocks(const std::vector<const Module*>& modules);

bool hasEntries(const ast::BlockItem& block);

}  // namespace linnet::manifest
