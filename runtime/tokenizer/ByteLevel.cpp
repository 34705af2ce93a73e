// Implementation of ByteLevel.h.
#include "runtime/tokenizer/ByteLevel.h"

#include "runtime/tokenizer/Utf8.h"

#include <array>

namespace linnet::rt {

namespace {

bool mapsToItself(unsigned b) {
  return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Tables {
  std::array<char32_t, 256> toChar{};
  std::array<std::string, 256> toUtf8;
  std::array<int, 512> toByte{}; // every image is below U+0200

  Tables() {
    toByte.fill(-1);
    char32_t next = 0x100;
    for (unsigned b = 0; b < 256; ++b) {
      toChar[b] = mapsToItself(b) ? static_cast<char32_t>(b) : next++;
      toByte[toChar[b]] = static_cast<int>(b);
      appendUtf8(toUtf8[b], toChar[b]);
    }
  }
};

const Tables &tables() {
  static const Tables instance;
  return instance;
}

} // namespace

char32_t byteToChar(unsigned char byte) { return tables().toChar[byte]; }

std::optional<unsigned char> charToByte(char32_t c) {
  if (c >= 512 || tables().toByte[c] < 0)
    return std::nullopt;
  return static_cast<unsigned char>(tables().toByte[c]);
}

std::string byteLevelEncode(std::string_view bytes) {
  const Tables &t = tables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes)
    out += t.toUtf8[static_cast<unsigned char>(b)];
  return out;
}

void byteLevelDecodeToken(std::string_view token, std::string &out) {
  std::size_t start = out.size();
  Expected<std::u32string> chars = decodeUtf8(token);
  if (chars) {
    for (char32_t c : *chars) {
      std::optional<unsigned char> b = charToByte(c);
      if (!b) {
        out.resize(start);
        out.append(token);
        return;
      }
      out.push_back(static_cast<char>(*b));
    }
    return;
  }
  out.append(token);
}

} // namespace linnet::rt
