// Construction and canonicalization of DimExpr (see DimExpr.h for the
// semantics). Every public constructor returns the canonical form:
//   - a sum of terms `c * m` (c != 0) over distinct monomials `m`, sorted by
//     compareMonomials, plus a constant;
//   - monomials are products of atoms with positive powers, sorted by atom;
//   - `a / k` and `a % k` for a constant k > 1 split off every part of `a`
//     whose coefficient is a multiple of k, reduce the remaining
//     coefficients modulo k and divide out a common factor, so equal values
//     written differently get one form (`(4 * H + 6) / 4` is `H + 1`,
//     `3 * H / 2` is `H + H / 2`, `(2 * H + 2) / 4` is `(H + 1) / 2`);
//   - `min`/`max` are flattened, deduplicated, sorted, and drop operands
//     that differ from another by a constant.
// Only rewrites valid for every integer assignment (under the x / 0 == 0
// convention) are applied here; anything that needs `where` facts or the
// non-negativity of symbols lives in Facts.
#include "compiler/shape/DimExpr.h"

#include <algorithm>
#include <functional>

#include "compiler/shape/Checked.h"

namespace linnet::shape {

struct AtomNode {
  AtomKind kind = AtomKind::Symbol;
  SymbolId id = 0;
  std::string name;
  std::vector<DimExpr> operands;
  bool nonNegative = false;
  size_t hash = 0;
};

struct PolyNode {
  std::vector<Term> terms;
  int64_t constant = 0;
  bool poison = false;
  size_t hash = 0;
};

namespace {

size_t mix(size_t seed, size_t value) {
  // A 64-bit variant of the usual hash_combine; only needs to spread bits.
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

size_t hashPoly(const PolyNode& p) {
  size_t h = p.poison ? 0xdeadULL : 0x5eedULL;
  for (const Term& t : p.terms) {
    h = mix(h, std::hash<int64_t>{}(t.coefficient));
    for (const Factor& f : t.monomial) h = mix(mix(h, f.atom.hash()), f.power);
  }
  return mix(h, std::hash<int64_t>{}(p.constant));
}

}  // namespace

// Builds atom nodes; a friend of Atom so that nodes stay private.
class AtomFactory {
 public:
  static Atom make(AtomKind kind, SymbolId id, std::string name, std::vector<DimExpr> operands,
                   bool nonNegative) {
    auto node = std::make_shared<AtomNode>();
    node->kind = kind;
    node->id = id;
    node->name = std::move(name);
    node->operands = std::move(operands);
    node->nonNegative = nonNegative;
    size_t h = mix(static_cast<size_t>(kind) * 0x100000001b3ULL, std::hash<SymbolId>{}(id));
    for (const DimExpr& e : node->operands) h = mix(h, e.hash());
    node->hash = h;
    return Atom(std::move(node));
  }
};

// ---- Atom -----------------------------------------------------------------

Atom Atom::symbol(SymbolId id, std::string name) {
  return AtomFactory::make(AtomKind::Symbol, id, std::move(name), {}, true);
}
Atom Atom::packRank(SymbolId id, std::string name) {
  return AtomFactory::make(AtomKind::PackRank, id, std::move(name), {}, true);
}
Atom Atom::packElements(SymbolId id, std::string name) {
  return AtomFactory::make(AtomKind::PackElements, id, std::move(name), {}, true);
}

AtomKind Atom::kind() const { return node_->kind; }
SymbolId Atom::id() const { return node_->id; }
const std::string& Atom::name() const { return node_->name; }
const std::vector<DimExpr>& Atom::operands() const { return node_->operands; }
bool Atom::knownNonNegative() const { return node_->nonNegative; }
size_t Atom::hash() const { return node_->hash; }
DimExpr Atom::expr() const { return DimExpr::atom(*this); }

bool operator==(const Atom& a, const Atom& b) {
  if (a.node_ == b.node_) return true;
  if (a.hash() != b.hash()) return false;
  return (a <=> b) == 0;
}

std::strong_ordering operator<=>(const Atom& a, const Atom& b) {
  if (a.node_ == b.node_) return std::strong_ordering::equal;
  if (auto c = a.kind() <=> b.kind(); c != 0) return c;
  switch (a.kind()) {
    case AtomKind::Symbol:
    case AtomKind::PackRank:
    case AtomKind::PackElements:
    case AtomKind::Quotient:
      return a.id() <=> b.id();
    case AtomKind::FloorDiv:
    case AtomKind::Mod:
    case AtomKind::Min:
    case AtomKind::Max:
      break;
  }
  const auto& x = a.operands();
  const auto& y = b.operands();
  for (size_t i = 0; i < x.size() && i < y.size(); ++i)
    if (auto c = x[i] <=> y[i]; c != 0) return c;
  return x.size() <=> y.size();
}

// ---- Monomials -------------------------------------------------------------

uint64_t degree(const Monomial& m) {
  uint64_t d = 0;
  for (const Factor& f : m) d += f.power;
  return d;
}

std::strong_ordering compareMonomials(const Monomial& a, const Monomial& b) {
  if (auto c = degree(b) <=> degree(a); c != 0) return c;  // higher degree first
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (auto c = a[i].atom <=> b[i].atom; c != 0) return c;
    if (auto c = b[i].power <=> a[i].power; c != 0) return c;
  }
  return a.size() <=> b.size();
}

namespace {

// Product of two canonical monomials; false when a power would overflow.
bool multiplyMonomials(const Monomial& a, const Monomial& b, Monomial& out) {
  out.clear();
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].atom < b[j].atom)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].atom < a[i].atom) {
      out.push_back(b[j++]);
    } else {
      uint32_t p = 0;
      if (__builtin_add_overflow(a[i].power, b[j].power, &p)) return false;
      out.push_back(Factor{a[i].atom, p});
      ++i;
      ++j;
    }
  }
  return true;
}

