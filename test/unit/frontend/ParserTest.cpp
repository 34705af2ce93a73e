// Parser: the tree for each construct, contextual decisions (generic calls,
// reductions, kernel statements), spans, and error codes with recovery.
#include <gtest/gtest.h>

#include "FrontendTestUtil.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::test {
namespace {

using namespace ast;

TEST(Parser, ModuleHeaderAndUses) {
  auto p = parseText(
      "module a.b.c\nuse std.nn.linear::{linear, Linear as L,}\nuse std.random\n"
      "use crate::{x}\nuse crate.layers::Block\nuse dep.util::{y}\n");
  ASSERT_TRUE(p->ok());
  EXPECT_EQ(p->module->moduleName(), "a.b.c");
  ASSERT_EQ(p->module->uses.size(), 5u);
  const UseDecl* first = p->module->uses[0];
  EXPECT_EQ(first->root, ImportRoot::Std);
  EXPECT_TRUE(first->braced);
  ASSERT_EQ(first->names.size(), 2u);
  EXPECT_EQ(first->names[1].alias.name, "L");
  EXPECT_FALSE(p->module->uses[1]->hasSelector);
  EXPECT_EQ(p->module->uses[2]->root, ImportRoot::Crate);
  EXPECT_FALSE(p->module->uses[3]->braced);
  EXPECT_EQ(p->module->uses[4]->root, ImportRoot::Dependency);
}

TEST(Parser, MissingModuleStillParsesTheRest) {
  auto p = parseText("fn f() -> i32 {\n    return 1\n}\n");
  EXPECT_EQ(p->codes(), std::vector<std::string>{"E1102"});
  ASSERT_EQ(p->module->items.size(), 1u);
  EXPECT_TRUE(p->module->modulePath.empty());
}

TEST(Parser, PrecedenceClimbingIsLeftAssociative) {
  auto p = parseExprText("a - b - c * d / e");
  ASSERT_TRUE(p->ok());
  EXPECT_EQ(printExpr(letValue(*p)), "a - b - c * d / e");
  auto* top = as<BinaryExpr>(letValue(*p));
  ASSERT_TRUE(top);
  EXPECT_EQ(top->op, BinaryOp::Sub);
  EXPECT_TRUE(isa<BinaryExpr>(top->lhs));                               // (a - b) - ...
  EXPECT_EQ(as<BinaryExpr>(top->rhs)->op, BinaryOp::Div);              // (c * d) / e
}

TEST(Parser, BitwiseOperatorsSitBetweenComparisonsAndAdditive) {
  auto p = parseExprText("a == b & c < d | e ^ f + g");
  ASSERT_TRUE(p->ok());
  // `==` loosest, then `<`, then `|`, `^`, `&`, `+`.
  auto* eq = as<BinaryExpr>(letValue(*p));
  ASSERT_TRUE(eq);
  EXPECT_EQ(eq->op, BinaryOp::Eq);
  auto* lt = as<BinaryExpr>(eq->rhs);
  ASSERT_TRUE(lt);
  EXPECT_EQ(lt->op, BinaryOp::Lt);
  EXPECT_EQ(as<BinaryExpr>(lt->lhs)->op, BinaryOp::BitAnd);
  EXPECT_EQ(as<BinaryExpr>(lt->rhs)->op, BinaryOp::BitOr);
}

TEST(Parser, GenericCallNeedsGreaterThenParen) {
  auto call = parseExprText("cast<f32>(x)");
  ASSERT_TRUE(call->ok());
  auto* c = as<CallExpr>(letValue(*call));
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->hasGenericArgs);
  ASSERT_EQ(c->genericArgs.size(), 1u);
  EXPECT_TRUE(isa<ScalarTypeNode>(c->genericArgs[0].type));

  auto cmp = parseExprText("a < b && c > (a)");
  ASSERT_TRUE(cmp->ok());
  EXPECT_EQ(as<BinaryExpr>(letValue(*cmp))->op, BinaryOp::And);

  auto lt = parseExprText("a < b");
  ASSERT_TRUE(lt->ok());
  EXPECT_EQ(as<BinaryExpr>(letValue(*lt))->op, BinaryOp::Lt);

  auto member = parseExprText("random.normal<N, f32>(key)");
  ASSERT_TRUE(member->ok());
  EXPECT_TRUE(as<CallExpr>(letValue(*member))->hasGenericArgs);
}

