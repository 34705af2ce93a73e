// loadProgram on small trees written per test: the std directory search,
// file collection, every `use` root, module/file agreement, manifests of
// packages and dependencies, import cycles, and the inspect queries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "compiler/modules/Program.h"
#include "test/unit/modules/TestTree.h"

namespace linnet {
namespace {

using modules::test::codes;
using modules::test::describe;
using modules::test::TempTree;

const char* kManifest = "[package]\nname = \"app\"\nversion = \"0.1.0\"\nlanguage = \"0.1\"\n";

struct Loaded {
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program;
};

std::unique_ptr<Loaded> load(const std::vector<std::string>& paths, std::string stdDir = "") {
  auto loaded = std::make_unique<Loaded>();
  loaded->program = loadProgram(loaded->sources, loaded->diagnostics, paths, LoadOptions{stdDir});
  return loaded;
}

std::vector<std::string> moduleNames(const Program& program) {
  std::vector<std::string> names;
  for (const auto& module : program.modules()) names.push_back(module->name);
  return names;
}

TEST(FindStdDir, EnvironmentWins) {
  EXPECT_EQ(findStdDir("/nowhere/bin/linnet", "/opt/std"), "/opt/std");
}

TEST(FindStdDir, SearchesUpFromTheExecutable) {
  TempTree tree;
  tree.write("repo/stdlib/random.linnet", "module std.random\n");
  tree.write("repo/build/bin/linnet", "");
  EXPECT_EQ(findStdDir(tree.path("repo/build/bin/linnet"), nullptr), tree.path("repo/stdlib"));
  tree.write("prefix/share/linnet/stdlib/random.linnet", "module std.random\n");
  tree.write("prefix/bin/linnet", "");
  EXPECT_EQ(findStdDir(tree.path("prefix/bin/linnet"), ""), tree.path("prefix/share/linnet/stdlib"));
}

TEST(FindStdDir, GivesUpAfterFourLevels) {
  TempTree tree;
  tree.write("stdlib/x.linnet", "module std.x\n");
  tree.write("a/b/c/d/e/linnet", "");
  EXPECT_EQ(findStdDir(tree.path("a/b/c/d/linnet"), nullptr), tree.path("stdlib"));
  EXPECT_NE(findStdDir(tree.path("a/b/c/d/e/linnet"), nullptr), tree.path("stdlib"));
}

TEST(Loader, CollectsDirectoriesSortedSkippingDotAndBuild) {
  TempTree tree;
  tree.write("dir/b.linnet", "module b\n");
  tree.write("dir/a.linnet", "module a\n");
  tree.write("dir/sub/c.linnet", "module c\n");
  tree.write("dir/.hidden/h.linnet", "module h\n");
  tree.write("dir/build/x.linnet", "module x\n");
  tree.write("dir/notes.txt", "not linnet");
  auto loaded = load({tree.path("dir")});
  EXPECT_TRUE(loaded->diagnostics.diagnostics().empty()) << describe(loaded->diagnostics);
  EXPECT_EQ(moduleNames(*loaded->program), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(loaded->program->rootModules().size(), 3u);
  EXPECT_EQ(loaded->program->rootPackage(), nullptr);
}

TEST(Loader, MissingPathIsReported) {
  auto loaded = load({"/definitely/not/here.linnet"});
  ASSERT_EQ(loaded->diagnostics.diagnostics().size(), 1u);
  EXPECT_EQ(loaded->diagnostics.diagnostics()[0].message,
            "cannot read `/definitely/not/here.linnet`: no such file or directory");
  EXPECT_TRUE(loaded->program->modules().empty());
}

TEST(Loader, PackageWithCrateStdAndModuleImports) {
  TempTree tree;
  tree.write("std/nn/linear.linnet", "module std.nn.linear\npub fn linear() -> i32 { return 1 }\n");
  tree.write("std/random.linnet", "module std.random\npub fn normal() -> i32 { return 1 }\n");
  tree.write("app/linnet.toml", kManifest);
  tree.write("app/src/lib.linnet",
             "module app\nuse crate.layers.dense::{Dense}\nuse std.nn.linear::{linear}\n"
             "use std.random\n");
  tree.write("app/src/layers/dense.linnet",
             "module app.layers.dense\nuse crate::{helper}\npub block Dense {}\n");
  tree.write("app/src/util.linnet", "module app.util\npub fn helper() -> i32 { return 1 }\n");
  auto loaded = load({tree.path("app")}, tree.path("std"));
  // lib imports dense, dense imports lib (`crate`): a cycle.
  EXPECT_EQ(codes(loaded->diagnostics), std::vector<std::string>{"E1206"})
      << describe(loaded->diagnostics);
  const Program& program = *loaded->program;
  ASSERT_NE(program.rootPackage(), nullptr);
  EXPECT_EQ(program.rootPackage()->name, "app");
  EXPECT_EQ(program.rootPackage()->version, "0.1.0");
  EXPECT_EQ(program.rootPackage()->language, "0.1");
  const Module* lib = program.findModule("app");
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->package, program.rootPackage());
  ASSERT_EQ(lib->useTargets.size(), 3u);
  EXPECT_EQ(lib->useTargets[0], program.findModule("app.layers.dense"));
  EXPECT_EQ(lib->useTargets[1], program.findModule("std.nn.linear"));
  EXPECT_EQ(lib->useTargets[2], program.findModule("std.random"));
  const Module* random = program.findModule("std.random");
  ASSERT_NE(random, nullptr);
  EXPECT_TRUE(random->isStd);
  EXPECT_EQ(random->package, nullptr);
  // Each file once, though `app/src/layers/dense.linnet` is both a root and imported.
  EXPECT_EQ(program.modules().size(), 5u);
  EXPECT_EQ(program.rootModules().size(), 3u);
}

TEST(Loader, ImportCycleIsReportedOnceNamingTheCycle) {
  TempTree tree;
  tree.write("p/linnet.toml", kManifest);
  tree.write("p/src/a.linnet", "module app.a\nuse crate.b::{y}\npub fn x() -> i32 { return 1 }\n");
  tree.write("p/src/b.linnet", "module app.b\nuse crate.c::{z}\npub fn y() -> i32 { return 1 }\n");
  tree.write("p/src/c.linnet", "module app.c\nuse crate.a::{x}\npub fn z() -> i32 { return 1 }\n");
  auto loaded = load({tree.path("p")});
  ASSERT_EQ(codes(loaded->diagnostics), std::vector<std::string>{"E1206"})
      << describe(loaded->diagnostics);
  const Diagnostic& cycle = loaded->diagnostics.diagnostics()[0];
  EXPECT_EQ(cycle.message, "import cycle: `app.a` -> `app.b` -> `app.c` -> `app.a`");
  ASSERT_EQ(cycle.labels.size(), 3u);
  EXPECT_EQ(cycle.labels[0].text, "`app.a` imports `app.b` here");
  EXPECT_EQ(cycle.labels[2].text, "`app.c` imports `app.a` here");
}

TEST(Loader, UnknownModulesAndRoots) {
  TempTree tree;
  tree.write("std/random.linnet", "module std.random\n");
  tree.write("p/linnet.toml", kManifest);
  tree.write("p/src/lib.linnet",
             "module app\nuse std.missing\nuse crate.nothing::{x}\nuse nodep.x::{y}\nuse std\n");
  auto loaded = load({tree.path("p/src/lib.linnet")}, tree.path("std"));
  EXPECT_EQ(describe(loaded->diagnostics),
            "E1202 cannot find module `std.missing`\n"
            "E1202 cannot find module `crate.nothing`\n"
            "E1202 `nodep` is not `std`, `crate`, or a dependency of this package\n"
            "E1202 cannot find module `std`\n");
  EXPECT_EQ(loaded->program->rootPackage()->name, "app");
}

// A module file without read permission is unreadable, with the reason, not
// missing. Root reads any file, so there the case cannot be made.
TEST(Loader, ModuleWithoutReadPermissionSaysWhy) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files without read permission";
  TempTree tree;
  tree.write("std/locked.linnet", "module std.locked\n");
  std::filesystem::permissions(tree.path("std/locked.linnet"), std::filesystem::perms::none);
  tree.write("lone.linnet", "module lone\nuse std.locked\n");
  auto loaded = load({tree.path("lone.linnet")}, tree.path("std"));
  ASSERT_EQ(loaded->diagnostics.diagnostics().size(), 1u) << describe(loaded->diagnostics);
  EXPECT_EQ(loaded->diagnostics.diagnostics()[0].message,
            "cannot read module `std.locked`: `" + tree.path("std/locked.linnet") +
                "` exists but cannot be read: Permission denied");
}

// Without a std directory, only the first `std` import is reported.
TEST(Loader, CrateOutsidePackageAndNoStd) {
  TempTree tree;
  tree.write("lone.linnet",
             "module lone\nuse crate.x::{y}\nuse std.random\nuse std.nn.linear\n");
  auto loaded = load({tree.path("lone.linnet")});
  EXPECT_EQ(describe(loaded->diagnostics),
            "E1202 `crate` is used outside a package\n"
            "E1202 cannot find module `std.random`: no standard library directory is known\n");
}

TEST(Loader, ModuleNameMustMatchItsPlace) {
  TempTree tree;
  tree.write("std/nn/norm.linnet", "module std.norm\n");
  tree.write("p/linnet.toml",
             "[package]\nname = \"my-model\"\nversion = \"1\"\nlanguage = \"0.1\"\n");
  tree.write("p/src/lib.linnet", "module my_model\nuse std.nn.norm\n");
  tree.write("p/src/a/b.linnet", "module my_model.a.c\n");
  tree.write("p/src/async.linnet", "module my_model.x\n");
  tree.write("p/src/bad-name.linnet", "module my_model.y\n");
  tree.write("p/examples/demo.linnet", "module anything\n");  // outside src/: not checked
  auto loaded = load({tree.path("p")}, tree.path("std"));
  EXPECT_EQ(describe(loaded->diagnostics),
            "E1202 module `my_model.a.c` does not match its file, which holds module "
            "`my_model.a.b`\n"
            "E1004 `async` is a reserved word and cannot name a module\n"
            "E1202 `bad-name` cannot name a module: it is not an identifier\n"
            "E1202 module `std.norm` does not match its file, which holds module "
            "`std.nn.norm`\n");
}

TEST(Loader, DependencyPackages) {
  TempTree tree;
  tree.write("app/linnet.toml", std::string(kManifest) + "[dependencies]\nshared = { path = "
                                                         "\"../shared-layers\" }\n");
  tree.write("app/src/lib.linnet", "module app\nuse shared.norm::{Norm}\nuse shared::{top}\n");
  tree.write("shared-layers/linnet.toml",
             "[package]\nname = \"shared-layers\"\nversion = \"2.0\"\nlanguage = \"0.1\"\n");
  tree.write("shared-layers/src/lib.linnet", "module shared_layers\npub fn top() -> i32 { return 1 }\n");
  tree.write("shared-layers/src/norm.linnet", "module shared_layers.norm\npub block Norm {}\n");
  auto loaded = load({tree.path("app")});
  EXPECT_TRUE(loaded->diagnostics.diagnostics().empty()) << describe(loaded->diagnostics);
  const Module* norm = loaded->program->findModule("shared_layers.norm");
  ASSERT_NE(norm, nullptr);
  ASSERT_NE(norm->package, nullptr);
  EXPECT_EQ(norm->package->name, "shared-layers");
  EXPECT_EQ(norm->package->moduleName, "shared_layers");
  EXPECT_EQ(loaded->program->packages().size(), 2u);
}

TEST(Loader, DependencyWithoutManifestAndBadManifest) {
  TempTree tree;
  tree.write("app/linnet.toml",
             "[package]\nname = \"app\"\nversion = \"1\"\n[dependencies]\nd = { path = \"../d\" }\n");
  tree.write("app/src/lib.linnet", "module app\n");
  auto loaded = load({tree.path("app")});
  EXPECT_EQ(describe(loaded->diagnostics),
            "E5001 `[package]` has no `language` key\n"
            "E5001 dependency `d` has no `linnet.toml` at `" + tree.path("d") + "`\n");
  EXPECT_FALSE(loaded->program->rootPackage()->valid);
}

TEST(Loader, ResolveTypeNameThroughImports) {
  TempTree tree;
  tree.write("std/nn/linear.linnet", "module std.nn.linear\npub block Linear {}\n");
  tree.write("p/linnet.toml", kManifest);
  tree.write("p/src/lib.linnet",
             "module app\nuse crate.attention\nuse std.nn.linear::{Linear as Dense}\n"
             "block Local {}\n");
  tree.write("p/src/attention.linnet", "module app.attention\npub block Attention {}\n");
  auto loaded = load({tree.path("p/src/lib.linnet")}, tree.path("std"));
  ASSERT_TRUE(loaded->diagnostics.diagnostics().empty()) << describe(loaded->diagnostics);
  const Module& lib = *loaded->program->findModule("app");
  auto named = [](std::vector<std::string> path) {
    auto node = std::make_unique<ast::NamedTypeNode>();
    for (std::string& segment : path) node->path.push_back({std::move(segment), {}});
    return node;
  };
  ResolvedItem dense = resolveTypeName(lib, *named({"Dense"}));
  ASSERT_NE(dense.item, nullptr);
  EXPECT_EQ(dense.module->name, "std.nn.linear");
  EXPECT_EQ(dense.item->name.name, "Linear");
  ResolvedItem attention = resolveTypeName(lib, *named({"attention", "Attention"}));
  ASSERT_NE(attention.item, nullptr);
  EXPECT_EQ(attention.module->name, "app.attention");
  ResolvedItem local = resolveTypeName(lib, *named({"Local"}));
  EXPECT_EQ(local.module, &lib);
  EXPECT_EQ(resolveTypeName(lib, *named({"Missing"})).item, nullptr);
  EXPECT_EQ(resolveTypeName(lib, *named({"attention", "Missing"})).item, nullptr);
  EXPECT_NE(lib.findItem("Local"), nullptr);
  EXPECT_EQ(lib.findItem("Dense"), nullptr);
}

}  // namespace
}  // namespace linnet
