// Randomized property tests with fixed seeds:
//   - soundness: whenever the solver proves a relation (or simplifies an
//     expression) under random `where` facts, the relation holds (the values
//     agree) on every non-negative assignment that satisfies the facts, over
//     a full small grid plus random larger values;
//   - the printer round-trips: parsing `e.str()` with Linnet's precedence
//     gives back `e` (so minimal parenthesization never changes a value);
//   - equal canonical forms hash equally and evaluate equally.
// Assignments where an expression divides by zero are skipped: the language
// rejects those programs (E2205) and evaluate() reports them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <random>

#include "ShapeTestUtil.h"

namespace linnet::shape {
namespace {

using testing::c;
using testing::Names;

constexpr int kSymbols = 4;
const char* const kNames[kSymbols] = {"A", "B", "C", "D"};

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    for (const char* name : kNames) symbols_.push_back(names_(name));
  }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  DimExpr symbol() { return symbols_[uniform(0, kSymbols - 1)]; }
  Names& names() { return names_; }

  DimExpr expr(int depth) {
    switch (uniform(0, depth > 0 ? 12 : 2)) {
      case 0: return c(uniform(-2, 6));
      case 1:
      case 2: return symbol();
      case 3: return expr(depth - 1) + expr(depth - 1);
      case 4: return expr(depth - 1) - expr(depth - 1);
      case 5: return expr(depth - 1) * (uniform(0, 1) ? symbol() : c(uniform(-2, 3)));
      case 6: return DimExpr::floorDiv(expr(depth - 1), c(uniform(1, 4)));
      case 7: return DimExpr::floorDiv(expr(depth - 1), symbol());
      case 8: return DimExpr::mod(expr(depth - 1), c(uniform(1, 4)));
      case 9: return DimExpr::mod(expr(depth - 1), symbol());
      case 10: return DimExpr::min(expr(depth - 1), expr(depth - 1));
      case 11: return DimExpr::max(expr(depth - 1), expr(depth - 1));
      default: return expr(depth - 1) * expr(depth - 1);
    }
  }

  // An expression equal to `e` for every assignment without zero divisors,
  // written so that proving it takes some work.
  DimExpr variant(const DimExpr& e) {
    DimExpr s = symbol();
    switch (uniform(0, 4)) {
      case 0: return DimExpr::floorDiv(e, s) * s + DimExpr::mod(e, s);
      case 1: return DimExpr::min(e, s) + DimExpr::max(e, s) - s;
      case 2: return DimExpr::floorDiv(e * c(3) + c(2), c(3));
      case 3: return e + s - s * c(1);
      default: return expr(2);
    }
  }

  struct Clause {
    DimExpr lhs;
    Relation rel;
    DimExpr rhs;
  };

  Clause fact() {
    DimExpr A = symbols_[0], B = symbols_[1], C = symbols_[2], D = symbols_[3];
    switch (uniform(0, 11)) {
      case 0: return {DimExpr::mod(A, B), Relation::Equal, c(0)};
      case 1: return {B, Relation::Greater, c(0)};
      case 2: return {A, Relation::Equal, c(2) * C};
      case 3: return {A, Relation::LessEqual, B};
      case 4: return {C, Relation::GreaterEqual, c(2)};
      case 5: return {D, Relation::NotEqual, c(0)};
      case 6: return {DimExpr::mod(A, c(4)), Relation::Equal, c(0)};
      case 7: return {C, Relation::Less, D};
      case 8: return {B, Relation::Equal, C + D};
      case 9: return {DimExpr::mod(DimExpr::floorDiv(A, B), c(2)), Relation::Equal, c(0)};
      case 10: return {A * B, Relation::Equal, C};
      default: {
        static const Relation kRelations[] = {Relation::Equal, Relation::NotEqual, Relation::Less,
                                              Relation::LessEqual, Relation::Greater,
                                              Relation::GreaterEqual};
        return {expr(1), kRelations[uniform(0, 5)], expr(1)};
      }
    }
  }

  std::vector<Values> assignments(int grid, int extra, int64_t big) {
    std::vector<Values> out;
    int total = 1;
    for (int i = 0; i < kSymbols; ++i) total *= grid;
    for (int code = 0; code < total; ++code) {
      Values v;
      int rest = code;
      for (const char* name : kNames) {
        v.dims[names_.id(name)] = rest % grid;
        rest /= grid;
      }
      out.push_back(std::move(v));
    }
    for (int i = 0; i < extra; ++i) {
      Values v;
      for (const char* name : kNames) v.dims[names_.id(name)] = uniform(0, static_cast<int>(big));
      out.push_back(std::move(v));
    }
    return out;
  }