TEST(Parser, GenericArgumentIsATypeWhenItParsesAsOne) {
  auto p = parseExprText("f<H, 3 * H, T, [Out], Tensor[N; f32], (A, B), H / 2, N - 1>(x)");
  ASSERT_TRUE(p->ok()) << p->messages()[0];
  auto* c = as<CallExpr>(letValue(*p));
  ASSERT_EQ(c->genericArgs.size(), 8u);
  EXPECT_TRUE(isa<NamedTypeNode>(c->genericArgs[0].type));
  EXPECT_TRUE(isa<BinaryExpr>(c->genericArgs[1].expr));
  EXPECT_TRUE(isa<NamedTypeNode>(c->genericArgs[2].type));
  EXPECT_TRUE(isa<ShapeLiteralExpr>(c->genericArgs[3].expr));
  EXPECT_TRUE(isa<TensorTypeNode>(c->genericArgs[4].type));
  EXPECT_TRUE(isa<TupleTypeNode>(c->genericArgs[5].type));
  EXPECT_TRUE(isa<BinaryExpr>(c->genericArgs[6].expr));
  EXPECT_TRUE(isa<BinaryExpr>(c->genericArgs[7].expr));
}

TEST(Parser, ReductionNamesAreContextual) {
  auto p = parseText(
      "module m\nfn f() {\n    let sum = sum[i] x[i]\n    let m = max(x, 0.0)\n"
      "    let t = sum<f32>[i, j] a[i, j]\n    let v = max < f32\n}\n");
  ASSERT_TRUE(p->ok());
  const FunctionItem* fn = p->function();
  auto* first = as<LetStmt>(fn->body[0]);
  EXPECT_EQ(first->pattern->name.name, "sum");
  auto* reduction = as<ReductionExpr>(first->value);
  ASSERT_TRUE(reduction);
  EXPECT_EQ(reduction->reduction, ReductionKind::Sum);
  EXPECT_TRUE(isa<CallExpr>(as<LetStmt>(fn->body[1])->value));
  auto* typed = as<ReductionExpr>(as<LetStmt>(fn->body[2])->value);
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->accumulator, ScalarType::F32);
  EXPECT_EQ(typed->indices.size(), 2u);
  EXPECT_TRUE(isa<BinaryExpr>(as<LetStmt>(fn->body[3])->value));
}

TEST(Parser, ReductionBodyExtendsRight) {
  auto p = parseExprText("x + sum[i] a[i] * b[i]");
  ASSERT_TRUE(p->ok());
  auto* add = as<BinaryExpr>(letValue(*p));
  ASSERT_TRUE(add);
  auto* reduction = as<ReductionExpr>(add->rhs);
  ASSERT_TRUE(reduction);
  EXPECT_TRUE(isa<BinaryExpr>(reduction->body));
}

TEST(Parser, IndexComponentsAndSlices) {
  auto p = parseExprText("x[0, :, 1:, :n, ::2, 1::2, a:b:c, a:b:, ..., *s]");
  ASSERT_TRUE(p->ok());
  auto* index = as<IndexExpr>(letValue(*p));
  ASSERT_EQ(index->components.size(), 10u);
  const auto& c = index->components;
  EXPECT_EQ(c[0].kind, IndexComponentKind::Expr);
  EXPECT_EQ(c[1].kind, IndexComponentKind::Slice);
  EXPECT_FALSE(c[1].start || c[1].stop || c[1].hasStep);
  EXPECT_TRUE(c[2].start && !c[2].stop);
  EXPECT_TRUE(!c[3].start && c[3].stop);
  EXPECT_TRUE(c[4].hasStep && c[4].step && !c[4].start && !c[4].stop);
  EXPECT_TRUE(c[5].start && c[5].hasStep && c[5].step && !c[5].stop);
  EXPECT_TRUE(c[6].start && c[6].stop && c[6].step);
  EXPECT_TRUE(c[7].hasStep && !c[7].step);
  EXPECT_EQ(c[8].kind, IndexComponentKind::Ellipsis);
  EXPECT_EQ(c[9].kind, IndexComponentKind::Pack);
  EXPECT_EQ(c[9].pack.name, "s");
}

