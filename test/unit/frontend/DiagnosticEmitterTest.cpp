// The emitter drops a word-for-word repeat of a stored diagnostic (the
// lowering reports a function's construct once per entry calling it) and
// keeps every diagnostic that differs in anything shown.
#include <gtest/gtest.h>

#include "compiler/diagnostics/DiagnosticEmitter.h"

namespace linnet::test {
namespace {

Span at(uint32_t begin) { return Span{1, begin, begin + 3}; }  // file 1: any valid id

TEST(DiagnosticEmitter, DropsAnExactRepeat) {
  DiagnosticEmitter d;
  for (int i = 0; i < 2; ++i) d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("here").note("n");
  EXPECT_EQ(d.diagnostics().size(), 1u);
  EXPECT_EQ(d.errorCount(), 1u);
}

TEST(DiagnosticEmitter, KeepsDiagnosticsThatDiffer) {
  DiagnosticEmitter d;
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("here");
  d.emit(DiagnosticKind::UnexpectedToken, at(8), "`)`", "`,`").label("here");    // another place
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`]`", "`,`").label("here");    // another message
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("there");   // another label
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("here").note("n");  // a note more
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("here").help("h");  // a help more
  d.emit(DiagnosticKind::UnexpectedToken, at(4), "`)`", "`,`").label("here").secondary(at(12), "s");
  EXPECT_EQ(d.diagnostics().size(), 7u);
  EXPECT_EQ(d.errorCount(), 7u);
}

}  // namespace
}  // namespace linnet::test
