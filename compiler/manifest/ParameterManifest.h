// ParameterManifest: every `param`, `buffer` and `state` of a block, reached
// through its `sub` members (spec chapter 10). Each entry has its path
// (`layers[*].attention.qkv.weight`, `[*]` per array level), its tensor type
// written in the root block's own generics (each parent's generic arguments
// substituted into its child's types), the array lengths it repeats over
// (outermost first) and whether it is optional (its own `?` or an optional
// `sub` above it). It is what binding a checkpoint and sizing state start from.
#pragma once

#include <string>
#include <vector>

#include "compiler/manifest/ProgramBlocks.h"
#include "compiler/parse/AST.h"

namespace linnet::manifest {

struct ManifestEntry {
  std::string path;                   // `[*]` for each array level
  ast::MemberKind kind;               // Param, Buffer or State
  const ast::TypeNode* type;          // without the outer `?`, generics substituted
  std::vector<const ast::Expr*> repeat;  // array lengths, outermost first
  bool optional;                      // ownOptional or inside an optional sub
  bool ownOptional;                   // the member's own type is `T?`
  std::string optionalSub;            // the outermost optional sub above it (`layers[*].extra`), or ""
  const ast::MemberItem* member;      // the declaration (for diagnostics)
  const Module* module;               // where `member` is declared
};

struct BlockManifest {
  BlockRef block;
  std::vector<ManifestEntry> entries;
};

// Substituted nodes are allocated in `arena`, which must outlive the result.
BlockManifest buildManifest(const BlockRef& block, ast::Arena& arena);

}  // namespace linnet::manifest
