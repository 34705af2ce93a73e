// `linnet.toml` semantics on top of the TOML reader: required keys, the
// language version, package names and dependency keys (including reserved
// words, which no lexer sees there), and path dependencies.
#include <gtest/gtest.h>

#include "compiler/diagnostics/DiagnosticRenderer.h"
#include "compiler/modules/Manifest.h"
#include "test/unit/modules/TestTree.h"

namespace linnet::modules {
namespace {

struct Read {
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  PackageManifest manifest;
};

std::unique_ptr<Read> read(std::string text) {
  auto result = std::make_unique<Read>();
  FileId file = result->sources.addBuffer("linnet.toml", std::move(text));
  result->manifest = readManifest(result->sources, file, result->diagnostics);
  return result;
}

const char* kValid =
    "[package]\n"
    "name = \"my-model\"\n"
    "version = \"0.1.0\"\n"
    "language = \"0.1\"\n"
    "description = \"ignored metadata\"\n"
    "\n"
    "[dependencies]\n"
    "shared_layers = { path = \"../shared-layers\" }\n"
    "other = {path='vendor/other'}\n";

TEST(Manifest, ReadsAValidManifest) {
  auto r = read(kValid);
  EXPECT_TRUE(r->manifest.valid) << test::describe(r->diagnostics);
  EXPECT_TRUE(r->diagnostics.diagnostics().empty());
  EXPECT_EQ(r->manifest.name, "my-model");
  EXPECT_EQ(r->manifest.moduleName, "my_model");
  EXPECT_EQ(r->manifest.version, "0.1.0");
  EXPECT_EQ(r->manifest.language, "0.1");
  ASSERT_EQ(r->manifest.dependencies.size(), 2u);
  EXPECT_EQ(r->manifest.dependencies[0].key, "shared_layers");
  EXPECT_EQ(r->manifest.dependencies[0].path, "../shared-layers");
  EXPECT_EQ(r->manifest.findDependency("other")->path, "vendor/other");
  EXPECT_EQ(r->manifest.findDependency("missing"), nullptr);
}

TEST(Manifest, MissingPackageTable) {
  auto r = read("[dependencies]\n");
  EXPECT_FALSE(r->manifest.valid);
  EXPECT_EQ(test::codes(r->diagnostics), std::vector<std::string>{"E5001"});
  EXPECT_EQ(r->diagnostics.diagnostics()[0].message, "package manifest has no `[package]` table");
}

TEST(Manifest, MissingKeysAreEachReported) {
  auto r = read("[package]\nname = \"x\"\n");
  EXPECT_EQ(test::describe(r->diagnostics),
            "E5001 `[package]` has no `version` key\n"
            "E5001 `[package]` has no `language` key\n");
}

TEST(Manifest, LanguageVersionMustBeImplemented) {
  auto r = read("[package]\nname = \"x\"\nversion = \"1\"\nlanguage = \"0.2\"\n");
  EXPECT_EQ(test::describe(r->diagnostics),
            "E5001 language version `0.2` is not implemented by this toolchain\n");
  ASSERT_EQ(r->diagnostics.diagnostics()[0].helps.size(), 1u);
  EXPECT_EQ(r->diagnostics.diagnostics()[0].helps[0],
            "this toolchain implements language version `0.1`");
}

TEST(Manifest, WrongValueKinds) {
  auto r = read("[package]\nname = 3\nversion = \"\"\nlanguage = [\"0.1\"]\n");
  EXPECT_EQ(test::describe(r->diagnostics),
            "E5001 `name` must be a string, not an integer\n"
            "E5001 `version` must be a non-empty string, not an empty one\n"
            "E5001 `language` must be a string, not an array\n");
}

TEST(Manifest, PackageNames) {
  EXPECT_TRUE(read("[package]\nname = \"a_b-c\"\nversion = \"1\"\nlanguage = \"0.1\"\n")
                  ->manifest.valid);
  auto digit = read("[package]\nname = \"1model\"\nversion = \"1\"\nlanguage = \"0.1\"\n");
  EXPECT_EQ(test::describe(digit->diagnostics),
            "E5001 package name `1model` cannot name a module\n");
  auto reserved = read("[package]\nname = \"async\"\nversion = \"1\"\nlanguage = \"0.1\"\n");
  EXPECT_EQ(test::describe(reserved->diagnostics),
            "E1004 `async` is a reserved word and cannot name a package\n");
  auto keyword = read("[package]\nname = \"type\"\nversion = \"1\"\nlanguage = \"0.1\"\n");
  EXPECT_EQ(test::codes(keyword->diagnostics), std::vector<std::string>{"E1004"});
}

TEST(Manifest, Dependencies) {
  std::string head = "[package]\nname = \"x\"\nversion = \"1\"\nlanguage = \"0.1\"\n[dependencies]\n";
  EXPECT_EQ(test::describe(read(head + "std = { path = \"../s\" }\n")->diagnostics),
            "E5001 dependency key `std` must be an identifier other than `std` and `crate`\n");
  EXPECT_EQ(test::describe(read(head + "my-dep = { path = \"../s\" }\n")->diagnostics),
            "E5001 dependency key `my-dep` must be an identifier other than `std` and `crate`\n");
  EXPECT_EQ(test::describe(read(head + "trait = { path = \"../s\" }\n")->diagnostics),
            "E1004 `trait` is a reserved word and cannot name a dependency\n");
  EXPECT_EQ(test::describe(read(head + "d = \"1.0\"\n")->diagnostics),
            "E5001 dependency `d` must be a path dependency\n");
  EXPECT_EQ(test::describe(read(head + "d = { git = \"u\" }\n")->diagnostics),
            "E5001 dependency `d` must be a path dependency\n");
  EXPECT_EQ(test::describe(read(head + "d = { path = \"../d\", version = \"1\" }\n")->diagnostics),
            "E5001 dependency `d` must be a path dependency\n");
  EXPECT_EQ(test::describe(read(head + "d = { path = \"/abs/d\" }\n")->diagnostics),
            "E5001 the path of dependency `d` must be relative to the manifest\n");
}

TEST(Manifest, UnknownTablesAndRootKeys) {
  auto r = read("edition = 1\n[package]\nname = \"x\"\nversion = \"1\"\nlanguage = \"0.1\"\n"
                "[tool]\n");
  EXPECT_EQ(test::describe(r->diagnostics),
            "E5001 malformed package manifest: keys must be inside a table\n"
            "E5001 unknown table `[tool]` in package manifest\n");
}

TEST(Manifest, SyntaxErrorRendersWithItsSpan) {
  auto r = read("[package]\nname = \"x\nversion = \"1\"\n");
  ASSERT_EQ(r->diagnostics.diagnostics().size(), 1u);
  std::ostringstream out;
  renderText(r->sources, r->diagnostics.sorted(), out);
  EXPECT_EQ(out.str(),
            "error E5001: malformed package manifest: unterminated string\n"
            "\n"
            "  --> linnet.toml:2:8\n"
            "   |\n"
            " 2 | name = \"x\n"
            "   |        ^^\n");
}

TEST(Manifest, PackageModuleName) {
  EXPECT_EQ(packageModuleName("my-model"), "my_model");
  EXPECT_EQ(packageModuleName("phi3"), "phi3");
}

}  // namespace
}  // namespace linnet::modules
