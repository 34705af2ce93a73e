// The `linnet-approximate-math` pass: math ops become code with no libm call
// where they are f32 (bf16/f16 math is first widened to f32), and libm calls
// where they are f64.
//
//   f32 sin, cos   our own: range reduction in f64 (below), then f32
//                  polynomials on [-pi/4, pi/4]
//   f32 tanh       our own: a polynomial near 0, else from exp (below)
//   f32 exp, log, log2
//                  upstream's polynomials, with subnormal arguments (log) or
//                  results (exp) scaled into the normal range first (below)
//   other f32 math upstream's polynomial approximation patterns (which MLIR
//                  only exposes through a test pass); no AVX2-only variants,
//                  so the result stays portable across targets
//   f64 exp, log, sin, cos, tanh, ...
//                  libm (`exp`, `log`, ...; a vector one lane at a time):
//                  upstream's approximations are f32 polynomials, and widen
//                  nothing to f64 (they emitted an invalid `arith.extf` from
//                  f64 vectors). sqrt, rsqrt and abs stay math ops, which
//                  `convert-math-to-llvm` makes instructions.
#include "compiler/codegen/Passes.h"
#include "compiler/codegen/FloatTypes.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace linnet::codegen {

#define GEN_PASS_DEF_APPROXIMATEMATH
#include "compiler/codegen/Passes.h.inc"

namespace {

using namespace mlir;

// `type` (a scalar or a vector) with element type `element`.
Type withElement(Type type, Type element) {
  if (auto v = dyn_cast<VectorType>(type)) return v.clone(element);
  return element;
}

Value splatFloat(ImplicitLocOpBuilder& b, Type type, double value) {
  auto element = cast<FloatType>(getElementTypeOrSelf(type));
  TypedAttr attr = b.getFloatAttr(element, value);
  if (auto v = dyn_cast<VectorType>(type)) attr = DenseElementsAttr::get(v, attr);
  return b.create<arith::ConstantOp>(attr);
}

Value splatInt(ImplicitLocOpBuilder& b, Type type, int64_t value) {
  TypedAttr attr = b.getIntegerAttr(getElementTypeOrSelf(type), value);
  if (auto v = dyn_cast<VectorType>(type)) attr = DenseElementsAttr::get(v, attr);
  return b.create<arith::ConstantOp>(attr);
}

// f32 sin and cos (scalars or vectors).
//
// Range reduction: x = k * pi/2 + r, |r| <= pi/4, in f64. k is x * 2/pi
// rounded to an integer by adding and subtracting 1.5 * 2^52, whose low
// bits then hold k mod 4, the quadrant. pi/2 is the sum of three 24-bit
// pieces and a 53-bit one (about 125 bits in all): for |k| < 2^29 each of
// k * P1, k * P2, k * P3 is exact, x - k * P1 is exact, and every later
// subtraction errs by at most half an f64 ulp of a value about |r|, so r is
// good to f64 precision, even next to a multiple of pi/2, for |x| up to
// 2^29 * pi/2 (about 8.4e8); where the target machine fuses each multiply
// and subtraction into an FMA, each step rounds once at the scale of what is
// left, and r stays good until x * 2/pi itself is off (|x| about 1e15).
// r is clamped to [-1, 1] so the polynomials stay bounded for any x
// (infinities and NaN give NaN).
//
// r is rounded to f32 and the quadrant picks sin(r), cos(r), -sin(r) or
// -cos(r): Cephes' sinf/cosf polynomials on [-pi/4, pi/4]. A result near 0
// comes from sin of a small r, so its relative error stays small too.
// Measured against f64 sin/cos (docs/codegen.md, "Math"): at most 1.5 ulp.
template <typename Op, bool isCos>
struct SinCosF32 : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op, PatternRewriter& rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32()) return rewriter.notifyMatchFailure(op, "not f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type f64 = withElement(type, b.getF64Type());
    Type i64 = withElement(type, b.getI64Type());
    Type i32 = withElement(type, b.getI32Type());
    auto f = [&](double v) { return splatFloat(b, f64, v); };
    auto g = [&](double v) { return splatFloat(b, type, v); };

    Value x = b.create<arith::ExtFOp>(f64, op.getOperand());
    // t = round(x * 2/pi) + 1.5 * 2^52 (valid for |x * 2/pi| < 2^51).
    Value magic = f(0x1.8p52);
    Value t = b.create<arith::AddFOp>(b.create<arith::MulFOp>(x, f(0x1.45f306dc9c883p-1)), magic);
    Value k = b.create<arith::SubFOp>(t, magic);
    Value r = x;
    for (double piece : {0x1.921fb6p+0, -0x1.777a5cp-25, -0x1.ee59dap-50, 0x1.98a2e03707345p-77})
      r = b.create<arith::SubFOp>(r, b.create<arith::MulFOp>(k, f(piece)));
    Value y = b.create<arith::TruncFOp>(type, r);
    // Bounded where |x| is too large for the reduction; NaN stays NaN.
    Value one = g(1.0), minusOne = g(-1.0);
    y = b.create<arith::SelectOp>(b.create<arith::CmpFOp>(arith::CmpFPredicate::OGT, y, one), one, y);
    y = b.create<arith::SelectOp>(b.create<arith::CmpFOp>(arith::CmpFPredicate::OLT, y, minusOne),
                                  minusOne, y);

    Value quadrant = b.create<arith::TruncIOp>(i32, b.create<arith::BitcastOp>(i64, t));
    if (isCos) quadrant = b.create<arith::AddIOp>(quadrant, splatInt(b, i32, 1));  // cos x = sin(x + pi/2)

    // sin(y) = y + y z (S1 + z (S2 + z S3)), z = y^2.
    Value z = b.create<arith::MulFOp>(y, y);
    Value ps = b.create<arith::AddFOp>(b.create<arith::MulFOp>(g(-1.9515295891e-4), z), g(8.3321608736e-3));
    ps = b.create<arith::AddFOp>(b.create<arith::MulFOp>(ps, z), g(-1.6666654611e-1));
    Value sinY = b.create<arith::AddFOp>(
        b.create<arith::MulFOp>(b.create<arith::MulFOp>(ps, z), y), y);
    // cos(y) = 1 - z/2 + z^2 (C1 + z (C2 + z C3)).
    Value pc = b.create<arith::AddFOp>(b.create<arith::MulFOp>(g(2.443315711809948e-5), z),
                                       g(-1.388731625493765e-3));
    pc = b.create<arith::AddFOp>(b.create<arith::MulFOp>(pc, z), g(4.166664568298827e-2));
    Value cosY = b.create<arith::SubFOp>(b.create<arith::MulFOp>(b.create<arith::MulFOp>(pc, z), z),
                                         b.create<arith::MulFOp>(g(0.5), z));
    cosY = b.create<arith::AddFOp>(cosY, one);

    Value zero = splatInt(b, i32, 0);
    Value odd = b.create<arith::CmpIOp>(arith::CmpIPredicate::ne,
                                        b.create<arith::AndIOp>(quadrant, splatInt(b, i32, 1)), zero);
    Value negative = b.create<arith::CmpIOp>(
        arith::CmpIPredicate::ne, b.create<arith::AndIOp>(quadrant, splatInt(b, i32, 2)), zero);
    Value result = b.create<arith::SelectOp>(odd, cosY, sinY);
    result = b.create<arith::SelectOp>(negative, b.create<arith::NegFOp>(result), result);
    rewriter.replaceOp(op, result);
    return success();
  }
};

