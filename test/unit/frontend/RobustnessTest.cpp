// Hostile inputs: deep nesting is one "nesting is too deep" error, long
// operator and postfix chains neither recurse per link nor build trees too
// deep for recursive consumers, and unterminated constructs end cleanly.
#include <gtest/gtest.h>

#include <sstream>

#include "FrontendTestUtil.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/source/SourceManager.h"

namespace linnet::test {
namespace {

std::string repeat(std::string_view piece, size_t count) {
  std::string out;
  out.reserve(piece.size() * count);
  for (size_t i = 0; i < count; ++i) out += piece;
  return out;
}

std::string inReturn(const std::string& expr) {
  return "module m\nfn f() -> i32 {\n    return " + expr + "\n}\n";
}

size_t countMessage(const Parsed& p, std::string_view text) {
  size_t n = 0;
  for (const std::string& m : p.messages()) n += m.find(text) != std::string::npos;
  return n;
}

// The tree must also survive printing and dumping (both recursive).
void exercise(const Parsed& p) {
  std::string printed = ast::printModule(*p.module);
  std::ostringstream dump;
  ast::dumpAST(*p.module, dump);
  SUCCEED();
}

constexpr size_t kHuge = 100000;

TEST(Robustness, NestingBelowTheLimitParses) {
  auto p = parseText(inReturn(repeat("(", 100) + "x" + repeat(")", 100)));
  EXPECT_TRUE(p->ok());
  auto q = parseText(inReturn(repeat("[", 100) + repeat("]", 100)));
  EXPECT_TRUE(q->ok());
}

TEST(Robustness, DeepParenthesesAreOneError) {
  auto p = parseText(inReturn(repeat("(", kHuge) + "x" + repeat(")", kHuge)));
  EXPECT_EQ(p->codes(), std::vector<std::string>{"E1101"});
  EXPECT_EQ(countMessage(*p, "nesting is too deep"), 1u);
  exercise(*p);
}

TEST(Robustness, UnclosedParenthesesAndBrackets) {
  for (const char* open : {"(", "[", "some(", "f(", "x[", "-(", "{", "if a { "}) {
    auto p = parseText(inReturn(repeat(open, kHuge)));
    EXPECT_TRUE(p->diagnostics.hasErrors()) << open;
    EXPECT_LE(p->diagnostics.errorCount(), 2u) << open;
    exercise(*p);
  }
}

TEST(Robustness, DeepBracesInABody) {
  auto p = parseText("module m\nfn f() {\n" + repeat("{", kHuge) + repeat("}", kHuge) + "\n}\n");
  EXPECT_TRUE(p->diagnostics.hasErrors());
  EXPECT_LE(p->diagnostics.errorCount(), 2u);
  auto q = parseText("module m\n" + repeat("{", kHuge));
  EXPECT_EQ(q->diagnostics.errorCount(), 1u);
}

TEST(Robustness, DeepNestingOfEveryKind) {
  std::vector<std::string> inputs = {
      inReturn(repeat("sum[i] ", kHuge) + "x"),
      inReturn(repeat("match x { A => ", kHuge)),
      inReturn(repeat("f<", kHuge) + "B" + repeat(">(x)", kHuge)),
      inReturn(repeat("a<", kHuge) + "b" + repeat(">", kHuge) + "(x)"),
      inReturn(repeat("for i in 0..N { let a = ", kHuge)),
      "module m\nfn f(x: " + repeat("Tensor[", kHuge) + ") {}\n",
      "module m\nfn f(x: " + repeat("A<", kHuge) + "B" + repeat(">", kHuge) + ") {}\n",
      "module m\nfn f(x: " + repeat("(", kHuge) + ") {}\n",
      "module m\nfn f() {\n    let " + repeat("(", kHuge) + "\n}\n",
      "module m\n" + repeat("block B {\n", kHuge),
      "module m\nfn f() {\n" + repeat("static for x in xs {\n", kHuge),
  };
  for (const std::string& input : inputs) {
    auto p = parseText(input);
    EXPECT_TRUE(p->diagnostics.hasErrors()) << input.substr(0, 60);
    EXPECT_LE(p->diagnostics.errorCount(), 2u) << input.substr(0, 60);
    exercise(*p);
  }
}

TEST(Robustness, LongOperatorChainsLoop) {
  // Within the limit a chain parses; a chain beyond it is one error (the
  // tree would be too deep for recursive consumers), found without
  // recursing per operator.
  auto ok = parseText(inReturn(repeat("a + ", 200) + "a"));
  EXPECT_TRUE(ok->ok());
  auto p = parseText(inReturn(repeat("a + ", kHuge) + "a"));
  EXPECT_EQ(p->codes(), std::vector<std::string>{"E1101"});
  auto mixed = parseText(inReturn(repeat("a * b - c && ", kHuge) + "a"));
  EXPECT_EQ(mixed->codes(), std::vector<std::string>{"E1101"});
  exercise(*mixed);
}

TEST(Robustness, LongPostfixChainsLoop) {
  for (const char* link : {".y", "(x)", "[0]"}) {
    auto p = parseText(inReturn("x" + repeat(link, kHuge)));
    EXPECT_EQ(p->codes(), std::vector<std::string>{"E1101"}) << link;
    exercise(*p);
  }
}

TEST(Robustness, ManyStatementsAndItemsAreFine) {
  auto p = parseText("module m\nfn f() {\n" + repeat("    let a = 1\n", 20000) + "}\n" +
                     repeat("const C = 1\n", 20000));
  EXPECT_TRUE(p->ok());
  EXPECT_EQ(p->module->items.size(), 20001u);
}

TEST(Robustness, UnterminatedEverything) {
  for (const char* text :
       {"module", "module m\nuse", "module m\nuse std.", "module m\nuse a::{", "module m\nfn",
        "module m\nfn f", "module m\nfn f<", "module m\nfn f(", "module m\nfn f(x", "module m\nfn f(x:",
        "module m\nfn f() ->", "module m\nfn f() -> T where", "module m\nfn f() {",
        "module m\nfn f() { let", "module m\nfn f() { let x =", "module m\nfn f() { return a +",
        "module m\nfn f() { return match x {", "module m\nfn f() { return if c {",
        "module m\nblock B {", "module m\nblock B { param", "module m\nstruct S {", "module m\nenum E {",
        "module m\nkernel k() -> y: f32 grid(", "module m\nop o() -> f32 {} grad(",
        "module m\nfn f() { static for", "module m\nfn f() { x = \"abc", "module m\n/* /*",
        "module m\nfn f() { return x[1:", "module m\nfn f() { return sum<f32>[",
        "module m\nfn f() { return f<A, B>(", "module m\nconst A: Tensor[N;"}) {
    auto p = parseText(text);
    EXPECT_TRUE(p->diagnostics.hasErrors()) << text;
    EXPECT_LE(p->diagnostics.errorCount(), 2u) << text;
    exercise(*p);
  }
}

TEST(Robustness, GarbageIsBounded) {
  std::string garbage;
  for (int i = 0; i < 50000; ++i) garbage += char(i * 7919 % 256);
  auto p = parseText(garbage);
  EXPECT_TRUE(p->diagnostics.hasErrors());
  exercise(*p);
  auto q = parseText("module m\n" + repeat(")]}>,;:=", 20000));
  EXPECT_TRUE(q->diagnostics.hasErrors());
  exercise(*q);
}

// Columns count code points from the line's start (after a byte-order mark)
// through an index of every 256 bytes, so that a column on a line of
// megabytes costs no more than on a short one; they must equal the count.
TEST(Robustness, ColumnsOnLongLinesCountCodePoints) {
  const std::string_view pieces[] = {"a", " ", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xFF"};
  for (bool bom : {false, true}) {
    std::string text = bom ? "\xEF\xBB\xBF" : "";
    for (int i = 0; i < 6000; ++i) {
      text += pieces[(i * 7 + i / 13) % 6];
      if (i % 2500 == 2499) text += "\n";
    }
    SourceFile file("long.linnet", text);
    uint32_t line = 1, column = 1;
    for (uint32_t offset = 0; offset <= text.size(); ++offset) {
      if (!(bom && offset < 3)) {
        LineColumn lc = file.lineColumn(offset);
        ASSERT_EQ(lc.line, line) << "offset " << offset;
        ASSERT_EQ(lc.column, column) << "offset " << offset;
      }
      if (offset == text.size()) break;
      if (text[offset] == '\n') {
        ++line;
        column = 1;
      } else if ((static_cast<unsigned char>(text[offset]) & 0xC0) != 0x80 && !(bom && offset < 3)) {
        ++column;
      }
    }
  }
  SourceFile empty("empty.linnet", "");
  EXPECT_EQ(empty.lineColumn(0).column, 1u);
  SourceFile exact("exact.linnet", std::string(512, 'x'));
  EXPECT_EQ(exact.lineColumn(512).column, 513u);
  EXPECT_EQ(exact.lineColumn(256).column, 257u);
}

}  // namespace
}  // namespace linnet::test
