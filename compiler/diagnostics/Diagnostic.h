// Diagnostic: one error, warning or note with its spec code, primary span,
// secondary labels, related locations (other files) and note/help lines.
// Kinds and their message formats live in DiagnosticKinds.def.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/source/SourceManager.h"

namespace linnet {

enum class DiagnosticKind : uint16_t {
#define DIAGNOSTIC(Kind, Code, Severity, Format) Kind,
#include "compiler/diagnostics/DiagnosticKinds.def"
};

enum class Severity : uint8_t { Error, Warning, Note };

std::string_view diagnosticCode(DiagnosticKind kind);
std::string_view diagnosticFormat(DiagnosticKind kind);
Severity diagnosticSeverity(DiagnosticKind kind);
std::string_view severityName(Severity severity);

struct DiagnosticLabel {
  Span span;
  std::string text;
  bool primary = false;
};

struct Diagnostic {
  DiagnosticKind kind;
  Severity severity;
  std::string message;
  // labels[0] is the primary label when the diagnostic has a location.
  std::vector<DiagnosticLabel> labels;
  std::vector<std::string> notes;
  std::vector<std::string> helps;

  std::string_view code() const { return diagnosticCode(kind); }
  Span primarySpan() const { return labels.empty() ? Span{} : labels.front().span; }
};

}  // namespace linnet
