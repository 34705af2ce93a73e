// The Unicode properties the tokenizer.json pipeline needs, from tables that
// tools/tokenizer/make_unicode_tables.py generates into UnicodeTables.cpp
// (Unicode version: kUnicodeVersion, that of the Python which ran it).
//
//   isLetter      general category L*  (regex \p{L})
//   isNumber      general category N*  (regex \p{N})
//   isWhiteSpace  the White_Space property (regex \s): U+0009..U+000D,
//                 U+0020, U+0085, U+00A0, U+1680, U+2000..U+200A,
//                 U+2028, U+2029, U+202F, U+205F, U+3000 (not U+001C..U+001F,
//                 which Python's str.isspace adds)
//   isNfc         Unicode's NFC quick check (UAX #15): true when the text is
//                 certainly in NFC; false when NFC might change it.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace linnet::rt::unicode {

extern const char kUnicodeVersion[];

struct CodePointRange {
  char32_t first;
  char32_t last; // inclusive
};

struct CombiningClassRange {
  char32_t first;
  char32_t last;
  std::uint8_t value;
};

// The generated tables, sorted and non-overlapping.
std::span<const CodePointRange> letterRanges();
std::span<const CodePointRange> numberRanges();
std::span<const CodePointRange> whiteSpaceRanges();
std::span<const CodePointRange> nfcNoRanges();
std::span<const CodePointRange> nfcMaybeRanges();
std::span<const CombiningClassRange> combiningClassRanges();

bool isLetter(char32_t c);
bool isNumber(char32_t c);
bool isWhiteSpace(char32_t c);
std::uint8_t combiningClass(char32_t c);

// NFC quick check over code points: false for NFC_Quick_Check=No or Maybe,
// or combining marks out of canonical order.
bool isNfc(std::u32string_view text);

} // namespace linnet::rt::unicode