// f32 tanh. Upstream's rational approximation errs by up to 4 ulp over the
// whole range and clamps its argument at 7.90531, so tanh(8.04) was 3 ulp
// below the rounded value. Here: for |x| < 0.625 the odd polynomial of
// Cephes' tanhf, x + x z P(z) with z = x^2; above, 1 - 2 / (exp(2|x|) + 1)
// with the sign of x (a result of at least 0.55, so the subtraction loses
// little: exp errs by about an ulp, and 2 / (e + 1) at most 0.45 reaches
// the result shifted down a bit). exp overflows to +inf past |x| = 44.4,
// which gives 1; NaN stays NaN. Both are computed for every lane and one
// is selected (no branch in a vector). Measured against f64 tanh
// (docs/codegen.md, "Math").
struct TanhF32 : OpRewritePattern<math::TanhOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::TanhOp op, PatternRewriter& rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32()) return rewriter.notifyMatchFailure(op, "not f32");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto g = [&](double v) { return splatFloat(b, type, v); };
    Value x = op.getOperand();
    Value ax = b.create<math::AbsFOp>(x);
    Value z = b.create<arith::MulFOp>(x, x);
    Value p = g(-5.70498872745e-3);
    for (double c : {2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1})
      p = b.create<arith::AddFOp>(b.create<arith::MulFOp>(p, z), g(c));
    Value small = b.create<arith::AddFOp>(b.create<arith::MulFOp>(b.create<arith::MulFOp>(p, z), x), x);
    Value e = b.create<math::ExpOp>(b.create<arith::AddFOp>(ax, ax));
    Value large = b.create<arith::SubFOp>(
        g(1.0), b.create<arith::DivFOp>(g(2.0), b.create<arith::AddFOp>(e, g(1.0))));
    large = b.create<math::CopySignOp>(large, x);
    Value isSmall = b.create<arith::CmpFOp>(arith::CmpFPredicate::OLT, ax, g(0.625));
    rewriter.replaceOp(op, b.create<arith::SelectOp>(isSmall, small, large));
    return success();
  }
};

