// GPT-2's byte-level alphabet (`bytes_to_unicode` in GPT-2's encoder.py and
// the `tokenizers` ByteLevel pre-tokenizer / decoder): every byte value gets
// a printable code point, so any byte string becomes a string of "visible"
// characters. Bytes '!'..'~', U+00A1..U+00AC and U+00AE..U+00FF map to
// themselves; the other 68 bytes (controls, space, 0x7F..0xA0, 0xAD), in
// increasing order, to U+0100, U+0101, ... (so ' ' -> 'Ġ', '\n' -> 'Ċ').
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace linnet::rt {

// The code point standing for `byte`.
char32_t byteToChar(unsigned char byte);
// The byte a code point stands for; nullopt for code points outside the
// alphabet.
std::optional<unsigned char> charToByte(char32_t c);

// Each byte of `bytes` mapped, as UTF-8.
std::string byteLevelEncode(std::string_view bytes);

// The `tokenizers` ByteLevel decoder for one token: its code points mapped
// back to bytes when every one is in the alphabet, else the token's own
// UTF-8 bytes unchanged. Appends to `out`.
void byteLevelDecodeToken(std::string_view token, std::string &out);

} // namespace linnet::rt
