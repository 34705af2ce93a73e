// ParameterManifest: collection through `sub` members (see ParameterManifest.h).
#include "compiler/manifest/ParameterManifest.h"

#include "compiler/manifest/Substitute.h"

namespace linnet::manifest {

namespace {

// Sub-blocks nested deeper than this are a cycle or a hostile program.
constexpr size_t kMaxDepth = 64;

void collect(const BlockRef& ref, const std::string& prefix, const Substitution& substitution,
             const std::vector<const ast::Expr*>& repeat, bool optional, size_t depth,
             ast::Arena& arena, std::vector<ManifestEntry>& entries) {
  if (depth > kMaxDepth) return;
  for (const ast::Item* item : ref.block->body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member) continue;
    const ast::TypeNode* type = member->type;
    bool memberOptional = optional;
    if (auto* opt = ast::as<ast::OptionalTypeNode>(type)) {
      memberOptional = true;
      type = opt->inner;
    }
    if (member->member != ast::MemberKind::Sub) {
      entries.push_back({prefix + member->name.name, member->member,
                         substituteType(type, substitution, arena), repeat, memberOptional,
                         member, ref.module});
      continue;
    }
    std::vector<const ast::Expr*> childRepeat = repeat;
    std::string childPrefix = prefix + member->name.name;
    if (auto* array = ast::as<ast::ArrayTypeNode>(type)) {
      childRepeat.push_back(substituteExpr(array->count, substitution, arena));
      childPrefix += "[*]";
      type = array->element;
    }
    BlockRef child = subBlock(*ref.module, type);
    auto* named = ast::as<ast::NamedTypeNode>(type);
    if (!child.block || !named) continue;
    Substitution childSubstitution =
        bindArguments(child.block->generics, named->genericArgs, substitution, arena);
    collect(child, childPrefix + ".", childSubstitution, childRepeat, memberOptional, depth + 1,
            arena, entries);
  }
}

}  // namespace

BlockManifest buildManifest(const BlockRef& block, ast::Arena& arena) {
  BlockManifest manifest{block, {}};
  collect(block, "", {}, {}, false, 0, arena, manifest.entries);
  return manifest;
}

}  // namespace linnet::manifest
