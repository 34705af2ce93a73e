// resolveProgram on small programs: scopes, every error it raises, the
// absence of cascades, W1001, and the symbols it records for the checker.
#include <gtest/gtest.h>

#include "compiler/modules/Program.h"
#include "test/unit/modules/TestTree.h"

namespace linnet {
namespace {

using modules::test::describe;
using modules::test::TempTree;

struct Checked {
  TempTree tree;
  SourceManager sources;
  DiagnosticEmitter diagnostics;
  std::unique_ptr<Program> program;
  std::string loadErrors;
};

// Writes `files` (path -> text) and checks `root` (a path in the tree) with
// `std/` of the tree as the standard library.
std::unique_ptr<Checked> check(const std::vector<std::pair<std::string, std::string>>& files,
                               const std::string& root) {
  auto checked = std::make_unique<Checked>();
  for (const auto& [path, text] : files) checked->tree.write(path, text);
  checked->program = loadProgram(checked->sources, checked->diagnostics,
                                 {checked->tree.path(root)}, LoadOptions{checked->tree.path("std")});
  checked->loadErrors = describe(checked->diagnostics);
  if (!checked->diagnostics.hasErrors()) resolveProgram(*checked->program, checked->diagnostics);
  return checked;
}

// Checks one standalone file; returns "CODE message" lines.
std::string checkOne(const std::string& text) {
  auto checked = check({{"main.linnet", text}}, "main.linnet");
  return describe(checked->diagnostics);
}

const char* kValidProgram = R"(module main

const SIZE = 4

enum Mode { Fast, Slow }

struct Pair<T: DType> {
    first: Tensor[SIZE; T]
    second: Tensor[SIZE; T]
}

type Row<N: Dim> = Tensor[N; f32]

block Inner<H: Dim> {
    param weight: Tensor[H; f32]
    pub fn forward(x: Tensor[H; f32]) -> Tensor[H; f32] {
        return x * weight
    }
}

pub block Model<H: Dim, N: Dim, T: Float = f32> where H > 0 {
    sub inner: Inner<H>
    sub layers: [Inner<H>; N]
    state count: Tensor[1; f32]

    pub entry forward<*S: Shape>(x: Tensor[*S, H; f32], mode: Mode) -> Tensor[*S, H; f32] {
        var y = inner.forward(x)
        static for layer in layers {
            y = layer.forward(y)
        }
        static for i in 0..N {
            let k = cast<f32>(i)
            y = y + k
        }
        count = count + 1.0
        let scaled = match mode {
            Fast => y
            Slow => y * 0.5
        }
        return scaled
    }

    fn helper(a: Tensor[H, H; f32], b: Tensor[H, H; f32]) -> Tensor[H, H; f32] {
        let c[m, n] = sum[k] a[m, k] * b[k, n]
        let total = sum[i, j] c[i, j]
        let p = Pair<f32>(first = fill<f32>([SIZE], 0.0), second = fill<f32>([SIZE], 1.0))
        let s = concat(c, c, axis = 0)
        let mode = Mode.Fast
        let best = max(total, 0.0)
        let picked = if total > 0.0 { c } else { helper2(c) }
        return picked
    }

    fn helper2(a: Tensor[H, H; f32]) -> Tensor[H, H; f32] {
        var n: i32 = 0
        while n < 3 {
            n = n + 1
        }
        let r = for t in 0..4 {
            yield a
        }
        return a
    }
}

op scale<*S: Shape, T: Float>(x: Tensor[*S; T]) -> Tensor[*S; T] {
    return x * 2.0
} grad(y, dy) {
    return dy * 2.0 + y * 0.0
}

fn rows(r: Row<4>) -> Row<4> {
    let (a, b) = (r, r)
    let o = some(a)
    let v = match o {
        some(q) => q
        none => b
    }
    return v
}
)";

TEST(Resolver, ValidProgramResolvesEveryScope) {
  std::string text = kValidProgram;
  auto checked = check({{"main.linnet", text}}, "main.linnet");
  EXPECT_EQ(checked->loadErrors, "");
  EXPECT_EQ(describe(checked->diagnostics), "");
}

TEST(Resolver, UnknownNamesOncePerItem) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn f(x: i32) -> i32 {\n"
                     "    let a = y + y\n"
                     "    return a + y + z\n"
                     "}\n"
                     "fn g() -> Missing {\n"
                     "    return y\n"
                     "}\n"),
            "E1201 cannot find `y` in this scope\n"
            "E1201 cannot find `z` in this scope\n"
            "E1201 cannot find `Missing` in this scope\n"
            "E1201 cannot find `y` in this scope\n");
}

