// Verifiers of the `linnet` ops. They check what the IR alone can prove:
// ranks, element types, operand counts, attribute ranges, and shapes where
// both sides are static (a dynamic dimension is trusted, as the checker has
// proved it). Messages name the operand or attribute at fault.
#include "compiler/dialect/LinnetOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;

namespace linnet::dialect {

bool isComparison(BinaryKind kind) {
  switch (kind) {
    case BinaryKind::eq:
    case BinaryKind::ne:
    case BinaryKind::lt:
    case BinaryKind::le:
    case BinaryKind::gt:
    case BinaryKind::ge:
      return true;
    case BinaryKind::add:
    case BinaryKind::sub:
    case BinaryKind::mul:
    case BinaryKind::div:
    case BinaryKind::rem:
    case BinaryKind::min:
    case BinaryKind::max:
    case BinaryKind::and_:
    case BinaryKind::or_:
    case BinaryKind::xor_:
    case BinaryKind::shl:
    case BinaryKind::shr:
      return false;
  }
  return false;
}

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

bool isIntegerLike(Type t) { return isa<IntegerType>(t); }

// Right-aligned broadcasting: each operand dimension equals the result's or
// is a static 1.
LogicalResult verifyBroadcast(Operation* op, RankedTensorType from, RankedTensorType to,
                              StringRef what) {
  int64_t offset = to.getRank() - from.getRank();
  if (offset < 0)
    return op->emitOpError() << what << " of rank " << from.getRank()
                             << " does not broadcast to rank " << to.getRank();
  for (int64_t i = 0; i < from.getRank(); ++i) {
    int64_t f = from.getDimSize(i), t = to.getDimSize(i + offset);
    if (ShapedType::isDynamic(f) || f == 1 || ShapedType::isDynamic(t)) continue;
    if (f != t)
      return op->emitOpError() << what << " dimension " << i << " (" << f
                               << ") does not broadcast to result dimension " << i + offset
                               << " (" << t << ")";
  }
  return success();
}

// An op creating a shape takes one `index` operand per dynamic result dim.
LogicalResult verifyDynamicDims(Operation* op, RankedTensorType result, size_t count,
                                StringRef what) {
  if (static_cast<int64_t>(count) != result.getNumDynamicDims())
    return op->emitOpError() << "expected " << result.getNumDynamicDims() << " " << what
                             << " operands, one per dynamic result dimension, got " << count;
  return success();
}

// Static sizes that must agree.
LogicalResult verifyDim(Operation* op, int64_t expected, int64_t actual, const Twine& what) {
  if (ShapedType::isDynamic(expected) || ShapedType::isDynamic(actual) || expected == actual)
    return success();
  return op->emitOpError() << what << " is " << actual << ", expected " << expected;
}

// Sorted, unique axes below `rank`.
LogicalResult verifyAxes(Operation* op, ArrayRef<int64_t> axes, int64_t rank, StringRef what) {
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < 0 || axis >= rank)
      return op->emitOpError() << what << " axis " << axis << " out of range for rank " << rank;
    if (i > 0 && axes[i - 1] >= axis)
      return op->emitOpError() << what << " must be strictly increasing";
  }
  return success();
}

}  // namespace

LogicalResult BinaryOp::verify() {
  RankedTensorType lhs = tensorType(getLhs()), rhs = tensorType(getRhs());
  RankedTensorType result = getResult().getType();
  if (lhs.getElementType() != rhs.getElementType())
    return emitOpError() << "operands have different element types " << lhs.getElementType()
                         << " and " << rhs.getElementType();
  Type element = lhs.getElementType();
  Type expected = isComparison(getKind()) ? IntegerType::get(getContext(), 1) : element;
  if (result.getElementType() != expected)
    return emitOpError() << "result element type is " << result.getElementType()
                         << ", expected " << expected;
  switch (getKind()) {
    case BinaryKind::and_:
    case BinaryKind::or_:
    case BinaryKind::xor_:
    case BinaryKind::shl:
    case BinaryKind::shr:
      if (!isIntegerLike(element))
        return emitOpError() << "`" << stringifyBinaryKind(getKind())
                             << "` needs integer operands, got " << element;
      break;
    default:
      break;
  }
  if (failed(verifyBroadcast(*this, lhs, result, "lhs"))) return failure();
  return verifyBroadcast(*this, rhs, result, "rhs");
}

