// Known ops: the ops of `std.nn.cache` are written for clarity (each selects
// over the whole [B, H, S, D] cache, so every decode step would rewrite all
// of it); they get a lowering of their own with exactly the body's meaning
// (the body stays the reference; test/parity, test/equalities and
// test/e2e/cache-writes compare both against Hugging Face and numpy). Each is
// a few `tensor.insert_slice`s of the written positions under `scf.if`s, so
// bufferization updates the state buffer in place. They show in --emit linnet.
//
//   write_at(cache, value[B,H,1,D], at)         one span of length 1
//   write_span(cache, value[B,H,N,D], at)       positions at..at+N, clipped to 0..S
//   write_rows(cache, value[B,H,1,D], at[B])    per row b, a span of 1 at at[b]
//   write_slot(cache, value[1,H,N,D], slot, at) row `slot`, a span at `at`
//   write_slots(cache, value[M,H,N,D], slots[M], at)
//                                               for m in order (a later m wins,
//                                               as in the body), row slots[m]
//   write_tokens(cache, value[1,H,P,D], rows[P], positions[P])
//                                               for p in order (a later p wins,
//                                               as in the body), position
//                                               positions[p] of row rows[p]
// A row or position outside the cache writes nothing, as in the bodies.
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

namespace {

using mlir::arith::CmpIPredicate;

struct SpanWriter {
  mlir::OpBuilder& b;
  mlir::Location l;

  mlir::Value index(int64_t v) { return b.create<mlir::arith::ConstantIndexOp>(l, v); }
  mlir::Value cmp(CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return b.create<mlir::arith::CmpIOp>(l, p, x, y);
  }
  // A scalar i32 (a 0-d tensor, or element `at` of a 1-d one) as an index.
  mlir::Value read(mlir::Value tensor, mlir::ValueRange at = {}) {
    mlir::Value v = b.create<mlir::tensor::ExtractOp>(l, tensor, at);
    return b.create<mlir::arith::IndexCastOp>(l, b.getIndexType(), v);
  }

  // Where a slice of `value` goes in the cache: offsets in `value`, offsets
  // in the cache, sizes (all four axes).
  struct Slices {
    llvm::SmallVector<mlir::OpFoldResult> source, target, sizes;
  };

  // scf.if inside { `cache` with the slice `slices()` (built in the branch,
  // where its offsets are valid) of `value` inserted } else { `cache` }.
  template <typename MakeSlices>
  mlir::Value insertIf(mlir::Value inside, mlir::Value cache, mlir::Value value, MakeSlices slices) {
    auto type = mlir::cast<mlir::RankedTensorType>(cache.getType());
    auto op = b.create<mlir::scf::IfOp>(l, mlir::TypeRange{type}, inside, /*withElseRegion=*/true);
    mlir::OpBuilder::InsertPoint after = b.saveInsertionPoint();
    for (mlir::Region* r : {&op.getThenRegion(), &op.getElseRegion()})
      if (r->empty()) b.createBlock(r);
    b.setInsertionPointToStart(&op.getThenRegion().front());
    Slices s = slices();
    llvm::SmallVector<mlir::OpFoldResult> strides(4, b.getIndexAttr(1));
    auto sliceType = mlir::tensor::ExtractSliceOp::inferResultType(
        mlir::cast<mlir::RankedTensorType>(value.getType()), s.source, s.sizes, strides);
    mlir::Value part = b.create<mlir::tensor::ExtractSliceOp>(l, sliceType, value, s.source, s.sizes, strides);
    mlir::Value written = b.create<mlir::tensor::InsertSliceOp>(l, part, cache, s.target, s.sizes, strides);
    b.create<mlir::scf::YieldOp>(l, written);
    b.setInsertionPointToStart(&op.getElseRegion().front());
    b.create<mlir::scf::YieldOp>(l, cache);
    b.restoreInsertionPoint(after);
    return op.getResult(0);
  }

  // `cache` with positions at..at+N (clipped to 0..S) of `rows` rows from
  // cacheRow replaced by those of `value` from valueRow; unchanged when
  // nothing lies inside (or `cacheRow` is outside 0..B).
  mlir::Value write(mlir::Value cache, mlir::Value value, mlir::Value cacheRow, mlir::Value valueRow,
                    mlir::OpFoldResult rows, mlir::Value at, bool checkRow) {
    mlir::Value zero = index(0);
    mlir::Value length = b.create<mlir::tensor::DimOp>(l, cache, 2);
    mlir::Value span = b.create<mlir::tensor::DimOp>(l, value, 2);
    // Index arithmetic is 64-bit: at + N cannot wrap for an i32 `at`.
    mlir::Value lo = b.create<mlir::arith::MaxSIOp>(l, at, zero);
    mlir::Value end = b.create<mlir::arith::AddIOp>(l, at, span);
    mlir::Value hi = b.create<mlir::arith::MinSIOp>(l, end, length);
    mlir::Value inside = cmp(CmpIPredicate::slt, lo, hi);
    if (checkRow) {
      mlir::Value batch = b.create<mlir::tensor::DimOp>(l, cache, 0);
      inside = b.create<mlir::arith::AndIOp>(l, inside, cmp(CmpIPredicate::sge, cacheRow, zero));
      inside = b.create<mlir::arith::AndIOp>(l, inside, cmp(CmpIPredicate::slt, cacheRow, batch));
    }
    // A single position (write_at, write_rows) that lies inside is whole:
    // static sizes keep the slice a plain copy of H x D.
    bool single = mlir::cast<mlir::RankedTensorType>(value.getType()).getDimSize(2) == 1;
    return insertIf(inside, cache, value, [&]() -> Slices {
      mlir::OpFoldResult count = single ? mlir::OpFoldResult(b.getIndexAttr(1))
                                        : mlir::OpFoldResult(b.create<mlir::arith::SubIOp>(l, hi, lo).getResult());
      mlir::OpFoldResult from = single ? mlir::OpFoldResult(b.getIndexAttr(0))
                                       : mlir::OpFoldResult(b.create<mlir::arith::SubIOp>(l, lo, at).getResult());
      return {{valueRow, b.getIndexAttr(0), from, b.getIndexAttr(0)},
              {cacheRow, b.getIndexAttr(0), lo, b.getIndexAttr(0)},
              {rows, mlir::tensor::getMixedSize(b, l, value, 1), count, mlir::tensor::getMixedSize(b, l, value, 3)}};
    });
  }

