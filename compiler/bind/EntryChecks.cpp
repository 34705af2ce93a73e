// EntryChecks: reading and validating checks.json (see EntryChecks.h). The
// expressions are parsed with the runtime's own DimExpr, so a bound accepted
// here is one the runtime's manifest reader accepts.
#include "compiler/bind/EntryChecks.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "compiler/bind/BindingFiles.h"
#include "runtime/artifact/DimExpr.h"

namespace linnet::bind {

namespace {

const ast::FunctionItem* entryNamed(const ast::BlockItem& root, const std::string& name) {
  for (const ast::Item* item : root.body)
    if (auto* fn = ast::as<ast::FunctionItem>(item);
        fn && fn->function == ast::FunctionKind::Entry && fn->name.name == name)
      return fn;
  return nullptr;
}

bool isBool(const ast::TypeNode* type) {
  if (auto* tensor = ast::as<ast::TensorTypeNode>(type)) type = tensor->dtype;
  auto* scalar = ast::as<ast::ScalarTypeNode>(type);
  return scalar && scalar->scalar == ast::ScalarType::Bool;
}

}  // namespace

std::optional<EntryChecks> readEntryChecks(const std::string& packageDir, const ast::BlockItem& root,
                                           std::string_view blockName, DiagnosticEmitter& diagnostics) {
  EntryChecks out;
  bool ok = true;
  std::string path = (std::filesystem::path(packageDir) / "checks.json").string();
  std::optional<nlohmann::json> json = readPackageJson(packageDir, "checks.json", ok, diagnostics);
  if (!ok) return std::nullopt;
  if (!json) return out;
  auto invalid = [&](const std::string& why) {
    diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, path, why);
    ok = false;
  };
  std::set<std::string> rootDims;
  for (const ast::GenericParam& g : root.generics)
    if (g.constraint == ast::GenericKind::Dim && !g.isPack) rootDims.insert(g.name.name);
  for (auto& [entryName, rules] : json->items()) {
    const ast::FunctionItem* entry = entryNamed(root, entryName);
    if (!entry) {
      invalid("`" + entryName + "` is not an entry of `" + std::string(blockName) + "`");
      continue;
    }
    if (!rules.is_array()) {
      invalid("`" + entryName + "` must be a list of rules");
      continue;
    }
    std::set<std::string> names = rootDims;
    for (const ast::GenericParam& g : entry->generics) names.insert(g.name.name);
    for (size_t i = 0; i < rules.size(); ++i) {
      const nlohmann::json& rule = rules[i];
      std::string at = "`" + entryName + "[" + std::to_string(i) + "]`";
      if (!rule.is_object()) {
        invalid(at + " must be an object");
        continue;
      }
      bool good = true;
      for (auto& [key, value] : rule.items())
        if (key != "arg" && key != "kind" && key != "min" && key != "max" && key != "per" && key != "except") {
          invalid(at + " has the unknown key `" + key + "` (expected arg, kind, min, max, per, except)");
          good = false;
        }
      std::string kind = rule.contains("kind") && rule["kind"].is_string() ? rule["kind"].get<std::string>() : "";
      if (kind != "range" && kind != "distinct") {
        invalid(at + ": unknown check kind " + (rule.contains("kind") ? rule["kind"].dump() : "(none)") +
                " (the kinds are \"range\" and \"distinct\")");
        good = false;
      }
      std::string arg = rule.contains("arg") && rule["arg"].is_string() ? rule["arg"].get<std::string>() : "";
      auto param = std::find_if(entry->params.begin(), entry->params.end(),
                                [&](const ast::Param& p) { return p.name.name == arg; });
      if (param == entry->params.end()) {
        invalid(at + ": `" + arg + "` is not an argument of `" + entryName + "`");
        good = false;
      } else if (isBool(param->type)) {
        invalid(at + ": `" + arg + "` is a bool, which has no range");
        good = false;
      }
      ValueRule check{arg, kind, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
      if (rule.contains("per")) {
        const nlohmann::json& per = rule["per"];
        std::string other = per.is_string() ? per.get<std::string>() : "";
        auto owner = std::find_if(entry->params.begin(), entry->params.end(),
                                  [&](const ast::Param& p) { return p.name.name == other; });
        if (owner == entry->params.end() || other == arg) {
          invalid(at + ": `per` must name another argument of `" + entryName + "`, found " + per.dump());
          good = false;
        } else if (isBool(owner->type)) {
          invalid(at + ": `per` names `" + other + "`, a bool");
          good = false;
        } else {
          check.per = other;
        }
      }
      for (auto [key, slot] :
           {std::pair{"min", &check.min}, std::pair{"max", &check.max}, std::pair{"except", &check.except}}) {
        if (!rule.contains(key)) continue;
        const nlohmann::json& bound = rule[key];
        if (!bound.is_number_integer() && !bound.is_string()) {
          invalid(at + ": `" + key + "` must be an integer or a dim expression written as a string, found " +
                  bound.dump());
          good = false;
          continue;
        }
        std::string text = bound.is_number_integer() ? bound.dump() : bound.get<std::string>();
        rt::Expected<rt::DimExpr> expr = rt::DimExpr::parse(text);
        if (!expr.ok()) {
          invalid(at + ": `" + key + "` " + bound.dump() + " is not a dim expression: " + expr.message());
          good = false;
          continue;
        }
        for (const std::string& name : expr->names())
          if (!names.count(name)) {
            invalid(at + ": `" + key + "` uses `" + name + "`, which is neither a dim of `" + entryName +
                    "` nor a Dim generic of `" + std::string(blockName) + "`");
            good = false;
          }
        *slot = text;
      }
      if (kind == "range" && !rule.contains("min") && !rule.contains("max")) {
        invalid(at + ": a range needs `min` or `max`");
        good = false;
      }
      if (kind == "distinct" && (rule.contains("min") || rule.contains("max"))) {
        invalid(at + ": a distinct rule has no `min` or `max` (write a range rule beside it)");
        good = false;
      }
      if (kind == "range" && (rule.contains("per") || rule.contains("except"))) {
        invalid(at + ": a range rule has no `per` or `except` (they belong to a distinct rule)");
        good = false;
      }
      if (good) out[entryName].push_back(std::move(check));
    }
  }
  if (!ok) return std::nullopt;
  return out;
}

bool checkBoundsEvaluate(const EntryChecks& checks, const GenericBindings& generics,
                         DiagnosticEmitter& diagnostics) {
  rt::DimEnv env;
  for (const auto& [name, value] : generics)
    if (value.dim) env[name] = *value.dim;
  bool ok = true;
  for (const auto& [entry, rules] : checks)
    for (const ValueRule& rule : rules)
      for (auto [key, bound] :
           {std::pair{"min", &rule.min}, std::pair{"max", &rule.max}, std::pair{"except", &rule.except}}) {
        if (!*bound) continue;
        rt::Expected<rt::DimExpr> expr = rt::DimExpr::parse(**bound);
        if (!expr.ok()) continue;  // reported when read
        std::vector<std::string> names = expr->names();
        if (!std::all_of(names.begin(), names.end(), [&](const std::string& n) { return env.count(n) != 0; }))
          continue;  // an entry's dim: known at the call
        rt::Expected<std::int64_t> value = expr->evaluate(env);
        if (value.ok()) continue;
        diagnostics.emit(DiagnosticKind::BindingFileInvalid, Span{}, "checks.json",
                         "`" + entry + "`, argument `" + rule.arg + "`: `" + key + "` \"" + **bound +
                             "\" cannot be evaluated with the bound generics: " + value.message());
        ok = false;
      }
  return ok;
}

}  // namespace linnet::bind
