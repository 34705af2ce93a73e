// Names and sizes of the runtime's element types (see DType.h). One table
// keeps the name and size of each type together so they cannot drift apart.
#include "runtime/support/DType.h"

namespace linnet::rt {

namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
  bool floatingPoint;
};

constexpr DTypeInfo kDTypeInfo[] = {
    {DType::Bool, "bool", 1, false}, {DType::U8, "u8", 1, false},    {DType::I8, "i8", 1, false},
    {DType::I16, "i16", 2, false},   {DType::I32, "i32", 4, false},  {DType::I64, "i64", 8, false},
    {DType::F16, "f16", 2, true},    {DType::BF16, "bf16", 2, true}, {DType::F32, "f32", 4, true},
    {DType::F64, "f64", 8, true},    {DType::U16, "u16", 2, false},  {DType::U32, "u32", 4, false},
    {DType::U64, "u64", 8, false},
};

// The table is indexed by the enum value; check the order at compile time.
constexpr bool tableMatchesEnum() {
  for (std::size_t i = 0; i < std::size(kDTypeInfo); ++i)
    if (static_cast<std::size_t>(kDTypeInfo[i].dtype) != i)
      return false;
  return std::size(kDTypeInfo) == std::size(kAllDTypes);
}
static_assert(tableMatchesEnum(), "kDTypeInfo must list every DType in enum order");

const DTypeInfo &info(DType dtype) { return kDTypeInfo[static_cast<std::size_t>(dtype)]; }

} // namespace

std::string_view dtypeName(DType dtype) { return info(dtype).name; }

std::size_t dtypeSize(DType dtype) { return info(dtype).size; }

bool isFloatingPoint(DType dtype) { return info(dtype).floatingPoint; }

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const DTypeInfo &entry : kDTypeInfo)
    if (entry.name == name)
      return entry.dtype;
  return std::nullopt;
}

} // namespace linnet::rt