  // `cache` with position `at` of row `cacheRow` replaced by position
  // `valueAt` of row 0 of `value`; unchanged when the row or the position
  // is outside the cache.
  mlir::Value writeOne(mlir::Value cache, mlir::Value value, mlir::Value cacheRow, mlir::Value valueAt,
                       mlir::Value at) {
    mlir::Value zero = index(0);
    mlir::Value batch = b.create<mlir::tensor::DimOp>(l, cache, 0);
    mlir::Value length = b.create<mlir::tensor::DimOp>(l, cache, 2);
    mlir::Value inside = cmp(CmpIPredicate::sge, cacheRow, zero);
    for (mlir::Value test : {cmp(CmpIPredicate::slt, cacheRow, batch), cmp(CmpIPredicate::sge, at, zero),
                             cmp(CmpIPredicate::slt, at, length)})
      inside = b.create<mlir::arith::AndIOp>(l, inside, test);
    return insertIf(inside, cache, value, [&]() -> Slices {
      return {{b.getIndexAttr(0), b.getIndexAttr(0), valueAt, b.getIndexAttr(0)},
              {cacheRow, b.getIndexAttr(0), at, b.getIndexAttr(0)},
              {b.getIndexAttr(1), mlir::tensor::getMixedSize(b, l, value, 1), b.getIndexAttr(1),
               mlir::tensor::getMixedSize(b, l, value, 3)}};
    });
  }

  // for i in 0..count: cache = body(cache, i), in order.
  template <typename Body>
  mlir::Value loop(mlir::Value cache, mlir::Value count, Body body) {
    auto op = b.create<mlir::scf::ForOp>(l, index(0), count, index(1), mlir::ValueRange{cache});
    mlir::OpBuilder::InsertPoint after = b.saveInsertionPoint();
    b.setInsertionPointToStart(op.getBody());
    mlir::Value next = body(op.getRegionIterArgs()[0], op.getInductionVar());
    b.create<mlir::scf::YieldOp>(l, next);
    b.restoreInsertionPoint(after);
    return op.getResult(0);
  }
};

int64_t rank(const Val& v) { return mlir::cast<mlir::RankedTensorType>(v.value.getType()).getRank(); }

}  // namespace

Result Lowerer::lowerKnownOp(const ast::FunctionItem& f, const Frame& callee, Span at) {
  if (f.function != ast::FunctionKind::Op || !callee.module || notation_) return std::nullopt;
  if (callee.module->name == "std.nn.attention") return lowerBoundedAttention(f, callee, at);
  if (callee.module->name != "std.nn.cache") return std::nullopt;
  const std::string& name = f.name.name;
  const std::vector<Val>& p = callee.params;
  // The signatures of docs/lowering.md's table; anything else lowers from its body.
  std::vector<int64_t> ranks;
  if (name == "write_at" || name == "write_span") ranks = {4, 4, 0};
  else if (name == "write_rows") ranks = {4, 4, 1};
  else if (name == "write_slot") ranks = {4, 4, 0, 0};
  else if (name == "write_slots") ranks = {4, 4, 1, 0};
  else if (name == "write_tokens") ranks = {4, 4, 1, 1};
  else return std::nullopt;
  if (p.size() != ranks.size()) return std::nullopt;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i].kind != Val::Kind::Tensor || rank(p[i]) != ranks[i]) return std::nullopt;

  SpanWriter w{builder_, loc(at)};
  mlir::Value cache = p[0].value, value = p[1].value, result;
  mlir::Value zero = w.index(0);
  if (name == "write_at" || name == "write_span") {
    result = w.write(cache, value, zero, zero, mlir::tensor::getMixedSize(builder_, w.l, value, 0), w.read(p[2].value),
                     /*checkRow=*/false);
  } else if (name == "write_rows") {
    mlir::Value rows = builder_.create<mlir::tensor::DimOp>(w.l, cache, 0);
    result = w.loop(cache, rows, [&](mlir::Value c, mlir::Value row) {
      return w.write(c, value, row, row, builder_.getIndexAttr(1), w.read(p[2].value, row), false);
    });
  } else if (name == "write_slot") {
    result = w.write(cache, value, w.read(p[2].value), zero, builder_.getIndexAttr(1), w.read(p[3].value),
                     /*checkRow=*/true);
  } else if (name == "write_tokens") {
    mlir::Value tokens = builder_.create<mlir::tensor::DimOp>(w.l, value, 2);
    result = w.loop(cache, tokens, [&](mlir::Value c, mlir::Value token) {
      return w.writeOne(c, value, w.read(p[2].value, token), token, w.read(p[3].value, token));
    });
  } else {  // write_slots
    mlir::Value position = w.read(p[3].value);
    mlir::Value prompts = builder_.create<mlir::tensor::DimOp>(w.l, value, 0);
    result = w.loop(cache, prompts, [&](mlir::Value c, mlir::Value m) {
      return w.write(c, value, w.read(p[2].value, m), m, builder_.getIndexAttr(1), position, true);
    });
  }
  return Val::tensor(result, p[0].type);
}

}  // namespace linnet::lower
