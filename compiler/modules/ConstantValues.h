// ConstantValues: the value of a `const` item folded at compile time, for the
// places that need a constant's number without a checked function around it:
// the binder (comparing or replacing constants with config.json values) and
// the lowering (a typed constant whose initializer is an expression,
// `const HALF: f32 = SCALE / 2.0`).
//
// Folded: integer, float and bool literals, parentheses, unary minus, other
// constants, `+ - * / %` over integers (overflow and division by zero are not
// folded), `+ - * /` over numbers with a float among them (in f64), and
// `min`/`max`/`shl`/`shr` of two integers. A typed float constant's expression is folded
// in f64 and rounded once to its dtype by the caller. Anything else is not a
// constant these places can fold (nullopt).
#pragma once

#include <cstdint>
#include <optional>

#include "compiler/modules/Program.h"

namespace linnet {

struct ConstantNumber {
  enum class Kind { Integer, Float, Bool } kind = Kind::Integer;
  int64_t integer = 0;  // Integer; Bool: 0 or 1
  double real = 0;      // Float

  bool isFloat() const { return kind == Kind::Float; }
  double asDouble() const { return kind == Kind::Float ? real : double(integer); }
};

// `e`, an expression of module `m`.
std::optional<ConstantNumber> foldConstantExpr(const Module& m, const ast::Expr* e, int depth = 0);

// Constant `c` of module `m`, converted to its declared scalar type if it has
// one (an integer for a float type becomes a float; a float or bool for an
// integer type, or a number for bool, is not folded).
std::optional<ConstantNumber> foldConstant(const Module& m, const ast::ConstItem& c, int depth = 0);

}  // namespace linnet
