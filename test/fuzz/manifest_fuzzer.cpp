// Fuzzes the linnet.toml reader: any bytes must give a manifest or E5001
// diagnostics, with spans inside the text and no crash, leak or hang.
#include <cstddef>
#include <cstdint>
#include <string>

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/modules/Manifest.h"
#include "compiler/modules/Toml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);

  linnet::modules::TomlError error;
  std::optional<linnet::modules::TomlDocument> document = linnet::modules::parseToml(text, &error);
  if (!document && (error.begin > error.end || error.end > text.size())) __builtin_trap();

  linnet::SourceManager sources;
  linnet::DiagnosticEmitter diagnostics;
  linnet::FileId file = sources.addBuffer("linnet.toml", text);
  linnet::modules::PackageManifest manifest =
      linnet::modules::readManifest(sources, file, diagnostics);
  if (manifest.valid == diagnostics.hasErrors()) __builtin_trap();
  for (const linnet::Diagnostic& diagnostic : diagnostics.diagnostics()) {
    linnet::Span span = diagnostic.primarySpan();
    if (span.valid() && (span.begin > span.end || span.end > text.size())) __builtin_trap();
  }
  return 0;
}
