// The parameter manifest (see Parameters.h).
#include "compiler/inspect/Parameters.h"

#include <nlohmann/json.hpp>

#include <ostream>

#include "compiler/inspect/ProgramBlocks.h"
#include "compiler/inspect/Substitute.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::inspect {

namespace {

struct ManifestEntry {
  std::string path;
  ast::MemberKind kind;
  const ast::TypeNode* type;  // the tensor type, `?` removed, generics substituted
  std::vector<std::string> repeat;
  bool optional;
};

// Sub-blocks nested deeper than this are a cycle or a hostile program.
constexpr size_t kMaxDepth = 64;

void collect(const BlockRef& ref, const std::string& prefix, const Substitution& substitution,
             std::vector<std::string> repeat, bool optional, size_t depth, ast::Arena& arena,
             std::vector<ManifestEntry>& entries) {
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
                         substituteType(type, substitution, arena), repeat, memberOptional});
      continue;
    }
    std::vector<std::string> childRepeat = repeat;
    std::string childPrefix = prefix + member->name.name;
    if (auto* array = ast::as<ast::ArrayTypeNode>(type)) {
      childRepeat.push_back(ast::printExpr(substituteExpr(array->count, substitution, arena)));
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

std::string genericNames(const ast::BlockItem& block) {
  std::string out;
  for (const ast::GenericParam& generic : block.generics) {
    out += out.empty() ? "<" : ", ";
    out += generic.name.name;
  }
  return out.empty() ? out : out + ">";
}

}  // namespace

bool printParameters(const Program& program, bool json, std::ostream& out,
                     DiagnosticEmitter& diagnostics) {
  ast::Arena arena;
  nlohmann::ordered_json document;
  document["version"] = 1;
  document["blocks"] = nlohmann::ordered_json::array();
  bool first = true;
  for (const Module* module : program.rootModules()) {
    for (const ast::Item* item : module->ast->items) {
      auto* block = ast::as<ast::BlockItem>(item);
      if (!block) continue;
      std::vector<ManifestEntry> entries;
      collect({module, block}, "", {}, {}, false, 0, arena, entries);

      if (json) {
        nlohmann::ordered_json entry;
        entry["name"] = block->name.name;
        entry["module"] = module->name;
        entry["generics"] = nlohmann::ordered_json::array();
        for (const ast::GenericParam& generic : block->generics)
          entry["generics"].push_back(generic.name.name);
        entry["entries"] = nlohmann::ordered_json::array();
        for (const ManifestEntry& e : entries) {
          nlohmann::ordered_json row;
          row["path"] = e.path;
          row["kind"] = std::string(ast::memberKindKeyword(e.kind));
          auto* tensor = ast::as<ast::TensorTypeNode>(e.type);
          row["dtype"] = tensor ? ast::printType(tensor->dtype) : ast::printType(e.type);
          row["shape"] = nlohmann::ordered_json::array();
          if (tensor)
            for (const ast::ShapeElement& element : tensor->shape)
              row["shape"].push_back(element.isPack() ? "*" + element.pack.name
                                                      : ast::printExpr(element.dim));
          row["repeat"] = e.repeat;
          row["optional"] = e.optional;
          entry["entries"].push_back(std::move(row));
        }
        document["blocks"].push_back(std::move(entry));
        continue;
      }
      if (!first) out << "\n";
      first = false;
      out << module->name << "::" << block->name.name << genericNames(*block) << "\n";
      for (const ManifestEntry& e : entries) {
        out << "  " << ast::memberKindKeyword(e.kind) << " " << e.path << ": "
            << ast::printType(e.type) << (e.optional ? "?" : "");
        for (const std::string& length : e.repeat) out << " x " << length;
        out << "\n";
      }
    }
  }
  if (json) out << document.dump(2) << "\n";
  (void)diagnostics;
  return true;
}

}  // namespace linnet::inspect
