// Known ops: masked attention over a cache reads only the keys a mask lets
// some query see.
//
// The ops of `std.nn.attention` that take a boolean mask over K keys
// (`attention`, `grouped_attention` with `some(mask)`, `attention_rows`,
// `grouped_attention_rows`, `sink_attention`) are written over all K: a
// decode step against a cache of MaxSeq positions scores, normalises and
// mixes every position, though only 0..=pos are visible. Here they lower to
// their own body over the first K' keys, K' computed at run time from the
// mask:
//
//   K' = 1 + the last key any query may see, when every query sees one;
//   K' = K  when some query sees none (the body's fully masked row is a
//           uniform average over all K keys, which a shorter K' would change)
//           or there are no queries.
//
// Every key past K' is masked for every query, so its probability is
// exactly 0 and adds exactly 0 to each lane of the softmax sum and of the
// value mix: the result is bit for bit the body's, for any finite cache
// contents (a non-finite value past K' would make the body's 0 * v NaN).
// The body itself is lowered unchanged with K bound to the new dynamic
// dimension, so it stays the reference, and `--emit linnet` shows the scan
// and the slices.
//
// Many queries (prefill, forward) run a tile of queries at a time, each
// tile's body over the keys its own mask rows let some query see (all K
// for `attention` and `grouped_attention` without a mask): every
// query's scores, softmax and mix are its own, so a tile computes what the
// whole call does for its queries, while its scores take [B, H, rows, K']
// values instead of [B, H, Q, K'] (see kScoresPerTile).
#include <mlir/Dialect/Arith/IR/Arith.h>
#include <mlir/Dialect/SCF/IR/SCF.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"

namespace linnet::lower {

namespace {

// Dims K' stand for are fresh symbols of no source file (file ids are
// 32-bit, so the top half all ones is never a generic's).
shape::SymbolId freshBoundSymbol() {
  static uint32_t next = 0;
  return (shape::SymbolId{0xffffffffu} << 32) | shape::SymbolId{next++};
}

// The symbol of axis `axis` of a signature's tensor type, when it is one.
std::optional<shape::SymbolId> axisSymbol(const check::Type& t, size_t axis) {
  if (!t.isTensor() || t.shape().size() <= axis) return std::nullopt;
  const auto* d = std::get_if<shape::DimExpr>(&t.shape()[axis]);
  if (!d) return std::nullopt;
  auto atom = d->asAtom();
  if (!atom || atom->kind() != shape::AtomKind::Symbol) return std::nullopt;
  return atom->id();
}

// K' of a boolean mask [..., K] (see the file comment): every row scanned,
// each key's visibility selecting its index, branch-free.
mlir::Value visibleKeys(mlir::OpBuilder& b, mlir::Location l, mlir::Value mask) {
  auto type = mlir::cast<mlir::RankedTensorType>(mask.getType());
  int64_t rank = type.getRank();
  auto index = [&](int64_t v) -> mlir::Value { return b.create<mlir::arith::ConstantIndexOp>(l, v); };
  mlir::Value zero = index(0), one = index(1), none = index(-1);
  mlir::Value keys = b.create<mlir::tensor::DimOp>(l, mask, rank - 1);
  llvm::SmallVector<mlir::Value> at;
  // Returns (last visible key so far, some row sees nothing) after the rows
  // under axis `axis`.
  std::function<std::pair<mlir::Value, mlir::Value>(int64_t, mlir::Value, mlir::Value)> rows =
      [&](int64_t axis, mlir::Value last, mlir::Value blind) -> std::pair<mlir::Value, mlir::Value> {
    if (axis == rank - 1) {
      auto scan = b.create<mlir::scf::ForOp>(l, zero, keys, one, mlir::ValueRange{none});
      mlir::OpBuilder::InsertPoint after = b.saveInsertionPoint();
      b.setInsertionPointToStart(scan.getBody());
      at.push_back(scan.getInductionVar());
      mlir::Value visible = b.create<mlir::tensor::ExtractOp>(l, mask, at);
      at.pop_back();
      mlir::Value row = b.create<mlir::arith::SelectOp>(l, visible, scan.getInductionVar(),
                                                        scan.getRegionIterArgs()[0]);
      b.create<mlir::scf::YieldOp>(l, row);
      b.restoreInsertionPoint(after);
      mlir::Value rowLast = scan.getResult(0);
      mlir::Value empty = b.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::slt, rowLast, zero);
      return {b.create<mlir::arith::MaxSIOp>(l, last, rowLast), b.create<mlir::arith::OrIOp>(l, blind, empty)};
    }
    mlir::Value extent = b.create<mlir::tensor::DimOp>(l, mask, axis);
    auto loop = b.create<mlir::scf::ForOp>(l, zero, extent, one, mlir::ValueRange{last, blind});
    mlir::OpBuilder::InsertPoint after = b.saveInsertionPoint();
    b.setInsertionPointToStart(loop.getBody());
    at.push_back(loop.getInductionVar());
    auto [innerLast, innerBlind] = rows(axis + 1, loop.getRegionIterArgs()[0], loop.getRegionIterArgs()[1]);
    at.pop_back();
    b.create<mlir::scf::YieldOp>(l, mlir::ValueRange{innerLast, innerBlind});
    b.restoreInsertionPoint(after);
    return {loop.getResult(0), loop.getResult(1)};
  };
  mlir::Value notBlind = b.create<mlir::arith::ConstantIntOp>(l, 0, 1);
  auto [last, blind] = rows(0, none, notBlind);
  // No row at all leaves `last` at -1: all K, like a blind row.
  mlir::Value noKey = b.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::slt, last, zero);
  mlir::Value whole = b.create<mlir::arith::OrIOp>(l, blind, noKey);
  mlir::Value past = b.create<mlir::arith::AddIOp>(l, last, one);
  return b.create<mlir::arith::SelectOp>(l, whole, keys, past);
}

