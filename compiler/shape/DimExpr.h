// DimExpr: a dimension expression in canonical normal form, the value type of
// the shape solver. A DimExpr is a polynomial with 64-bit integer
// coefficients over atoms: symbols (Dim generics, untyped integer consts),
// pack measures (`len(*S)`: rank, `prod(*S)`: element count), and opaque
// atoms for `a / b`, `a % b`, `min(...)`, `max(...)` that could not be
// simplified away. Every constructor normalizes, so two DimExprs are equal
// (operator==, hash) exactly when their canonical forms are identical; a
// canonical form never depends on `where` facts (Facts::simplify does that).
//
// Semantics: atoms range over integers; symbols and pack measures are
// non-negative. `/` is floor division and `%` the matching remainder (sign of
// the divisor), which agrees with truncation for the non-negative operands
// dimensions have. The solver reasons with the total convention `x / 0 == 0`
// and `x % 0 == x`, under which `x == (x / y) * y + x % y` always holds; the
// language rejects zero divisors separately (E2205, via provablyPositive), so
// for accepted programs the convention is never observed. The canonicalizer
// does not fold a division by the constant 0; evaluate() reports it.
//
// Values are immutable and cheap to copy: nodes are shared, never mutated.
// Any 64-bit overflow while folding makes the result the "overflow" poison
// value, which propagates through every operation and is never proved
// anything about; the checker reports it (overflowed()). So does a product
// too large to expand (kMaxProductTerms).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

namespace linnet::shape {

// Identity of a symbol or pack, chosen by the caller and stable for the
// compilation; two symbols with the same id are the same symbol. Ids also
// fix the canonical order of terms (declaration order reads naturally).
using SymbolId = uint64_t;

struct Symbol {
  SymbolId id = 0;
  std::string name;
};

struct Pack {
  SymbolId id = 0;
  std::string name;
};

enum class AtomKind : uint8_t {
  Symbol,        // a named Dim
  PackRank,      // len(*S)
  PackElements,  // prod(*S): product of the pack's dims
  Quotient,      // exact N / D introduced by Facts for `N % D == 0`
  FloorDiv,      // N / D that did not simplify
  Mod,           // N % D that did not simplify
  Min,           // min of two or more operands, sorted, no duplicates
  Max,           // max of two or more operands, sorted, no duplicates
};

class DimExpr;
struct AtomNode;
struct PolyNode;

class Atom {
 public:
  static Atom symbol(SymbolId id, std::string name);
  static Atom packRank(SymbolId id, std::string name);
  static Atom packElements(SymbolId id, std::string name);

  AtomKind kind() const;
  // Symbol, pack, or Quotient id.
  SymbolId id() const;
  // Symbol or pack name; empty for composite atoms.
  const std::string& name() const;
  // FloorDiv, Mod, Quotient: {dividend, divisor}; Min, Max: the operands.
  const std::vector<DimExpr>& operands() const;
  // Whether the atom is non-negative by construction (symbols, packs, and
  // quotients built from non-negative operands).
  bool knownNonNegative() const;
  bool isComposite() const { return kind() >= AtomKind::Quotient; }
  size_t hash() const;
  DimExpr expr() const;

  friend bool operator==(const Atom& a, const Atom& b);
  friend std::strong_ordering operator<=>(const Atom& a, const Atom& b);

 private:
  friend class DimExpr;
  friend class AtomFactory;
  explicit Atom(std::shared_ptr<const AtomNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const AtomNode> node_;
};

struct AtomHash {
  size_t operator()(const Atom& a) const { return a.hash(); }
};

struct Factor {
  Atom atom;
  uint32_t power = 1;
  friend bool operator==(const Factor&, const Factor&) = default;
};

// A product of atoms, factors sorted by atom and each atom at most once.
// The empty monomial is the constant 1.
using Monomial = std::vector<Factor>;

// The most term products one multiplication expands (terms of one factor,
// constant included, times those of the other); past it the product is the
// overflow value. Multiplying out sums grows fast ((A0 + ... + A9)^12 has
// about 300000 terms), and no dimension a model writes comes near this.
inline constexpr size_t kMaxProductTerms = 4096;

struct Term {
  int64_t coefficient = 0;  // never 0
  Monomial monomial;        // never empty
  friend bool operator==(const Term&, const Term&) = default;
};

class DimExpr {
 public:
  DimExpr();  // the constant 0
  static DimExpr constant(int64_t value);
  static DimExpr symbol(const Symbol& s);
  static DimExpr symbol(SymbolId id, std::string name);
  static DimExpr packRank(const Pack& p);
  static DimExpr packElements(const Pack& p);
  static DimExpr atom(const Atom& a);
  static DimExpr overflow();
  // Builds a canonical polynomial from arbitrary (unsorted, possibly
  // repeated or zero) terms.
  static DimExpr fromTerms(std::vector<Term> terms, int64_t constant);

