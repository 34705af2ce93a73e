// The x86 instructions the generated code calls by their LLVM intrinsic
// (`llvm.call_intrinsic`), where no MLIR op expresses them.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace linnet::codegen {

// `vdpbf16ps` on 512-bit registers (AVX512-BF16): 16 f32 lanes, each adding
// the products of one pair of the 32 bf16 elements of two vectors.
inline constexpr int64_t kDotLanes = 16;
inline constexpr llvm::StringLiteral kDotIntrinsic = "llvm.x86.avx512bf16.dpbf16ps.512";

}  // namespace linnet::codegen
