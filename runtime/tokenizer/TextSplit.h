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
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/support/Status.h"

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
  // dropped, so no segment is empty. An error when the added tokens make
  // the text too slow to split (kWorkPerByte).
  Expected<std::vector<TextSegment>> split(std::string_view text) const;

  // Bytes of the added tokens a split may walk per byte of its text, beyond
  // kWorkAllowance: a real set of added tokens walks one or two (they
  // differ early), crafted ones (`ab`, `aab`, ... `a...ab`) up to their
  // length at every byte, minutes for one prompt.
  static constexpr std::size_t kWorkPerByte = 64;
  static constexpr std::size_t kWorkAllowance = std::size_t{1} << 24;

private:
  struct Node {
    std::vector<std::pair<std::uint8_t, std::uint32_t>> next; // by byte, sorted
    std::ptrdiff_t entry = -1; // the first entry whose content ends here
  };
  std::vector<Entry> entries_;
  // The entries' contents as a trie of bytes (the root is nodes_[0]): the
  // deepest entry on the walk from a position is the longest match there.
  std::vector<Node> nodes_;
};

// Python's str.lstrip() / str.rstrip() with no argument, on UTF-8.
std::string_view stripLeadingSpace(std::string_view text);
std::string_view stripTrailingSpace(std::string_view text);

} // namespace linnet::rt