std::shared_ptr<const PolyNode> makeNode(std::vector<Term> terms, int64_t constant, bool poison) {
  auto node = std::make_shared<PolyNode>();
  if (!poison) {
    node->terms = std::move(terms);
    node->constant = constant;
  }
  node->poison = poison;
  node->hash = hashPoly(*node);
  return node;
}

int64_t contentOf(const DimExpr& e) {
  int64_t g = 0;
  for (const Term& t : e.terms())
    if (checked::gcd(g, t.coefficient, g)) return 1;
  if (checked::gcd(g, e.constantTerm(), g)) return 1;
  return g;
}

// Divides every coefficient by `g`, which must divide all of them.
DimExpr divideExactly(const DimExpr& e, int64_t g) {
  std::vector<Term> terms = e.terms();
  for (Term& t : terms) t.coefficient /= g;
  return DimExpr::fromTerms(std::move(terms), e.constantTerm() / g);
}

DimExpr scaled(const DimExpr& e, int64_t k) { return DimExpr::constant(k) * e; }

DimExpr makeComposite(AtomKind kind, std::vector<DimExpr> operands) {
  return DimExpr::atom(AtomFactory::make(kind, 0, {}, std::move(operands), false));
}

// Splits `a` for a division by the constant k > 1: a == k * q + r where r's
// coefficients lie in [0, k). Returns false on overflow.
bool splitByConstant(const DimExpr& a, int64_t k, DimExpr& q, DimExpr& r) {
  std::vector<Term> qt, rt;
  for (const Term& t : a.terms()) {
    int64_t quo = 0;
    if (checked::floorDiv(t.coefficient, k, quo)) return false;
    int64_t rem = checked::floorMod(t.coefficient, k);
    if (quo != 0) qt.push_back(Term{quo, t.monomial});
    if (rem != 0) rt.push_back(Term{rem, t.monomial});
  }
  int64_t q0 = 0;
  if (checked::floorDiv(a.constantTerm(), k, q0)) return false;
  q = DimExpr::fromTerms(std::move(qt), q0);
  r = DimExpr::fromTerms(std::move(rt), checked::floorMod(a.constantTerm(), k));
  return !q.overflowed() && !r.overflowed();
}

