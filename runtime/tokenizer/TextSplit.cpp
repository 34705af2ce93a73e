// Implementation of TextSplit.h. The added tokens are a trie of bytes: the
// walk from a position down the trie meets every token that starts there,
// the deepest the longest.
#include "runtime/tokenizer/TextSplit.h"

#include <algorithm>
#include <cstdint>

namespace linnet::rt {

namespace {

// Python's str.isspace(): Unicode White_Space minus nothing, plus the
// ASCII information separators 0x1C..0x1F.
bool isPythonSpace(char32_t c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x1F))
    return true;
  switch (c) {
  case 0x85:
  case 0xA0:
  case 0x1680:
  case 0x2028:
  case 0x2029:
  case 0x202F:
  case 0x205F:
  case 0x3000:
    return true;
  default:
    return c >= 0x2000 && c <= 0x200A;
  }
}

// Decodes the code point that starts at `text[pos]`; returns its byte
// length, or 0 if the bytes there are not well-formed UTF-8.
std::size_t decodeAt(std::string_view text, std::size_t pos, char32_t &out) {
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[i]); };
  std::uint8_t lead = byte(pos);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
  if (length == 0 || pos + length > text.size())
    return 0;
  char32_t c = length == 1 ? lead : lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(pos + i) & 0xC0) != 0x80)
      return 0;
    c = (c << 6) | (byte(pos + i) & 0x3F);
  }
  out = c;
  return length;
}

} // namespace

std::string_view stripLeadingSpace(std::string_view text) {
  std::size_t pos = 0;
  char32_t c = 0;
  while (pos < text.size()) {
    std::size_t length = decodeAt(text, pos, c);
    if (length == 0 || !isPythonSpace(c))
      break;
    pos += length;
  }
  return text.substr(pos);
}

std::string_view stripTrailingSpace(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t start = end - 1; // back up to the lead byte (at most 3 steps)
    while (start > 0 && end - start < 4 && (static_cast<std::uint8_t>(text[start]) & 0xC0) == 0x80)
      --start;
    char32_t c = 0;
    if (decodeAt(text, start, c) != end - start || !isPythonSpace(c))
      break;
    end = start;
  }
  return text.substr(0, end);
}

AddedTokenMatcher::AddedTokenMatcher(std::vector<Entry> entries) : entries_(std::move(entries)), nodes_(1) {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].content.empty())
      continue;
    std::uint32_t node = 0;
    for (char c : entries_[i].content) {
      auto byte = static_cast<std::uint8_t>(c);
      auto &next = nodes_[node].next;
      auto it = std::lower_bound(next.begin(), next.end(), std::make_pair(byte, std::uint32_t{0}));
      if (it == next.end() || it->first != byte) {
        auto child = static_cast<std::uint32_t>(nodes_.size());
        next.insert(it, {byte, child});
        nodes_.emplace_back(); // invalidates `next`, used no more
        node = child;
      } else {
        node = it->second;
      }
    }
    if (nodes_[node].entry < 0)
      nodes_[node].entry = static_cast<std::ptrdiff_t>(i);
  }
}

Expected<std::vector<TextSegment>> AddedTokenMatcher::split(std::string_view text) const {
  std::vector<TextSegment> segments;
  std::size_t plainStart = 0;
  std::size_t pos = 0;
  std::size_t work = 0;
  std::size_t budget = kWorkAllowance + kWorkPerByte * text.size();
  while (pos < text.size() && nodes_.size() > 1) {
    std::ptrdiff_t match = -1;
    std::uint32_t node = 0;
    for (std::size_t at = pos; at < text.size(); ++at) {
      const auto &next = nodes_[node].next;
      auto byte = static_cast<std::uint8_t>(text[at]);
      auto it = std::lower_bound(next.begin(), next.end(), std::make_pair(byte, std::uint32_t{0}));
      if (it == next.end() || it->first != byte)
        break;
      node = it->second;
      if (nodes_[node].entry >= 0)
        match = nodes_[node].entry;
      if (++work > budget)
        return makeError("the added tokens make this text of {} bytes too slow to split (more than {} bytes of "
                         "them walked per byte of text)",
                         text.size(), kWorkPerByte);
    }
    if (match < 0) {
      ++pos;
      continue;
    }
    std::size_t length = entries_[static_cast<std::size_t>(match)].content.size();
    if (pos > plainStart)
      segments.push_back({text.substr(plainStart, pos - plainStart), -1});
    segments.push_back({text.substr(pos, length), match});
    pos += length;
    plainStart = pos;
  }
  if (plainStart < text.size())
    segments.push_back({text.substr(plainStart), -1});

  // Stripping only ever touches plain text next to a stripping token.
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].added < 0)
      continue;
    const Entry &entry = entries_[static_cast<std::size_t>(segments[i].added)];
    if (entry.rstrip && i + 1 < segments.size() && segments[i + 1].added < 0)
      segments[i + 1].text = stripLeadingSpace(segments[i + 1].text);
    if (entry.lstrip && i > 0 && segments[i - 1].added < 0)
      segments[i - 1].text = stripTrailingSpace(segments[i - 1].text);
  }
  std::erase_if(segments, [](const TextSegment &s) { return s.added < 0 && s.text.empty(); });
  return segments;
}

} // namespace linnet::rt
