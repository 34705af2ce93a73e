// Implementation of Utf8.h, following the Unicode standard's table of
// well-formed byte sequences (3.9, Table 3-7).
#include "runtime/tokenizer/Utf8.h"

#include <cstdint>

namespace linnet::rt {

namespace {

// Where the sequence starting at `pos` is well-formed, its length and value;
// otherwise length 0 and in `bad` the length of the maximal ill-formed
// subpart (at least 1).
struct Decoded {
  std::size_t length = 0;
  std::size_t bad = 1;
  char32_t value = 0;
};

Decoded decodeOne(std::string_view text, std::size_t pos) {
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  std::uint8_t lead = byte(pos);
  Decoded out;
  if (lead < 0x80) {
    out.length = 1;
    out.value = lead;
    return out;
  }
  std::size_t need;
  std::uint8_t lo = 0x80, hi = 0xBF; // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    need = 1;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    need = 2;
    if (lead == 0xE0)
      lo = 0xA0;
    if (lead == 0xED)
      hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    need = 3;
    if (lead == 0xF0)
      lo = 0x90;
    if (lead == 0xF4)
      hi = 0x8F;
  } else {
    return out; // 0x80..0xC1, 0xF5..0xFF: never a lead byte
  }
  char32_t value = lead & (0x3F >> need);
  for (std::size_t i = 1; i <= need; ++i) {
    if (pos + i >= text.size())
      return {0, i, 0};
    std::uint8_t b = byte(pos + i);
    std::uint8_t min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xBF;
    if (b < min || b > max)
      return {0, i, 0};
    value = (value << 6) | (b & 0x3F);
  }
  out.length = need + 1;
  out.value = value;
  return out;
}

} // namespace

Expected<std::u32string> decodeUtf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    Decoded d = decodeOne(text, pos);
    if (d.length == 0)
      return makeError("the text is not valid UTF-8 (byte offset {})", pos);
    out.push_back(d.value);
    pos += d.length;
  }
  return out;
}

void appendUtf8(std::string &out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string toUtf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text)
    appendUtf8(out, c);
  return out;
}

std::string toUtf8Lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t pos = 0; pos < bytes.size();) {
    Decoded d = decodeOne(bytes, pos);
    if (d.length > 0) {
      out.append(bytes.substr(pos, d.length));
      pos += d.length;
    } else {
      out.append("\xEF\xBF\xBD");
      pos += d.bad;
    }
  }
  return out;
}

} // namespace linnet::rt
