// UTF-8 <-> code points for the tokenizer.json pipeline.
//
// decodeUtf8 is strict (no overlong forms, surrogates or values above
// U+10FFFF: what a Python str or a Rust &str can hold); toUtf8Lossy repairs
// bytes the way Rust's String::from_utf8_lossy does, which is what the
// `tokenizers` ByteLevel decoder returns: each maximal ill-formed subpart
// becomes one U+FFFD.
#pragma once

#include "runtime/support/Status.h"

#include <string>
#include <string_view>

namespace linnet::rt {

// The code points of `text`, or an Error naming the byte offset of the
// first ill-formed sequence.
Expected<std::u32string> decodeUtf8(std::string_view text);

void appendUtf8(std::string &out, char32_t c);
std::string toUtf8(std::u32string_view text);

std::string toUtf8Lossy(std::string_view bytes);

} // namespace linnet::rt