std::optional<std::pair<DimExpr, int64_t>> asConstantDivisionOf(const DimExpr& e, AtomKind kind) {
  auto atom = e.asAtom();
  if (!atom || atom->kind() != kind) return std::nullopt;
  auto k = atom->operands()[1].constantValue();
  if (!k || *k <= 0) return std::nullopt;
  return std::make_pair(atom->operands()[0], *k);
}

// Whether every term of `a` is a multiple of `b`, a single term c * m.
bool multipleOfTerm(const DimExpr& a, const DimExpr& b) {
  if (b.terms().size() != 1 || b.constantTerm() != 0 || a.constantTerm() != 0) return false;
  const Term& d = b.terms()[0];
  for (const Term& t : a.terms()) {
    if (d.coefficient == -1 ? false : t.coefficient % d.coefficient != 0) return false;
    for (const Factor& f : d.monomial) {
      auto it = std::find_if(t.monomial.begin(), t.monomial.end(),
                             [&](const Factor& g) { return g.atom == f.atom; });
      if (it == t.monomial.end() || it->power < f.power) return false;
    }
  }
  return true;
}

DimExpr extremumOf(AtomKind kind, std::vector<DimExpr> operands) {
  bool isMin = kind == AtomKind::Min;
  std::vector<DimExpr> flat;
  for (const DimExpr& op : operands) {
    if (op.overflowed()) return DimExpr::overflow();
    auto atom = op.asAtom();
    if (atom && atom->kind() == kind) {
      for (const DimExpr& inner : atom->operands()) flat.push_back(inner);
    } else {
      flat.push_back(op);
    }
  }
  // Drop an operand that differs from a kept one by a constant in the
  // losing direction (this also removes duplicates and folds constants).
  std::vector<DimExpr> kept;
  for (const DimExpr& op : flat) {
    bool dominated = false;
    for (size_t i = 0; i < kept.size() && !dominated; ++i) {
      auto diff = (op - kept[i]).constantValue();
      if (!diff) continue;
      bool opWins = isMin ? *diff < 0 : *diff > 0;
      if (opWins)
        kept[i] = op;
      dominated = true;
    }
    if (!dominated) kept.push_back(op);
  }
  // Replacing a kept operand may have made two kept operands comparable.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < kept.size() && !changed; ++i)
      for (size_t j = i + 1; j < kept.size() && !changed; ++j) {
        auto diff = (kept[i] - kept[j]).constantValue();
        if (!diff) continue;
        bool iWins = isMin ? *diff <= 0 : *diff >= 0;
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(iWins ? j : i));
        changed = true;
      }
  }
  if (kept.size() == 1) return kept[0];
  std::sort(kept.begin(), kept.end());
  return makeComposite(kind, std::move(kept));
}

}  // namespace

// ---- DimExpr ---------------------------------------------------------------

DimExpr::DimExpr() : node_(makeNode({}, 0, false)) {}

DimExpr DimExpr::constant(int64_t value) { return DimExpr(makeNode({}, value, false)); }

DimExpr DimExpr::symbol(const Symbol& s) { return symbol(s.id, s.name); }

DimExpr DimExpr::symbol(SymbolId id, std::string name) {
  return atom(Atom::symbol(id, std::move(name)));
}

DimExpr DimExpr::packRank(const Pack& p) { return atom(Atom::packRank(p.id, p.name)); }

DimExpr DimExpr::packElements(const Pack& p) { return atom(Atom::packElements(p.id, p.name)); }

DimExpr DimExpr::atom(const Atom& a) {
  return DimExpr(makeNode({Term{1, Monomial{Factor{a, 1}}}}, 0, false));
}

DimExpr DimExpr::overflow() { return DimExpr(makeNode({}, 0, true)); }

DimExpr DimExpr::quotient(SymbolId id, const DimExpr& n, const DimExpr& d, bool nonNegative) {
  return atom(AtomFactory::make(AtomKind::Quotient, id, {}, {n, d}, nonNegative));
}

