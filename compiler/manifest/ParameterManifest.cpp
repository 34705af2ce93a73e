// ParameterManifest: collection through `sub` members (see ParameterManifest.h).
#include "compiler/manifest/ParameterManifest.h"

#include "compiler/manifest/Substitute.h"

namespace linnet::manifest {

namespace {

// Sub-blocks nested deeper than this are a cycle or a hostile program.
constexpr size_t kMaxDepth = 64;

void collect(const BlockRef& ref, const std::string& prefix, const Substitution& substitution,
             const std::vector<const ast::Expr*>& repeat, const std::string& optionalSub, size_t depth,
             ast::Arena& arena, std::vector<ManifestEntry>& entries) {
  if (depth > kMaxDepth) return;
  for (const ast::Item* item : ref.block->body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member) continue;
    const ast::TypeNode* type = member->type;
    bool ownOptional = false;
    if (auto* opt = ast::as<ast::OptionalTypeNode>(type)) {
      ownOptional = true;
      type = opt->inner;
    }
    if (member->member != ast::MemberKind::Sub) {
      entries.push_back({prefix + member->name.name, member->member,
                         substituteType(type, substitution, arena), repeat,
                         ownOptional || !optionalSub.empty(), ownOptional, optionalSub, member,
                         ref.module});
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
    // The outermost optional sub decides presence for everything inside it.
    std::string childOptionalSub = !optionalSub.empty() ? optionalSub : ownOptional ? childPrefix : "";
    collect(child, childPrefix + ".", childSubstitution, childRepeat, childOptionalSub, depth + 1,
            arena, entries);
  }
}

}  // namespace

BlockManifest buildManifest(const BlockRef& block, ast::Arena& arena) {
  BlockManifest manifest{block, {}};
  collect(block, "", {}, {}, "", 0, arena, manifest.entries);
  return manifest;
}

}  // namespace linnet::manifest
