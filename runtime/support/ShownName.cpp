// Implementation of ShownName.h.
#include "runtime/support/ShownName.h"

#include <fmt/format.h>

#include <cstdint>

namespace linnet::rt {

namespace {

// The length of the UTF-8 character at the start of `text` if it is a
// valid, printable one (not a C1 control), else 0.
std::size_t printableUtf8Length(std::string_view text) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char lead = byte(0);
  std::size_t length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (lead >= 0xf5 || length == 0 || length > text.size())
    return 0;
  std::uint32_t code = lead & (0x7f >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xc0) != 0x80)
      return 0;
    code = (code << 6) | (byte(i) & 0x3f);
  }
  // Overlong forms, surrogates and C1 controls are escaped, and so are the
  // controls of bidirectional text, which would reorder the rest of the
  // line on a terminal (U+202E in a name reversed what followed it).
  static constexpr std::uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
  if (code < kLeast[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff) || code < 0xa0)
    return 0;
  if (code == 0x061c || code == 0x200e || code == 0x200f || (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069))
    return 0;
  return length;
}

void appendEscaped(std::string &out, std::string_view text, bool keepLines = false) {
  for (std::size_t i = 0; i < text.size();) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c >= 0x20 && c < 0x7f) || (keepLines && (c == '\n' || c == '\t'))) {
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (std::size_t length = c >= 0x80 ? printableUtf8Length(text.substr(i)) : 0) {
      out += text.substr(i, length);
      i += length;
    } else {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    }
  }
}

// `text` escaped; past `limit` bytes, its first `head` (not splitting a
// character) and its length.
std::string shown(std::string_view text, std::size_t limit, std::size_t head) {
  std::string out;
  if (text.size() <= limit) {
    appendEscaped(out, text);
    return out;
  }
  // Not in the middle of a UTF-8 character (at most three bytes back).
  for (int back = 0; back < 3 && head > 0 && (static_cast<unsigned char>(text[head]) & 0xc0) == 0x80; ++back)
    --head;
  appendEscaped(out, text.substr(0, head));
  out += fmt::format("... ({} bytes)", text.size());
  return out;
}

} // namespace

std::string shownName(std::string_view text) { return shown(text, kShownNameBytes, kShownHeadBytes); }

std::string shownText(std::string_view text, std::size_t limit) { return shown(text, limit, limit - 20); }

std::string shownMessage(std::string_view text) {
  std::string out;
  appendEscaped(out, text, /*keepLines=*/true);
  return out;
}

} // namespace linnet::rt
