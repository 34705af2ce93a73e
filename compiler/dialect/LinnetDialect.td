// The `linnet` dialect and its enum attributes (docs/dialect.md). The ops
// live in LinnetOps.td; this file holds what they share: the dialect, the
// base op class and the three kind enums.
#ifndef LINNET_DIALECT_TD
#define LINNET_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Linnet_Dialect : Dialect {
  let name = "linnet";
  let summary = "Linnet's built-in operations on ranked tensors";
  let description = [{
    The compiler's first MLIR level: one op per built-in the checker types,
    on builtin ranked tensors. Dynamic result dimensions are `index`
    operands, in order, as for `tensor.empty`. See docs/dialect.md.
  }];
  let cppNamespace = "::linnet::dialect";
  let useDefaultAttributePrinterParser = 1;
}

class Linnet_Op<string mnemonic, list<Trait> traits = []>
    : Op<Linnet_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Kinds. Each is an EnumAttr so it prints as `#linnet.<name><kind>` in an
// attribute dictionary and as `<kind>` in an op's custom format.
//===----------------------------------------------------------------------===//

def Linnet_BinaryKind : I32EnumAttr<"BinaryKind", "elementwise binary operation", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>, I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>, I32EnumAttrCase<"rem", 4>, I32EnumAttrCase<"min", 5>,
    I32EnumAttrCase<"max", 6>, I32EnumAttrCase<"and_", 7, "and">,
    I32EnumAttrCase<"or_", 8, "or">, I32EnumAttrCase<"xor_", 9, "xor">,
    I32EnumAttrCase<"shl", 10>, I32EnumAttrCase<"shr", 11>,
    I32EnumAttrCase<"eq", 12>, I32EnumAttrCase<"ne", 13>, I32EnumAttrCase<"lt", 14>,
    I32EnumAttrCase<"le", 15>, I32EnumAttrCase<"gt", 16>, I32EnumAttrCase<"ge", 17>]> {
  let cppNamespace = "::linnet::dialect";
  let genSpecializedAttr = 0;
}
def Linnet_BinaryKindAttr : EnumAttr<Linnet_Dialect, Linnet_BinaryKind, "binary_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Linnet_UnaryKind : I32EnumAttr<"UnaryKind", "elementwise unary operation", [
    I32EnumAttrCase<"neg", 0>, I32EnumAttrCase<"not_", 1, "not">,
    I32EnumAttrCase<"exp", 2>, I32EnumAttrCase<"log", 3>, I32EnumAttrCase<"sqrt", 4>,
    I32EnumAttrCase<"rsqrt", 5>, I32EnumAttrCase<"sin", 6>, I32EnumAttrCase<"cos", 7>,
    I32EnumAttrCase<"tanh", 8>, I32EnumAttrCase<"abs", 9>]> {
  let cppNamespace = "::linnet::dialect";
  let genSpecializedAttr = 0;
}
def Linnet_UnaryKindAttr : EnumAttr<Linnet_Dialect, Linnet_UnaryKind, "unary_kind"> {
  let assemblyFormat = "`<` $value `>`";
}

def Linnet_ReductionKind : I32EnumAttr<"ReductionKind", "reduction", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"sum", 1>, I32EnumAttrCase<"prod", 2>,
    I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>, I32EnumAttrCase<"any", 5>,
    I32EnumAttrCase<"all", 6>]> {
  let cppNamespace = "::linnet::dialect";
  let genSpecializedAttr = 0;
}
def Linnet_ReductionKindAttr : EnumAttr<Linnet_Dialect, Linnet_ReductionKind, "reduction"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // LINNET_DIALECT_TD
