// Materialize: turns a BoundModel into what the runtime runs with: the
// weights (in place in the checkpoint's mapping, or converted once at load
// when the model's dtype was overridden) and the zeroed state buffers at the
// bound generics. Both take a byte budget, so a binding can never make the
// process allocate without limit.
#pragma once

#include <cstddef>

#include "compiler/bind/CheckpointBinder.h"
#include "runtime/checkpoint/Weights.h"
#include "runtime/state/StateBuffers.h"

namespace linnet::bind {

rt::Expected<rt::Weights> loadWeights(const BoundModel& model, size_t maxConvertedBytes);
rt::Expected<rt::StateBuffers> allocateState(const BoundModel& model, size_t maxBytes);

}  // namespace linnet::bind
