// `linnet fmt`: rewrites source files in the one canonical style of
// ast::printModule. A file with syntax errors is never rewritten; a rewrite
// goes through rt::writeFileAtomically (a temporary file beside the target,
// synced and renamed over it), so a crash or a full disk never leaves half a
// file, and a symbolic link stays a link to the file it names. A read-only
// file, and one that changed or vanished while it was formatted, is reported
// and left as it is.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string_view>

#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/driver/Driver.h"
#include "compiler/lex/Lexer.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/Parser.h"
#include "runtime/io/AtomicFile.h"

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
      // As `linnet check` says it: a FIFO, a device or a socket is never read
      // (a FIFO would block), and a link to nothing is missing.
      bool exists = fs::exists(path, ec);
      std::cerr << "linnet: error: cannot read `" << path << "`: "
                << (exists ? "it is not a regular file" : "no such file or directory") << "\n";
      ok = false;
    }
  }
  return files;
}

// Standard input, up to the size a source file may have (SourceManager's
// 2 GiB, as 32-bit spans need): `linnet fmt - < /dev/zero` stops there
// instead of reading until memory runs out. nullopt with `error` set when it
// is too large or cannot be read (`< /`).
std::optional<std::string> readStandardInput(std::string& error) {
  constexpr size_t kLimit = size_t(1) << 31;
  std::string text;
  char chunk[1 << 16];
  while (size_t got = std::fread(chunk, 1, sizeof chunk, stdin)) {
    if (text.size() + got >= kLimit) {
      error = "standard input is too large (2 GiB or more)";
      return std::nullopt;
    }
    text.append(chunk, got);
  }
  if (std::ferror(stdin)) {
    error = "cannot read standard input";
    return std::nullopt;
  }
  return text;
}

// Why `path`, formatted from `original` into `formatted`, must not be
// replaced, or "". Renaming over a file needs only a writable directory, so
// a file without write permission (for this user, or for anyone: `chmod
// a-w`, which even root's rewrite respects here) is refused; so is one whose
// text is no longer what was formatted (an editor saved it meanwhile) or
// that is gone. `*done` is set when it already holds `formatted` (another
// `linnet fmt` of the same file got there first).
std::string refusal(const std::string& path, std::string_view original, std::string_view formatted,
                    bool* done) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) return "it was removed while it was formatted";
  if (!S_ISREG(status.st_mode)) return "it is no longer a regular file";
  std::ifstream in(path, std::ios::binary);
  std::ostringstream now;
  now << in.rdbuf();
  if (in && now.str() == formatted) {
    *done = true;
    return "";
  }
  if ((status.st_mode & 0222) == 0 || access(path.c_str(), W_OK) != 0) return "it is read-only";
  if (!in || now.str() != original) return "it changed while it was formatted";
  return "";
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
      std::string error;
      std::optional<std::string> text = readStandardInput(error);
      if (!text) {
        std::cerr << "linnet: error: " << error << "\n";
        ok = false;
        continue;
      }
      file = sources.addBuffer("<stdin>", std::move(*text));
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
    // `--check -` checks standard input as it checks files (it printed the
    // formatted text and exited 0 whatever the input was).
    if (path == "-" && !options.check) {
      std::cout << formatted;
      continue;
    }
    if (formatted == sources.file(file).text()) continue;
    if (options.check) {
      std::cout << "would reformat " << (path == "-" ? "<stdin>" : path) << "\n";
      wouldReformat = true;
      continue;
    }
    bool done = false;
    std::string why = refusal(path, sources.file(file).text(), formatted, &done);
    if (done) continue;
    if (!why.empty()) {
      std::cerr << "linnet: error: `" << path << "` is not reformatted: " << why << "\n";
      ok = false;
      continue;
    }
    if (rt::Status written = rt::writeFileAtomically(path, formatted); !written) {
      std::cerr << "linnet: error: " << written.message() << "\n";
      ok = false;
    }
  }
  return ok && !wouldReformat ? kExitOk : kExitErrors;
}

}  // namespace linnet::driver
