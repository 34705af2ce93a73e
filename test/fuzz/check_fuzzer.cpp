// Fuzzes the whole front end as `linnet check` runs it: any bytes, loaded as
// a module with the standard library available, must lex, parse, resolve and
// type-check (lints on) without a crash, hang or sanitizer report; every
// diagnostic label must lie inside its file's text, and the text and JSON
// renderers must take the diagnostics without trouble.
//
// The loader reads files only, so each input is written to one file in a
// per-process temporary directory. That directory is a copy of the phi3
// package (its linnet.toml and src/), with the input beside src/ as a
// package file that is not importable: `use crate.attention` and the seeds
// taken from models/phi3/src check as they do in the repository, and
// standalone programs (test/check/*.linnet) check as they do alone.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "compiler/check/Checker.h"
#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/modules/Program.h"

#ifndef LINNET_SOURCE_DIR
#error "LINNET_SOURCE_DIR must name the repository root (set by check_fuzzer.cmake)"
#endif

namespace fs = std::filesystem;

namespace {

struct Workspace {
  std::string root;     // the temporary package directory
  std::string input;    // where each input is written
  std::string stdDir;   // the repository's stdlib/
};

// Built once per process: a fresh directory, so parallel jobs never share it.
const Workspace& workspace() {
  static const Workspace built = [] {
    Workspace ws;
    std::string pattern = (fs::temp_directory_path() / "linnet-check-fuzz-XXXXXX").string();
    if (!mkdtemp(pattern.data())) {
      std::perror("check_fuzzer: mkdtemp");
      std::abort();
    }
    ws.root = pattern;
    fs::path source(LINNET_SOURCE_DIR);
    fs::path phi3 = source / "models" / "phi3";
    std::error_code ec;
    fs::copy_file(phi3 / "linnet.toml", fs::path(ws.root) / "linnet.toml", ec);
    if (!ec) fs::copy(phi3 / "src", fs::path(ws.root) / "src", fs::copy_options::recursive, ec);
    if (ec) {
      std::fprintf(stderr, "check_fuzzer: cannot copy %s: %s\n", phi3.c_str(),
                   ec.message().c_str());
      std::abort();
    }
    ws.input = (fs::path(ws.root) / "fuzz.linnet").string();
    ws.stdDir = (source / "stdlib").string();
    return ws;
  }();
  return built;
}

void removeWorkspace() {
  std::error_code ec;
  fs::remove_all(workspace().root, ec);
}

void writeInput(const std::string& path, const uint8_t* data, size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "check_fuzzer: cannot write %s\n", path.c_str());
    std::abort();
  }
}

// Every label of every diagnostic lies inside the text of its file.
void checkSpans(const linnet::SourceManager& sources, const linnet::DiagnosticEmitter& diagnostics) {
  for (const linnet::Diagnostic& diagnostic : diagnostics.diagnostics()) {
    for (const linnet::DiagnosticLabel& label : diagnostic.labels) {
      if (!label.span.valid()) continue;
      if (label.span.file > sources.fileCount()) __builtin_trap();
      size_t size = sources.file(label.span.file).text().size();
      if (label.span.begin > label.span.end || label.span.end > size) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  workspace();
  std::atexit(removeWorkspace);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Workspace& ws = workspace();
  writeInput(ws.input, data, size);

  // As runCheck in compiler/driver/Driver.cpp.
  linnet::SourceManager sources;
  linnet::DiagnosticEmitter diagnostics;
  std::unique_ptr<linnet::Program> program =
      linnet::loadProgram(sources, diagnostics, {ws.input}, linnet::LoadOptions{ws.stdDir});
  if (!diagnostics.hasErrors()) linnet::resolveProgram(*program, diagnostics);
  if (!diagnostics.hasErrors())
    linnet::checkProgram(*program, diagnostics,
                         linnet::check::CheckOptions{.unusedLocals = true, .unusedMembers = true});
  checkSpans(sources, diagnostics);

  if (diagnostics.hasErrors()) diagnostics.dropWarnings();
  std::vector<linnet::Diagnostic> sorted = diagnostics.sorted();
  std::ostringstream text;
  linnet::renderText(sources, sorted, text);
  std::ostringstream json;
  linnet::renderJson(sources, sorted, json);
  return 0;
}
