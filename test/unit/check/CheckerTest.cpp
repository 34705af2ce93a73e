// The checker on small programs: the types it records in the typed IR (in
// the user's generics), and that the standard library, phi3 and every valid
// lit program check clean with every expression typed.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>
#include <vector>

#include "compiler/check/Checker.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/ASTWalk.h"
#include "test/unit/check/CheckRun.h"

namespace linnet::check {
namespace {

using testutil::CheckRun;

TEST(CheckerTest, RecordsTypesInTheUsersGenerics) {
  auto run = CheckRun::fromText(R"(module m

fn split<B: Dim, S: Dim, H: Dim, T: Float>(x: Tensor[B, S, 3 * H; T]) -> Tensor[B, S, H; T] {
    return x[:, :, H:2 * H]
}

fn use_it<B: Dim, S: Dim>(x: Tensor[B, S, 12; bf16]) -> Tensor[B, S, 4; bf16] {
    return split(x)
}

fn heads<H: Dim, Heads: Dim>(x: Tensor[H; f32]) -> Tensor[Heads, H / Heads; f32] where Heads > 0, H % Heads == 0 {
    return reshape(x, [Heads, H / Heads])
}
)");
  ASSERT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("split"), "Tensor[B, S, H; T]");
  EXPECT_EQ(run->returned("use_it"), "Tensor[B, S, 4; bf16]");
  EXPECT_EQ(run->returned("heads"), "Tensor[Heads, H / Heads; f32]");
  const Signature* sig = run->checked.signatureOf(run->function("heads"));
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(sig->generics.size(), 2u);
  EXPECT_EQ(sig->where.size(), 2u);
  EXPECT_TRUE(sig->facts.provablyPositive(dimSymbol(*sig->generics[1])));
}

TEST(CheckerTest, InfersPacksAndBlockMethods) {
  auto run = CheckRun::fromText(R"(module m

use std.nn.linear::{Linear}

block Proj<H: Dim, T: Float = bf16> {
    sub qkv: Linear<H, 3 * H, T>

    pub fn forward<B: Dim, S: Dim>(x: Tensor[B, S, H; T]) -> Tensor[B, S, 3 * H; T] {
        return qkv.forward(x)
    }
}
)");
  ASSERT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("forward"), "<no function>");  // a method, not a module item
  const ast::FunctionItem* forward = nullptr;
  for (const auto& m : run->program->modules())
    if (m->name == "m")
      for (const ast::Item* item : m->ast->items)
        if (auto* b = ast::as<ast::BlockItem>(item))
          for (const ast::Item* inner : b->body)
            if (auto* f = ast::as<ast::FunctionItem>(inner)) forward = f;
  ASSERT_NE(forward, nullptr);
  auto* ret = ast::as<ast::ReturnStmt>(forward->body.back());
  const Type* t = run->checked.typeOf(ret->value);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(str(*t), "Tensor[B, S, 3 * H; T]");
  EXPECT_EQ(compactStr(*t), "T[B, S, 3 * H]");
}

TEST(CheckerTest, TypesIndexNotation) {
  auto run = CheckRun::fromText(R"(module m

fn outer<N: Dim, M: Dim>(a: Tensor[N; f32], b: Tensor[M; f32]) -> Tensor[N, M; f32] {
    let c[i, j] = a[i] * b[j]
    return c * 2.0
}

fn rows<*S: Shape, K: Dim>(x: Tensor[*S, K; bf16]) -> Tensor[*S; f32] {
    let total[*s] = sum<f32>[k] cast<f32>(x[*s, k])
    return total
}
)");
  EXPECT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("outer"), "Tensor[N, M; f32]");
  EXPECT_EQ(run->returned("rows"), "Tensor[*S; f32]");
}

TEST(CheckerTest, ScanStacksAlongANewLeadingAxis) {
  // A scan's value stacks each yielded value along a new leading axis.
  auto run = CheckRun::fromText(R"(module m

fn steps<N: Dim>(x: Tensor[N; f32]) -> Tensor[4, N; f32] {
    let all = for i in 0..4 {
        yield x
    }
    return all * 2.0
}
)");
  EXPECT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("steps"), "Tensor[4, N; f32]");
}

