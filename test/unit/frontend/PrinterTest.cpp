// ASTPrinter: the canonical spelling of types, expressions, generics and
// signatures, and printModule's round trip: print(parse(print(parse(x))))
// equals print(parse(x)), comments and blank lines included.
#include <gtest/gtest.h>

#include "FrontendTestUtil.h"
#include "compiler/parse/ASTPrinter.h"

namespace linnet::test {
namespace {

using namespace ast;

std::string signatureOf(const std::string& text, size_t index = 0) {
  auto p = parseText("module m\n" + text);
  EXPECT_TRUE(p->ok()) << text;
  const FunctionItem* fn = p->function(index);
  if (!fn) {
    // Methods inside the first block.
    if (auto* block = as<BlockItem>(p->module->items[0]))
      fn = as<FunctionItem>(block->body[index]);
  }
  return fn ? printSignature(*fn) : "";
}

std::string exprOf(const std::string& expr) {
  auto p = parseExprText(expr);
  EXPECT_TRUE(p->ok()) << expr;
  return printExpr(letValue(*p));
}

std::string typeOf(const std::string& type) {
  auto p = parseText("module m\ntype A = " + type + "\n");
  EXPECT_TRUE(p->ok()) << type;
  return printType(as<TypeAliasItem>(p->module->items[0])->type);
}

TEST(Printer, Signatures) {
  EXPECT_EQ(signatureOf("pub fn forward<B: Dim, S: Dim>(x: Tensor[B, S, H; T]) -> Tensor[B, S, H; T] {}"),
            "pub fn forward<B: Dim, S: Dim>(x: Tensor[B, S, H; T]) -> Tensor[B, S, H; T]");
  EXPECT_EQ(signatureOf("block K {\n pub entry decode(token: Tensor[Batch,1;i32],pos:i32)->"
                        "Tensor[Batch,Vocab;T] where X > 0 {}\n}"),
            "pub entry decode(token: Tensor[Batch, 1; i32], pos: i32) -> Tensor[Batch, Vocab; T]");
  EXPECT_EQ(signatureOf("entry g<MaxNew: Dim>(t: i32) -> (Tensor[Batch, MaxNew; i32], i32) {}"),
            "entry g<MaxNew: Dim>(t: i32) -> (Tensor[Batch, MaxNew; i32], i32)");
  EXPECT_EQ(signatureOf("op lin<*S: Shape, T: Float = bf16>(x: Tensor[*S; T], b: Tensor[Out; T]? = none) "
                        "-> Tensor[*S; T] kernel k<S, 16> {}"),
            "op lin<*S: Shape, T: Float = bf16>(x: Tensor[*S; T], b: Tensor[Out; T]? = none) -> "
            "Tensor[*S; T] kernel k<S, 16>");
  EXPECT_EQ(signatureOf("pub kernel k<N: Dim>(x: Tensor[N; f32]) -> (a: f32, b: f32) grid(N, 2) warps(4) {}"),
            "pub kernel k<N: Dim>(x: Tensor[N; f32]) -> (a: f32, b: f32) grid(N, 2) warps(4)");
  EXPECT_EQ(signatureOf("kernel k() -> y: Tensor[4; f32] grid(1) {}"),
            "kernel k() -> y: Tensor[4; f32] grid(1)");
  EXPECT_EQ(signatureOf("fn f() {}"), "fn f()");
}

TEST(Printer, GenericParams) {
  auto p = parseText("module m\nfn f<B: Dim, S: Dim>() {}\nfn g<*S: Shape>() {}\nfn h<T: Float = bf16, N: Dim = 2 * 4>() {}\n");
  ASSERT_TRUE(p->ok());
  EXPECT_EQ(printGenericParams(p->function(0)->generics), "<B: Dim, S: Dim>");
  EXPECT_EQ(printGenericParams(p->function(1)->generics), "<*S: Shape>");
  EXPECT_EQ(printGenericParams(p->function(2)->generics), "<T: Float = bf16, N: Dim = 2 * 4>");
  EXPECT_EQ(printGenericParams({}), "");
  EXPECT_EQ(printGenericArg(*p->function(2)->generics[1].defaultValue), "2 * 4");
}

TEST(Printer, Types) {
  EXPECT_EQ(typeOf("Tensor[B,S,3*H;T]"), "Tensor[B, S, 3 * H; T]");
  EXPECT_EQ(typeOf("Tensor[*S, In; bf16]"), "Tensor[*S, In; bf16]");
  EXPECT_EQ(typeOf("Tensor[N;f32]"), "Tensor[N; f32]");
  EXPECT_EQ(typeOf("Tensor[Out; T]?"), "Tensor[Out; T]?");
  EXPECT_EQ(typeOf("Linear<H,3*H,T>"), "Linear<H, 3 * H, T>");
  EXPECT_EQ(typeOf("[Layer<H, T>; Layers]"), "[Layer<H, T>; Layers]");
  EXPECT_EQ(typeOf("(f32, (i32, bool))"), "(f32, (i32, bool))");
  EXPECT_EQ(typeOf("(f32,)"), "(f32,)");
  EXPECT_EQ(typeOf("std.nn.Linear<H, H>"), "std.nn.Linear<H, H>");
}

TEST(Printer, Expressions) {
  EXPECT_EQ(exprOf("a+b*c"), "a + b * c");
  EXPECT_EQ(exprOf("(a+b)*c"), "(a + b) * c");
  EXPECT_EQ(exprOf("f<A>(x,name=v)"), "f<A>(x, name = v)");
  EXPECT_EQ(exprOf("x[a,:,...]"), "x[a, :, ...]");
  EXPECT_EQ(exprOf("x[1:n:2, ::2, 0::2, 1:, :n, a:b:]"), "x[1:n:2, ::2, 0::2, 1:, :n, a:b:]");
  EXPECT_EQ(exprOf("sum<f32>[k] e"), "sum<f32>[k] e");
  EXPECT_EQ(exprOf("x + sum[i, j] a[i] * b[j]"), "x + sum[i, j] a[i] * b[j]");
  EXPECT_EQ(exprOf("if c {a} else {b}"), "if c { a } else { b }");
  EXPECT_EQ(exprOf("-a + !b"), "-a + !b");
  EXPECT_EQ(exprOf("(a,)"), "(a,)");
  EXPECT_EQ(exprOf("[A, *S, B * 2]"), "[A, *S, B * 2]");
  EXPECT_EQ(exprOf("some(x).y"), "some(x).y");
  EXPECT_EQ(exprOf("0xff + 1_000 + 1e-5 + \"a\\n\""), "0xff + 1_000 + 1e-5 + \"a\\n\"");
  EXPECT_EQ(exprOf("a < b && c > (a)"), "a < b && c > (a)");
}

TEST(Printer, AddsParenthesesToBuiltTrees) {
  // A tree built by hand (not parsed) gets the parentheses precedence needs.
  Arena arena;
  auto name = [&](const char* n) {
    auto* e = arena.make<NameExpr>();
    e->name.name = n;
    return e;
  };
  auto binary = [&](BinaryOp op, Expr* l, Expr* r) {
    auto* e = arena.make<BinaryExpr>();
    e->op = op;
    e->lhs = l;
    e->rhs = r;
    return e;
  };
  EXPECT_EQ(printExpr(binary(BinaryOp::Mul, binary(BinaryOp::Add, name("a"), name("b")), name("c"))),
            "(a + b) * c");
  EXPECT_EQ(printExpr(binary(BinaryOp::Sub, name("a"), binary(BinaryOp::Sub, name("b"), name("c")))),
            "a - (b - c)");
  auto* reduction = arena.make<ReductionExpr>();
  reduction->reduction = ReductionKind::Sum;
  reduction->indices.push_back({"i", {}});
  reduction->body = name("x");
  EXPECT_EQ(printExpr(binary(BinaryOp::Add, reduction, name("y"))), "(sum[i] x) + y");
  EXPECT_EQ(printExpr(binary(BinaryOp::Add, name("y"), reduction)), "y + sum[i] x");
}

const char* kRichProgram = R"(/// The grammar in one file.
module tests.rich

use std.nn.linear::{Linear, linear as lin}
use std.random
use crate::{helper}
use shared.util::{
    dot,
    outer as out,
}

pub const N = 16
const SCALE: f32 = 1e-5
type Hidden<B: Dim, H: Dim> = Tensor[B, H; bf16]

// A struct.
struct Moments<N: Dim, T: Float> {
    mean: Tensor[N; T] // the mean
    scale: Tensor[N; T]?
}

pub enum Pooling { Mean, ClassToken }

enum Mode {
    Train,
    Eval,
}

pub op double<N: Dim>(x: Tensor[N; f32]) -> Tensor[N; f32] kernel twice<N, 16>
where N > 0 {
    return x * 2.0
} grad(y, dy) {
    return dy * 2.0
}

pub kernel twice<N: Dim, B: Dim>(x: Tensor[N; f32]) -> y: Tensor[N; f32] grid((N + B - 1) / B) warps(4)
where B > 0 {
    let i = program_id(0) * B + iota<i32>(B)
    store(y[i], load(x[i], i < N) * 2.0, i < N)
}

fn rotate<*S: Shape, D: Dim, T: Float = bf16>(
    x: Tensor[*S, D; T],
    eps: f32 = 1e-5,
) -> Tensor[*S, D; T]
where
    D % 2 == 0,
    D > 0,
{
    let first = x[..., 0:D / 2]
    return concat(-x[..., D / 2:D], first, axis = -1)
}

pub block Model<Vocab: Dim, H: Dim, Layers: Dim, T: Float = bf16>
where H % 2 == 0 {
    param weight: Tensor[Vocab, H; T]
    param bias: Tensor[H; T]? = none
    state cache: Tensor[4, H; T]
    sub layers: [Block<H, T>; Layers]

    pub entry forward<B: Dim, S: Dim>(tokens: Tensor[B, S; i32]) -> Tensor[B, S, Vocab; T] {
        var x = lin(tokens, weight, bias)
        static for layer in layers {
            x = layer.forward(x)
        }

        // Index notation.
        let c[m, *s] = sum<f32>[k] x[m, k, *s] * weight[k, m]
        let picked = match bias {
            some(b) => x + b
            none => x
        }
        let choice = if causal {
            masked
        } else {
            scores
        }
        while running && count < MaxNew {
            count = count + 1
        }
        let hs = for t in 0..S {
            yield (x, t)
        }
        return random.normal<N, f32>(key)
    }
}
// The end.
)";

TEST(Printer, CanonicalProgramPrintsAsWritten) {
  std::string printed = format(kRichProgram);
  EXPECT_EQ(printed, kRichProgram);
}

TEST(Printer, RoundTripIsIdempotent) {
  const char* messy = R"(module   m   // header
use std.a::{b,c as d}
const   A=1
const B = [1,2,3]
fn f<T:Float=f32>( x : Tensor[ B ,S;T] , y:f32=1e-5 )->f32 where N>0,M>0{
  let a=x+y*2 // trailing
  /* block */ let b=(a)
      // dangling
  return match a { some(v) => v none => 0 }
}
block K { param w : f32
  fn g()->f32{ return w } }
)";
  std::string once = format(messy);
  ASSERT_FALSE(once.empty());
  EXPECT_EQ(format(once), once);
  EXPECT_EQ(once,
            "module m // header\n"
            "\n"
            "use std.a::{b, c as d}\n"
            "\n"
            "const A = 1\n"
            "const B = [1, 2, 3]\n"
            "\n"
            "fn f<T: Float = f32>(x: Tensor[B, S; T], y: f32 = 1e-5) -> f32\n"
            "where N > 0, M > 0 {\n"
            "    let a = x + y * 2 // trailing\n"
            "    /* block */\n"
            "    let b = (a)\n"
            "    // dangling\n"
            "    return match a {\n"
            "        some(v) => v\n"
            "        none => 0\n"
            "    }\n"
            "}\n"
            "\n"
            "block K {\n"
            "    param w: f32\n"
            "    fn g() -> f32 {\n"
            "        return w\n"
            "    }\n"
            "}\n");
}

TEST(Printer, TrailingCommaKeepsListsMultiline) {
  std::string text =
      "module m\n\nfn f(\n    a: f32,\n    b: f32,\n) -> f32 {\n    return g(\n        a,\n        b,\n"
      "    )\n}\n";
  EXPECT_EQ(format(text), text);
  EXPECT_EQ(format("module m\nfn f(a: f32, b: f32) -> f32 {\n    return g(a, b)\n}\n"),
            "module m\n\nfn f(a: f32, b: f32) -> f32 {\n    return g(a, b)\n}\n");
}

TEST(Printer, EmptyBodiesAndBlocks) {
  EXPECT_EQ(format("module m\nfn f() {\n}\nblock B {\n}\nstruct S {\n}\nenum E {}\n"),
            "module m\n\nfn f() {}\n\nblock B {}\n\nstruct S {}\n\nenum E {}\n");
}

}  // namespace
}  // namespace linnet::test
