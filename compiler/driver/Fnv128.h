// FNV-1a with a 128-bit state (the published FNV prime and offset basis),
// for cache keys: fast, dependency-free and stable across builds and
// machines. Not a cryptographic hash: a key names a build, it does not
// defend against someone forging sources to collide with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace linnet::driver {

class Fnv128 {
public:
  void add(std::string_view bytes) {
    for (unsigned char byte : bytes) {
      state_ ^= byte;
      state_ *= kPrime;
    }
  }
  // A part of a key: its length first, so "ab"+"c" and "a"+"bc" differ.
  void addPart(std::string_view bytes) {
    std::uint64_t size = bytes.size();
    add(std::string_view(reinterpret_cast<const char*>(&size), sizeof size));
    add(bytes);
  }
  std::string hex() const {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out(32, '0');
    unsigned __int128 value = state_;
    for (int i = 31; i >= 0; --i, value >>= 4) out[i] = kDigits[static_cast<unsigned>(value & 0xf)];
    return out;
  }

private:
  // 2^88 + 0x13b, and the offset basis 0x6c62272e07bb014262b821756295c58d.
  static constexpr unsigned __int128 kPrime = (static_cast<unsigned __int128>(1) << 88) + 0x13b;
  unsigned __int128 state_ = (static_cast<unsigned __int128>(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
};

}  // namespace linnet::driver