  static DimExpr floorDiv(const DimExpr& a, const DimExpr& b);
  static DimExpr mod(const DimExpr& a, const DimExpr& b);
  // Integer `/` (or `%`, `remainder`) as values divide: truncating toward
  // zero, `%` taking the dividend's sign, total (x / 0 == -1, x % 0 == x,
  // MIN / -1 wraps to MIN; docs/dialect.md). Two constants fold; operands
  // both non-negative by construction are floorDiv/mod (the same numbers,
  // and dimValue makes a zero divisor total); anything else is
  // sign(a) * sign(b) * floorDiv(|a|, |b|) - (1 - sign(b)^2), from min and max.
  static DimExpr truncatingDivision(const DimExpr& a, const DimExpr& b, bool remainder);
  static DimExpr min(const DimExpr& a, const DimExpr& b);
  static DimExpr max(const DimExpr& a, const DimExpr& b);
  static DimExpr minOf(std::vector<DimExpr> operands);
  static DimExpr maxOf(std::vector<DimExpr> operands);
  // The exact quotient atom Facts creates for `n % d == 0`; `id` is unique
  // within one Facts. Printed as `n / d`.
  static DimExpr quotient(SymbolId id, const DimExpr& n, const DimExpr& d, bool nonNegative);

  friend DimExpr operator+(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator*(const DimExpr& a, const DimExpr& b);
  friend DimExpr operator-(const DimExpr& a);

  bool overflowed() const;
  // Whether no value of the symbols (all >= 0) makes it negative: a
  // non-negative constant term, positive coefficients, non-negative atoms.
  bool nonNegativeByConstruction() const;
  bool isZero() const;
  bool isConstant() const;  // false for the overflow value
  std::optional<int64_t> constantValue() const;
  // The atom when the expression is exactly one atom with coefficient 1.
  std::optional<Atom> asAtom() const;
  const std::vector<Term>& terms() const;  // non-constant terms, canonical order
  int64_t constantTerm() const;
  size_t hash() const;
  // Every atom occurring anywhere, operands of composite atoms included.
  void collectAtoms(std::vector<Atom>& out) const;
  // Whether `a` occurs anywhere (inside composite atoms too, but not inside
  // the labels of Quotient atoms, which are not values of the expression).
  bool mentions(const Atom& a) const;

  // The user-facing spelling, minimally parenthesized (see Printer.cpp).
  std::string str() const;

  friend bool operator==(const DimExpr& a, const DimExpr& b);
  friend std::strong_ordering operator<=>(const DimExpr& a, const DimExpr& b);

 private:
  explicit DimExpr(std::shared_ptr<const PolyNode> node) : node_(std::move(node)) {}
  std::shared_ptr<const PolyNode> node_;
};

struct DimExprHash {
  size_t operator()(const DimExpr& e) const { return e.hash(); }
};

// Canonical order of monomials within a polynomial: higher total degree
// first, then by atoms. Exposed for the printer and the prover.
std::strong_ordering compareMonomials(const Monomial& a, const Monomial& b);
DimExpr monomialExpr(const Monomial& m);
uint64_t degree(const Monomial& m);

// A shape: dims and packs (`[B, *S, H]`).
using ShapeDim = std::variant<DimExpr, Pack>;
using Shape = std::vector<ShapeDim>;
std::string str(const ShapeDim& d);
std::string str(const Shape& s);  // `[B, *S, H]`

// Generic instantiation: replaces symbols by expressions and packs by
// shapes (`len(*S)` becomes the bound rank, `prod(*S)` the product).
// Unbound symbols and packs stay as they are.
struct Bindings {
  std::unordered_map<SymbolId, DimExpr> dims;
  std::unordered_map<SymbolId, Shape> packs;
};
DimExpr instantiate(const DimExpr& e, const Bindings& b);
Shape instantiate(const Shape& s, const Bindings& b);

// Evaluation for fully bound generics.
struct Values {
  std::unordered_map<SymbolId, int64_t> dims;
  std::unordered_map<SymbolId, std::vector<int64_t>> packs;
};
struct Evaluation {
  std::optional<int64_t> value;  // set on success
  std::string error;             // why not: unbound name, zero divisor, overflow
  explicit operator bool() const { return value.has_value(); }
};
Evaluation evaluate(const DimExpr& e, const Values& v);

}  // namespace linnet::shape

template <>
struct std::hash<linnet::shape::DimExpr> {
  size_t operator()(const linnet::shape::DimExpr& e) const { return e.hash(); }
};
