// Checks on argument values that the manifest asks for (`entries[].checks`),
// run after the shapes are matched and before the entry is called, and the
// entry's relations on its dims (`entries[].requires`), run as soon as the
// dims are bound.
//
// The runtime knows no model: which argument holds token ids or positions,
// and their bounds, come from the compiler as rules over the manifest's
// generics and the entry's dims (docs/abi.md). Today's one rule kind is
// `range`: every element e of the argument satisfies min <= e < max, with
// each bound a dim expression evaluated in the call's environment (either
// may be absent). Float arguments compare as doubles; NaN fails every bound.
#pragma once

#include "runtime/artifact/DimExpr.h"
#include "runtime/artifact/Manifest.h"
#include "runtime/session/HostTensor.h"
#include "runtime/support/Status.h"

#include <span>

namespace linnet::rt {

// The entry's `requires` (relations between its dims and the generics that
// its compiled code assumes), evaluated once the dims are bound. The first
// one that fails is an Error naming the entry, the relation, where it comes
// from and the values of the names it uses:
//   entry `first` needs S > 0 (`where` clause), but S = 0
Status checkDimRequirements(const EntrySpec &entry, const DimEnv &env);

// `args` are in the order of `entry.args`. The first violation is an Error
// naming the argument, the element's index and value, and the bound
// (expression and value).
Status checkArgumentValues(const EntrySpec &entry, std::span<const HostTensor *const> args, const DimEnv &env);

} // namespace linnet::rt