DimExpr DimExpr::fromTerms(std::vector<Term> terms, int64_t constant) {
  for (Term& t : terms) {
    // Accept monomials in any order; canonicalize factor order and merge.
    std::sort(t.monomial.begin(), t.monomial.end(),
              [](const Factor& x, const Factor& y) { return x.atom < y.atom; });
    Monomial merged;
    for (const Factor& f : t.monomial) {
      if (f.power == 0) continue;
      if (!merged.empty() && merged.back().atom == f.atom) {
        if (__builtin_add_overflow(merged.back().power, f.power, &merged.back().power))
          return overflow();
      } else {
        merged.push_back(f);
      }
    }
    t.monomial = std::move(merged);
  }
  std::vector<Term> out;
  std::sort(terms.begin(), terms.end(), [](const Term& x, const Term& y) {
    return compareMonomials(x.monomial, y.monomial) < 0;
  });
  for (Term& t : terms) {
    if (t.monomial.empty()) {
      if (checked::add(constant, t.coefficient, constant)) return overflow();
      continue;
    }
    if (!out.empty() && out.back().monomial == t.monomial) {
      if (checked::add(out.back().coefficient, t.coefficient, out.back().coefficient))
        return overflow();
    } else {
      out.push_back(std::move(t));
    }
  }
  std::erase_if(out, [](const Term& t) { return t.coefficient == 0; });
  return DimExpr(makeNode(std::move(out), constant, false));
}

DimExpr operator+(const DimExpr& a, const DimExpr& b) {
  if (a.overflowed() || b.overflowed()) return DimExpr::overflow();
  if (b.isZero()) return a;
  if (a.isZero()) return b;
  std::vector<Term> terms = a.terms();
  terms.insert(terms.end(), b.terms().begin(), b.terms().end());
  int64_t c = 0;
  if (checked::add(a.constantTerm(), b.constantTerm(), c)) return DimExpr::overflow();
  return DimExpr::fromTerms(std::move(terms), c);
}

DimExpr operator-(const DimExpr& a) {
  if (a.overflowed()) return a;
  std::vector<Term> terms = a.terms();
  for (Term& t : terms)
    if (checked::neg(t.coefficient, t.coefficient)) return DimExpr::overflow();
  int64_t c = 0;
  if (checked::neg(a.constantTerm(), c)) return DimExpr::overflow();
  return DimExpr::fromTerms(std::move(terms), c);
}

DimExpr operator-(const DimExpr& a, const DimExpr& b) { return a + (-b); }

DimExpr operator*(const DimExpr& a, const DimExpr& b) {
  if (a.overflowed() || b.overflowed()) return DimExpr::overflow();
  std::vector<Term> terms;
  // Treat the constants as terms with the empty monomial.
  std::vector<Term> x = a.terms(), y = b.terms();
  if (a.constantTerm() != 0) x.push_back(Term{a.constantTerm(), {}});
  if (b.constantTerm() != 0) y.push_back(Term{b.constantTerm(), {}});
  if (x.size() * y.size() > kMaxProductTerms) return DimExpr::overflow();
  terms.reserve(x.size() * y.size());
  for (const Term& s : x)
    for (const Term& t : y) {
      Term p;
      if (checked::mul(s.coefficient, t.coefficient, p.coefficient)) return DimExpr::overflow();
      if (!multiplyMonomials(s.monomial, t.monomial, p.monomial)) return DimExpr::overflow();
      terms.push_back(std::move(p));
    }
  return DimExpr::fromTerms(std::move(terms), 0);
}