// `t` cut to `count` elements from `first` along `axis`.
mlir::Value rowsOf(mlir::OpBuilder& b, mlir::Location l, mlir::Value t, int64_t axis, mlir::OpFoldResult first,
                   mlir::Value count) {
  auto type = mlir::cast<mlir::RankedTensorType>(t.getType());
  llvm::SmallVector<mlir::OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  llvm::SmallVector<mlir::OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  llvm::SmallVector<mlir::OpFoldResult> sizes = mlir::tensor::getMixedSizes(b, l, t);
  offsets[axis] = first;
  sizes[axis] = count;
  return b.create<mlir::tensor::ExtractSliceOp>(l, t, offsets, sizes, strides);
}

// `t` cut to its first `count` elements along `axis`.
mlir::Value leading(mlir::OpBuilder& b, mlir::Location l, mlir::Value t, int64_t axis, mlir::Value count) {
  return rowsOf(b, l, t, axis, b.getIndexAttr(0), count);
}

}  // namespace

// The ops and where their key, value and mask parameters are.
struct AttentionSignature {
  const char* name;
  size_t key, value, mask;
  bool optionalMask;
};
static constexpr AttentionSignature kMaskedAttention[] = {
    {"attention", 1, 2, 4, true},      {"grouped_attention", 1, 2, 4, true},
    {"attention_rows", 1, 2, 4, false}, {"grouped_attention_rows", 1, 2, 4, false},
    {"sink_attention", 1, 2, 5, false},
};

// Query tiles: a tile's scores, [B, H, rows, K'], hold at most
// kScoresPerTile values (4 MiB in f32) where kTileQuantum rows do: prefill's
// attention at S = 4096 no longer holds [H, S, S] scores (2 GiB at
// Phi-3-mini's 32 heads), and every op of a tile still has enough points to
// run threaded. Rows come in multiples of kTileQuantum, the code generator's
// token tile (docs/codegen.md, "Cache tiles"), and the last tile takes the
// rest of the queries, so each query falls in the same token tile, and is
// computed by the same code, as when all queries are one tile (measured:
// the same bits at S = 1000 and 4000 on Phi-3-mini; tiles of 8 or 30 rows
// moved some outputs by one bf16 ulp, docs/lowering.md "Query tiles").
constexpr int64_t kScoresPerTile = int64_t(1) << 20;
constexpr int64_t kTileQuantum = 32;