TEST(CheckerTest, GradClauseIsTypedWithTheGradientsOfFloatTensorParameters) {
  // `y` and `dy` have the result type; the clause returns the gradients of
  // the floating tensor parameters only (not the integer tensor, not the
  // float scalar), recorded on the op's typed function.
  auto run = CheckRun::fromText(R"(module m

op mix<N: Dim, T: Float>(a: Tensor[N; T], k: Tensor[N; i32], s: f32, b: Tensor[N; T]) -> Tensor[N; T] {
    return a * b
} grad(y, dy) {
    let both = (dy * b, dy * a + y - y)
    return both
}
)");
  ASSERT_EQ(run->errors(), "");
  const ast::FunctionItem* f = run->function("mix");
  ASSERT_NE(f, nullptr);
  const CheckedFunction* cf = run->checked.functionOf(f);
  ASSERT_NE(cf, nullptr);
  ASSERT_TRUE(cf->gradient.has_value());
  EXPECT_EQ(str(*cf->gradient), "(Tensor[N; T], Tensor[N; T])");
  auto* ret = ast::as<ast::ReturnStmt>(f->grad->body.back());
  ASSERT_NE(ret, nullptr);
  const Type* t = cf->typeOf(ret->value);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(str(*t), "(Tensor[N; T], Tensor[N; T])");
}

const char* kUnusedLocals = R"(module m

fn f(x: f32, m: f32?) -> f32 {
    let y = x
    let _z = x
    var w = 1
    static for i in 0..4 {
        w = w + 1
    }
    let v = match m {
        some(a) => a
        none => x
    }
    return v
}
)";

TEST(CheckerTest, UnusedLocalsAreReportedWhenEnabled) {
  CheckOptions lints;
  lints.unusedLocals = true;
  auto run = CheckRun::fromText(kUnusedLocals, lints);
  EXPECT_EQ(run->errors(), "W1002 unused local `y`\nW1002 unused local `i`\n");
  // Off by default.
  EXPECT_EQ(CheckRun::fromText(kUnusedLocals)->errors(), "");
  // Never next to an error.
  auto broken = CheckRun::fromText(R"(module m

fn f(x: f32) -> i32 {
    let y = x
    return x
}
)", lints);
  EXPECT_EQ(broken->errors(), "E2101 mismatched types: expected `i32`, found `f32`\n");
}

TEST(CheckerTest, UnusedMembersAreReportedWhenEnabled) {
  CheckOptions lints;
  lints.unusedMembers = true;
  auto run = CheckRun::fromText(R"(module m

block Counter<N: Dim> {
    param weight: Tensor[N; f32]
    param _spare: Tensor[N; f32]
    param bias: Tensor[N; f32]
    state count: i64
    buffer table: Tensor[N; f32]

    pub fn forward(x: Tensor[N; f32]) -> Tensor[N; f32] {
        count = count + 1
        return x * weight
    }
}
)", lints);
  EXPECT_EQ(run->errors(), "W1003 unused param `bias`\nW1003 unused buffer `table`\n");
}

TEST(CheckerTest, StdlibAndPhi3Lints) {
  std::string root = LINNET_SOURCE_DIR;
  CheckOptions lints;
  lints.unusedLocals = true;
  lints.unusedMembers = true;
  CheckRun run({root + "/stdlib", root + "/models/phi3"}, lints);
  EXPECT_EQ(run.errors(), "");
}

TEST(CheckerTest, StructsAndEnumsAreTyped) {
  auto run = CheckRun::fromText(R"(module m

enum Mode {
    Train,
    Eval,
}

struct Cache<S: Dim, T: Float> {
    key: Tensor[S, 8; T]
    mode: Mode
}

fn make<S: Dim>(k: Tensor[S, 8; bf16]) -> Cache<S, bf16> {
    let c = Cache(key = k, mode = Mode.Eval)
    return c
}

fn key<S: Dim>(c: Cache<S, f32>) -> Tensor[S, 8; f32] {
    let k = c.key
    return k
}
)");
  EXPECT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("make"), "Cache<S, bf16>");
  EXPECT_EQ(run->returned("key"), "Tensor[S, 8; f32]");
}

