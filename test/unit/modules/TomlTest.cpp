// The strict TOML-subset reader: what it accepts, and that everything else
// is one clear error with a span, never a crash.
#include <gtest/gtest.h>

#include "compiler/modules/Toml.h"

namespace linnet::modules {
namespace {

TomlDocument parseOk(std::string_view text) {
  TomlError error;
  std::optional<TomlDocument> document = parseToml(text, &error);
  EXPECT_TRUE(document.has_value()) << error.message;
  return document ? *document : TomlDocument{};
}

TomlError parseError(std::string_view text) {
  TomlError error;
  std::optional<TomlDocument> document = parseToml(text, &error);
  EXPECT_FALSE(document.has_value()) << "accepted: " << text;
  return error;
}

TEST(Toml, ReadsTablesAndScalars) {
  TomlDocument document = parseOk(
      "# a manifest\n"
      "[package]\n"
      "name = \"my-model\"   # trailing comment\n"
      "count = -42\n"
      "big = 9_223_372_036_854_775_807\n"
      "ok = true\n"
      "off = false\n"
      "literal = 'C:\\path'\n"
      "\n"
      "[dependencies]\n"
      "shared = { path = \"../shared\" }\n");
  ASSERT_EQ(document.tables.size(), 3u);
  EXPECT_EQ(document.tables[0].name, "");
  const TomlTable* package = document.find("package");
  ASSERT_NE(package, nullptr);
  EXPECT_EQ(package->find("name")->value.string, "my-model");
  EXPECT_EQ(package->find("count")->value.integer, -42);
  EXPECT_EQ(package->find("big")->value.integer, INT64_MAX);
  EXPECT_TRUE(package->find("ok")->value.boolean);
  EXPECT_FALSE(package->find("off")->value.boolean);
  EXPECT_EQ(package->find("literal")->value.string, "C:\\path");
  const TomlEntry* shared = document.find("dependencies")->find("shared");
  ASSERT_NE(shared, nullptr);
  ASSERT_EQ(shared->value.kind, TomlValue::Kind::InlineTable);
  ASSERT_EQ(shared->value.table.size(), 1u);
  EXPECT_EQ(shared->value.table[0].key, "path");
  EXPECT_EQ(shared->value.table[0].value.string, "../shared");
}

TEST(Toml, SpansCoverKeysAndValues) {
  std::string text = "[package]\nname = \"x\"\n";
  TomlDocument document = parseOk(text);
  const TomlEntry* name = document.find("package")->find("name");
  EXPECT_EQ(text.substr(name->keyBegin, name->keyEnd - name->keyBegin), "name");
  EXPECT_EQ(text.substr(name->value.begin, name->value.end - name->value.begin), "\"x\"");
}

TEST(Toml, StringEscapesAndQuotedKeys) {
  TomlDocument document =
      parseOk("\"quoted key\" = \"tab\\tquote\\\"slash\\\\ \\u00e9 \\U0001F600\"\n");
  const TomlEntry& entry = document.tables[0].entries.at(0);
  EXPECT_EQ(entry.key, "quoted key");
  EXPECT_EQ(entry.value.string, "tab\tquote\"slash\\ \xC3\xA9 \xF0\x9F\x98\x80");
}

TEST(Toml, ArraysMaySpanLines) {
  TomlDocument document = parseOk("authors = [\n  \"a\", # first\n  \"b\",\n]\nn = []\n");
  const TomlEntry* authors = document.tables[0].find("authors");
  ASSERT_EQ(authors->value.array.size(), 2u);
  EXPECT_EQ(authors->value.array[1].string, "b");
  EXPECT_TRUE(document.tables[0].find("n")->value.array.empty());
}

TEST(Toml, CrlfAndEmptyInput) {
  parseOk("");
  parseOk("\r\n\r\n");
  TomlDocument document = parseOk("[package]\r\nname = \"x\"\r\n");
  EXPECT_EQ(document.find("package")->find("name")->value.string, "x");
}

TEST(Toml, RejectsWhatItDoesNotSupport) {
  EXPECT_EQ(parseError("a.b = 1\n").message, "dotted keys are not supported");
  EXPECT_EQ(parseError("[a.b]\n").message, "dotted keys are not supported");
  EXPECT_EQ(parseError("[[bin]]\n").message, "arrays of tables (`[[...]]`) are not supported");
  EXPECT_EQ(parseError("a = \"\"\"x\"\"\"\n").message, "multi-line strings are not supported");
  EXPECT_EQ(parseError("a = 1.5\n").message, "floats, dates and times are not supported");
  EXPECT_EQ(parseError("a = 1979-05-27\n").message, "floats, dates and times are not supported");
  EXPECT_EQ(parseError("a = 0x1F\n").message, "only decimal integers are supported");
  EXPECT_EQ(parseError("a = { b = { c = 1 } }\n").message, "nested inline tables are not supported");
  EXPECT_EQ(parseError("a = [[1]]\n").message, "nested arrays are not supported");
  EXPECT_EQ(parseError("a = [{ b = 1 }]\n").message, "arrays of inline tables are not supported");
  EXPECT_EQ(parseError("a = { b = 1, }\n").message, "trailing comma in an inline table");
  EXPECT_EQ(parseError("a = { b = 1\n}\n").message,
            "an inline table must be closed on the line it opens");
}

TEST(Toml, RejectsMalformedInput) {
  EXPECT_EQ(parseError("a = 1\na = 2\n").message, "key `a` is defined twice");
  EXPECT_EQ(parseError("[t]\n[t]\n").message, "table `[t]` is defined twice");
  EXPECT_EQ(parseError("a = \"open\n").message, "unterminated string");
  EXPECT_EQ(parseError("a = \"\\q\"\n").message, "invalid escape sequence in a string");
  EXPECT_EQ(parseError("a = 1 b = 2\n").message, "expected the end of the line");
  EXPECT_EQ(parseError("a 1\n").message, "expected `=` after key `a`");
  EXPECT_EQ(parseError("a =\n").message, "expected a value");
  EXPECT_EQ(parseError("a = 012\n").message, "an integer may not have leading zeros");
  EXPECT_EQ(parseError("a = 1__0\n").message, "`_` in an integer must be between two digits");
  EXPECT_EQ(parseError("a = 9223372036854775808\n").message, "integer does not fit in 64 bits");
  EXPECT_EQ(parseError("a = [1, 2\n").message, "unterminated array");
  EXPECT_EQ(parseError("a = \"\xff\"\n").message, "the manifest is not valid UTF-8");
  EXPECT_EQ(parseError("a = \"x\x01\"\n").message, "control character in a string");
  EXPECT_EQ(parseError("a = 1\rb = 2\n").message,
            "a carriage return must be followed by a line feed");
  EXPECT_EQ(parseError("a = truex\n").message, "expected a value");
  EXPECT_EQ(parseError("[]\n").message, "expected a key");
}

TEST(Toml, MostNegativeIntegerFits) {
  TomlDocument document = parseOk("a = -9223372036854775808\n");
  EXPECT_EQ(document.tables[0].entries[0].value.integer, INT64_MIN);
}

TEST(Toml, ErrorSpanPointsAtTheProblem) {
  std::string text = "[package]\nname = 'x'\nversion = 1.0\n";
  TomlError error = parseError(text);
  EXPECT_EQ(text.substr(error.begin, 1), "1");
}

TEST(Toml, RejectsOversizedInput) {
  std::string text(kMaxTomlBytes + 1, '#');
  EXPECT_EQ(parseError(text).message, "the manifest is larger than 1 MiB");
}

// Every prefix of a valid manifest, and every single-byte corruption of it,
// must give a document or an error, and an error span inside the text.
TEST(Toml, NeverCrashesOnTruncationsOrCorruptions) {
  std::string text =
      "[package]\nname = \"m\" # c\nversion = '0.1.0'\nlist = [1, \"a\", true]\n"
      "[dependencies]\nd = { path = \"../d\", n = -3 }\n";
  auto check = [](std::string_view input) {
    TomlError error;
    std::optional<TomlDocument> document = parseToml(input, &error);
    if (!document) {
      EXPECT_LE(error.begin, input.size());
      EXPECT_LE(error.end, input.size());
      EXPECT_LE(error.begin, error.end);
      EXPECT_FALSE(error.message.empty());
    }
  };
  for (size_t n = 0; n <= text.size(); ++n) check(std::string_view(text).substr(0, n));
  for (size_t i = 0; i < text.size(); ++i) {
    for (char c : {'\0', '"', '\'', '[', ']', '{', '}', '=', ',', '\n', '\\', '#', '.', '\xC3'}) {
      std::string corrupted = text;
      corrupted[i] = c;
      check(corrupted);
    }
  }
}

}  // namespace
}  // namespace linnet::modules
