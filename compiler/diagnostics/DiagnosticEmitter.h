// DiagnosticEmitter: collects diagnostics for one compiler invocation.
//
//   emitter.emit(DiagnosticKind::UnexpectedToken, span, "`)`", tok.describe())
//       .label("expected `)` here")
//       .secondary(openParen, "to close this `(`")
//       .note("...").help("...");
//
// The builder finishes the diagnostic when it goes out of scope. Arguments are
// formatted into the kind's message with fmt. After `limit` errors further
// errors are counted but not stored, so hostile input cannot grow memory
// without bound. The emitter is passed explicitly to each stage; no globals.
#pragma once

#include <fmt/format.h>

#include <string>
#include <vector>

#include "compiler/diagnostics/Diagnostic.h"

namespace linnet {

class DiagnosticEmitter;

class DiagnosticBuilder {
 public:
  DiagnosticBuilder(DiagnosticEmitter* emitter, Diagnostic diagnostic)
      : emitter_(emitter), diagnostic_(std::move(diagnostic)) {}
  DiagnosticBuilder(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder& operator=(const DiagnosticBuilder&) = delete;
  DiagnosticBuilder(DiagnosticBuilder&& other) noexcept
      : emitter_(other.emitter_), diagnostic_(std::move(other.diagnostic_)) {
    other.emitter_ = nullptr;
  }
  ~DiagnosticBuilder();

  // Text printed under the primary span.
  DiagnosticBuilder& label(std::string text);
  // A secondary span (marked with `-`), e.g. the declaration that set an
  // expectation. May be in another file.
  DiagnosticBuilder& secondary(Span span, std::string text);
  DiagnosticBuilder& note(std::string text);
  DiagnosticBuilder& help(std::string text);

 private:
  DiagnosticEmitter* emitter_;
  Diagnostic diagnostic_;
};

class DiagnosticEmitter {
 public:
  explicit DiagnosticEmitter(size_t limit = 200) : limit_(limit) {}

  template <typename... Args>
  DiagnosticBuilder emit(DiagnosticKind kind, Span span, const Args&... args) {
    Diagnostic diagnostic{kind, diagnosticSeverity(kind),
                          fmt::format(fmt::runtime(diagnosticFormat(kind)), args...),
                          {}, {}, {}};
    if (span.valid()) diagnostic.labels.push_back({span, "", true});
    return DiagnosticBuilder(this, std::move(diagnostic));
  }

  void add(Diagnostic diagnostic);

  size_t errorCount() const { return errors_; }
  size_t warningCount() const { return warnings_; }
  bool hasErrors() const { return errors_ != 0; }
  // Diagnostics sorted by file, then position (stable for equal positions).
  std::vector<Diagnostic> sorted() const;
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Drops stored warnings: the spec emits warnings only for programs without errors.
  void dropWarnings();

 private:
  size_t limit_;
  size_t errors_ = 0;
  size_t warnings_ = 0;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace linnet