TEST(CheckerTest, DefaultedGenericsAreInTheCallBinding) {
  // A generic neither written nor inferred takes its default (spec §7.7),
  // and the call's substitution holds it: lowering instantiates the callee
  // from it alone. A default may use the generics before it.
  auto run = CheckRun::fromText(R"(module m

fn widen<N: Dim, M: Dim = 2 * N, T: Float = f32>(x: Tensor[N; f32]) -> Tensor[M; T] {
    return fill<T>([M], 0.0)
}

fn caller<K: Dim>(x: Tensor[K; f32]) -> Tensor[2 * K; f32] {
    let y = widen<K>(x)
    return y
}
)");
  ASSERT_EQ(run->errors(), "");
  EXPECT_EQ(run->returned("caller"), "Tensor[2 * K; f32]");
  const CheckedFunction* cf = run->checked.functionOf(run->function("caller"));
  ASSERT_NE(cf, nullptr);
  ASSERT_EQ(cf->calls.size(), 1u);
  const CallBinding& b = cf->calls.begin()->second;
  const ast::FunctionItem* widen = run->function("widen");
  ASSERT_EQ(b.callee, widen);
  ASSERT_EQ(widen->generics.size(), 3u);
  auto m = b.subst.shapes.dims.find(symbolIdOf(widen->generics[1]));
  ASSERT_NE(m, b.subst.shapes.dims.end());
  EXPECT_EQ(m->second.str(), "2 * K");
  auto t = b.subst.dtypes.find(&widen->generics[2]);
  ASSERT_NE(t, b.subst.dtypes.end());
  EXPECT_EQ(t->second.str(), "f32");
}

// The expressions of every function body in `run` (grad clauses included)
// that the checker left untyped or typed Error, printed one a line. Index
// variables, shape literals and the dimensions in them, expression generic
// arguments, kernel builtins, the enum named in `E.A` and the struct named
// in `S(...)` are not values and are skipped.
std::string untypedExpressions(const CheckRun& run) {
  std::string out;
  for (const auto& m : run.program->modules()) {
    if (!m->ast) continue;
    std::vector<const ast::Item*> items(m->ast->items.begin(), m->ast->items.end());
    for (size_t i = 0; i < items.size(); ++i) {
      if (auto* b = ast::as<ast::BlockItem>(items[i]))
        items.insert(items.end(), b->body.begin(), b->body.end());
      auto* f = ast::as<ast::FunctionItem>(items[i]);
      const CheckedFunction* cf = f ? run.checked.functionOf(f) : nullptr;
      if (!f) continue;
      // Dimensions in shape literals and expression generic arguments are
      // compile-time arguments, not values: skipped with their parents.
      std::set<const ast::Expr*> arguments;
      auto visit = [&](const ast::Expr* e) {
        if (auto* lit = ast::as<ast::ShapeLiteralExpr>(e))
          for (const ast::ShapeElement& d : lit->elements) arguments.insert(d.dim);
        if (auto* call = ast::as<ast::CallExpr>(e))
          for (const ast::GenericArg& g : call->genericArgs) arguments.insert(g.expr);
        if (arguments.count(e)) {
          ast::forEachChild(e, [&](const ast::Expr* c) { arguments.insert(c); });
          return;
        }
        const Type* t = cf ? cf->typeOf(e) : nullptr;
        if (t && !t->isError()) return;
        auto* name = ast::as<ast::NameExpr>(e);
        const Symbol* s = name ? m->symbolOf(name->name) : nullptr;
        if (s && (s->kind == SymbolKind::IndexVariable || s->kind == SymbolKind::KernelBuiltin))
          return;
        if (s && s->kind == SymbolKind::Item && s->item &&
            (s->item->kind == ast::ItemKind::Enum || s->item->kind == ast::ItemKind::Struct))
          return;  // `E.A`, and the struct named by a construction `S(...)`
        if (ast::isa<ast::ShapeLiteralExpr>(e)) return;
        out += fmt::format("{}: {} `{}`\n", f->name.name, t ? "Error" : "untyped",
                           ast::printExpr(e));
      };
      ast::forEachExpr(f->body, visit);
      if (f->grad) ast::forEachExpr(f->grad->body, visit);
    }
  }
  return out;
}

