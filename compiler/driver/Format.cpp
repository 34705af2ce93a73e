// `linnet fmt`: rewrites source files in the one canonical style of
// ast::printModule. A file with syntax errors is never rewritten; a rewrite
// goes to a temporary file in the same directory that is then renamed over
// the original, so a crash or a full disk never leaves half a file.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/driver/Driver.h"
#include "compiler/lex/Lexer.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/Parser.h"

namespace linnet::driver {

namespace {

namespace fs = std::filesystem;

// Files named on the command line, and `*.linnet` under directories (sorted,
// skipping dot-directories and `build`), as `linnet check` collects them.
std::vector<std::string> collectFiles(const std::vector<std::string>& paths, bool& ok) {
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      std::vector<std::string> found;
      fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
      for (; !ec && it != end; it.increment(ec)) {
        std::string name = it->path().filename().string();
        if (it->is_directory(ec) && (name.starts_with(".") || name == "build")) {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file(ec) && it->path().extension() == ".linnet") found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(path, ec) || path == "-") {
      files.push_back(path);
    } else {
      std::cerr << "linnet: error: cannot read `" << path << "`\n";
      ok = false;
    }
  }
  return files;
}

bool writeAtomically(const std::string& path, const std::string& text) {
  fs::path target(path);
  fs::path temporary = target;
  temporary += ".linnet-fmt-" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ignored;
      fs::remove(temporary, ignored);
      return false;
    }
  }
  std::error_code ec;
  fs::permissions(temporary, fs::status(target, ec).permissions(), ec);
  fs::rename(temporary, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    return false;
  }
  return true;
}

}  // namespace

int runFormat(const CommonOptions& common, const FormatOptions& options) {
  bool ok = true;
  bool wouldReformat = false;
  std::vector<std::string> files = collectFiles(options.paths, ok);
  for (const std::string& path : files) {
    SourceManager sources;
    DiagnosticEmitter diagnostics;
    FileId file;
    if (path == "-") {
      std::stringstream text;
      text << std::cin.rdbuf();
      file = sources.addBuffer("<stdin>", text.str());
    } else {
      std::string error;
      std::optional<FileId> loaded = sources.addFile(path, &error);
      if (!loaded) {
        std::cerr << "linnet: error: " << error << "\n";
        ok = false;
        continue;
      }
      file = *loaded;
    }
    TokenizedBuffer tokens = lex(sources, file, diagnostics);
    std::unique_ptr<ast::SourceModule> module = parse(sources, tokens, diagnostics);
    if (diagnostics.hasErrors()) {
      renderText(sources, diagnostics.sorted(), std::cerr, RenderOptions{common.color});
      ok = false;
      continue;
    }
    std::string formatted = ast::printModule(*module);
    if (path == "-") {
      std::cout << formatted;
      continue;
    }
    if (formatted == sources.file(file).text()) continue;
    if (options.check) {
      std::cout << "would reformat " << path << "\n";
      wouldReformat = true;
      continue;
    }
    if (!writeAtomically(path, formatted)) {
      std::cerr << "linnet: error: cannot write `" << path << "`\n";
      ok = false;
    }
  }
  return ok && !wouldReformat ? kExitOk : kExitErrors;
}

}  // namespace linnet::driver