TEST(Parser, TuplesParenthesesAndShapes) {
  auto p = parseExprText("((a), (a,), (a, b,), [A, *S], [])");
  ASSERT_TRUE(p->ok());
  auto* tuple = as<TupleExpr>(letValue(*p));
  ASSERT_EQ(tuple->elements.size(), 5u);
  EXPECT_TRUE(isa<ParenExpr>(tuple->elements[0]));
  EXPECT_EQ(as<TupleExpr>(tuple->elements[1])->elements.size(), 1u);
  EXPECT_EQ(as<TupleExpr>(tuple->elements[2])->elements.size(), 2u);
  auto* shape = as<ShapeLiteralExpr>(tuple->elements[3]);
  ASSERT_EQ(shape->elements.size(), 2u);
  EXPECT_TRUE(shape->elements[1].isPack());
  EXPECT_TRUE(as<ShapeLiteralExpr>(tuple->elements[4])->elements.empty());
}

TEST(Parser, MatchArmsHaveNoSeparator) {
  auto p = parseExprText("match o {\n        some((a, b)) => a\n        none => f(x)\n        V => 1\n    }");
  ASSERT_TRUE(p->ok());
  auto* match = as<MatchExpr>(letValue(*p));
  ASSERT_EQ(match->arms.size(), 3u);
  EXPECT_EQ(match->arms[0].pattern->kind, PatternKind::Some);
  EXPECT_EQ(match->arms[0].pattern->inner->kind, PatternKind::Tuple);
  EXPECT_EQ(match->arms[1].pattern->kind, PatternKind::None);
  EXPECT_EQ(match->arms[2].pattern->kind, PatternKind::Binding);
}

TEST(Parser, StatementsOfAllKinds) {
  auto p = parseText(
      "module m\nfn f() {\n"
      "    let (a, (b, c)): (f32, (f32, f32)) = g()\n"
      "    let y[*s, o] = x[*s, o]\n"
      "    var v: f32 = 1.0\n"
      "    v = 2.0\n"
      "    static for layer in layers { v = layer.forward(v) }\n"
      "    static for i in 0..N { v = v }\n"
      "    while v < 3.0 { v = v + 1.0 }\n"
      "    for i in 0..N { v = v }\n"
      "    let hs = for t in 0..T { yield v }\n"
      "    store(y[0], v)\n"
      "    return\n}\n");
  ASSERT_TRUE(p->ok()) << p->messages()[0];
  const auto& body = p->function()->body;
  ASSERT_EQ(body.size(), 11u);
  StmtKind expected[] = {StmtKind::Let,       StmtKind::LetComprehension, StmtKind::Var,
                         StmtKind::Assign,    StmtKind::StaticFor,        StmtKind::StaticFor,
                         StmtKind::While,     StmtKind::For,              StmtKind::Let,
                         StmtKind::KernelCall, StmtKind::Return};
  for (size_t i = 0; i < body.size(); ++i) EXPECT_EQ(body[i]->kind, expected[i]) << i;
  EXPECT_FALSE(as<StaticForStmt>(body[4])->rangeEnd);
  EXPECT_TRUE(as<StaticForStmt>(body[5])->rangeEnd);
  auto* scan = as<ForScanExpr>(as<LetStmt>(body[8])->value);
  ASSERT_TRUE(scan);
  EXPECT_EQ(scan->body[0]->kind, StmtKind::Yield);
  EXPECT_FALSE(as<ReturnStmt>(body[10])->value);
}

