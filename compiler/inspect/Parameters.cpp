// `linnet inspect --parameters` (see Parameters.h): prints each block's
// ParameterManifest as text or JSON.
#include "compiler/inspect/Parameters.h"

#include <nlohmann/json.hpp>

#include <ostream>

#include "compiler/manifest/ParameterManifest.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::inspect {

namespace {

std::string genericNames(const ast::BlockItem& block) {
  std::string out;
  for (const ast::GenericParam& generic : block.generics) {
    out += out.empty() ? "<" : ", ";
    out += generic.name.name;
  }
  return out.empty() ? out : out + ">";
}

nlohmann::ordered_json toJson(const manifest::BlockManifest& manifest) {
  const ast::BlockItem& block = *manifest.block.block;
  nlohmann::ordered_json entry;
  entry["name"] = block.name.name;
  entry["module"] = manifest.block.module->name;
  entry["generics"] = nlohmann::ordered_json::array();
  for (const ast::GenericParam& generic : block.generics) entry["generics"].push_back(generic.name.name);
  entry["entries"] = nlohmann::ordered_json::array();
  for (const manifest::ManifestEntry& e : manifest.entries) {
    nlohmann::ordered_json row;
    row["path"] = e.path;
    row["kind"] = std::string(ast::memberKindKeyword(e.kind));
    auto* tensor = ast::as<ast::TensorTypeNode>(e.type);
    row["dtype"] = tensor ? ast::printType(tensor->dtype) : ast::printType(e.type);
    row["shape"] = nlohmann::ordered_json::array();
    if (tensor)
      for (const ast::ShapeElement& element : tensor->shape)
        row["shape"].push_back(element.isPack() ? "*" + element.pack.name : ast::printExpr(element.dim));
    row["repeat"] = nlohmann::ordered_json::array();
    for (const ast::Expr* length : e.repeat) row["repeat"].push_back(ast::printExpr(length));
    row["optional"] = e.optional;
    entry["entries"].push_back(std::move(row));
  }
  return entry;
}

void printText(const manifest::BlockManifest& manifest, std::ostream& out) {
  out << manifest.block.qualifiedName() << genericNames(*manifest.block.block) << "\n";
  for (const manifest::ManifestEntry& e : manifest.entries) {
    out << "  " << ast::memberKindKeyword(e.kind) << " " << e.path << ": " << ast::printType(e.type)
        << (e.optional ? "?" : "");
    for (const ast::Expr* length : e.repeat) out << " x " << ast::printExpr(length);
    out << "\n";
  }
}

}  // namespace

void printParameters(const Program& program, bool json, std::ostream& out) {
  ast::Arena arena;
  nlohmann::ordered_json document;
  document["version"] = 1;
  document["blocks"] = nlohmann::ordered_json::array();
  bool first = true;
  for (const Module* module : program.rootModules()) {
    for (const ast::Item* item : module->ast->items) {
      auto* block = ast::as<ast::BlockItem>(item);
      if (!block) continue;
      manifest::BlockManifest manifest = manifest::buildManifest({module, block}, arena);
      if (json) {
        document["blocks"].push_back(toJson(manifest));
        continue;
      }
      if (!first) out << "\n";
      first = false;
      printText(manifest, out);
    }
  }
  if (json) out << document.dump(2) << "\n";
}

}  // namespace linnet::inspect
