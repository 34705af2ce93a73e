// The element types the runtime computes with.
//
// This is the runtime's own list, independent of any file format: a format
// reader (e.g. checkpoint/SafeTensors) maps its spelling onto it and rejects
// what is not here. Names are the short lowercase ones the Linnet language
// uses ("bf16", "i32", ...). Sizes are in bytes; bool is stored as one byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace linnet::rt {

enum class DType : std::uint8_t {
  Bool,
  U8,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F64,
  U16,
  U32,
  U64,
};

// Every DType, in declaration order (for tests and tables).
inline constexpr DType kAllDTypes[] = {DType::Bool, DType::U8,  DType::I8,  DType::I16,
                                       DType::I32,  DType::I64, DType::F16, DType::BF16,
                                       DType::F32,  DType::F64, DType::U16, DType::U32, DType::U64};

// Short lowercase name: "bool", "u8", "i8", "i16", "i32", "i64", "f16",
// "bf16", "f32", "f64".
std::string_view dtypeName(DType dtype);

// Size of one element in bytes.
std::size_t dtypeSize(DType dtype);

// Inverse of dtypeName; nullopt for any other spelling.
std::optional<DType> dtypeFromName(std::string_view name);

bool isFloatingPoint(DType dtype);

} // namespace linnet::rt