LogicalResult UnaryOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  if (x != result) return emitOpError() << "result type " << result << " differs from " << x;
  Type element = x.getElementType();
  switch (getKind()) {
    case UnaryKind::not_:
      if (!isIntegerLike(element))
        return emitOpError() << "`not` needs an integer operand, got " << element;
      break;
    case UnaryKind::neg:
    case UnaryKind::abs:
      break;
    case UnaryKind::exp:
    case UnaryKind::log:
    case UnaryKind::sqrt:
    case UnaryKind::rsqrt:
    case UnaryKind::sin:
    case UnaryKind::cos:
    case UnaryKind::tanh:
      if (!isa<FloatType>(element))
        return emitOpError() << "`" << stringifyUnaryKind(getKind())
                             << "` needs a float operand, got " << element;
      break;
  }
  return success();
}

LogicalResult CastOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  if (x.getShape() != result.getShape())
    return emitOpError() << "result shape differs from the operand's";
  for (Type t : {x.getElementType(), result.getElementType()})
    if (!isa<FloatType, IntegerType>(t))
      return emitOpError() << "cannot convert element type " << t;
  return success();
}

LogicalResult SelectOp::verify() {
  RankedTensorType cond = tensorType(getCond()), a = tensorType(getA()), b = tensorType(getB());
  RankedTensorType result = getResult().getType();
  if (!cond.getElementType().isInteger(1))
    return emitOpError() << "condition element type is " << cond.getElementType()
                         << ", expected i1";
  if (a.getElementType() != result.getElementType() ||
      b.getElementType() != result.getElementType())
    return emitOpError() << "branches must have the result's element type "
                         << result.getElementType();
  if (failed(verifyBroadcast(*this, cond, result, "condition")) ||
      failed(verifyBroadcast(*this, a, result, "true value")))
    return failure();
  return verifyBroadcast(*this, b, result, "false value");
}

LogicalResult BroadcastToOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  if (x.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from " << x.getElementType() << " to "
                         << result.getElementType();
  if (failed(verifyDynamicDims(*this, result, getDims().size(), "dims"))) return failure();
  return verifyBroadcast(*this, x, result, "operand");
}

LogicalResult ReshapeOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  if (x.getElementType() != result.getElementType())
    return emitOpError() << "element type changes from " << x.getElementType() << " to "
                         << result.getElementType();
  if (failed(verifyDynamicDims(*this, result, getDims().size(), "dims"))) return failure();
  if (x.hasStaticShape() && result.hasStaticShape() &&
      x.getNumElements() != result.getNumElements())
    return emitOpError() << "reshapes " << x.getNumElements() << " elements into "
                         << result.getNumElements();
  return success();
}

LogicalResult PermuteOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  ArrayRef<int64_t> perm = getPermutation();
  if (x.getElementType() != result.getElementType())
    return emitOpError() << "element type changes";
  if (static_cast<int64_t>(perm.size()) != x.getRank() || result.getRank() != x.getRank())
    return emitOpError() << "permutation of size " << perm.size() << " for operand rank "
                         << x.getRank() << " and result rank " << result.getRank();
  llvm::SmallBitVector seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank() || seen.test(p))
      return emitOpError() << "`permutation` is not a permutation of 0.." << x.getRank() - 1;
    seen.set(p);
  }
  for (auto [i, p] : llvm::enumerate(perm))
    if (failed(verifyDim(*this, x.getDimSize(p), result.getDimSize(i),
                         "result dimension " + Twine(i))))
      return failure();
  return success();
}

LogicalResult ConcatOp::verify() {
  RankedTensorType result = getResult().getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (getInputs().empty()) return emitOpError() << "needs at least one input";
  if (axis < 0 || axis >= result.getRank())
    return emitOpError() << "axis " << axis << " out of range for rank " << result.getRank();
  int64_t total = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    RankedTensorType t = tensorType(v);
    if (t.getRank() != result.getRank() || t.getElementType() != result.getElementType())
      return emitOpError() << "input " << i << " has type " << t
                           << ", expected the result's rank and element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != axis && failed(verifyDim(*this, result.getDimSize(d), t.getDimSize(d),
                                        "input " + Twine(i) + " dimension " + Twine(d))))
        return failure();
    total = (ShapedType::isDynamic(total) || t.isDynamicDim(axis))
                ? ShapedType::kDynamic
                : total + t.getDimSize(axis);
  }
  return verifyDim(*this, total, result.getDimSize(axis), "result dimension " + Twine(axis));
}