TEST(Resolver, LocalsAreDeclaredBeforeUseAndScoped) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn f(x: i32) -> i32 {\n"
                     "    let a = b\n"
                     "    let b = 1\n"
                     "    static for i in 0..3 {\n"
                     "        let inner = i\n"
                     "    }\n"
                     "    return inner\n"
                     "}\n"),
            "E1201 cannot find `b` in this scope\n"
            "E1201 cannot find `inner` in this scope\n");
}

TEST(Resolver, IndexVariablesOnlyInsideIndexNotation) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn f(a: Tensor[4; f32]) -> f32 {\n"
                     "    let c[i] = a[i]\n"
                     "    let t = sum[k] c[k]\n"
                     "    return a[i] + t\n"
                     "}\n"),
            "E1201 cannot find `i` in this scope\n");
}

TEST(Resolver, KernelBuiltinsOnlyInKernels) {
  auto text = "module main\n"
              "kernel copy<N: Dim>(x: Tensor[N; f32]) -> y: Tensor[N; f32] grid(N) {\n"
              "    let i = program_id(0)\n"
              "    store(y[i], load(x[i]))\n"
              "}\n"
              "fn f(x: Tensor[4; f32]) -> f32 {\n"
              "    let v = load(x[0])\n"
              "    return v\n"
              "}\n";
  auto checked = check({{"main.linnet", text}}, "main.linnet");
  EXPECT_EQ(checked->loadErrors, "");
  // Outside a kernel a builtin breaks a kernel rule (E2127), as the public
  // conformance tests expect.
  EXPECT_EQ(describe(checked->diagnostics),
            "E2127 `load` is available only inside a `kernel`\n");
}

TEST(Resolver, DuplicateItems) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn f() -> i32 { return 1 }\n"
                     "const f = 2\n"
                     "block B {\n"
                     "    fn m() -> i32 { return 1 }\n"
                     "    fn m() -> i32 { return 2 }\n"
                     "}\n"),
            "E1204 the name `f` is defined more than once in this module\n"
            "E1204 the name `m` is defined more than once in this block\n");
}

TEST(Resolver, DuplicateNames) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn f<N: Dim, N: Dim>(a: i32, a: i32, N: i32) -> i32 { return a }\n"
                     "struct S { x: i32  x: f32 }\n"
                     "enum E { A, B, A }\n"
                     "block B<H: Dim> {\n"
                     "    param w: Tensor[H; f32]\n"
                     "    param w: Tensor[H; f32]\n"
                     "    param H: Tensor[H; f32]\n"
                     "}\n"
                     "op o(x: f32) -> f32 { return x } grad(g, g) { return g }\n"),
            "E1205 generic parameter `N` is declared more than once\n"
            "E1205 parameter `a` is declared more than once\n"
            "E1205 parameter `N` is declared more than once\n"
            "E1205 field `x` is declared more than once\n"
            "E1205 variant `A` is declared more than once\n"
            "E1205 member `w` is declared more than once\n"
            "E1205 member `H` is declared more than once\n"
            "E1205 gradient name `g` is declared more than once\n");
}

TEST(Resolver, PreludeNamesCannotBeDeclared) {
  EXPECT_EQ(checkOne("module main\n"
                     "fn exp(x: f32) -> f32 { return x }\n"
                     "fn f<Tensor: Dim>(max: f32) -> f32 {\n"
                     "    let select = max\n"
                     "    return select\n"
                     "}\n"
                     "struct S { cast: f32 }\n"
                     "enum E { Float }\n"),
            "E1207 `exp` is a prelude name and cannot be redeclared\n"
            "E1207 `Tensor` is a prelude name and cannot be redeclared\n"
            "E1207 `max` is a prelude name and cannot be redeclared\n"
            "E1207 `select` is a prelude name and cannot be redeclared\n"
            "E1207 `cast` is a prelude name and cannot be redeclared\n"
            "E1207 `Float` is a prelude name and cannot be redeclared\n");
}

