// Splitting text at added tokens, as transformers' slow tokenizers do before
// SentencePiece sees anything.
//
// The text is scanned left to right; at each position the longest added
// token that starts there wins (transformers' Trie does the same). Tokens
// marked lstrip / rstrip then eat the whitespace of the neighbouring text
// (Python's str.isspace set, so U+00A0 and U+3000 count too). Matching is
// on raw bytes: added tokens are compared exactly, never normalized.
// Assumes valid UTF-8 only for the whitespace test; other bytes are kept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt {

struct TextSegment {
  std::string_view text; // points into the split text
  std::ptrdiff_t added;  // index of the matched added token, or -1 for plain text
};

class AddedTokenMatcher {
public:
  struct Entry {
    std::string content; // non-empty
    bool lstrip = false;
    bool rstrip = false;
  };

  AddedTokenMatcher() = default;
  explicit AddedTokenMatcher(std::vector<Entry> entries);

  // Segments in order; plain-text segments emptied by stripping are
  // dropped, so no segment is empty.
  std::vector<TextSegment> split(std::string_view text) const;

private:
  std::vector<Entry> entries_;
  // For each first byte, the entries starting with it, longest first.
  std::vector<std::vector<std::size_t>> byFirstByte_;
};

// Python's str.lstrip() / str.rstrip() with no argument, on UTF-8.
std::string_view stripLeadingSpace(std::string_view text);
std::string_view stripTrailingSpace(std::string_view text);

} // namespace linnet::rt
