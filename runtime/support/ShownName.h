// A user-supplied name or value as an error message quotes it: a 10 MB
// `--entry` or calls-file key made a 10 MB error line, and a control byte in
// one (an escape sequence) could garble the terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace linnet::rt {

// Longer than this, a name is shortened to its first kShownHeadBytes.
inline constexpr std::size_t kShownNameBytes = 80;
inline constexpr std::size_t kShownHeadBytes = 60;

// `text` with control bytes and bytes that are not UTF-8 escaped (`\n`,
// `\t`, `\x1b`); past kShownNameBytes, its first kShownHeadBytes (not
// splitting a character) followed by `... (N bytes)`.
std::string shownName(std::string_view text);

// The same for a longer text (a message a template raises, a parser's
// error): escaped, and past `limit` bytes its first `limit - 20`.
inline constexpr std::size_t kShownTextBytes = 1024;
std::string shownText(std::string_view text, std::size_t limit = kShownTextBytes);

// A whole error message as the terminal gets it: its lines and tabs kept,
// every other control byte escaped (a path holding an escape sequence, which
// messages quote whole, set the terminal's title and cleared its screen).
std::string shownMessage(std::string_view text);

} // namespace linnet::rt