// Marks a math op whose argument the patterns below have already scaled, so
// that upstream's (lower benefit) approximation takes it.
constexpr llvm::StringLiteral kScaled = "linnet.subnormals_scaled";

// Whether `op` is an f32 math op the patterns below have not wrapped yet.
LogicalResult unscaledF32(Operation* op, PatternRewriter& rewriter) {
  if (!getElementTypeOrSelf(op->getResult(0).getType()).isF32()) return rewriter.notifyMatchFailure(op, "not f32");
  if (op->hasAttr(kScaled)) return rewriter.notifyMatchFailure(op, "already scaled");
  return success();
}

// `op` again on `argument`, marked for upstream's pattern: its result.
template <typename Op>
Value scaledCopy(ImplicitLocOpBuilder& b, Op op, Value argument) {
  auto inner = b.create<Op>(TypeRange{op.getType()}, ValueRange{argument}, op->getAttrs());
  inner->setAttr(kScaled, b.getUnitAttr());
  return inner.getResult();
}

// f32 log and log2 of subnormal arguments. Upstream's approximation raises
// its argument to the smallest normal, 2^-126, first: log(1e-40) was
// log(2^-126) = -87.3365. Here an argument in (0, 2^-126) is multiplied by
// 2^23 (exactly) and the log of that, in [-87.34, -71.39] (log2: [-126,
// -103)), is lowered by 23 ln 2 (23): one evaluation of the polynomial per
// lane, on the argument chosen by a select. 23 ln 2 = C_hi + C_lo, C_hi a
// multiple of 2^-17: y - C_hi is exact (both operands and the result are
// multiples of 2^-17 below 128 in magnitude), so the result rounds once,
// subtracting C_lo. Every other lane (normal, 0, negative, inf, NaN) takes
// upstream's result on the unchanged argument, bit for bit as before.
template <typename Op, bool base2>
struct LogSubnormalF32 : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;

  LogicalResult matchAndRewrite(Op op, PatternRewriter& rewriter) const override {
    if (failed(unscaledF32(op, rewriter))) return failure();
    Type type = op.getType();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto g = [&](double v) { return splatFloat(b, type, v); };
    Value x = op.getOperand();
    Value subnormal = b.create<arith::AndIOp>(
        b.create<arith::CmpFOp>(arith::CmpFPredicate::OGT, x, g(0.0)),
        b.create<arith::CmpFOp>(arith::CmpFPredicate::OLT, x, g(0x1p-126)));
    Value y = scaledCopy(b, op, b.create<arith::SelectOp>(subnormal, b.create<arith::MulFOp>(x, g(0x1p23)), x));
    Value lowered;
    if (base2) {
      lowered = b.create<arith::SubFOp>(y, g(23.0));
    } else {
      // 23 ln 2 = 0x1.fe28p+3 + 0x1.3a1ecep-19 (to 2^-43).
      lowered = b.create<arith::SubFOp>(b.create<arith::SubFOp>(y, g(0x1.fe28p+3)), g(0x1.3a1ecep-19));
    }
    rewriter.replaceOp(op, b.create<arith::SelectOp>(subnormal, lowered, y));
    return success();
  }
};

// f32 exp with a subnormal result. Upstream's approximation returns
// z 2^n with 2^n built from n's bits, and 0 once n < -126: exp(-88) was 0.
// Here an argument x below ln 2^-126 (where the result is subnormal) becomes
// x' = x + K, K = 0x1.62e43p+5 = 64 ln 2 + 1.2e-7 (a multiple of 2^-17, so
// x' is exact for x down to about -170), upstream's exp(x') is normal
// (2^-86 to 2^-62 where exp(x) does not round to 0), and exp(x) = exp(x') C
// with C = 2^-64 e^(64 ln 2 - K) = 0x1.fffffcp-65 (its f32 rounding off by
// 2.7e-9 relative): one
// multiply, which rounds once into the subnormal range. One evaluation of
// the polynomial per lane, on the argument chosen by a select; every other
// lane (the normal range, NaN, +inf, overflow) takes upstream's result on
// the unchanged argument, bit for bit as before; -inf stays 0.
struct ExpSubnormalF32 : OpRewritePattern<math::ExpOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::ExpOp op, PatternRewriter& rewriter) const override {
    if (failed(unscaledF32(op, rewriter))) return failure();
    Type type = op.getType();
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    auto g = [&](double v) { return splatFloat(b, type, v); };
    Value x = op.getOperand();
    // The largest f32 below ln 2^-126 = -87.336544750553...: exp(x) < 2^-126.
    Value subnormal = b.create<arith::CmpFOp>(arith::CmpFPredicate::OLE, x, g(-0x1.5d58ap+6));
    Value y = scaledCopy(b, op, b.create<arith::SelectOp>(subnormal, b.create<arith::AddFOp>(x, g(0x1.62e43p+5)), x));
    Value scaled = b.create<arith::MulFOp>(y, g(0x1.fffffcp-65));
    rewriter.replaceOp(op, b.create<arith::SelectOp>(subnormal, scaled, y));
    return success();
  }
};

