// SourceManager: owns the text of every source file the compiler reads and
// maps byte offsets to 1-based lines and columns (columns in code points, as
// the spec's diagnostics count them). Spans are byte ranges, end exclusive;
// FileId 0 means "no location" so a default Span is safely empty.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet {

using FileId = uint32_t;
inline constexpr FileId kNoFile = 0;

struct Span {
  FileId file = kNoFile;
  uint32_t begin = 0;
  uint32_t end = 0;

  bool valid() const { return file != kNoFile; }
  // The smallest span covering both; spans of different files keep `this`.
  Span to(Span other) const {
    if (!valid()) return other;
    if (!other.valid() || other.file != file) return *this;
    return Span{file, begin < other.begin ? begin : other.begin,
                end > other.end ? end : other.end};
  }
};

struct LineColumn {
  uint32_t line = 0;    // 1-based
  uint32_t column = 0;  // 1-based, in code points
};

class SourceFile {
 public:
  SourceFile(std::string path, std::string text);

  const std::string& path() const { return path_; }
  std::string_view text() const { return text_; }
  LineColumn lineColumn(uint32_t offset) const;
  // The text of 1-based line `line` without its line terminator.
  std::string_view lineText(uint32_t line) const;
  uint32_t lineCount() const { return static_cast<uint32_t>(lineStarts_.size()); }

 private:
  // Code points before offset `i * kCodePointStride`: lineColumn counts at
  // most one stride of bytes, so a column on a very long line (a program
  // written on one line) costs the same as on a short one.
  static constexpr uint32_t kCodePointStride = 256;
  uint32_t codePointsBefore(uint32_t offset) const;

  std::string path_;
  std::string text_;
  std::vector<uint32_t> lineStarts_;
  std::vector<uint32_t> codePointMarks_;
};

class SourceManager {
 public:
  // Adds an in-memory buffer; `path` is what diagnostics print.
  FileId addBuffer(std::string path, std::string text);
  // Reads a file from disk; nullopt (and `error` set) if it cannot be read.
  std::optional<FileId> addFile(const std::string& path, std::string* error);

  const SourceFile& file(FileId id) const { return *files_.at(id - 1); }
  size_t fileCount() const { return files_.size(); }
  std::string_view text(Span span) const;

 private:
  std::vector<std::unique_ptr<SourceFile>> files_;
};

}  // namespace linnet