DimExpr DimExpr::floorDiv(const DimExpr& a, const DimExpr& b) {
  if (a.overflowed() || b.overflowed()) return overflow();
  if (auto k = b.constantValue()) {
    if (*k == 0) return makeComposite(AtomKind::FloorDiv, {a, b});
    if (auto c = a.constantValue()) {
      int64_t q = 0;
      if (checked::floorDiv(*c, *k, q)) return overflow();
      return constant(q);
    }
    if (*k == 1) return a;
    if (*k == -1) return -a;
    if (*k < 0) return makeComposite(AtomKind::FloorDiv, {a, b});
    DimExpr q, r;
    if (!splitByConstant(a, *k, q, r)) return overflow();
    if (r.isConstant()) return q;  // 0 <= r < k, so r / k == 0
    // (g * r') / (g * k') == r' / k'.
    int64_t g = 0;
    if (checked::gcd(contentOf(r), *k, g)) return overflow();
    int64_t divisor = *k / g;
    DimExpr rest = g > 1 ? divideExactly(r, g) : r;
    if (divisor == 1) return q + rest;
    // (n / m) / d == n / (m * d) for constants m, d > 0.
    if (auto inner = asConstantDivisionOf(rest, AtomKind::FloorDiv)) {
      int64_t m = 0;
      if (!checked::mul(inner->second, divisor, m))
        return q + floorDiv(inner->first, constant(m));
    }
    return q + makeComposite(AtomKind::FloorDiv, {rest, constant(divisor)});
  }
  if (a.isZero()) return a;
  // (g * a') / (g * b') == a' / b' (both sides are 0 when b' == 0).
  int64_t g = 0;
  if (checked::gcd(contentOf(a), contentOf(b), g)) return overflow();
  if (g > 1) return makeComposite(AtomKind::FloorDiv, {divideExactly(a, g), divideExactly(b, g)});
  return makeComposite(AtomKind::FloorDiv, {a, b});
}

DimExpr DimExpr::mod(const DimExpr& a, const DimExpr& b) {
  if (a.overflowed() || b.overflowed()) return overflow();
  if (auto k = b.constantValue()) {
    if (*k == 0) return makeComposite(AtomKind::Mod, {a, b});
    if (*k == 1 || *k == -1) return constant(0);
    if (auto c = a.constantValue()) return constant(checked::floorMod(*c, *k));
    if (*k < 0) return makeComposite(AtomKind::Mod, {a, b});
    DimExpr q, r;
    if (!splitByConstant(a, *k, q, r)) return overflow();
    if (r.isConstant()) return r;
    // (g * r') % (g * k') == g * (r' % k').
    int64_t g = 0;
    if (checked::gcd(contentOf(r), *k, g)) return overflow();
    int64_t divisor = *k / g;
    if (divisor == 1) return constant(0);
    DimExpr rest = g > 1 ? divideExactly(r, g) : r;
    // (n % m) % d == n % d when d divides m.
    if (auto inner = asConstantDivisionOf(rest, AtomKind::Mod); inner && inner->second % divisor == 0)
      return scaled(mod(inner->first, constant(divisor)), g);
    return scaled(makeComposite(AtomKind::Mod, {rest, constant(divisor)}), g);
  }
  // (b * q) % b == 0 for every b, 0 included (0 % 0 == 0 by convention).
  if (a.isZero() || a == b || multipleOfTerm(a, b)) return constant(0);
  int64_t g = 0;
  if (checked::gcd(contentOf(a), contentOf(b), g)) return overflow();
  if (g > 1)
    return scaled(makeComposite(AtomKind::Mod, {divideExactly(a, g), divideExactly(b, g)}), g);
  return makeComposite(AtomKind::Mod, {a, b});
}

bool DimExpr::nonNegativeByConstruction() const {
  if (overflowed() || constantTerm() < 0) return false;
  for (const Term& t : terms()) {
    if (t.coefficient < 0) return false;
    for (const Factor& f : t.monomial)
      if (!f.atom.knownNonNegative() && f.power % 2 == 1) return false;
  }
  return true;
}

