// Float type predicates shared by the codegen passes.
#pragma once

#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/TypeUtilities.h>

namespace linnet::codegen {

// bf16 or f16 (or a shaped type of them): floats that the passes compute in
// f32 and round back, as no x86 instruction does their arithmetic.
inline bool isNarrowFloat(mlir::Type t) {
  auto f = mlir::dyn_cast<mlir::FloatType>(mlir::getElementTypeOrSelf(t));
  return f && f.getWidth() < 32;
}

}  // namespace linnet::codegen