LogicalResult SliceOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  ArrayRef<int64_t> steps = getSteps(), dropped = getDroppedAxes();
  if (x.getElementType() != result.getElementType())
    return emitOpError() << "element type changes";
  if (static_cast<int64_t>(getStarts().size()) != x.getRank())
    return emitOpError() << "expected " << x.getRank() << " starts, one per axis, got "
                         << getStarts().size();
  if (static_cast<int64_t>(steps.size()) != x.getRank())
    return emitOpError() << "expected " << x.getRank() << " steps, one per axis, got "
                         << steps.size();
  if (llvm::any_of(steps, [](int64_t s) { return s <= 0; }))
    return emitOpError() << "steps must be positive";
  if (failed(verifyAxes(*this, dropped, x.getRank(), "`dropped_axes`"))) return failure();
  if (result.getRank() != x.getRank() - static_cast<int64_t>(dropped.size()))
    return emitOpError() << "result rank " << result.getRank() << ", expected "
                         << x.getRank() - static_cast<int64_t>(dropped.size());
  return verifyDynamicDims(*this, result, getSizes().size(), "size");
}

LogicalResult IotaOp::verify() {
  RankedTensorType result = getResult().getType();
  if (result.getRank() != 1) return emitOpError() << "result must be 1-D";
  Type element = result.getElementType();
  if (!isa<FloatType>(element) && !(isa<IntegerType>(element) && !element.isInteger(1)))
    return emitOpError() << "element type " << element << " is not a number";
  return verifyDynamicDims(*this, result, getDims().size(), "dims");
}

LogicalResult FillOp::verify() {
  RankedTensorType value = tensorType(getValue()), result = getResult().getType();
  if (value.getRank() != 0) return emitOpError() << "value must be rank 0";
  if (value.getElementType() != result.getElementType())
    return emitOpError() << "element type changes";
  return verifyDynamicDims(*this, result, getDims().size(), "dims");
}

LogicalResult CumsumOp::verify() {
  int64_t rank = getResult().getType().getRank(), axis = static_cast<int64_t>(getAxis());
  if (axis < 0 || axis >= rank)
    return emitOpError() << "axis " << axis << " out of range for rank " << rank;
  return success();
}

// The identity and combination of a reduction need an element kind: floats
// or integers for the arithmetic ones, `i1` for `any`/`all`.
static LogicalResult verifyReductionType(Operation* op, ReductionKind kind, Type element) {
  switch (kind) {
    case ReductionKind::none:
      return success();
    case ReductionKind::any:
    case ReductionKind::all:
      if (!element.isInteger(1))
        return op->emitOpError() << "`" << stringifyReductionKind(kind)
                                 << "` reduces i1, got " << element;
      return success();
    case ReductionKind::sum:
    case ReductionKind::prod:
    case ReductionKind::max:
    case ReductionKind::min:
      if (!isa<FloatType, IntegerType>(element))
        return op->emitOpError() << "cannot reduce element type " << element;
      return success();
  }
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType x = tensorType(getX()), result = getResult().getType();
  ArrayRef<int64_t> axes = getAxes();
  if (getKind() == ReductionKind::none) return emitOpError() << "needs a reduction kind";
  if (failed(verifyAxes(*this, axes, x.getRank(), "`axes`"))) return failure();
  if (result.getRank() != x.getRank() - static_cast<int64_t>(axes.size()))
    return emitOpError() << "result rank " << result.getRank() << ", expected "
                         << x.getRank() - static_cast<int64_t>(axes.size());
  Type from = x.getElementType(), to = result.getElementType();
  bool sameKind = (isa<FloatType>(from) && isa<FloatType>(to) &&
                   from.getIntOrFloatBitWidth() <= to.getIntOrFloatBitWidth()) ||
                  (isa<IntegerType>(from) && isa<IntegerType>(to) &&
                   from.getIntOrFloatBitWidth() <= to.getIntOrFloatBitWidth());
  if (!sameKind)
    return emitOpError() << "cannot accumulate " << from << " in " << to;
  if (failed(verifyReductionType(*this, getKind(), to))) return failure();
  int64_t r = 0;
  for (int64_t d = 0; d < x.getRank(); ++d) {
    if (llvm::is_contained(axes, d)) continue;
    if (failed(verifyDim(*this, x.getDimSize(d), result.getDimSize(r),
                         "result dimension " + Twine(r))))
      return failure();
    ++r;
  }
  return success();
}