DimExpr DimExpr::truncatingDivision(const DimExpr& a, const DimExpr& b, bool remainder) {
  if (a.overflowed() || b.overflowed()) return overflow();
  auto ca = a.constantValue(), cb = b.constantValue();
  if (ca && cb) {
    if (*cb == 0) return remainder ? a : constant(-1);
    if (*ca == INT64_MIN && *cb == -1) return constant(remainder ? 0 : INT64_MIN);
    return constant(remainder ? *ca % *cb : *ca / *cb);
  }
  if (a.nonNegativeByConstruction() && b.nonNegativeByConstruction())
    return remainder ? mod(a, b) : floorDiv(a, b);
  DimExpr one = constant(1);
  auto sign = [&](const DimExpr& x) { return min(max(x, constant(-1)), one); };
  auto magnitude = [](const DimExpr& x) { return max(x, -x); };
  DimExpr sb = sign(b);
  DimExpr q = sign(a) * sb * floorDiv(magnitude(a), magnitude(b)) - (one - sb * sb);
  return remainder ? a - b * q : q;
}

DimExpr DimExpr::min(const DimExpr& a, const DimExpr& b) { return minOf({a, b}); }
DimExpr DimExpr::max(const DimExpr& a, const DimExpr& b) { return maxOf({a, b}); }
DimExpr DimExpr::minOf(std::vector<DimExpr> operands) {
  if (operands.empty()) return overflow();
  return extremumOf(AtomKind::Min, std::move(operands));
}
DimExpr DimExpr::maxOf(std::vector<DimExpr> operands) {
  if (operands.empty()) return overflow();
  return extremumOf(AtomKind::Max, std::move(operands));
}

bool DimExpr::overflowed() const { return node_->poison; }
bool DimExpr::isZero() const { return !node_->poison && node_->terms.empty() && node_->constant == 0; }
bool DimExpr::isConstant() const { return !node_->poison && node_->terms.empty(); }
std::optional<int64_t> DimExpr::constantValue() const {
  if (!isConstant()) return std::nullopt;
  return node_->constant;
}
std::optional<Atom> DimExpr::asAtom() const {
  const PolyNode& n = *node_;
  if (n.poison || n.constant != 0 || n.terms.size() != 1) return std::nullopt;
  const Term& t = n.terms[0];
  if (t.coefficient != 1 || t.monomial.size() != 1 || t.monomial[0].power != 1) return std::nullopt;
  return t.monomial[0].atom;
}
const std::vector<Term>& DimExpr::terms() const { return node_->terms; }
int64_t DimExpr::constantTerm() const { return node_->constant; }
size_t DimExpr::hash() const { return node_->hash; }

void DimExpr::collectAtoms(std::vector<Atom>& out) const {
  for (const Term& t : terms())
    for (const Factor& f : t.monomial) {
      if (std::find(out.begin(), out.end(), f.atom) == out.end()) out.push_back(f.atom);
      if (f.atom.kind() == AtomKind::Quotient) continue;
      for (const DimExpr& op : f.atom.operands()) op.collectAtoms(out);
    }
}

bool DimExpr::mentions(const Atom& a) const {
  for (const Term& t : terms())
    for (const Factor& f : t.monomial) {
      if (f.atom == a) return true;
      if (f.atom.kind() == AtomKind::Quotient) continue;
      for (const DimExpr& op : f.atom.operands())
        if (op.mentions(a)) return true;
    }
  return false;
}

bool operator==(const DimExpr& a, const DimExpr& b) {
  if (a.node_ == b.node_) return true;
  if (a.hash() != b.hash()) return false;
  return (a <=> b) == 0;
}

std::strong_ordering operator<=>(const DimExpr& a, const DimExpr& b) {
  if (a.node_ == b.node_) return std::strong_ordering::equal;
  if (auto c = b.overflowed() <=> a.overflowed(); c != 0) return c;  // overflow sorts first
  const auto& x = a.terms();
  const auto& y = b.terms();
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (auto c = compareMonomials(x[i].monomial, y[i].monomial); c != 0) return c;
    if (auto c = x[i].coefficient <=> y[i].coefficient; c != 0) return c;
  }
  if (auto c = x.size() <=> y.size(); c != 0) return c;
  return a.constantTerm() <=> b.constantTerm();
}

DimExpr monomialExpr(const Monomial& m) { return DimExpr::fromTerms({Term{1, m}}, 0); }

}  // namespace linnet::shape
