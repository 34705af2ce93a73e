// Helpers shared by the shape solver tests: a table that hands out symbols
// and packs with ids in declaration order (which fixes the canonical term
// order, as the checker's declaration order will), and short spellings for
// constants and where clauses.
#pragma once

#include <map>
#include <string>

#include "compiler/shape/DimExpr.h"
#include "compiler/shape/Facts.h"

namespace linnet::shape::testing {

class Names {
 public:
  DimExpr operator()(const std::string& name) { return DimExpr::symbol(id(name), name); }
  Pack pack(const std::string& name) { return Pack{id("*" + name), name}; }
  SymbolId id(const std::string& name) {
    auto [it, inserted] = ids_.emplace(name, next_);
    if (inserted) ++next_;
    return it->second;
  }

 private:
  std::map<std::string, SymbolId> ids_;
  SymbolId next_ = 1;
};

inline DimExpr c(int64_t v) { return DimExpr::constant(v); }
inline DimExpr div(const DimExpr& a, const DimExpr& b) { return DimExpr::floorDiv(a, b); }
inline DimExpr mod(const DimExpr& a, const DimExpr& b) { return DimExpr::mod(a, b); }
inline DimExpr min(const DimExpr& a, const DimExpr& b) { return DimExpr::min(a, b); }
inline DimExpr max(const DimExpr& a, const DimExpr& b) { return DimExpr::max(a, b); }

}  // namespace linnet::shape::testing
