// Look-ups in the generated tables of UnicodeTables.cpp (see UnicodeTables.h).
#include "runtime/tokenizer/UnicodeTables.h"

#include <algorithm>

namespace linnet::rt::unicode {

namespace {

template <typename Range> const Range *find(std::span<const Range> ranges, char32_t c) {
  // The first range whose end is not below c.
  auto it = std::lower_bound(ranges.begin(), ranges.end(), c,
                             [](const Range &r, char32_t value) { return r.last < value; });
  return it != ranges.end() && it->first <= c ? &*it : nullptr;
}

} // namespace

bool isLetter(char32_t c) {
  if (c < 0x80)
    return (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
  return find(letterRanges(), c) != nullptr;
}

bool isNumber(char32_t c) {
  if (c < 0x80)
    return c >= '0' && c <= '9';
  return find(numberRanges(), c) != nullptr;
}

bool isWhiteSpace(char32_t c) {
  if (c < 0x80)
    return c == ' ' || (c >= 0x09 && c <= 0x0D);
  return find(whiteSpaceRanges(), c) != nullptr;
}

std::uint8_t combiningClass(char32_t c) {
  if (c < 0x300)
    return 0;
  const CombiningClassRange *range = find(combiningClassRanges(), c);
  return range ? range->value : 0;
}

bool isNfc(std::u32string_view text) {
  std::uint8_t last = 0;
  for (char32_t c : text) {
    if (c < 0x300) { // nothing below U+0300 decomposes, combines or has a class
      last = 0;
      continue;
    }
    std::uint8_t ccc = combiningClass(c);
    if (ccc != 0 && last > ccc)
      return false;
    if (find(nfcNoRanges(), c) || find(nfcMaybeRanges(), c))
      return false;
    last = ccc;
  }
  return true;
}

} // namespace linnet::rt::unicode
