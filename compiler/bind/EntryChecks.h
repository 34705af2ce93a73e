// EntryChecks: the package's `checks.json`, the rules on argument values that
// an artifact's manifest carries (`entries[].checks`, docs/abi.md) and the
// runtime enforces before a call runs. The runtime knows no model, and
// neither does this file: which argument holds token ids or positions, and
// their bounds, are the package's (phi3: ENTRIES.md's "rules for every
// entry"). The file maps entry names to lists of rules in the manifest's own
// form, so what a package says is what an artifact holds:
//
//   {"prefill": [{"arg": "tokens", "kind": "range", "min": 0, "max": "Vocab"},
//                {"arg": "pos", "kind": "range", "min": 0, "max": "MaxSeq - S + 1"}]}
//
// `range` is half-open, min <= e < max, either bound may be left out but not
// both; `distinct` (no bounds) says no two elements are equal (the cache
// rows of one prefill_slots call). A bound is an integer or a dim expression (the
// manifest's grammar) over the entry's own dims and the root block's Dim
// generics, which stay names: the manifest records their bound values.
// Everything is validated at build time against the root block, so a typo
// is an error (E5102) rather than a rule the runtime refuses at load or, worse,
// a rule silently missing.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/bind/GenericValues.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/parse/AST.h"

namespace linnet::bind {

struct ValueRule {
  std::string arg;
  std::string kind;                     // "range" or "distinct"
  std::optional<std::string> min, max;  // a range's dim expressions, as the manifest writes them
  // A distinct rule's: distinct among the elements with the same value of
  // the argument `per` (each cache row's positions), leaving out those equal
  // to `except` (a dim expression: the parking position of padding).
  std::optional<std::string> per, except;
};

// Entry name -> its rules, in the file's order.
using EntryChecks = std::map<std::string, std::vector<ValueRule>>;

// Reads `checks.json` of `packageDir` (absent: no rules) and validates it
// against `root`'s entries: every entry named is an entry of `root`, every
// argument one of its parameters and not a bool, a range with a bound and a
// `distinct` rule with none, every name in a bound one of
// the entry's dims or a Dim generic of `root`. nullopt after reporting.
std::optional<EntryChecks> readEntryChecks(const std::string& packageDir, const ast::BlockItem& root,
                                           std::string_view blockName, DiagnosticEmitter& diagnostics);

// Evaluates every bound that names only root generics with their bound
// values (`Vocab / 0`, `9223372036854775807 + Vocab`): one that cannot be
// evaluated would fail every call, so it is the package's mistake (E5102)
// at binding. Returns whether all could.
bool checkBoundsEvaluate(const EntryChecks& checks, const GenericBindings& generics,
                         DiagnosticEmitter& diagnostics);

}  // namespace linnet::bind
