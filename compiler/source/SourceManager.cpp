// SourceManager: file storage and offset -> line/column mapping.
#include "compiler/source/SourceManager.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace linnet {

namespace {

bool startsCodePoint(char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }

}  // namespace

SourceFile::SourceFile(std::string path, std::string text)
    : path_(std::move(path)), text_(std::move(text)) {
  lineStarts_.push_back(0);
  codePointMarks_.reserve(text_.size() / kCodePointStride + 1);
  uint32_t codePoints = 0;
  for (uint32_t i = 0; i < text_.size(); ++i) {
    if (i % kCodePointStride == 0) codePointMarks_.push_back(codePoints);
    if (text_[i] == '\n') lineStarts_.push_back(i + 1);
    codePoints += startsCodePoint(text_[i]);
  }
  if (text_.size() % kCodePointStride == 0) codePointMarks_.push_back(codePoints);
}

// Every byte that is not a UTF-8 continuation byte starts a code point.
uint32_t SourceFile::codePointsBefore(uint32_t offset) const {
  uint32_t mark = offset / kCodePointStride;
  uint32_t count = codePointMarks_[mark];
  for (uint32_t i = mark * kCodePointStride; i < offset; ++i) count += startsCodePoint(text_[i]);
  return count;
}

LineColumn SourceFile::lineColumn(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  auto it = std::upper_bound(lineStarts_.begin(), lineStarts_.end(), offset);
  uint32_t lineIndex = static_cast<uint32_t>(it - lineStarts_.begin()) - 1;
  uint32_t begin = lineStarts_[lineIndex];
  // A byte-order mark is not part of the text: the first character is column 1.
  if (begin == 0 && text_.starts_with("\xEF\xBB\xBF")) begin = std::min<uint32_t>(3, offset);
  return {lineIndex + 1, codePointsBefore(offset) - codePointsBefore(begin) + 1};
}

std::string_view SourceFile::lineText(uint32_t line) const {
  if (line == 0 || line > lineStarts_.size()) return {};
  uint32_t begin = lineStarts_[line - 1];
  uint32_t end = line < lineStarts_.size() ? lineStarts_[line] : text_.size();
  std::string_view view(text_.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r')) view.remove_suffix(1);
  return view;
}

FileId SourceManager::addBuffer(std::string path, std::string text) {
  files_.push_back(std::make_unique<SourceFile>(std::move(path), std::move(text)));
  return static_cast<FileId>(files_.size());
}

std::optional<FileId> SourceManager::addFile(const std::string& path, std::string* error) {
  // Only a regular file: a FIFO would block the read forever and a device
  // (`/dev/zero`) never end it.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (error) *error = std::filesystem::exists(path, ec) ? "`" + path + "` is not a regular file" : "cannot read `" + path + "`";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = "cannot read `" + path + "`";
    return std::nullopt;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  // Spans use 32-bit offsets; refuse files that could overflow them.
  if (buffer.str().size() >= (1u << 31)) {
    if (error) *error = "`" + path + "` is too large (2 GiB or more)";
    return std::nullopt;
  }
  return addBuffer(path, buffer.str());
}

std::string_view SourceManager::text(Span span) const {
  if (!span.valid()) return {};
  std::string_view all = file(span.file).text();
  if (span.begin > all.size()) return {};
  return all.substr(span.begin, std::min<size_t>(span.end, all.size()) - span.begin);
}

}  // namespace linnet
