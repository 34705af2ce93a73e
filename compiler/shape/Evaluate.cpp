// Generic instantiation and evaluation of dimension expressions.
// instantiate() substitutes symbols and packs and re-canonicalizes through the
// normal constructors, so an instantiated expression is as simplified as one
// written directly with the bound values (`H / Heads` with H = 4096 and
// Heads = 32 becomes `128`). evaluate() computes the value for fully bound
// generics with checked arithmetic: an unbound name, a zero divisor or a
// 64-bit overflow is reported as an error, never as a wrong number.
#include <string>

#include "compiler/shape/Checked.h"
#include "compiler/shape/DimExpr.h"

namespace linnet::shape {
namespace {

DimExpr power(const DimExpr& base, uint32_t p) {
  DimExpr out = DimExpr::constant(1);
  for (uint32_t i = 0; i < p && !out.overflowed(); ++i) out = out * base;
  return out;
}

DimExpr instantiateAtom(const Atom& a, const Bindings& b) {
  auto all = [&](const std::vector<DimExpr>& ops) {
    std::vector<DimExpr> out;
    for (const DimExpr& op : ops) out.push_back(instantiate(op, b));
    return out;
  };
  switch (a.kind()) {
    case AtomKind::Symbol: {
      auto it = b.dims.find(a.id());
      return it == b.dims.end() ? a.expr() : it->second;
    }
    case AtomKind::PackRank:
    case AtomKind::PackElements: {
      auto it = b.packs.find(a.id());
      if (it == b.packs.end()) return a.expr();
      bool rank = a.kind() == AtomKind::PackRank;
      DimExpr out = DimExpr::constant(rank ? 0 : 1);
      for (const ShapeDim& d : it->second) {
        if (const auto* e = std::get_if<DimExpr>(&d)) {
          out = rank ? out + DimExpr::constant(1) : out * *e;
        } else {
          const Pack& p = std::get<Pack>(d);
          out = rank ? out + DimExpr::packRank(p) : out * DimExpr::packElements(p);
        }
      }
      return out;
    }
    case AtomKind::Quotient:
    case AtomKind::FloorDiv: {
      auto ops = all(a.operands());
      return DimExpr::floorDiv(ops[0], ops[1]);
    }
    case AtomKind::Mod: {
      auto ops = all(a.operands());
      return DimExpr::mod(ops[0], ops[1]);
    }
    case AtomKind::Min:
      return DimExpr::minOf(all(a.operands()));
    case AtomKind::Max:
      return DimExpr::maxOf(all(a.operands()));
  }
  return DimExpr::overflow();
}

Evaluation fail(std::string why) { return Evaluation{std::nullopt, std::move(why)}; }
Evaluation overflowed(const std::string& what) {
  return fail("integer overflow while evaluating `" + what + "`");
}

Evaluation evaluateAtom(const Atom& a, const Values& v) {
  switch (a.kind()) {
    case AtomKind::Symbol: {
      auto it = v.dims.find(a.id());
      if (it == v.dims.end()) return fail("`" + a.name() + "` has no value");
      return Evaluation{it->second, {}};
    }
    case AtomKind::PackRank:
    case AtomKind::PackElements: {
      auto it = v.packs.find(a.id());
      if (it == v.packs.end()) return fail("`*" + a.name() + "` has no value");
      if (a.kind() == AtomKind::PackRank) return Evaluation{static_cast<int64_t>(it->second.size()), {}};
      int64_t product = 1;
      for (int64_t d : it->second)
        if (checked::mul(product, d, product)) return overflowed(a.expr().str());
      return Evaluation{product, {}};
    }
    case AtomKind::Quotient:
    case AtomKind::FloorDiv:
    case AtomKind::Mod: {
      Evaluation n = evaluate(a.operands()[0], v);
      if (!n) return n;
      Evaluation d = evaluate(a.operands()[1], v);
      if (!d) return d;
      if (*d.value == 0) return fail("division by zero in `" + a.expr().str() + "`");
      if (a.kind() == AtomKind::Mod) return Evaluation{checked::floorMod(*n.value, *d.value), {}};
      int64_t q = 0;
      if (checked::floorDiv(*n.value, *d.value, q)) return overflowed(a.expr().str());
      return Evaluation{q, {}};
    }
    case AtomKind::Min:
    case AtomKind::Max: {
      std::optional<int64_t> best;
      for (const DimExpr& op : a.operands()) {
        Evaluation e = evaluate(op, v);
        if (!e) return e;
        bool isMin = a.kind() == AtomKind::Min;
        if (!best || (isMin ? *e.value < *best : *e.value > *best)) best = e.value;
      }
      return Evaluation{best, {}};
    }
  }
  return fail("unknown atom");
}

}  // namespace

DimExpr instantiate(const DimExpr& e, const Bindings& b) {
  if (e.overflowed()) return e;
  DimExpr out = DimExpr::constant(e.constantTerm());
  for (const Term& t : e.terms()) {
    DimExpr product = DimExpr::constant(t.coefficient);
    for (const Factor& f : t.monomial) product = product * power(instantiateAtom(f.atom, b), f.power);
    out = out + product;
  }
  return out;
}

Shape instantiate(const Shape& s, const Bindings& b) {
  Shape out;
  for (const ShapeDim& d : s) {
    if (const auto* e = std::get_if<DimExpr>(&d)) {
      out.push_back(instantiate(*e, b));
      continue;
    }
    const Pack& p = std::get<Pack>(d);
    auto it = b.packs.find(p.id);
    if (it == b.packs.end()) {
      out.push_back(p);
    } else {
      out.insert(out.end(), it->second.begin(), it->second.end());
    }
  }
  return out;
}

Evaluation evaluate(const DimExpr& e, const Values& v) {
  if (e.overflowed()) return fail("the expression overflowed while it was simplified");
  int64_t total = e.constantTerm();
  for (const Term& t : e.terms()) {
    int64_t product = t.coefficient;
    for (const Factor& f : t.monomial) {
      Evaluation a = evaluateAtom(f.atom, v);
      if (!a) return a;
      for (uint32_t i = 0; i < f.power; ++i)
        if (checked::mul(product, *a.value, product)) return overflowed(e.str());
    }
    if (checked::add(total, product, total)) return overflowed(e.str());
  }
  return Evaluation{total, {}};
}

}  // namespace linnet::shape
