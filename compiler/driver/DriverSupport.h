// What every command shares: rendering the diagnostics a run collected and
// the exit code they imply (0 ok, 1 errors, or warnings under --strict).
#pragma once

#include "compiler/diagnostics/DiagnosticEmitter.h"
#include "compiler/driver/Driver.h"
#include "compiler/source/SourceManager.h"

namespace linnet::driver {

// Text to stderr, or with `json` one JSON document to stdout. Warnings are
// shown only when there is no error.
int finishDiagnostics(const CommonOptions& common, const SourceManager& sources,
                      DiagnosticEmitter& diagnostics, bool json = false, bool strict = false);

}  // namespace linnet::driver
