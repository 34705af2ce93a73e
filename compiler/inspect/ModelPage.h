// `linnet inspect PACKAGE`: the model page. Sections, in order:
//   Entries   the root block's entries and their signatures (a tab-separated table)
//   Generics  the root block's generics with bound values (only when bound,
//             by --checkpoint and/or --bind, through RootBinding.h)
//   Memory    with --memory: weights and state bytes per top-level member
//   Blocks    every block of the program (the package's own and those its
//             `sub` members reach), sorted by name, with members and functions
// Everything is printed from the parsed sources; nothing is stored. Bound
// values come from the checker's types, so a page with --bind or
// --checkpoint is made of a checked program.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/modules/Program.h"

namespace linnet::inspect {

struct PageOptions {
  std::vector<std::string> binds;  // NAME=VALUE
  std::string checkpoint;          // a Hugging Face checkpoint directory to bind
  bool memory = false;             // add the Memory section (needs a checkpoint)
  std::string root;                // --root BLOCK where several blocks have entries
};

// Returns false (with diagnostics) when the page cannot be made, e.g. no root
// block, or a binding that names no generic or breaks a `where` clause.
// `checked`: the program checked without errors; needed when `options` binds
// anything, may be null otherwise.
bool printModelPage(const Program& program, const check::CheckedProgram* checked,
                    const PageOptions& options, std::ostream& out, DiagnosticEmitter& diagnostics);

}  // namespace linnet::inspect