LogicalResult NotationOp::verify() {
  RankedTensorType result = getResult().getType();
  ArrayRef<int64_t> extents = getExtents(), outputDims = getOutputDims();
  int64_t loops = static_cast<int64_t>(extents.size());
  int64_t dynamicExtents = llvm::count_if(extents, ShapedType::isDynamic);
  if (static_cast<int64_t>(getDynExtents().size()) != dynamicExtents)
    return emitOpError() << "expected " << dynamicExtents
                         << " extent operands, one per dynamic extent, got "
                         << getDynExtents().size();
  if (llvm::any_of(extents, [](int64_t e) { return !ShapedType::isDynamic(e) && e < 0; }))
    return emitOpError() << "extents must be non-negative";
  ArrayRef<Attribute> maps = getIndexingMaps().getValue();
  if (maps.size() != getInputs().size())
    return emitOpError() << "expected one indexing map per input (" << getInputs().size()
                         << "), got " << maps.size();
  for (auto [i, attr] : llvm::enumerate(maps)) {
    AffineMap map = cast<AffineMapAttr>(attr).getValue();
    int64_t rank = tensorType(getInputs()[i]).getRank();
    if (map.getNumDims() != loops || map.getNumSymbols() != 0)
      return emitOpError() << "indexing map " << i << " must have " << loops
                           << " dims and no symbols";
    if (static_cast<int64_t>(map.getNumResults()) != rank)
      return emitOpError() << "indexing map " << i << " has " << map.getNumResults()
                           << " results for an input of rank " << rank;
  }
  if (static_cast<int64_t>(outputDims.size()) != result.getRank())
    return emitOpError() << "expected " << result.getRank()
                         << " output dims, one per result axis, got " << outputDims.size();
  llvm::SmallBitVector isOutput(loops);
  for (auto [i, d] : llvm::enumerate(outputDims)) {
    if (d < 0 || d >= loops)
      return emitOpError() << "output dim " << d << " is not a loop dim";
    if (isOutput.test(d)) return emitOpError() << "output dim " << d << " repeated";
    isOutput.set(d);
    if (failed(verifyDim(*this, extents[d], result.getDimSize(i),
                         "result dimension " + Twine(i))))
      return failure();
  }
  if (getReduction() == ReductionKind::none && !isOutput.all())
    return emitOpError() << "reduction `none` needs every loop dim to be an output dim";
  if (failed(verifyReductionType(*this, getReduction(), result.getElementType())))
    return failure();

  Block& body = getBody().front();
  size_t expectedArgs = loops + getInputs().size();
  if (body.getNumArguments() != expectedArgs)
    return emitOpError() << "body takes " << body.getNumArguments() << " arguments, expected "
                         << expectedArgs << " (loop indices, then one element per input)";
  for (int64_t i = 0; i < loops; ++i)
    if (!body.getArgument(i).getType().isIndex())
      return emitOpError() << "body argument " << i << " is a loop index and must be `index`";
  for (auto [i, v] : llvm::enumerate(getInputs()))
    if (body.getArgument(loops + i).getType() != tensorType(v).getElementType())
      return emitOpError() << "body argument " << loops + i << " must be input " << i
                           << "'s element type " << tensorType(v).getElementType();
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield) return emitOpError() << "body must end with `linnet.yield`";
  if (yield.getValue().getType() != result.getElementType())
    return emitOpError() << "body yields " << yield.getValue().getType()
                         << ", expected the result element type " << result.getElementType();
  return success();
}

}  // namespace linnet::dialect

#define GET_OP_CLASSES
#include "compiler/dialect/LinnetOps.cpp.inc"