 private:
  std::mt19937_64 rng_;
  Names names_;
  std::vector<DimExpr> symbols_;
};

TEST(SoundnessTest, ProvedRelationsHoldOnEverySatisfyingAssignment) {
  Generator gen(20240611);
  std::vector<Values> points = gen.assignments(5, 150, 40);
  int proved = 0, checkedPoints = 0;
  for (int trial = 0; trial < 220; ++trial) {
    Facts facts;
    std::vector<Generator::Clause> clauses;
    int count = gen.uniform(0, 3);
    for (int i = 0; i < count; ++i) {
      clauses.push_back(gen.fact());
      facts.add(clauses.back().lhs, clauses.back().rel, clauses.back().rhs);
    }
    DimExpr a = gen.expr(3);
    DimExpr b = gen.uniform(0, 2) ? gen.variant(a) : gen.expr(3);
    DimExpr simplified = facts.simplify(a);
    struct Claim {
      DimExpr lhs;
      Relation rel;
      DimExpr rhs;
      bool proved;
    };
    std::vector<Claim> claims = {
        {a, Relation::Equal, b, facts.provablyEqual(a, b).proved},
        {a, Relation::NotEqual, b, facts.provablyNotEqual(a, b).proved},
        {a, Relation::Less, b, facts.provablyLess(a, b).proved},
        {a, Relation::LessEqual, b, facts.provablyLessEqual(a, b).proved},
        {a, Relation::Greater, c(0), facts.provablyPositive(a).proved},
        {a, Relation::GreaterEqual, c(0), facts.provablyNonNegative(a).proved},
        {a, Relation::Less, c(0), facts.provablyNegative(a).proved},
        {a, Relation::Equal, simplified, true},
    };
    for (const Claim& claim : claims) proved += claim.proved;
    for (const Values& v : points) {
      bool satisfied = true;
      for (const auto& cl : clauses) {
        Evaluation l = evaluate(cl.lhs, v), r = evaluate(cl.rhs, v);
        if (!l || !r || !holds(cl.rel, *l.value, *r.value)) satisfied = false;
      }
      if (!satisfied) continue;
      ++checkedPoints;
      for (const Claim& claim : claims) {
        if (!claim.proved) continue;
        Evaluation l = evaluate(claim.lhs, v), r = evaluate(claim.rhs, v);
        if (!l || !r) continue;
        ASSERT_TRUE(holds(claim.rel, *l.value, *r.value))
            << "trial " << trial << ": proved `" << claim.lhs.str() << " "
            << spelling(claim.rel) << " " << claim.rhs.str() << "` but it is " << *l.value
            << " vs " << *r.value << " at A=" << v.dims.at(gen.names().id("A"))
            << " B=" << v.dims.at(gen.names().id("B")) << " C=" << v.dims.at(gen.names().id("C"))
            << " D=" << v.dims.at(gen.names().id("D")) << " with " << clauses.size() << " facts";
      }
    }
  }
  // The test must exercise real proofs, not only trivial failures.
  EXPECT_GT(proved, 400);
  EXPECT_GT(checkedPoints, 10000);
}

