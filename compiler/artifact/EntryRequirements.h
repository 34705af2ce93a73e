// EntryRequirements: the relations on an entry's dims that its compiled code
// assumes and that only a call can check (the manifest's `entries[].requires`,
// docs/abi.md): the entry's own `where` clauses, and the requirements the
// checker left for compile-time indices it could neither prove nor refute
// (check::CheckedFunction::requirements: `0 < S` for `x[0]` on an axis of
// extent `S`), the entry's own and those of every user function it calls,
// mapped into the entry's generics through each call's substitution
// (check::CallBinding::subst). The runtime evaluates them once a call's dims
// are bound and refuses the call before anything runs.
//
// Each relation is written in the manifest's dim-expression grammar over the
// entry's dims and the root block's Dim generics (which stay names: the
// manifest records their values). A relation that names no dim of the entry
// is evaluated here with the bound generics and left out when it holds (the
// binder reports the root block's own; docs/checker.md, "Constant indices").
// One the grammar cannot spell (`min`, `max`, a pack's `len`/`prod`) or that
// names anything else is left out and counted in `omitted`.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/bind/GenericValues.h"
#include "compiler/check/TypedIR.h"
#include "compiler/manifest/ProgramBlocks.h"
#include "compiler/source/SourceManager.h"

namespace linnet::artifact {

struct DimRequirement {
  std::string lhs, relation, rhs;  // dim expressions and "==", "!=", "<", "<=", ">", ">="
  std::string why;                 // "`where` clause", "index `0` in `last` at model.linnet:12:20"
};

struct EntryRequirements {
  std::map<std::string, std::vector<DimRequirement>> byEntry;  // entry name -> its relations, deduplicated
  size_t omitted = 0;  // relations left out because the manifest cannot express them
};

// For every one of `entries` (manifest::programEntries). `generics` are the
// root block's bound values.
EntryRequirements entryRequirements(const check::CheckedProgram& program,
                                    const std::vector<manifest::EntryRef>& entries,
                                    const bind::GenericBindings& generics, const SourceManager& sources);

}  // namespace linnet::artifact
