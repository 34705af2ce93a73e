// `linnet inspect --parameters FILE [--json]`: the parameter manifest of every
// block declared in FILE (spec chapter 10): each `param`, `buffer` and `state`
// reachable through `sub` members, with its dotted path (`[*]` for array
// elements), kind, shape and dtype in the block's own generics, the array
// lengths it repeats over, and whether it is optional.
#pragma once

#include <iosfwd>

#include "compiler/modules/Program.h"

namespace linnet::inspect {

void printParameters(const Program& program, bool json, std::ostream& out);

}  // namespace linnet::inspect
