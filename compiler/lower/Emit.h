// Emit: the one place the lowering creates `linnet` dialect ops, and the
// scalar arithmetic of notation bodies (arith/math on elements). Everything
// else in compiler/lower speaks in these functions, so the dialect's C++
// spelling is named here only.
#pragma once

#include <optional>
#include <vector>

#include <mlir/IR/AffineMap.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/Value.h>

namespace linnet::lower {

enum class BinaryKind { Add, Sub, Mul, Div, Rem, Min, Max, And, Or, Xor, Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge };
enum class UnaryKind { Neg, Not, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tanh, Abs };
enum class ReduceKind { None, Sum, Prod, Max, Min, Any, All };

namespace emit {

mlir::Value binary(mlir::OpBuilder& b, mlir::Location loc, BinaryKind kind, mlir::Value lhs,
                   mlir::Value rhs, mlir::RankedTensorType result, bool isUnsigned);
// `isUnsigned`: x holds unsigned integers (`abs` is then the identity).
mlir::Value unary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x,
                  bool isUnsigned = false);
mlir::Value cast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                 mlir::RankedTensorType result, bool unsignedIn, bool unsignedOut);
mlir::Value select(mlir::OpBuilder& b, mlir::Location loc, mlir::Value cond, mlir::Value a,
                   mlir::Value c, mlir::RankedTensorType result);
mlir::Value broadcastTo(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                        mlir::RankedTensorType result, mlir::ValueRange dynamicDims);
mlir::Value reshape(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                    mlir::RankedTensorType result, mlir::ValueRange dynamicDims);
mlir::Value permute(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                    mlir::RankedTensorType result, llvm::ArrayRef<int64_t> permutation);
mlir::Value concat(mlir::OpBuilder& b, mlir::Location loc, mlir::ValueRange xs,
                   mlir::RankedTensorType result, int64_t axis);
mlir::Value slice(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x,
                  mlir::RankedTensorType result, mlir::ValueRange starts,
                  mlir::ValueRange dynamicSizes, llvm::ArrayRef<int64_t> steps,
                  llvm::ArrayRef<int64_t> droppedAxes);
mlir::Value iota(mlir::OpBuilder& b, mlir::Location loc, mlir::RankedTensorType result,
                 mlir::ValueRange dynamicDims);
mlir::Value fill(mlir::OpBuilder& b, mlir::Location loc, mlir::Value scalar,
                 mlir::RankedTensorType result, mlir::ValueRange dynamicDims);
mlir::Value cumsum(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, int64_t axis);

// Creates a `linnet.notation` whose body is `body` (already filled, ending in
// yield), taking the block into the op's region.
mlir::Value notation(mlir::OpBuilder& b, mlir::Location loc, mlir::RankedTensorType result,
                     mlir::ValueRange inputs, mlir::ValueRange dynamicExtents,
                     llvm::ArrayRef<int64_t> extents, llvm::ArrayRef<mlir::AffineMap> maps,
                     llvm::ArrayRef<int64_t> outputDims, ReduceKind reduction, mlir::Block* body,
                     bool isUnsigned = false);
void yield(mlir::OpBuilder& b, mlir::Location loc, mlir::Value v);

// True for a `linnet` op whose result is always a new tensor, never one of its
// operands nor a view of one, whatever later folding does: a reduction
// (`linnet.reduce` over some axis, a `linnet.notation` with a reduction).
bool resultIsFresh(mlir::Operation* op);
// For a `linnet.binary`: its operands, and whether it is `add` or `sub` (a sum
// or difference of a constant and a value that is not is never a constant).
struct BinaryOperands {
  mlir::Value lhs, rhs;
  bool additive = false;
  bool subtract = false;
};
std::optional<BinaryOperands> binaryOperands(mlir::Operation* op);

// ---- scalars (notation bodies): arith and math on elements ----
mlir::Value scalarBinary(mlir::OpBuilder& b, mlir::Location loc, BinaryKind kind, mlir::Value lhs,
                         mlir::Value rhs, bool isUnsigned);
mlir::Value scalarUnary(mlir::OpBuilder& b, mlir::Location loc, UnaryKind kind, mlir::Value x,
                        bool isUnsigned = false);
mlir::Value scalarCast(mlir::OpBuilder& b, mlir::Location loc, mlir::Value x, mlir::Type to,
                       bool unsignedIn, bool unsignedOut);
// A reduction's starting value in `t`, and one step of it (an element
// reduced one at a time in a notation body).
mlir::Value scalarReductionIdentity(mlir::OpBuilder& b, mlir::Location loc, ReduceKind kind, mlir::Type t,
                                    bool isUnsigned);
mlir::Value scalarReductionCombine(mlir::OpBuilder& b, mlir::Location loc, ReduceKind kind, mlir::Value acc,
                                   mlir::Value v, bool isUnsigned);
// A rank-0 tensor holding `scalar`.
mlir::Value scalarTensor(mlir::OpBuilder& b, mlir::Location loc, mlir::Value scalar);
// An integer element as an `index`, for a subscript read from data: an
// unsigned one widened as unsigned, a u64 of 2^63 or more (which `index`,
// signed, cannot hold) made the largest index, so clamping reads the last
// element as it does for any other index past the end.
mlir::Value subscriptIndex(mlir::OpBuilder& b, mlir::Location loc, mlir::Value integer, bool isUnsigned);

}  // namespace emit
}  // namespace linnet::lower
