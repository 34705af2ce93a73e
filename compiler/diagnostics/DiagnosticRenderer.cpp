// Text and JSON rendering of diagnostics, in the layout the spec shows:
//
//   error E2103: tensor dtypes do not match
//
//     --> file.linnet:7:12
//      |
//    7 |     return x + y
//      |            ^^^^^ label
//      |
//      = note: ...
//      = help: ...
//
// Source lines are shown with tabs expanded and control characters replaced
// by U+FFFD; markers are placed by display column.
#include "compiler/diagnostics/DiagnosticRenderer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>

#include "runtime/support/ShownName.h"

namespace linnet {

namespace {

constexpr int kTabWidth = 4;

// One source line made printable, with a byte-offset -> display-column map.
struct DisplayLine {
  std::string text;
  std::vector<uint32_t> columnOfByte;  // size = bytes + 1
};

DisplayLine makeDisplayLine(std::string_view raw) {
  DisplayLine line;
  line.columnOfByte.resize(raw.size() + 1, 0);
  uint32_t column = 0;
  size_t i = 0;
  while (i < raw.size()) {
    unsigned char c = static_cast<unsigned char>(raw[i]);
    size_t length = 1;
    if (c >= 0x80) {
      length = (c >= 0xF0) ? 4 : (c >= 0xE0) ? 3 : (c >= 0xC0) ? 2 : 1;
      if (i + length > raw.size()) length = 1;
      bool valid = length > 1;
      for (size_t k = 1; k < length && valid; ++k)
        valid = (static_cast<unsigned char>(raw[i + k]) & 0xC0) == 0x80;
      for (size_t k = 0; k < length; ++k) line.columnOfByte[i + k] = column;
      // Bidirectional controls (U+202A-202E, U+2066-2069, U+200E/F, U+061C)
      // would reorder the rest of the printed line: shown as U+FFFD, as
      // other controls are.
      auto bidi = [&] {
        std::string_view c3 = raw.substr(i, length);
        return c3 == "\xD8\x9C" || c3 == "\xE2\x80\x8E" || c3 == "\xE2\x80\x8F" ||
               (c3.size() == 3 && c3.substr(0, 2) == "\xE2\x80" && (unsigned char)c3[2] >= 0xAA &&
                (unsigned char)c3[2] <= 0xAE) ||
               (c3.size() == 3 && c3.substr(0, 2) == "\xE2\x81" && (unsigned char)c3[2] >= 0xA6 &&
                (unsigned char)c3[2] <= 0xA9);
      };
      if (valid && !bidi()) line.text.append(raw.substr(i, length));
      else if (valid) line.text.append("\xEF\xBF\xBD");
      else { line.text.append("\xEF\xBF\xBD"); length = 1; }
      column += 1;
    } else if (c == '\t') {
      line.columnOfByte[i] = column;
      uint32_t next = (column / kTabWidth + 1) * kTabWidth;
      line.text.append(next - column, ' ');
      column = next;
    } else if (c < 0x20 || c == 0x7F) {
      line.columnOfByte[i] = column;
      line.text.append("\xEF\xBF\xBD");
      column += 1;
    } else {
      line.columnOfByte[i] = column;
      line.text.push_back(static_cast<char>(c));
      column += 1;
    }
    i += length;
  }
  line.columnOfByte[raw.size()] = column;
  return line;
}

struct LineMarker {
  uint32_t startColumn;
  uint32_t width;
  bool primary;
  std::string text;
};

// A message, label, note or path as printed: control bytes (an escape
// sequence in a name from bindings.json, a NUL), bytes that are not UTF-8
// and bidirectional controls escaped; past a few KiB shortened (a 10 MB
// identifier made a 10 MB message). Source lines in snippets are shown by
// makeDisplayLine instead.
constexpr size_t kShownMessageBytes = 4096;
std::string shown(std::string_view text) { return rt::shownText(text, kShownMessageBytes); }

std::string styled(const RenderOptions& options, std::string_view code, std::string_view text) {
  if (!options.color) return std::string(text);
  return fmt::format("\x1b[{}m{}\x1b[0m", code, text);
}

// A source line longer than this many bytes is shown as a window of that
// size starting a little before its first marker, with `...` for the parts
// left out: 200 diagnostics on a line of a gigabyte (a minified or generated
// file) print kilobytes, not hundreds of gigabytes.
constexpr size_t kLongLine = 4096;
constexpr size_t kLongLineContext = 120;  // bytes shown before the first marker

// Prints the snippet lines of `labels` (all in one file).
void renderSnippet(const SourceFile& file, const std::vector<const DiagnosticLabel*>& labels,
                   size_t gutter, std::ostream& out, const RenderOptions& options) {
  struct ByteMarker {
    uint32_t startByte;
    uint32_t endByte;
    const DiagnosticLabel* label;
  };
  std::map<uint32_t, std::vector<ByteMarker>> byteMarkers;
  std::string_view all = file.text();
  for (const DiagnosticLabel* label : labels) {
    LineColumn start = file.lineColumn(label->span.begin);
    LineColumn end = file.lineColumn(label->span.end);
    std::string_view raw = file.lineText(start.line);
    uint32_t lineStartOffset = static_cast<uint32_t>(raw.data() - all.data());
    uint32_t startByte = label->span.begin - std::min(label->span.begin, lineStartOffset);
    uint32_t endByte = end.line == start.line ? label->span.end - lineStartOffset
                                              : static_cast<uint32_t>(raw.size());
    startByte = std::min<uint32_t>(startByte, raw.size());
    endByte = std::clamp<uint32_t>(endByte, startByte, raw.size());
    byteMarkers[start.line].push_back({startByte, endByte, label});
  }

  std::map<uint32_t, std::vector<LineMarker>> byLine;
  std::map<uint32_t, DisplayLine> displays;
  for (const auto& [lineNumber, markers] : byteMarkers) {
    std::string_view raw = file.lineText(lineNumber);
    size_t windowBegin = 0;
    size_t windowEnd = raw.size();
    if (raw.size() > kLongLine) {
      uint32_t first = markers.front().startByte;
      for (const ByteMarker& m : markers) first = std::min(first, m.startByte);
      windowBegin = first > kLongLineContext ? first - kLongLineContext : 0;
      windowEnd = std::min(raw.size(), windowBegin + kLongLine);
      // Whole characters only: no window edge inside a UTF-8 sequence.
      auto continuation = [&](size_t i) { return (static_cast<unsigned char>(raw[i]) & 0xC0) == 0x80; };
      while (windowBegin > 0 && windowBegin < raw.size() && continuation(windowBegin)) --windowBegin;
      while (windowEnd < raw.size() && windowEnd > windowBegin && continuation(windowEnd)) --windowEnd;
    }
    std::string prefix = windowBegin > 0 ? "..." : "";
    DisplayLine display = makeDisplayLine(raw.substr(windowBegin, windowEnd - windowBegin));
    if (!prefix.empty()) {
      display.text = prefix + display.text;
      for (uint32_t& column : display.columnOfByte) column += static_cast<uint32_t>(prefix.size());
    }
    if (windowEnd < raw.size()) display.text += "...";
    auto column = [&](uint32_t byte) {
      size_t clamped = std::clamp<size_t>(byte, windowBegin, windowEnd) - windowBegin;
      return display.columnOfByte[clamped];
    };
    for (const ByteMarker& m : markers) {
      uint32_t startColumn = column(m.startByte);
      uint32_t endColumn = column(m.endByte);
      uint32_t width = std::max<uint32_t>(1, endColumn - startColumn);
      byLine[lineNumber].push_back({startColumn, width, m.label->primary, shown(m.label->text)});
    }
    displays[lineNumber] = std::move(display);
  }

  std::string blank(gutter, ' ');
  std::string bar = styled(options, "1;34", "|");
  uint32_t previousLine = 0;
  for (auto& [lineNumber, markers] : byLine) {
    if (previousLine != 0 && lineNumber > previousLine + 1) out << "...\n";
    previousLine = lineNumber;
    std::sort(markers.begin(), markers.end(),
              [](const LineMarker& a, const LineMarker& b) { return a.startColumn < b.startColumn; });
    const DisplayLine& display = displays[lineNumber];
    out << styled(options, "1;34", fmt::format("{:>{}}", lineNumber, gutter)) << " " << bar;
    if (!display.text.empty()) out << " " << display.text;
    out << "\n";

    std::string markerLine;
    for (const LineMarker& m : markers) {
      if (markerLine.size() < m.startColumn) markerLine.append(m.startColumn - markerLine.size(), ' ');
      markerLine.append(m.width, m.primary ? '^' : '-');
    }
    size_t withText = std::count_if(markers.begin(), markers.end(),
                                    [](const LineMarker& m) { return !m.text.empty(); });
    if (withText == 1 && markers.size() == 1) {
      markerLine += " " + markers.front().text;
      withText = 0;
    }
    out << blank << " " << bar << " " << styled(options, "1;31", markerLine) << "\n";
    if (withText == 0) continue;
    // Several labels on one line: their texts go on the line(s) below, each
    // starting at its marker's column, sharing a line while they do not touch.
    std::vector<const LineMarker*> pending;
    for (const LineMarker& m : markers)
      if (!m.text.empty()) pending.push_back(&m);
    while (!pending.empty()) {
      std::string textLine;
      std::vector<const LineMarker*> rest;
      for (const LineMarker* m : pending) {
        if (textLine.empty() || textLine.size() + 1 < m->startColumn) {
          if (textLine.size() < m->startColumn) textLine.append(m->startColumn - textLine.size(), ' ');
          textLine += m->text;
        } else {
          rest.push_back(m);
        }
      }
      out << blank << " " << bar << " " << textLine << "\n";
      pending = std::move(rest);
    }
  }
}

}  // namespace

void renderText(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics,
                std::ostream& out, RenderOptions options) {
  bool first = true;
  for (const Diagnostic& d : diagnostics) {
    if (!first) out << "\n";
    first = false;
    std::string_view severity = severityName(d.severity);
    std::string header = d.code().empty() ? std::string(severity)
                                          : fmt::format("{} {}", severity, d.code());
    out << styled(options, d.severity == Severity::Error ? "1;31" : "1;33", header)
        << styled(options, "1", fmt::format(": {}", shown(d.message))) << "\n";

    // Gutter width: max(2, digits of the largest line number shown).
    uint32_t maxLine = 0;
    for (const DiagnosticLabel& label : d.labels) {
      LineColumn lc = sources.file(label.span.file).lineColumn(label.span.begin);
      maxLine = std::max(maxLine, lc.line);
    }
    size_t gutter = std::max<size_t>(2, fmt::format("{}", maxLine).size());
    std::string blank(gutter, ' ');
    std::string bar = styled(options, "1;34", "|");

    if (!d.labels.empty()) {
      out << "\n";
      // Group labels by file, the primary label's file first.
      std::vector<FileId> fileOrder;
      for (const DiagnosticLabel& label : d.labels)
        if (std::find(fileOrder.begin(), fileOrder.end(), label.span.file) == fileOrder.end())
          fileOrder.push_back(label.span.file);
      for (size_t f = 0; f < fileOrder.size(); ++f) {
        const SourceFile& file = sources.file(fileOrder[f]);
        std::vector<const DiagnosticLabel*> labels;
        for (const DiagnosticLabel& label : d.labels)
          if (label.span.file == fileOrder[f]) labels.push_back(&label);
        LineColumn at = file.lineColumn(labels.front()->span.begin);
        if (f > 0) out << blank << " " << bar << "\n";
        out << blank << styled(options, "1;34", f == 0 ? "-->" : ":::") << " " << shown(file.path())
            << ":" << at.line << ":" << at.column << "\n";
        out << blank << " " << bar << "\n";
        renderSnippet(file, labels, gutter, out, options);
      }
    }
    if (!d.notes.empty() || !d.helps.empty()) {
      out << blank << " " << bar << "\n";
      for (const std::string& note : d.notes)
        out << blank << " = " << styled(options, "1", "note") << ": " << shown(note) << "\n";
      for (const std::string& help : d.helps)
        out << blank << " = " << styled(options, "1", "help") << ": " << shown(help) << "\n";
    }
  }
}

namespace {
nlohmann::ordered_json jsonLocation(const SourceManager& sources, Span span) {
  if (!span.valid()) return nullptr;
  const SourceFile& file = sources.file(span.file);
  LineColumn start = file.lineColumn(span.begin);
  LineColumn end = file.lineColumn(span.end);
  nlohmann::ordered_json location;
  location["file"] = file.path();
  location["start"] = {{"line", start.line}, {"column", start.column}, {"offset", span.begin}};
  location["end"] = {{"line", end.line}, {"column", end.column}, {"offset", span.end}};
  return location;
}
}  // namespace

void renderJson(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics,
                std::ostream& out) {
  nlohmann::ordered_json document;
  document["version"] = 1;
  document["diagnostics"] = nlohmann::ordered_json::array();
  size_t errors = 0, warnings = 0;
  for (const Diagnostic& d : diagnostics) {
    if (d.severity == Severity::Error) ++errors;
    if (d.severity == Severity::Warning) ++warnings;
    nlohmann::ordered_json entry;
    entry["code"] = std::string(d.code());
    entry["severity"] = std::string(severityName(d.severity));
    entry["message"] = shown(d.message);
    entry["label"] = d.labels.empty() || d.labels.front().text.empty()
                         ? nlohmann::ordered_json(nullptr)
                         : nlohmann::ordered_json(shown(d.labels.front().text));
    entry["location"] = jsonLocation(sources, d.primarySpan());
    entry["related"] = nlohmann::ordered_json::array();
    for (size_t i = 1; i < d.labels.size(); ++i)
      entry["related"].push_back(
          {{"location", jsonLocation(sources, d.labels[i].span)}, {"message", shown(d.labels[i].text)}});
    entry["notes"] = nlohmann::ordered_json::array();
    for (const std::string& note : d.notes) entry["notes"].push_back(shown(note));
    entry["help"] = nlohmann::ordered_json::array();
    for (const std::string& help : d.helps) entry["help"].push_back(shown(help));
    document["diagnostics"].push_back(std::move(entry));
  }
  document["summary"] = {{"errors", errors}, {"warnings", warnings}};
  out << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

}  // namespace linnet
