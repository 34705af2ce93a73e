// Checker: the static semantics of Linnet (spec chapters 3-9 and 11) over a
// resolved Program. Names are taken from Module::symbolOf, never looked up
// again; shapes are proved with the shape solver under each declaration's
// `where` facts. The result is the typed IR (TypedIR.h).
//
//   auto program = loadProgram(...);
//   resolveProgram(*program, diagnostics);
//   if (!diagnostics.hasErrors()) CheckedProgram checked = checkProgram(*program, diagnostics);
//
// Soundness rule for this incomplete checker: a construct it does not check
// yet gets the Error type silently, so it and its uses are not checked
// either; it never reports an error it is not sure of. docs/checker.md lists
// what is checked and what is not.
#pragma once

#include "compiler/check/TypedIR.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/modules/Program.h"

namespace linnet::check {

CheckedProgram checkProgram(const Program& program, DiagnosticEmitter& diagnostics);

struct CheckOptions {
  // W1002 (unused locals, `_`-prefixed names exempt), reported only when the
  // program has no error. Off by default until the lint tests elsewhere in
  // the tree are updated (docs/checker.md).
  bool unusedLocals = false;
  // W1003 (unused param/buffer/state/sub members), likewise.
  bool unusedMembers = false;
};
CheckedProgram checkProgram(const Program& program, DiagnosticEmitter& diagnostics,
                            const CheckOptions& options);

}  // namespace linnet::check

namespace linnet {
using check::checkProgram;
}