bool isF64(Type t) { return getElementTypeOrSelf(t).isF64(); }

// bf16/f16 math computed in f32: operands widened, the op cloned on f32,
// results rounded back. What upstream's `math-legalize-to-f32` does, which
// in MLIR 19 also "widened" f64 vectors to f32 (an invalid `arith.extf`).
struct WidenNarrowMath : RewritePattern {
  WidenNarrowMath(MLIRContext* context) : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation* op, PatternRewriter& rewriter) const override {
    if (!isa<math::MathDialect>(op->getDialect()) || op->getNumRegions() != 0)
      return failure();
    if (!llvm::any_of(op->getOperandTypes(), isNarrowFloat) &&
        !llvm::any_of(op->getResultTypes(), isNarrowFloat))
      return failure();
    Type f32 = rewriter.getF32Type();
    SmallVector<Value> operands;
    for (Value v : op->getOperands())
      operands.push_back(isNarrowFloat(v.getType())
                             ? rewriter.create<arith::ExtFOp>(op->getLoc(), withElement(v.getType(), f32), v)
                                   .getResult()
                             : v);
    SmallVector<Type> types;
    for (Type t : op->getResultTypes()) types.push_back(isNarrowFloat(t) ? withElement(t, f32) : t);
    OperationState state(op->getLoc(), op->getName(), operands, types, op->getAttrs());
    Operation* wide = rewriter.create(state);
    SmallVector<Value> results;
    for (auto [old, now] : llvm::zip(op->getResults(), wide->getResults()))
      results.push_back(old.getType() == now.getType()
                            ? now
                            : rewriter.create<arith::TruncFOp>(op->getLoc(), old.getType(), now).getResult());
    rewriter.replaceOp(op, results);
    return success();
  }
};

struct ApproximateMathPass : impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    MLIRContext* context = &getContext();
    SmallVector<Operation*> wide, narrow;
    getOperation()->walk([&](Operation* op) {
      if (!isa<math::MathDialect>(op->getDialect())) return;
      bool f64 = llvm::any_of(op->getOperandTypes(), isF64) || llvm::any_of(op->getResultTypes(), isF64);
      if (!f64) return narrow.push_back(op);
      // LLVM makes these instructions (or 1 / sqrt); libm would not.
      if (!isa<math::SqrtOp, math::RsqrtOp, math::AbsFOp, math::FmaOp, math::CopySignOp, math::FloorOp,
               math::CeilOp, math::RoundOp, math::RoundEvenOp, math::TruncOp>(op))
        wide.push_back(op);
    });
    // The expansions' multiplies and adds may fuse (their accuracy was
    // measured so: the range reductions round each step once).
    struct Contract : RewriterBase::Listener {
      void notifyOperationInserted(Operation* op, OpBuilder::InsertPoint) override { allowContract(op); }
    } contract;
    GreedyRewriteConfig config;
    config.strictMode = GreedyRewriteStrictness::ExistingAndNewOps;
    config.listener = &contract;

    RewritePatternSet libm(context);
    populateMathToLibmConversionPatterns(libm);
    if (!wide.empty() && failed(applyOpPatternsAndFold(wide, std::move(libm), config)))
      return signalPassFailure();

    RewritePatternSet approximations(context);
    approximations.add<SinCosF32<math::SinOp, false>, SinCosF32<math::CosOp, true>, TanhF32>(context,
                                                                                             /*benefit=*/2);
    approximations.add<LogSubnormalF32<math::LogOp, false>, LogSubnormalF32<math::Log2Op, true>,
                       ExpSubnormalF32>(context, /*benefit=*/2);
    approximations.add<WidenNarrowMath>(context);
    populateMathPolynomialApproximationPatterns(approximations);
    if (!narrow.empty() && failed(applyOpPatternsAndFold(narrow, std::move(approximations), config)))
      signalPassFailure();
  }
};

}  // namespace
}  // namespace linnet::codegen
