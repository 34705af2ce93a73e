// Type: the semantic types of Linnet (spec chapter 3) as the checker infers
// them and later stages read them. A Type is a small value (copyable, shared
// parts immutable); dimensions are shape-solver DimExprs over the symbols of
// the generics in scope, so `Tensor[B, S, 3 * H; T]` prints in the user's own
// names. Scalars are tensors of rank 0 (they broadcast like them) and print as
// their dtype. Untyped numeric literals and compile-time integers (Dim
// generics, untyped integer consts) keep their own kinds until context gives
// them a dtype (spec §1 contextual literal typing). The Error type absorbs
// every further check, so one mistake is reported once.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "compiler/modules/Program.h"
#include "compiler/parse/AST.h"
#include "compiler/shape/DimExpr.h"

namespace linnet::check {

// A dtype: a concrete scalar type or a dtype generic (`T: Float`).
struct DType {
  const ast::GenericParam* generic = nullptr;  // set for a dtype generic
  ast::ScalarType scalar = ast::ScalarType::F32;

  static DType of(ast::ScalarType s) { return DType{nullptr, s}; }
  static DType ofGeneric(const ast::GenericParam* g) { return DType{g, ast::ScalarType::F32}; }
  bool isGeneric() const { return generic != nullptr; }
  std::string str() const;
  friend bool operator==(const DType& a, const DType& b) {
    return a.generic == b.generic && (a.generic || a.scalar == b.scalar);
  }
};

// What is known of a dtype's class; a generic is known only through its bound.
bool isFloat(const DType& d);
bool isInteger(const DType& d);
bool isBool(const DType& d);
bool isNumeric(const DType& d);           // integer or float, never bool
bool isSigned(ast::ScalarType s);
// Whether every dtype `d` may stand for satisfies `constraint` (E2112).
bool satisfies(const DType& d, ast::GenericKind constraint);

// The id the shape solver knows a generic by. Ids follow declaration order
// within a file, which is the order the solver prints terms in.
shape::SymbolId symbolIdOf(const ast::GenericParam& generic);
shape::DimExpr dimSymbol(const ast::GenericParam& generic);
shape::Pack packOf(const ast::GenericParam& generic);

// Generic arguments: what each generic of a callee or block stands for.
struct Substitution {
  shape::Bindings shapes;                             // Dim and pack generics
  std::map<const ast::GenericParam*, DType> dtypes;   // dtype generics
  bool empty() const { return shapes.dims.empty() && shapes.packs.empty() && dtypes.empty(); }
};

// A block with its generics bound: the type of a `sub` member.
struct BlockInstance {
  const Module* module = nullptr;
  const ast::BlockItem* block = nullptr;
  // Arguments for the block's generics, in declaration order: a DimExpr, a
  // shape (pack) or a dtype each; the Substitution is the same information
  // keyed for instantiation.
  Substitution args;
};

enum class TypeKind : uint8_t {
  Error,         // absorbs further checks (already reported, or not checked yet)
  Unit,          // the result of a function without `-> T`
  Tensor,        // a tensor; rank 0 is a scalar
  IntLiteral,    // an untyped integer literal (becomes any Numeric dtype)
  FloatLiteral,  // an untyped float literal (becomes any Float dtype)
  CompileInt,    // a compile-time integer: a Dim generic, untyped const, arithmetic on them
  None,          // `none` before its optional type is known
  Tuple,
  Optional,
  Block,         // a sub-block (instance)
  BlockArray,    // `[Block<...>; N]`
  Function,      // a fn/op/entry or prelude function, as a callee
  Module,        // a module bound by `use a.b`
  Enum,          // a value of an `enum` (payload-free variants)
  Struct,        // a value of a `struct`, with its generics bound
};

class Type {
 public:
  Type() = default;  // Error
  Type(const Type&) = default;
  Type(Type&&) = default;
  Type& operator=(Type&&) = default;
  // Assigning a part of the type itself (`t = t.optionalInner()`) copies the
  // part before the old value, which owns it, is released.
  Type& operator=(const Type& other) {
    if (this != &other) {
      Type copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  static Type error() { return Type(); }
  static Type unit();
  static Type tensor(shape::Shape shape, DType dtype);
  static Type scalar(DType dtype) { return tensor({}, dtype); }
  static Type intLiteral(int64_t value);
  // An untyped integer whose value is not known but lies in [lo, hi] (the
  // branches of an `if` of two literals): each value must fit where it is
  // given a dtype, and it is never a compile-time value.
  static Type intLiteralRange(int64_t lo, int64_t hi);
  // `magnitude`: the largest absolute value of the float literals it is made
  // of (0 when unknown), checked against the range of the dtype it takes.
  static Type floatLiteral(double magnitude = 0);
  static Type compileInt(shape::DimExpr value);
  static Type none();
  static Type tuple(std::vector<Type> elements);
  static Type optional(Type inner);
  static Type block(std::shared_ptr<const BlockInstance> instance);
  static Type blockArray(std::shared_ptr<const BlockInstance> element, shape::DimExpr count);
  static Type function(const Module* module, const ast::FunctionItem* item,
                       std::shared_ptr<const BlockInstance> owner);
  static Type prelude(std::string name);
  static Type module(const Module* module);
  static Type enumeration(const Module* module, const ast::EnumItem* item);
  static Type structure(const Module* module, const ast::StructItem* item, Substitution args);

  TypeKind kind() const { return kind_; }
  bool isError() const { return kind_ == TypeKind::Error; }
  bool isTensor() const { return kind_ == TypeKind::Tensor; }
  bool isScalar() const { return kind_ == TypeKind::Tensor && shape_.empty(); }
  // An untyped number: literal or compile-time integer.
  bool isUntypedNumber() const {
    return kind_ == TypeKind::IntLiteral || kind_ == TypeKind::FloatLiteral ||
           kind_ == TypeKind::CompileInt;
  }
  bool isScalarBool() const { return isScalar() && isBool(dtype_); }

  const shape::Shape& shape() const { return shape_; }
  const DType& dtype() const { return dtype_; }
  bool hasPack() const;
  // Tensor rank when it has no pack.
  std::optional<size_t> rank() const;
  int64_t intValue() const { return intValue_; }
  // IntLiteral: the values it may have, and whether it is one known value
  // (a literal, or folded from literals), not the join of branches.
  std::pair<int64_t, int64_t> intRange() const { return {intValue_, intMax_}; }
  bool isExactInt() const { return kind_ == TypeKind::IntLiteral && !inexact_; }
  // A compile-time integer or an integer literal: a value known statically.
  bool isCompileTimeInt() const { return kind_ == TypeKind::CompileInt || isExactInt(); }
  double floatMagnitude() const { return float_; }
  const shape::DimExpr& compileValue() const { return dim_; }
  const std::vector<Type>& elements() const { return elements_; }  // Tuple; Optional: [inner]
  const Type& optionalInner() const { return elements_.front(); }
  const std::shared_ptr<const BlockInstance>& blockInstance() const { return block_; }
  const shape::DimExpr& arrayCount() const { return dim_; }
  const Module* module() const { return module_; }
  const ast::FunctionItem* functionItem() const { return function_; }
  const std::string& preludeName() const { return name_; }
  const ast::EnumItem* enumItem() const { return enum_; }
  const ast::StructItem* structItem() const { return struct_; }
  // Struct: the arguments of its generics.
  const Substitution& structArgs() const { return *args_; }

  // Same tensor with another dtype or shape.
  Type withDType(DType dtype) const;
  Type withShape(shape::Shape shape) const;

 private:
  TypeKind kind_ = TypeKind::Error;
  shape::Shape shape_;
  DType dtype_;
  int64_t intValue_ = 0;
  int64_t intMax_ = 0;  // IntLiteral: the largest value (intValue_ the smallest)
  double float_ = 0;    // FloatLiteral: the largest magnitude
  bool inexact_ = false;  // IntLiteral from intLiteralRange
  shape::DimExpr dim_;
  std::vector<Type> elements_;
  std::shared_ptr<const BlockInstance> block_;
  const Module* module_ = nullptr;
  const ast::FunctionItem* function_ = nullptr;
  const ast::EnumItem* enum_ = nullptr;
  const ast::StructItem* struct_ = nullptr;
  std::shared_ptr<const Substitution> args_;
  std::string name_;
};

// The values an untyped integer may have: a literal's (a range for the
// join of branches), a compile-time integer's when it is a constant; nullopt
// for one that depends on a symbol (`H`), whose value only a binding gives.
std::optional<std::pair<int64_t, int64_t>> integerValues(const Type& t);
// The largest magnitude an untyped number may have (0 when not known).
double untypedMagnitude(const Type& t);

// Whether the type mentions Error anywhere (then nothing more is checked).
bool containsError(const Type& t);
// Whether `t` is a block or block array, or holds one (in a tuple, an optional).
bool containsBlock(const Type& t);

// `Tensor[B, S, 3 * H; T]`, `f32`, `(A, B)`, `A?`, `Linear<H, 3 * H, T>`,
// `[DecoderLayer<...>; Layers]`: the user's spelling.
std::string str(const Type& t);
// The compact edge form for graph views: `T[B, S, H]`, `i32[B, S]`, `f32`.
std::string compactStr(const Type& t);
// `Linear<H, 3 * H, T>`
std::string str(const BlockInstance& instance);

// Replaces generics by their arguments everywhere in `t`.
Type instantiate(const Type& t, const Substitution& s);
DType instantiate(const DType& d, const Substitution& s);

}  // namespace linnet::check
