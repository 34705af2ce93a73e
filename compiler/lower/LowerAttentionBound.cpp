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

// The ops and where their key, value and mask parameters are.
struct AttentionSignature {
  const char* name;
  size_t key, value, mask;
  bool optionalMask;
};
constexpr AttentionSignature kMaskedAttention[] = {
    {"attention", 1, 2, 4, true},      {"grouped_attention", 1, 2, 4, true},
    {"attention_rows", 1, 2, 4, false}, {"grouped_attention_rows", 1, 2, 4, false},
    {"sink_attention", 1, 2, 5, false},
};

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

// `t` cut to its first `count` elements along `axis`.
mlir::Value leading(mlir::OpBuilder& b, mlir::Location l, mlir::Value t, int64_t axis, mlir::Value count) {
  auto type = mlir::cast<mlir::RankedTensorType>(t.getType());
  llvm::SmallVector<mlir::OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  llvm::SmallVector<mlir::OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  llvm::SmallVector<mlir::OpFoldResult> sizes = mlir::tensor::getMixedSizes(b, l, t);
  sizes[axis] = count;
  return b.create<mlir::tensor::ExtractSliceOp>(l, t, offsets, sizes, strides);
}

}  // namespace

Result Lowerer::lowerBoundedAttention(const ast::FunctionItem& f, const Frame& callee, Span at) {
  if (!callee.module || callee.module->name != "std.nn.attention" || !callee.fn || !callee.fn->signature)
    return std::nullopt;
  const AttentionSignature* sig = nullptr;
  for (const AttentionSignature& s : kMaskedAttention)
    if (f.name.name == s.name) sig = &s;
  if (!sig || callee.params.size() <= sig->mask) return std::nullopt;
  const check::Signature& signature = *callee.fn->signature;
  if (signature.params.size() != callee.params.size()) return std::nullopt;

  // The mask, present at build time, as a tensor.
  const Val& maskArg = callee.params[sig->mask];
  const Val* mask = &maskArg;
  check::Type maskType = signature.params[sig->mask];
  if (sig->optionalMask) {
    if (maskArg.kind != Val::Kind::Some || maskArg.elements.size() != 1 ||
        maskType.kind() != check::TypeKind::Optional)
      return std::nullopt;
    mask = &maskArg.elements[0];
    maskType = check::Type(maskType.optionalInner());
  }
  const Val& key = callee.params[sig->key];
  const Val& value = callee.params[sig->value];
  for (const Val* v : {mask, &key, &value})
    if (v->kind != Val::Kind::Tensor) return std::nullopt;
  // K: one generic, axis 2 of key and value and the mask's last axis.
  size_t maskRank = maskType.shape().size();
  auto k = axisSymbol(signature.params[sig->key], 2);
  if (!k || maskRank == 0 || axisSymbol(signature.params[sig->value], 2) != k ||
      axisSymbol(maskType, maskRank - 1) != k || !callee.subst.shapes.dims.count(*k))
    return std::nullopt;

  mlir::Location l = loc(at);
  mlir::Value bound = visibleKeys(builder_, l, mask->value);
  Frame bounded = callee;
  shape::SymbolId boundId = freshBoundSymbol();
  bounded.subst.shapes.dims[*k] = shape::DimExpr::symbol(boundId, "K'");
  entryDims_[boundId] = bound;
  Result result;
  {
    FrameGuard guard(*this, bounded);
    Val& boundedKey = bounded.params[sig->key];
    Val& boundedValue = bounded.params[sig->value];
    boundedKey = Val::tensor(leading(builder_, l, key.value, 2, bound), instantiate(signature.params[sig->key]));
    boundedValue =
        Val::tensor(leading(builder_, l, value.value, 2, bound), instantiate(signature.params[sig->value]));
    Val boundedMask = Val::tensor(leading(builder_, l, mask->value, int64_t(maskRank) - 1, bound),
                                  instantiate(maskType));
    if (sig->optionalMask) bounded.params[sig->mask].elements[0] = boundedMask;
    else bounded.params[sig->mask] = boundedMask;
    if (lowerBody(f.body)) result = bounded.returned ? *bounded.returned : Val::of(Val::Kind::Unit);
  }
  entryDims_.erase(boundId);
  return result;
}

}  // namespace linnet::lower
