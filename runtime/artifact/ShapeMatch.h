// Binding an entry's dims from its arguments' shapes, and checking shapes.
//
// matchShapes() follows docs/abi.md and ENTRIES.md's rule that every shape is
// checked before anything runs:
//   1. each dim of the entry is bound from the first argument axis whose
//      expression is exactly that dim's name;
//   2. dims still unbound come from the caller's binds (an error naming the
//      dim if there is none); a bind that disagrees with an argument, or
//      names neither a dim nor an integer generic of the manifest (or gives
//      a generic a value other than the one the artifact was built with), is
//      an error;
//   3. every axis of every argument is evaluated and compared.
// Dims must lie in 0..kMaxDim. Messages name the argument, the axis, the
// expected expression and its value.
#pragma once

#include "runtime/artifact/DimExpr.h"
#include "runtime/artifact/Manifest.h"
#include "runtime/support/Status.h"

#include <cstdint>
#include <span>
#include <vector>

namespace linnet::rt {

inline constexpr std::int64_t kMaxDim = std::int64_t{1} << 31;

// Returns the environment for the call: the manifest's integer generics and
// every dim of `entry`. `argShapes` are in the order of `entry.args`.
Expected<DimEnv> matchShapes(const Manifest &manifest, const EntrySpec &entry,
                             std::span<const std::vector<std::int64_t>> argShapes, const DimEnv &binds);

// Evaluates a shape in `env` (e.g. a result's); negative or overflowing
// sizes are errors. `what` names the tensor in messages ("result 0").
Expected<std::vector<std::int64_t>> evaluateShape(std::span<const DimExpr> shape, const DimEnv &env,
                                                  std::string_view what);

// "[B, S + 1]" for messages.
std::string formatShapeExprs(std::span<const DimExpr> shape);

// "(x: f32[S_0, 4]), (x: f32[S_0, S_1, 4])": the arguments of each variant of
// an entry (the first few, then how many more), for messages.
std::string formatVariants(std::span<const EntrySpec *const> variants);

} // namespace linnet::rt