TEST(Parser, ItemsOfAllKinds) {
  auto p = parseText(
      "module m\n"
      "pub const N = 4\n"
      "type A<T: DType = f32> = Tensor[N; T]?\n"
      "struct S<T: Float> {\n    a: T\n    b: (T, T)\n}\n"
      "enum E { X, Y, }\n"
      "op o<N: Dim>(x: Tensor[N; f32]) -> Tensor[N; f32] kernel k<N, 8> where N > 0 {\n"
      "    return x\n} grad(y, dy) {\n    return dy\n}\n"
      "kernel k<N: Dim, B: Dim>(x: Tensor[N; f32]) -> (y: Tensor[N; f32], z: Tensor[N; f32]) "
      "grid(N / B, 1) warps(4) stages(2) where B > 0 {\n    store(y[0], 1.0)\n}\n"
      "pub block K<H: Dim> where H > 0 {\n    param w: Tensor[H; f32]? = none\n"
      "    buffer b: Tensor[H; f32]\n    state s: Tensor[H; f32]\n    sub l: [L<H>; 2]\n"
      "    pub entry e(x: f32, y: f32 = 1.0) -> f32 {\n        return x\n    }\n}\n");
  ASSERT_TRUE(p->ok()) << p->messages()[0];
  const auto& items = p->module->items;
  ASSERT_EQ(items.size(), 7u);
  EXPECT_TRUE(items[0]->isPub);
  EXPECT_EQ(as<TypeAliasItem>(items[1])->generics[0].defaultValue->type->kind, TypeKind::Scalar);
  EXPECT_EQ(as<StructItem>(items[2])->fields.size(), 2u);
  EXPECT_EQ(as<EnumItem>(items[3])->variants.size(), 2u);
  auto* op = as<FunctionItem>(items[4]);
  EXPECT_EQ(op->function, FunctionKind::Op);
  ASSERT_TRUE(op->kernelBinding);
  EXPECT_EQ(op->kernelBinding->kernel.name, "k");
  EXPECT_EQ(op->kernelBinding->genericArgs.size(), 2u);
  ASSERT_TRUE(op->grad);
  EXPECT_EQ(op->grad->gradient.name, "dy");
  EXPECT_EQ(op->where.size(), 1u);
  auto* kernel = as<FunctionItem>(items[5]);
  EXPECT_EQ(kernel->function, FunctionKind::Kernel);
  EXPECT_TRUE(kernel->kernelResultsParenthesized);
  EXPECT_EQ(kernel->kernelResults.size(), 2u);
  ASSERT_EQ(kernel->kernelSettings.size(), 3u);
  EXPECT_EQ(kernel->kernelSettings[0].values.size(), 2u);
  EXPECT_EQ(kernel->kernelSettings[2].name.name, "stages");
  auto* block = as<BlockItem>(items[6]);
  ASSERT_EQ(block->body.size(), 5u);
  EXPECT_EQ(as<MemberItem>(block->body[0])->member, MemberKind::Param);
  EXPECT_TRUE(isa<NoneLiteralExpr>(as<MemberItem>(block->body[0])->initializer));
  EXPECT_EQ(as<MemberItem>(block->body[3])->type->kind, TypeKind::Array);
  EXPECT_EQ(as<FunctionItem>(block->body[4])->params[1].defaultValue->kind, ExprKind::FloatLiteral);
}

// Every node's span lies within its parent's, inside the text.
struct SpanChecker {
  uint32_t size;
  int failures = 0;
  void check(Span outer, Span inner) {
    if (!inner.valid() || inner.begin > inner.end || inner.end > size || inner.begin < outer.begin ||
        inner.end > outer.end)
      ++failures;
  }
  void expr(Span outer, const Expr* e) {
    if (!e) return;
    check(outer, e->span);
    switch (e->kind) {
      case ExprKind::Binary:
        expr(e->span, as<BinaryExpr>(e)->lhs);
        expr(e->span, as<BinaryExpr>(e)->rhs);
        return;
      case ExprKind::Unary: expr(e->span, as<UnaryExpr>(e)->operand); return;
      case ExprKind::Call:
        expr(e->span, as<CallExpr>(e)->callee);
        for (const Argument& a : as<CallExpr>(e)->args) expr(e->span, a.value);
        return;
      case ExprKind::Index:
        expr(e->span, as<IndexExpr>(e)->base);
        for (const IndexComponent& c : as<IndexExpr>(e)->components) {
          check(e->span, c.span);
          expr(c.span, c.value);
          expr(c.span, c.start);
          expr(c.span, c.stop);
          expr(c.span, c.step);
        }
        return;
      case ExprKind::Member: expr(e->span, as<MemberExpr>(e)->base); return;
      case ExprKind::Paren: expr(e->span, as<ParenExpr>(e)->inner); return;
      case ExprKind::Tuple:
        for (const Expr* x : as<TupleExpr>(e)->elements) expr(e->span, x);
        return;
      case ExprKind::Reduction: expr(e->span, as<ReductionExpr>(e)->body); return;
      case ExprKind::If:
        expr(e->span, as<IfExpr>(e)->condition);
        expr(e->span, as<IfExpr>(e)->thenValue);
        expr(e->span, as<IfExpr>(e)->elseValue);
        return;
      case ExprKind::Match:
        expr(e->span, as<MatchExpr>(e)->scrutinee);
        for (const MatchArm& arm : as<MatchExpr>(e)->arms) {
          check(e->span, arm.span);
          expr(arm.span, arm.value);
        }
        return;
      case ExprKind::Some: expr(e->span, as<SomeExpr>(e)->value); return;
      default: return;
    }
  }
};

