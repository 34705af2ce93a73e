// Renders diagnostics as the spec prints them: text (rustc-like snippets with
// carets, `= note:` and `= help:` lines) or the versioned JSON document.
#pragma once

#include <iosfwd>
#include <vector>

#include "compiler/diagnostics/Diagnostic.h"
#include "compiler/source/SourceManager.h"

namespace linnet {

struct RenderOptions {
  bool color = false;
};

void renderText(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics,
                std::ostream& out, RenderOptions options = {});
void renderJson(const SourceManager& sources, const std::vector<Diagnostic>& diagnostics,
                std::ostream& out);

}  // namespace linnet