Result Lowerer::lowerBoundedAttention(const ast::FunctionItem& f, const Frame& callee, Span at) {
  if (!callee.module || callee.module->name != "std.nn.attention" || !callee.fn || !callee.fn->signature)
    return std::nullopt;
  const AttentionSignature* sig = nullptr;
  for (const AttentionSignature& s : kMaskedAttention)
    if (f.name.name == s.name) sig = &s;
  if (!sig || callee.params.size() <= sig->mask) return std::nullopt;
  const check::Signature& signature = *callee.fn->signature;
  if (signature.params.size() != callee.params.size()) return std::nullopt;

  // The mask, known at build time to be a tensor or `none` (no mask: all
  // K keys, and only query tiles).
  const Val& maskArg = callee.params[sig->mask];
  const Val* mask = &maskArg;
  check::Type maskType = signature.params[sig->mask];
  if (sig->optionalMask) {
    if (maskType.kind() != check::TypeKind::Optional) return std::nullopt;
    maskType = check::Type(maskType.optionalInner());
    if (maskArg.kind == Val::Kind::None) mask = nullptr;
    else if (maskArg.kind == Val::Kind::Some && maskArg.elements.size() == 1) mask = &maskArg.elements[0];
    else return std::nullopt;
  }
  const Val& key = callee.params[sig->key];
  const Val& value = callee.params[sig->value];
  for (const Val* v : {mask, &key, &value})
    if (v && v->kind != Val::Kind::Tensor) return std::nullopt;
  // K: one generic, axis 2 of key and value and the mask's last axis.
  size_t maskRank = maskType.shape().size();
  auto k = axisSymbol(signature.params[sig->key], 2);
  if (!k || maskRank == 0 || axisSymbol(signature.params[sig->value], 2) != k ||
      axisSymbol(maskType, maskRank - 1) != k || !callee.subst.shapes.dims.count(*k))
    return std::nullopt;

  mlir::Location l = loc(at);
  const Val& query = callee.params[0];
  auto queryType = query.kind == Val::Kind::Tensor
                       ? mlir::dyn_cast<mlir::RankedTensorType>(query.value.getType())
                       : mlir::RankedTensorType();
  // Q: one generic, axis 2 of the query and the mask's second-to-last axis.
  auto q = axisSymbol(signature.params[0], 2);
  bool byQueries = queryType && queryType.getRank() == 4 && maskRank >= 2 && q &&
                   axisSymbol(maskType, maskRank - 2) == q && callee.subst.shapes.dims.count(*q) &&
                   queryType.getDimSize(2) != 1;
  if (!byQueries) {
    if (!mask) return std::nullopt;
    return boundedBody(f, callee, *sig, key.value, value.value, mask->value, mlir::Value(), std::nullopt, l);
  }

  // Query tiles (kScoresPerTile), K' counted over the whole mask.
  auto index = [&](int64_t v) -> mlir::Value { return builder_.create<mlir::arith::ConstantIndexOp>(l, v); };
  mlir::Value queries = builder_.create<mlir::tensor::DimOp>(l, query.value, 2);
  mlir::Value perRow = builder_.create<mlir::arith::MulIOp>(
      l, builder_.create<mlir::tensor::DimOp>(l, query.value, 0), builder_.create<mlir::tensor::DimOp>(l, query.value, 1));
  mlir::Value keys = mask ? visibleKeys(builder_, l, mask->value)
                          : builder_.create<mlir::tensor::DimOp>(l, key.value, 2).getResult();
  perRow = builder_.create<mlir::arith::MulIOp>(l, perRow, keys);
  perRow = builder_.create<mlir::arith::MaxSIOp>(l, perRow, index(1));
  mlir::Value rows = builder_.create<mlir::arith::DivSIOp>(l, index(kScoresPerTile), perRow);
  rows = builder_.create<mlir::arith::MulIOp>(
      l, builder_.create<mlir::arith::DivSIOp>(l, rows, index(kTileQuantum)), index(kTileQuantum));
  rows = builder_.create<mlir::arith::MaxSIOp>(l, rows, index(kTileQuantum));
  mlir::Value tiles = builder_.create<mlir::arith::MaxSIOp>(
      l, builder_.create<mlir::arith::DivSIOp>(l, queries, rows), index(1));
  mlir::Value lastTile = builder_.create<mlir::arith::SubIOp>(l, tiles, index(1));

  llvm::SmallVector<mlir::Value> sizes;
  for (int64_t axis = 0; axis < 4; ++axis)
    if (queryType.isDynamicDim(axis)) sizes.push_back(builder_.create<mlir::tensor::DimOp>(l, query.value, axis));
  mlir::Value empty = builder_.create<mlir::tensor::EmptyOp>(l, queryType, sizes);
  auto loop = builder_.create<mlir::scf::ForOp>(l, index(0), tiles, index(1), mlir::ValueRange{empty});
  {
    mlir::OpBuilder::InsertionGuard guard(builder_);
    builder_.setInsertionPointToStart(loop.getBody());
    mlir::Value tile = loop.getInductionVar();
    mlir::Value first = builder_.create<mlir::arith::MulIOp>(l, tile, rows);
    mlir::Value isLast = builder_.create<mlir::arith::CmpIOp>(l, mlir::arith::CmpIPredicate::eq, tile, lastTile);
    mlir::Value count = builder_.create<mlir::arith::SelectOp>(
        l, isLast, builder_.create<mlir::arith::SubIOp>(l, queries, first), rows);
    mlir::Value queryTile = rowsOf(builder_, l, query.value, 2, first, count);
    mlir::Value maskTile = mask ? rowsOf(builder_, l, mask->value, int64_t(maskRank) - 2, first, count) : mlir::Value();
    Result result = boundedBody(f, callee, *sig, key.value, value.value, maskTile, queryTile,
                                std::make_pair(*q, count), l);
    if (!result) return std::nullopt;
    if (result->kind != Val::Kind::Tensor) {
      unsupported(at, "a tiled attention op whose body gives no tensor");
      return std::nullopt;
    }
    auto resultType = mlir::cast<mlir::RankedTensorType>(result->value.getType());
    mlir::Value part = result->value;
    if (resultType.getElementType() != queryType.getElementType() || resultType.getRank() != 4) {
      unsupported(at, "a tiled attention op whose result is not shaped as its query");
      return std::nullopt;
    }
    llvm::SmallVector<mlir::OpFoldResult> offsets(4, builder_.getIndexAttr(0));
    offsets[2] = first;
    llvm::SmallVector<mlir::OpFoldResult> strides(4, builder_.getIndexAttr(1));
    llvm::SmallVector<mlir::OpFoldResult> partSizes = mlir::tensor::getMixedSizes(builder_, l, part);
    mlir::Value next = builder_.create<mlir::tensor::InsertSliceOp>(l, part, loop.getRegionIterArgs()[0], offsets,
                                                                     partSizes, strides);
    builder_.create<mlir::scf::YieldOp>(l, next);
  }
  return Val::tensor(loop.getResult(0), check::instantiate(signature.result, callee.subst));
}

