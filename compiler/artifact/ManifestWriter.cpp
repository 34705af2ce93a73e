// ManifestWriter: see ManifestWriter.h. The runtime's parser
// (runtime/artifact/Manifest.cpp) is the other half; a lit test builds and
// loads every artifact it writes.
#include "compiler/artifact/ManifestWriter.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "runtime/artifact/DimExpr.h"

namespace linnet::artifact {

namespace {

// Whether the manifest's dim expression `expr` names `name`, as the runtime
// reads it (one it cannot read names everything).
bool mentionsName(const std::string& expr, const std::string& name) {
  rt::Expected<rt::DimExpr> parsed = rt::DimExpr::parse(expr);
  if (!parsed) return true;
  std::vector<std::string> names = parsed->names();  // sorted
  return std::binary_search(names.begin(), names.end(), name);
}

nlohmann::json slot(const lower::TensorSlot& s, bool withTensor) {
  nlohmann::json j = {{"path", s.path},
                      {"dtype", std::string(ast::scalarTypeName(s.dtype))},
                      {"shape", s.shape}};
  if (withTensor && !s.checkpointName.empty()) j["tensor"] = s.checkpointName;
  if (withTensor && s.stored) j["stored"] = std::string(ast::scalarTypeName(*s.stored));
  return j;
}

nlohmann::json slotType(const lower::SlotType& s, bool named) {
  nlohmann::json j = {{"dtype", std::string(ast::scalarTypeName(s.dtype))}, {"shape", s.shape}};
  if (named) j["name"] = s.name;
  if (named && s.defaultValue) j["default"] = *s.defaultValue;
  if (s.enumItem) {
    nlohmann::json variants = nlohmann::json::array();
    for (const auto& v : s.enumItem->variants) variants.push_back(v.name);
    j["enum"] = {{"name", s.enumItem->name.name}, {"variants", variants}};
    // An enum's default is its variant's name.
    if (named && s.defaultValue) j["default"] = s.enumItem->variants[static_cast<size_t>(*s.defaultValue)].name;
  }
  return j;
}

}  // namespace

std::string manifestJson(const lower::LoweredProgram& program, const bind::GenericBindings& generics,
                         const bind::EntryChecks& checks, const EntryRequirements& requirements,
                         const ManifestSource& source, const ManifestTarget& target) {
  nlohmann::json j;
  j["format"] = "linnet-artifact";
  j["version"] = 1;
  j["target"] = {{"kind", "cpu"}, {"triple", target.triple}, {"cpu", target.cpu}, {"features", target.features}};
  j["source"] = {{"package", source.package}, {"block", source.block}, {"hash", source.hash}};
  if (!source.config.is_null()) j["config"] = source.config;
  nlohmann::json g = nlohmann::json::object();
  for (const auto& [name, value] : generics) {
    if (value.dim) g[name] = *value.dim;
    else if (value.dtype) g[name] = std::string(ast::scalarTypeName(*value.dtype));
  }
  j["generics"] = g;
  j["parameters"] = nlohmann::json::array();
  for (const lower::TensorSlot& p : program.parameters) j["parameters"].push_back(slot(p, true));
  j["state"] = nlohmann::json::array();
  for (const lower::TensorSlot& s : program.state) j["state"].push_back(slot(s, false));
  j["entries"] = nlohmann::json::array();
  for (const lower::LoweredEntry& e : program.entries) {
    nlohmann::json entry = {{"name", e.name}, {"symbol", "linnet_entry_" + (e.symbol.empty() ? e.name : e.symbol)}, {"dims", e.dims}};
    std::map<std::string, std::string> defaults = e.defaults;
    // A dim the code never reads and the manifest names nowhere else (no
    // argument's or result's shape, check, requirement or default) is
    // given 0 when no argument or bind fixes it: it was "not fixed by any
    // argument" for a call leaving out the only parameter that had it.
    auto named = [&](const std::string& dim) {
      auto in = [&](const std::string& expr) { return mentionsName(expr, dim); };
      for (const auto& slots : {e.args, e.results})
        for (const lower::SlotType& s : slots)
          if (std::any_of(s.shape.begin(), s.shape.end(), in)) return true;
      for (const auto& [other, expr] : e.defaults)
        if (in(expr)) return true;
      if (auto rules = checks.find(e.name); rules != checks.end())
        for (const bind::ValueRule& c : rules->second)
          if ((c.min && in(*c.min)) || (c.max && in(*c.max)) || (c.except && in(*c.except))) return true;
      if (auto rules = requirements.byEntry.find(e.name); rules != requirements.byEntry.end())
        for (const DimRequirement& r : rules->second)
          if (in(r.lhs) || in(r.rhs)) return true;
      return false;
    };
    for (const std::string& dim : e.unreadDims)
      if (!defaults.count(dim) && !named(dim)) defaults[dim] = "0";
    if (!defaults.empty()) entry["defaults"] = defaults;
    entry["args"] = nlohmann::json::array();
    for (const lower::SlotType& a : e.args) entry["args"].push_back(slotType(a, true));
    if (!e.defaulted.empty()) entry["defaulted"] = e.defaulted;
    entry["results"] = nlohmann::json::array();
    for (const lower::SlotType& r : e.results) entry["results"].push_back(slotType(r, false));
    entry["state"] = e.writesState ? "write" : e.readsState ? "read" : "none";
    if (auto rules = checks.find(e.name); rules != checks.end() && !rules->second.empty()) {
      entry["checks"] = nlohmann::json::array();
      for (const bind::ValueRule& c : rules->second) {
        nlohmann::json rule = {{"arg", c.arg}, {"kind", c.kind}};
        if (c.min) rule["min"] = *c.min;
        if (c.max) rule["max"] = *c.max;
        if (c.per) rule["per"] = *c.per;
        if (c.except) rule["except"] = *c.except;
        entry["checks"].push_back(rule);
      }
    }
    if (auto rules = requirements.byEntry.find(e.name); rules != requirements.byEntry.end() && !rules->second.empty()) {
      entry["requires"] = nlohmann::json::array();
      for (const DimRequirement& r : rules->second)
        entry["requires"].push_back({{"lhs", r.lhs}, {"relation", r.relation}, {"rhs", r.rhs}, {"why", r.why}});
    }
    j["entries"].push_back(entry);
  }
  return j.dump(1);
}

}  // namespace linnet::artifact
