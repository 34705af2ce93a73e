// The ops of the `linnet` dialect, one per Linnet built-in (docs/dialect.md
// is the contract: names, operands, attributes and meaning). Every op is
// pure and works on builtin ranked tensors; an op that creates a shape takes
// one `index` operand per dynamic dimension of its result. Verifiers live in
// LinnetOps.cpp and check what can be checked statically.
#ifndef LINNET_OPS_TD
#define LINNET_OPS_TD

include "compiler/dialect/LinnetDialect.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

def Linnet_BinaryOp : Linnet_Op<"binary", [Pure]> {
  let summary = "elementwise binary operation with broadcasting";
  let description = [{
    `add sub mul div rem min max and or xor shl shr` give the operands'
    element type; `eq ne lt le gt ge` give `i1`. Operands are right-aligned
    against the result; each operand dimension equals the result's or is a
    static 1. `is_unsigned` selects the unsigned meaning of integer `div`,
    `rem`, `min`, `max`, comparisons and `shr`.

    ```mlir
    %r = linnet.binary <add> %a, %b : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Linnet_BinaryKindAttr:$kind, AnyRankedTensor:$lhs,
                       AnyRankedTensor:$rhs, UnitAttr:$is_unsigned);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Linnet_UnaryOp : Linnet_Op<"unary", [Pure]> {
  let summary = "elementwise unary operation";
  let description = [{
    `neg not exp log sqrt rsqrt sin cos tanh abs`; the result has the
    operand's type. `not` is on integers and `i1`, the transcendental kinds
    on floats. `is_unsigned` says the integers are unsigned (`abs` is then
    the identity).

    ```mlir
    %r = linnet.unary <exp> %x : tensor<?x8xf32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins Linnet_UnaryKindAttr:$kind, AnyRankedTensor:$x, UnitAttr:$is_unsigned);
  let results = (outs AnyRankedTensor:$result);
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "UnaryKindAttr":$kind, "::mlir::Value":$x), [{
      build($_builder, $_state, result, kind, x, ::mlir::UnitAttr());
    }]>
  ];
  let assemblyFormat = "$kind $x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Linnet_CastOp : Linnet_Op<"cast", [Pure]> {
  let summary = "element type conversion";
  let description = [{
    Same shape, new element type. float->float rounds to nearest even;
    float->int truncates toward zero, saturating, NaN -> 0; int->int wraps;
    bool is 0/1, and a conversion to bool is `x != 0`. `is_unsigned` says the
    operand's integers are unsigned, `result_is_unsigned` the result's.

    ```mlir
    %r = linnet.cast %x : tensor<4xf32> to tensor<4xbf16>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, UnitAttr:$is_unsigned, UnitAttr:$result_is_unsigned);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `to` type($result)";
  let hasVerifier = 1;
}

def Linnet_SelectOp : Linnet_Op<"select", [Pure]> {
  let summary = "elementwise `cond ? a : b` with broadcasting";
  let description = [{
    ```mlir
    %r = linnet.select %c, %a, %b : tensor<?x8xi1>, tensor<?x8xf32>, tensor<f32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$cond, AnyRankedTensor:$a, AnyRankedTensor:$b);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $cond `,` $a `,` $b attr-dict `:` type($cond) `,` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

def Linnet_BroadcastToOp : Linnet_Op<"broadcast_to", [Pure]> {
  let summary = "right-aligned broadcast to the result's shape";
  let description = [{
    ```mlir
    %r = linnet.broadcast_to %x dims(%b) : tensor<8xf32> to tensor<?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, Variadic<Index>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $x (`dims` `(` $dims^ `)`)? attr-dict `:` type($x) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Linnet_ReshapeOp : Linnet_Op<"reshape", [Pure]> {
  let summary = "row-major reshape to the same element count";
  let description = [{
    ```mlir
    %r = linnet.reshape %x dims(%b) : tensor<?x8xf32> to tensor<?x2x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, Variadic<Index>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $x (`dims` `(` $dims^ `)`)? attr-dict `:` type($x) `to` type($result)
  }];
  let hasVerifier = 1;
}

def Linnet_PermuteOp : Linnet_Op<"permute", [Pure]> {
  let summary = "axis permutation: `r.dim(i) = x.dim(permutation[i])`";
  let description = [{
    ```mlir
    %r = linnet.permute %x [1, 0] : tensor<?x8xf32> -> tensor<8x?xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, DenseI64ArrayAttr:$permutation);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x $permutation attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def Linnet_ConcatOp : Linnet_Op<"concat", [Pure]> {
  let summary = "concatenation along `axis`";
  let description = [{
    The inputs have the result's rank and element type and agree on every
    dimension but `axis`.

    ```mlir
    %r = linnet.concat %a, %b {axis = 1 : i64} : tensor<?x4xf32>, tensor<?x2xf32> -> tensor<?x6xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` type($inputs) `->` type($result)";
  let hasVerifier = 1;
}

def Linnet_SliceOp : Linnet_Op<"slice", [Pure, AttrSizedOperandSegments]> {
  let summary = "strided slice, optionally dropping axes indexed by an integer";
  let description = [{
    Per axis of `x`: `x[start : start + size * step : step]`, with one start
    per axis, `steps` (positive) per axis, and the sizes the result's (1 for
    a dropped axis), dynamic ones as `sizes` operands. `dropped_axes` (axes
    of `x`, ascending) were indexed by one integer and are absent from the
    result.

    ```mlir
    %r = linnet.slice %x[%i, %c0] sizes(%n) {steps = array<i64: 1, 2>, dropped_axes = array<i64>}
           : tensor<?x8xf32> -> tensor<?x4xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, Variadic<Index>:$starts, Variadic<Index>:$sizes,
                       DenseI64ArrayAttr:$steps,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$dropped_axes);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $x `[` $starts `]` (`sizes` `(` $sizes^ `)`)? attr-dict `:` type($x) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

def Linnet_IotaOp : Linnet_Op<"iota", [Pure]> {
  let summary = "the 1-D tensor `0, 1, ..., N - 1`";
  let description = [{
    ```mlir
    %r = linnet.iota dims(%n) : tensor<?xi32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "(`dims` `(` $dims^ `)`)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Linnet_FillOp : Linnet_Op<"fill", [Pure]> {
  let summary = "a tensor whose every element is a rank-0 `value`";
  let description = [{
    ```mlir
    %r = linnet.fill %v dims(%n) : tensor<f32> -> tensor<?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$value, Variadic<Index>:$dims);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $value (`dims` `(` $dims^ `)`)? attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Linnet_CumsumOp : Linnet_Op<"cumsum", [Pure, SameOperandsAndResultType]> {
  let summary = "inclusive prefix sums along `axis`";
  let description = [{
    ```mlir
    %r = linnet.cumsum %x {axis = 1 : i64} : tensor<?x8xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, I64Attr:$axis);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Linnet_ReduceOp : Linnet_Op<"reduce", [Pure]> {
  let summary = "reduction over `axes`, which are removed from the result";
  let description = [{
    `sum prod max min any all`, accumulated in the result's element type
    (an operand of a narrower type of the same kind is extended first).
    `any`/`all` are on `i1`. `is_unsigned` selects the unsigned integer `max`
    and `min`.

    ```mlir
    %r = linnet.reduce <sum> %x {axes = array<i64: 1>} : tensor<?x8xf32> -> tensor<?xf32>
    ```
  }];
  let arguments = (ins Linnet_ReductionKindAttr:$kind, AnyRankedTensor:$x,
                       DenseI64ArrayAttr:$axes, UnitAttr:$is_unsigned);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$kind $x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Index notation
//===----------------------------------------------------------------------===//

def Linnet_NotationOp : Linnet_Op<"notation", [RecursiveMemoryEffects,
    AttrSizedOperandSegments, SingleBlock]> {
  let summary = "index notation: a loop nest with an optional reduction";
  let description = [{
    A loop nest over `extents` (static sizes, `ShapedType::kDynamic` where
    the size is the next `dyn_extents` operand). Input `i` is read at
    `indexing_maps[i]` of the loop indices. The body gets the loop indices
    (`index`), then one element per input, and yields one element of the
    result's element type. `output_dims` are the loop dims indexing the
    result, in its axis order; every other loop dim is reduced with
    `reduction` from its identity (`none`: every loop dim is an output dim).
    `is_unsigned` selects the unsigned integer `max` and `min` reductions.

    ```mlir
    %r = linnet.notation ins(%a, %b : tensor<?x64xf32>, tensor<64x128xf32>) extents(%m)
           attributes {extents = array<i64: -9223372036854775808, 128, 64>,
            indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>],
            output_dims = array<i64: 0, 1>, reduction = #linnet.reduction<sum>} {
    ^bb0(%m: index, %n: index, %k: index, %x: f32, %y: f32):
      %p = arith.mulf %x, %y : f32
      linnet.yield %p : f32
    } : tensor<?x128xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyRankedTensor>:$inputs, Variadic<Index>:$dyn_extents,
                       DenseI64ArrayAttr:$extents, AffineMapArrayAttr:$indexing_maps,
                       DenseI64ArrayAttr:$output_dims, Linnet_ReductionKindAttr:$reduction,
                       UnitAttr:$is_unsigned);
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`ins` `(` $inputs^ `:` type($inputs) `)`)? (`extents` `(` $dyn_extents^ `)`)?
    attr-dict-with-keyword $body `:` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of loops (the size of `extents`).
    unsigned getNumLoops() { return getExtents().size(); }
  }];
}

def Linnet_YieldOp : Linnet_Op<"yield", [Pure, Terminator, ReturnLike,
    HasParent<"NotationOp">]> {
  let summary = "the element a `notation` body computes";
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

#endif // LINNET_OPS_TD
