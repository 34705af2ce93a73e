// The printer for DimExpr: writes a canonical form the way a user writes a
// dimension (`3 * H`, `H / Heads`, `Batch + P`, `2 * Batch`, `H / Heads / 2`,
// `S - 1`), in the user's own names, with the fewest parentheses Linnet's
// precedence allows (`+ -` < `* / %` < unary `-` < primary; binary operators
// are left-associative, so only a right operand at the same level needs
// parentheses: `A * (H / Heads)` but `H / Heads * A`). Positive terms come
// first in canonical order, then subtracted terms, then the constant, so the
// output reads `S - 1` and `1 - S` rather than `-S + 1`. Pack measures, which
// have no Linnet spelling, print as `len(*S)` and `prod(*S)`; the overflow
// value prints as `<overflow>`. Types in error messages use this text.
#include <string>

#include "compiler/shape/DimExpr.h"

namespace linnet::shape {
namespace {

enum Precedence : int { kSum = 1, kProduct = 2, kUnary = 3, kPrimary = 4 };

struct Printed {
  std::string text;
  int precedence = kPrimary;
};

std::string atLeast(const Printed& p, int precedence) {
  return p.precedence < precedence ? "(" + p.text + ")" : p.text;
}

std::string magnitude(int64_t value) {
  uint64_t m = value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  return std::to_string(m);
}

Printed printExpr(const DimExpr& e);

Printed printBinary(const DimExpr& left, const char* op, const DimExpr& right) {
  return {atLeast(printExpr(left), kProduct) + " " + op + " " + atLeast(printExpr(right), kUnary),
          kProduct};
}

Printed printNested(const char* name, const std::vector<DimExpr>& operands, size_t from) {
  if (from + 1 == operands.size()) return printExpr(operands[from]);
  return {std::string(name) + "(" + printExpr(operands[from]).text + ", " +
              printNested(name, operands, from + 1).text + ")",
          kPrimary};
}

Printed printAtom(const Atom& a) {
  switch (a.kind()) {
    case AtomKind::Symbol:
      return {a.name(), kPrimary};
    case AtomKind::PackRank:
      return {"len(*" + a.name() + ")", kPrimary};
    case AtomKind::PackElements:
      return {"prod(*" + a.name() + ")", kPrimary};
    case AtomKind::Quotient:
    case AtomKind::FloorDiv:
      return printBinary(a.operands()[0], "/", a.operands()[1]);
    case AtomKind::Mod:
      return printBinary(a.operands()[0], "%", a.operands()[1]);
    case AtomKind::Min:
      return printNested("min", a.operands(), 0);
    case AtomKind::Max:
      return printNested("max", a.operands(), 0);
  }
  return {"?", kPrimary};
}

bool isDivisionLike(const Atom& a) {
  return a.kind() == AtomKind::FloorDiv || a.kind() == AtomKind::Mod ||
         a.kind() == AtomKind::Quotient;
}

// `|coefficient| * monomial`.
Printed printTerm(const Term& t) {
  std::vector<Printed> parts;
  if (t.coefficient != 1 && t.coefficient != -1) parts.push_back({magnitude(t.coefficient), kPrimary});
  for (const Factor& f : t.monomial)
    for (uint32_t i = 0; i < f.power; ++i) parts.push_back(printAtom(f.atom));
  if (parts.size() == 1) return parts[0];
  std::string text = atLeast(parts[0], kProduct);
  for (size_t i = 1; i < parts.size(); ++i) text += " * " + atLeast(parts[i], kUnary);
  return {text, kProduct};
}

// `-term` as the first thing printed. `-H / 2` would mean `(-H) / 2`, so a
// term that starts with a division is parenthesized.
std::string negated(const Term& t, const Printed& p) {
  bool startsWithDivision = (t.coefficient == 1 || t.coefficient == -1) &&
                            isDivisionLike(t.monomial[0].atom);
  return startsWithDivision ? "-(" + p.text + ")" : "-" + p.text;
}

Printed printExpr(const DimExpr& e) {
  if (e.overflowed()) return {"<overflow>", kPrimary};
  int64_t c = e.constantTerm();
  if (e.terms().empty()) return {c < 0 ? "-" + magnitude(c) : magnitude(c), c < 0 ? kUnary : kPrimary};
  std::vector<const Term*> positive, negative;
  for (const Term& t : e.terms()) (t.coefficient > 0 ? positive : negative).push_back(&t);
  std::string text;
  size_t pieces = 0;
  auto append = [&](bool minus, const std::string& piece) {
    text += pieces == 0 ? (minus ? "-" : "") : (minus ? " - " : " + ");
    text += piece;
    ++pieces;
  };
  bool constantFirst = positive.empty() && c > 0;
  if (constantFirst) append(false, magnitude(c));
  Printed last;
  for (const Term* t : positive) append(false, (last = printTerm(*t)).text);
  for (const Term* t : negative) {
    last = printTerm(*t);
    if (pieces == 0) {
      text = negated(*t, last);
      ++pieces;
    } else {
      append(true, last.text);
    }
  }
  if (c != 0 && !constantFirst) append(c < 0, magnitude(c));
  if (pieces > 1) return {text, kSum};
  if (!negative.empty()) return {text, kUnary};
  return last;
}

}  // namespace

std::string DimExpr::str() const { return printExpr(*this).text; }

std::string str(const ShapeDim& d) {
  if (const auto* e = std::get_if<DimExpr>(&d)) return e->str();
  return "*" + std::get<Pack>(d).name;
}

std::string str(const Shape& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + str(s[i]);
  return out + "]";
}

}  // namespace linnet::shape