TEST(CheckerTest, ValidProgramsTypeEveryExpression) {
  // Every expression of the standard library, phi3 and the valid lit
  // programs has a type: nothing is left unknown.
  std::string root = LINNET_SOURCE_DIR;
  std::vector<std::string> paths{root + "/stdlib", root + "/models/phi3"};
  for (const auto& entry : std::filesystem::directory_iterator(root + "/test/check")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("valid-", 0) == 0 && entry.path().extension() == ".linnet") {
      CheckRun run({entry.path().string()});
      EXPECT_EQ(run.errors(), "") << name;
      EXPECT_EQ(untypedExpressions(run), "") << name;
    }
  }
  CheckRun run(paths);
  EXPECT_EQ(run.errors(), "");
  EXPECT_EQ(untypedExpressions(run), "");
}

// The lit programs under `dir` (recursively, fixture packages in `Inputs/`
// left out) with their RUN lines, sorted.
std::vector<std::pair<std::filesystem::path, std::string>> litPrograms(const std::string& dir) {
  std::vector<std::pair<std::filesystem::path, std::string>> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    const std::filesystem::path& p = entry.path();
    if (p.extension() != ".linnet" || p.string().find("/Inputs/") != std::string::npos) continue;
    std::ifstream in(p);
    std::string line, runs;
    while (std::getline(in, line))
      if (line.find("RUN:") != std::string::npos) runs += line + "\n";
    if (!runs.empty()) out.emplace_back(p, runs);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Whether a lit program's RUN lines check it and expect it to be valid:
// `linnet check`, `lint` or `build` without `not`, an expected failure or
// another standard library.
bool expectedValid(const std::string& runs) {
  bool checked = runs.find("%linnet check") != std::string::npos ||
                 runs.find("%linnet build") != std::string::npos ||
                 runs.find("%linnet lint") != std::string::npos;
  return checked && runs.find("RUN: not ") == std::string::npos &&
         runs.find("%expect-exit") == std::string::npos && runs.find("--std") == std::string::npos;
}

TEST(CheckerTest, EveryValidProgramInTheRepositoryIsTyped) {
  // No unknown type in a valid program: every valid lit program under
  // test/, the whole standard library and every model under models/ check
  // clean with every expression typed (spec: an Error type means an error
  // was reported).
  std::string root = LINNET_SOURCE_DIR;
  size_t valid = 0;
  for (const auto& [path, runs] : litPrograms(root + "/test")) {
    if (!expectedValid(runs)) continue;
    ++valid;
    CheckRun run({path.string()});
    EXPECT_EQ(run.errors(), "") << path;
    EXPECT_EQ(untypedExpressions(run), "") << path;
  }
  EXPECT_GT(valid, 40u);  // the walk found the valid programs
  CheckRun stdlib({root + "/stdlib"});
  EXPECT_EQ(stdlib.errors(), "");
  EXPECT_EQ(untypedExpressions(stdlib), "");
  size_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/models")) {
    if (!entry.is_directory()) continue;
    ++models;
    CheckRun run({entry.path().string()});
    EXPECT_EQ(run.errors(), "") << entry.path();
    EXPECT_EQ(untypedExpressions(run), "") << entry.path();
  }
  EXPECT_GT(models, 0u);
}

TEST(CheckerTest, ErrorTypesOnlyFollowReportedErrors) {
  // In every invalid lit program of test/check an expression is Error only
  // where an error was reported: a program without errors has none, and
  // none needs the last resort for a type nothing explains (E2190 "cannot
  // give ... a type"), which would mean a mistake the checker passed over.
  std::string root = LINNET_SOURCE_DIR;
  size_t invalid = 0;
  for (const auto& [path, runs] : litPrograms(root + "/test/check")) {
    if (expectedValid(runs) || runs.find("--std") != std::string::npos) continue;
    ++invalid;
    CheckRun run({path.string()});
    if (!run.diagnostics.hasErrors()) {
      EXPECT_EQ(untypedExpressions(run), "") << path;
    }
    for (const Diagnostic& d : run.diagnostics.diagnostics())
      EXPECT_NE(d.kind, DiagnosticKind::UnknownType) << path << ": " << d.message;
  }
  EXPECT_GT(invalid, 100u);
}

}  // namespace
}  // namespace linnet::check
