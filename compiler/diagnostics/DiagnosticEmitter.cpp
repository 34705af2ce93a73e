// DiagnosticEmitter: kind tables, the builder, and bounded collection.
#include "compiler/diagnostics/DiagnosticEmitter.h"

#include <algorithm>

namespace linnet {

namespace {
struct KindInfo {
  std::string_view code;
  Severity severity;
  std::string_view format;
};

constexpr KindInfo kKinds[] = {
#define DIAGNOSTIC(Kind, Code, Sev, Format) {#Code, Severity::Sev, Format},
#include "compiler/diagnostics/DiagnosticKinds.def"
};
}  // namespace

std::string_view diagnosticCode(DiagnosticKind kind) {
  return kKinds[static_cast<size_t>(kind)].code;
}
std::string_view diagnosticFormat(DiagnosticKind kind) {
  return kKinds[static_cast<size_t>(kind)].format;
}
Severity diagnosticSeverity(DiagnosticKind kind) {
  return kKinds[static_cast<size_t>(kind)].severity;
}
std::string_view severityName(Severity severity) {
  switch (severity) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

DiagnosticBuilder::~DiagnosticBuilder() {
  if (emitter_) emitter_->add(std::move(diagnostic_));
}

DiagnosticBuilder& DiagnosticBuilder::label(std::string text) {
  if (!diagnostic_.labels.empty()) diagnostic_.labels.front().text = std::move(text);
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::secondary(Span span, std::string text) {
  if (span.valid()) diagnostic_.labels.push_back({span, std::move(text), false});
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::note(std::string text) {
  diagnostic_.notes.push_back(std::move(text));
  return *this;
}

DiagnosticBuilder& DiagnosticBuilder::help(std::string text) {
  diagnostic_.helps.push_back(std::move(text));
  return *this;
}

namespace {

bool sameDiagnostic(const Diagnostic& a, const Diagnostic& b) {
  if (a.kind != b.kind || a.message != b.message || a.notes != b.notes || a.helps != b.helps ||
      a.labels.size() != b.labels.size())
    return false;
  for (size_t i = 0; i < a.labels.size(); ++i) {
    const DiagnosticLabel &x = a.labels[i], &y = b.labels[i];
    if (x.span.file != y.span.file || x.span.begin != y.span.begin || x.span.end != y.span.end ||
        x.text != y.text || x.primary != y.primary)
      return false;
  }
  return true;
}

}  // namespace

void DiagnosticEmitter::add(Diagnostic diagnostic) {
  // A stage that visits one construct once per use (the lowering, once per
  // entry calling a function) may report it again word for word: like rustc,
  // an exact repeat is dropped and not counted.
  for (const Diagnostic& seen : diagnostics_)
    if (sameDiagnostic(seen, diagnostic)) return;
  bool isError = diagnostic.severity == Severity::Error;
  if (isError) ++errors_;
  if (diagnostic.severity == Severity::Warning) ++warnings_;
  if (diagnostics_.size() >= limit_) return;
  diagnostics_.push_back(std::move(diagnostic));
}

std::vector<Diagnostic> DiagnosticEmitter::sorted() const {
  std::vector<Diagnostic> out = diagnostics_;
  std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
    Span sa = a.primarySpan(), sb = b.primarySpan();
    if (sa.file != sb.file) return sa.file < sb.file;
    return sa.begin < sb.begin;
  });
  return out;
}

void DiagnosticEmitter::dropWarnings() {
  std::erase_if(diagnostics_,
                [](const Diagnostic& d) { return d.severity == Severity::Warning; });
  warnings_ = 0;
}

}  // namespace linnet