TEST(Parser, SpansNest) {
  std::string text =
      "module m\nfn f() {\n    let v = -a.b(c, d = e)[1:2, ...] + sum[i] x[i] * (y, z).w\n"
      "    let w = match o { some(q) => if q { 1 } else { 2 } none => 0 }\n}\n";
  auto p = parseText(text);
  ASSERT_TRUE(p->ok());
  const FunctionItem* fn = p->function();
  SpanChecker checker{uint32_t(text.size())};
  for (const Stmt* s : fn->body) {
    checker.check(fn->bodySpan, s->span);
    checker.expr(s->span, as<LetStmt>(s)->value);
  }
  EXPECT_EQ(checker.failures, 0);
  // The statement span runs from `let` to the last token.
  EXPECT_EQ(text.substr(fn->body[0]->span.begin, 3), "let");
  EXPECT_EQ(text[fn->body[0]->span.end - 1], 'w');
}

TEST(Parser, ErrorCodes) {
  EXPECT_EQ(parseText("module m\nfn f() { return match o { (a, b) => a } }\n")->codes(),
            std::vector<std::string>{"E1101"});
  EXPECT_EQ(parseText("module m\nfn f() { return self.x }\n")->codes(),
            std::vector<std::string>{"E1103"});
  EXPECT_EQ(parseText("module m\nuse super.x::{y}\n")->codes(), std::vector<std::string>{"E1103"});
  EXPECT_EQ(parseText("module m\nextern fn f() {}\n")->codes(), std::vector<std::string>{"E1103"});
  EXPECT_EQ(parseText("module m\nfn f() { for x in xs { } }\n")->codes(),
            std::vector<std::string>{"E1103"});
  EXPECT_EQ(parseText("module m\nfn f() { f(x) }\n")->codes(), std::vector<std::string>{"E1101"});
  EXPECT_EQ(parseText("module m\nfn f() { let a = --x }\n")->codes(),
            std::vector<std::string>{"E1101"});
}

TEST(Parser, RecoveryReportsIndependentErrorsOnce) {
  auto p = parseText(
      "module m\n"
      "fn a() {\n    let x = 1 +\n    let y = (2\n    let z: = 3\n    return x\n}\n"
      "fn b(x: ) -> f32 {\n    return x x\n}\n"
      "block K {\n    param w: f32\n    7\n    state s: f32\n}\n"
      "fn c() -> i32 {\n    return 1\n}\n");
  EXPECT_EQ(p->codes().size(), 6u);
  for (const std::string& code : p->codes()) EXPECT_EQ(code, "E1101");
  // Every item is still there.
  ASSERT_EQ(p->module->items.size(), 4u);
  EXPECT_EQ(as<BlockItem>(p->module->items[2])->body.size(), 2u);
}

TEST(Parser, MissingBraceEndsBodyAtNextItem) {
  auto p = parseText("module m\nfn a() {\n    return 1\nfn b() {\n    return 2\n}\n");
  EXPECT_EQ(p->codes(), std::vector<std::string>{"E1101"});
  EXPECT_EQ(p->module->items.size(), 2u);
}

TEST(Parser, KeywordAsNameIsOneError) {
  EXPECT_EQ(parseText("module m\nfn f(type: f32) -> f32 {\n    let state = 1\n    return 2\n}\n")
                ->codes(),
            (std::vector<std::string>{"E1101", "E1101"}));
}

TEST(Parser, DocCommentsAttachToItems) {
  auto p = parseText("module m\n/// one\n/** two */\npub fn f() {}\n// plain\nfn g() {}\n");
  ASSERT_TRUE(p->ok());
  EXPECT_EQ(p->module->items[0]->docComments.size(), 2u);
  EXPECT_TRUE(p->module->items[1]->docComments.empty());
}

}  // namespace
}  // namespace linnet::test