TEST(Resolver, WrongKinds) {
  EXPECT_EQ(checkOne("module main\n"
                     "const K = 3\n"
                     "block B {}\n"
                     "struct S { x: f32 }\n"
                     "fn f<N: Dim, T: Float>(x: K, y: Tensor[N; N]) -> T {\n"
                     "    let b = B\n"
                     "    let s = S\n"
                     "    let t = T\n"
                     "    let z = f32\n"
                     "    let ok = S(x = 1.0)\n"
                     "    return cast<T>(N)\n"
                     "}\n"),
            "E1208 `K` is a constant, not a type\n"
            "E1208 `N` is a dimension generic parameter, not a dtype\n"
            "E1208 `B` is a block, not a value\n"
            "E1208 `S` is a struct, not a value\n"
            "E1208 `T` is a dtype generic parameter, not a value\n"
            "E1208 `f32` is a scalar type, not a value\n");
}

const char* kLib =
    "module std.lib\n"
    "pub fn public_fn() -> i32 { return 1 }\n"
    "fn private_fn() -> i32 { return 2 }\n"
    "pub block Block {}\n"
    "pub enum Mode { On, Off }\n";

TEST(Resolver, ImportsVisibilityAndUnknownItems) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"main.linnet",
                         "module main\n"
                         "use std.lib::{public_fn, private_fn, missing, Mode}\n"
                         "use std.lib\n"
                         "fn f() -> i32 {\n"
                         "    let a = public_fn() + private_fn() + missing()\n"
                         "    let b = lib.public_fn() + lib.private_fn() + lib.nothing()\n"
                         "    let c = match Mode.On {\n"
                         "        On => 1\n"
                         "        Off => 2\n"
                         "    }\n"
                         "    return a + b + c + lib.private_fn() + lib.nothing()\n"
                         "}\n"}},
                       "main.linnet");
  // Each `lib.x` problem once per item, however often it is written.
  EXPECT_EQ(describe(checked->diagnostics),
            "E1203 `private_fn` is private to module `std.lib`\n"
            "E1201 module `std.lib` has no item named `missing`\n"
            "E1203 `private_fn` is private to module `std.lib`\n"
            "E1201 module `std.lib` has no item named `nothing`\n");
}

TEST(Resolver, ModuleQualifiedTypesAndWrongKinds) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"main.linnet",
                         "module main\n"
                         "use std.lib\n"
                         "block M {\n"
                         "    sub b: lib.Block\n"
                         "    pub fn f(x: lib.public_fn) -> i32 {\n"
                         "        let m = lib\n"
                         "        let k = lib.Block\n"
                         "        return 1\n"
                         "    }\n"
                         "}\n"}},
                       "main.linnet");
  EXPECT_EQ(describe(checked->diagnostics),
            "E1208 `public_fn` is a function, not a type\n"
            "E1208 `lib` is a module, not a value\n"
            "E1208 `Block` is a block, not a value\n");
}

TEST(Resolver, DuplicateImportsAndImportItemClash) {
  auto clean = check({{"std/lib.linnet", kLib},
                      {"main.linnet",
                       "module main\n"
                       "use std.lib::{public_fn, Block as public_fn}\n"
                       "use std.lib::{Mode}\n"
                       "fn Mode() -> i32 { return public_fn() }\n"}},
                     "main.linnet");
  EXPECT_EQ(describe(clean->diagnostics),
            "E1205 import `public_fn` is declared more than once\n"
            "E1204 the name `Mode` is defined more than once in this module\n");
}

TEST(Resolver, FailedImportsDoNotCascade) {
  auto checked = check({{"main.linnet",
                         "module main\n"
                         "use std.missing::{thing}\n"
                         "use std.gone\n"
                         "fn f() -> i32 {\n"
                         "    return thing() + gone.x()\n"
                         "}\n"}},
                       "main.linnet");
  // Load errors stop before resolution in the driver; resolve anyway here to
  // show the failed names resolve silently.
  resolveProgram(*checked->program, checked->diagnostics);
  EXPECT_EQ(describe(checked->diagnostics),
            "E1202 cannot find module `std.missing`\n"
            "E1202 cannot find module `std.gone`\n");
}

TEST(Resolver, UnusedImportsWarnOnlyWithoutErrors) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"main.linnet",
                         "module main\n"
                         "use std.lib::{public_fn, Block, Mode as _Mode}\n"
                         "use std.lib\n"
                         "block M {\n"
                         "    sub b: Block\n"
                         "}\n"}},
                       "main.linnet");
  EXPECT_EQ(describe(checked->diagnostics),
            "W1001 unused import `public_fn`\n"
            "W1001 unused import `lib`\n");

  auto withError = check({{"std/lib.linnet", kLib},
                          {"main.linnet", "module main\nuse std.lib::{public_fn}\nconst X = y\n"}},
                         "main.linnet");
  EXPECT_EQ(describe(withError->diagnostics), "E1201 cannot find `y` in this scope\n");
}