Result Lowerer::boundedBody(const ast::FunctionItem& f, const Frame& callee, const AttentionSignature& sig,
                            mlir::Value key, mlir::Value value, mlir::Value mask, mlir::Value query,
                            std::optional<std::pair<shape::SymbolId, mlir::Value>> queryRows, mlir::Location l) {
  const check::Signature& signature = *callee.fn->signature;
  check::Type maskType = signature.params[sig.mask];
  if (sig.optionalMask) maskType = check::Type(maskType.optionalInner());
  size_t maskRank = maskType.shape().size();
  shape::SymbolId k = *axisSymbol(signature.params[sig.key], 2);

  Frame bounded = callee;
  mlir::Value bound;
  std::optional<shape::SymbolId> boundId;
  if (mask) {
    bound = visibleKeys(builder_, l, mask);
    boundId = freshBoundSymbol();
    bounded.subst.shapes.dims[k] = shape::DimExpr::symbol(*boundId, "K'");
    entryDims_[*boundId] = bound;
  }
  std::optional<shape::SymbolId> rowsId;
  if (queryRows) {
    rowsId = freshBoundSymbol();
    bounded.subst.shapes.dims[queryRows->first] = shape::DimExpr::symbol(*rowsId, "Q'");
    entryDims_[*rowsId] = queryRows->second;
  }
  Result result;
  {
    FrameGuard guard(*this, bounded);
    if (queryRows) bounded.params[0] = Val::tensor(query, instantiate(signature.params[0]));
    if (mask) {
      bounded.params[sig.key] =
          Val::tensor(leading(builder_, l, key, 2, bound), instantiate(signature.params[sig.key]));
      bounded.params[sig.value] =
          Val::tensor(leading(builder_, l, value, 2, bound), instantiate(signature.params[sig.value]));
      Val boundedMask = Val::tensor(leading(builder_, l, mask, int64_t(maskRank) - 1, bound), instantiate(maskType));
      if (sig.optionalMask) bounded.params[sig.mask].elements[0] = boundedMask;
      else bounded.params[sig.mask] = boundedMask;
    }
    if (lowerBody(f.body)) result = bounded.returned ? *bounded.returned : Val::of(Val::Kind::Unit);
  }
  if (boundId) entryDims_.erase(*boundId);
  if (rowsId) entryDims_.erase(*rowsId);
  return result;
}

}  // namespace linnet::lower