TEST(SoundnessTest, CanonicalizationPreservesValues) {
  // Build expressions through the canonicalizing constructors and compare
  // with a direct evaluation of the same random syntax tree.
  std::mt19937_64 rng(7);
  Names names;
  DimExpr X = names("X"), Y = names("Y");
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  struct Built {
    DimExpr expr;
    std::function<std::optional<int64_t>(int64_t, int64_t)> eval;
  };
  std::function<Built(int)> build = [&](int depth) -> Built {
    int k = pick(-3, 5);
    switch (pick(0, depth > 0 ? 8 : 2)) {
      case 0: return {c(k), [k](int64_t, int64_t) { return std::optional<int64_t>(k); }};
      case 1: return {X, [](int64_t x, int64_t) { return std::optional<int64_t>(x); }};
      case 2: return {Y, [](int64_t, int64_t y) { return std::optional<int64_t>(y); }};
      default: break;
    }
    Built l = build(depth - 1), r = build(depth - 1);
    int op = pick(0, 6);
    auto combine = [l, r, op](int64_t x, int64_t y) -> std::optional<int64_t> {
      auto a = l.eval(x, y), b = r.eval(x, y);
      if (!a || !b) return std::nullopt;
      switch (op) {
        case 0: return *a + *b;
        case 1: return *a - *b;
        case 2: return *a * *b;
        case 3:
        case 4: {
          if (*b == 0) return std::nullopt;
          int64_t q = *a / *b, m = *a % *b;
          if (m != 0 && ((m < 0) != (*b < 0))) {
            --q;
            m += *b;
          }
          return op == 3 ? q : m;
        }
        case 5: return std::min(*a, *b);
        default: return std::max(*a, *b);
      }
    };
    DimExpr e;
    switch (op) {
      case 0: e = l.expr + r.expr; break;
      case 1: e = l.expr - r.expr; break;
      case 2: e = l.expr * r.expr; break;
      case 3: e = DimExpr::floorDiv(l.expr, r.expr); break;
      case 4: e = DimExpr::mod(l.expr, r.expr); break;
      case 5: e = DimExpr::min(l.expr, r.expr); break;
      default: e = DimExpr::max(l.expr, r.expr); break;
    }
    return {e, combine};
  };
  int compared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Built b = build(4);
    for (int64_t x = 0; x <= 6; ++x)
      for (int64_t y = 0; y <= 6; ++y) {
        auto expected = b.eval(x, y);
        Values v;
        v.dims[names.id("X")] = x;
        v.dims[names.id("Y")] = y;
        Evaluation got = evaluate(b.expr, v);
        // Canonicalization may remove a division by zero (0 * (x / 0)),
        // never introduce one or change a defined value.
        if (!expected) continue;
        ASSERT_TRUE(got) << b.expr.str() << ": " << got.error;
        ASSERT_EQ(*got.value, *expected) << b.expr.str() << " at X=" << x << " Y=" << y;
        ++compared;
      }
  }
  EXPECT_GT(compared, 5000);
}

// A small parser for printed dimension expressions, with Linnet's precedence
// (`+ -` < `* / %` < unary `-`), left-associative binary operators.
class Parser {
 public:
  Parser(std::string text, Names& names) : text_(std::move(text)), names_(names) {}
  std::optional<DimExpr> parse() {
    auto e = sum();
    skip();
    if (!e || pos_ != text_.size()) return std::nullopt;
    return e;
  }

 private:
  void skip() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  bool eat(char ch) {
    skip();
    if (pos_ < text_.size() && text_[pos_] == ch) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<DimExpr> sum() {
    auto e = product();
    while (e) {
      if (eat('+')) {
        auto r = product();
        if (!r) return std::nullopt;
        e = *e + *r;
      } else if (eat('-')) {
        auto r = product();
        if (!r) return std::nullopt;
        e = *e - *r;
      } else {
        break;
      }
    }
    return e;
  }
  std::optional<DimExpr> product() {
    auto e = unary();
    while (e) {
      char op = 0;
      for (char candidate : {'*', '/', '%'})
        if (!op && eat(candidate)) op = candidate;
      if (!op) break;
      auto r = unary();
      if (!r) return std::nullopt;
      e = op == '*' ? *e * *r : op == '/' ? DimExpr::floorDiv(*e, *r) : DimExpr::mod(*e, *r);
    }
    return e;
  }
  std::optional<DimExpr> unary() {
    if (eat('-')) {
      auto e = unary();
      return e ? std::optional<DimExpr>(-*e) : std::nullopt;
    }
    return primary();
  }
  std::optional<DimExpr> primary() {
    skip();
    if (eat('(')) {
      auto e = sum();
      if (!e || !eat(')')) return std::nullopt;
      return e;
    }
    size_t start = pos_;
    while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    std::string word = text_.substr(start, pos_ - start);
    if (word.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(word[0]))) return c(std::stoll(word));
    if (word == "min" || word == "max") {
      if (!eat('(')) return std::nullopt;
      auto a = sum();
      if (!a || !eat(',')) return std::nullopt;
      auto b = sum();
      if (!b || !eat(')')) return std::nullopt;
      return word == "min" ? DimExpr::min(*a, *b) : DimExpr::max(*a, *b);
    }
    return names_(word);
  }

  std::string text_;
  size_t pos_ = 0;
  Names& names_;
};

TEST(SoundnessTest, PrinterRoundTrips) {
  Generator gen(99);
  int checked = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    DimExpr e = gen.expr(4);
    if (e.overflowed()) continue;
    Parser parser(e.str(), gen.names());
    auto parsed = parser.parse();
    ASSERT_TRUE(parsed.has_value()) << e.str();
    ASSERT_EQ(*parsed, e) << e.str() << " reparsed as " << parsed->str();
    ASSERT_EQ(parsed->hash(), e.hash());
    ++checked;
  }
  EXPECT_GT(checked, 1000);
}

}  // namespace
}  // namespace linnet::shape