TEST(Resolver, EnumVariantImportCountsAsUsed) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"main.linnet",
                         "module main\n"
                         "use std.lib::{Mode}\n"
                         "fn f(m: i32) -> i32 {\n"
                         "    return match m {\n"
                         "        On => 1\n"
                         "        other => other\n"
                         "    }\n"
                         "}\n"}},
                       "main.linnet");
  EXPECT_EQ(describe(checked->diagnostics), "");
}

TEST(Resolver, RecordsSymbolsForTheChecker) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"main.linnet",
                         "module main\n"
                         "use std.lib::{public_fn as pf}\n"
                         "block M<H: Dim> {\n"
                         "    param w: Tensor[H; f32]\n"
                         "    pub fn f(x: Tensor[H; f32]) -> Tensor[H; f32] {\n"
                         "        let y = x * w\n"
                         "        let n = pf()\n"
                         "        return y\n"
                         "    }\n"
                         "}\n"}},
                       "main.linnet");
  ASSERT_EQ(describe(checked->diagnostics), "");
  const Module* main = checked->program->findModule("main");
  auto* block = static_cast<const ast::BlockItem*>(main->findItem("M"));
  auto* function = static_cast<const ast::FunctionItem*>(block->body[1]);
  auto* let = static_cast<const ast::LetStmt*>(function->body[0]);
  auto* product = static_cast<const ast::BinaryExpr*>(let->value);
  const Symbol* x = main->symbolOf(static_cast<const ast::NameExpr*>(product->lhs)->name);
  const Symbol* w = main->symbolOf(static_cast<const ast::NameExpr*>(product->rhs)->name);
  ASSERT_NE(x, nullptr);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(x->kind, SymbolKind::Param);
  EXPECT_EQ(x->param, &function->params[0]);
  EXPECT_EQ(w->kind, SymbolKind::Member);
  EXPECT_EQ(w->item, block->body[0]);
  auto* call = static_cast<const ast::CallExpr*>(static_cast<const ast::LetStmt*>(function->body[1])->value);
  const Symbol* pf = main->symbolOf(static_cast<const ast::NameExpr*>(call->callee)->name);
  ASSERT_NE(pf, nullptr);
  EXPECT_EQ(pf->kind, SymbolKind::Item);
  EXPECT_EQ(pf->module->name, "std.lib");
  EXPECT_EQ(pf->item->name.name, "public_fn");
}

TEST(Resolver, UnknownNameSuggestsALoadedModule) {
  auto checked = check({{"std/lib.linnet", kLib},
                        {"std/other.linnet", "module std.other\nuse std.lib::{Mode}\n"
                                             "pub fn f(m: Mode) -> i32 { return 1 }\n"},
                        {"main.linnet",
                         "module main\nuse std.other::{f}\nfn g() -> i32 { return public_fn() + f(1) }\n"}},
                       "main.linnet");
  ASSERT_EQ(checked->diagnostics.diagnostics().size(), 1u) << describe(checked->diagnostics);
  EXPECT_EQ(checked->diagnostics.diagnostics()[0].helps.at(0),
            "`public_fn` is defined in `std.lib`: `use std.lib::{public_fn}`");
}

// Every program that drops one line of the valid one (most still parse, some
// now with dangling names or duplicates) loads and resolves without a crash,
// and resolution reports only modules-stage codes.
TEST(Resolver, SurvivesEveryOneLineDeletion) {
  std::string text = kValidProgram;
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  for (size_t skip = 0; skip < lines.size(); ++skip) {
    std::string mutated;
    for (size_t i = 0; i < lines.size(); ++i)
      if (i != skip) mutated += lines[i] + "\n";
    auto checked = check({{"main.linnet", mutated}}, "main.linnet");
    resolveProgram(*checked->program, checked->diagnostics);
    for (const Diagnostic& diagnostic : checked->diagnostics.diagnostics())
      EXPECT_TRUE(diagnostic.code().starts_with("E1") || diagnostic.code().starts_with("W1"))
          << diagnostic.code() << " " << diagnostic.message;
  }
}

}  // namespace
}  // namespace linnet
