// CheckerImpl: the checker's internal state, shared by the Check*.cpp files.
// One Checker walks every module of a resolved Program. Signatures and block
// member types are computed on first use and memoized in the CheckedProgram
// (so a call may precede its callee in the source). A FunctionScope holds
// what the body being checked needs: its facts, its locals (keyed by the span
// of the declaring identifier, which is what Module::symbolOf reports) and
// the loop depth. Every expression's type is recorded in the function's
// CheckedFunction as it is inferred.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "compiler/check/Checker.h"

namespace linnet::check {

struct LocalInfo {
  Type type;
  bool isVar = false;
  Span declSpan;
};

// The most parts (tensors, scalars, blocks, tuples, optionals, ...) one type
// may have (E2190 past it). An alias used inside another is copied in place,
// and so is a tuple put inside a tuple, so a few lines can spell a type of
// millions of parts: building, comparing or printing it would never end.
inline constexpr size_t kMaxTypeParts = 1024;

// How many consts deep a dimension may reach through consts (`const B = A +
// 1`, `const C = B * 2`, ...) before it is not a compile-time integer; only
// bounds the recursion.
inline constexpr int kMaxConstDepth = 256;

using SpanKey = std::pair<FileId, uint32_t>;
inline SpanKey keyOf(Span s) { return {s.file, s.begin}; }

// A `where` clause that a call or a sub-block's arguments do not prove
// (E2206), as its diagnostic names it: instantiated (`H % 4 == 0`), or, where
// that leaves only numbers (a clause false for the values given), as written
// (`N % 2 == 0`), with `values` saying what its generics are (`N = 3`) and
// `folded` what it then is (`1 == 0`).
struct UnprovenClause {
  std::string clause, values, folded;
};
// A dimension written as a generic argument that is a negative number: where
// it is written, as written, and its value.
struct NegativeDim {
  Span span;
  std::string written;
  int64_t value;
};
// Whether `d` is a number below zero: no dimension (E2208).
inline bool negativeConstant(const shape::DimExpr& d) {
  std::optional<int64_t> v = d.constantValue();
  return v && *v < 0;
}

UnprovenClause spellUnproven(const WhereClause& w, const shape::DimExpr& lhs, const shape::DimExpr& rhs,
                             const shape::Bindings& values);

struct FunctionScope {
  const Module* module = nullptr;
  const Signature* signature = nullptr;
  CheckedFunction* out = nullptr;
  std::map<SpanKey, LocalInfo> locals;
  int loopDepth = 0;  // runtime loops (`while`, `for`): `return` is not allowed there
  // Inside an op's `grad` clause `return` gives the parameters' gradients,
  // not the op's result: the type it must have, and what to point at.
  const Type* gradResult = nullptr;
  Span gradResultDecl;
  std::string gradResultLabel;
};

// What index notation knows of one index variable: its extent (plain) or
// shape (pack), and where that was learnt.
struct IndexDomain {
  bool isPack = false;
  std::optional<shape::DimExpr> extent;
  std::optional<shape::Shape> shape;
  Span firstUse;
};

// The index variables of the comprehension or reduction being checked,
// keyed by their declaring identifier.
struct NotationScope {
  std::map<SpanKey, IndexDomain> domains;
  // Every reduction index of the body, for saying why an output index of
  // the same name, which they hide, has no domain.
  std::vector<const ast::Ident*> reductionIndices;
};

// A generic argument after conversion: a dimension, a shape (for a pack) or
// a dtype; monostate when it could not be converted (already reported or
// unsupported).
using GenericValue = std::variant<std::monostate, shape::DimExpr, shape::Shape, DType>;

// The generics a call may still bind, and what they are bound to so far.
struct Inference {
  Substitution subst;
  std::unordered_map<shape::SymbolId, const ast::GenericParam*> openShapes;
  std::set<const ast::GenericParam*> openDTypes;
  std::map<const ast::GenericParam*, Span> boundAt;  // where each binding came from

  bool isOpenUnbound(const ast::GenericParam* g) const;
};

class Checker {
 public:
  Checker(const Program& program, DiagnosticEmitter& diagnostics, CheckedProgram& out)
      : program_(program), diagnostics_(diagnostics), out_(out) {}

  void run();

  // ---- declarations (CheckDecl.cpp) ----
  const Signature* signature(const ast::FunctionItem& f);
  const CheckedBlock* block(const ast::BlockItem& b);
  const Module* moduleOf(const ast::Item& item) const;
  const ast::BlockItem* ownerOf(const ast::Item& item) const;
  Type resolveType(const Module& m, const ast::TypeNode* t, const shape::Facts* facts);
  std::optional<shape::DimExpr> dimOf(const Module& m, const ast::Expr* e, int depth = 0);
  // The dimension a generic argument written as a bare name stands for (the
  // parser reads `zeros<M>()`'s `M` as a type): a dim generic or an untyped
  // const, whatever its value.
  std::optional<shape::DimExpr> compileTimeLocal(const Module& m, const Symbol& s);
  std::optional<shape::DimExpr> namedDim(const Module& m, const ast::TypeNode* t);
  // The first dimension of generic argument (or default) `arg` of `g` that
  // is a negative number (`-1`, an axis of `[2, 0 - 1]`, a const `M = 0 - 2`).
  std::optional<NegativeDim> negativeDimIn(const Module& m, const ast::GenericArg& arg, const ast::GenericParam& g);
  void checkDimDefaults(const Module& m, const std::vector<ast::GenericParam>& generics, std::string_view item);
  // Spec §7.7: a generic's default satisfies its declared constraint, kind
  // included (E2112; E2123/E2111 for a default `genericValue` cannot read).
  // Checked once per generic, at the declaration or at the first use that
  // takes the default; true when the default was reported (a use then
  // reports nothing more).
  bool checkGenericDefault(const Module& m, const ast::GenericParam& g, std::string_view item);
  void checkGenericDefaults(const Module& m, const std::vector<ast::GenericParam>& generics,
                            std::string_view item);
  bool defaultReported(const ast::GenericParam& g) const {
    auto it = badDefaults_.find(&g);
    return it != badDefaults_.end() && it->second;
  }
  GenericValue genericValue(const Module& m, const ast::GenericArg& arg,
                            const ast::GenericParam& target);
  // Binds a block's generics from written arguments and defaults.
  std::shared_ptr<const BlockInstance> instantiateBlock(const Module& from,
                                                       const ast::NamedTypeNode& named,
                                                       const ast::BlockItem& b,
                                                       const Module& blockModule);
  // A generic argument (written, or a default) `genericValue` could not
  // convert for `g` of `item`: E2123 for a dimension that is not
  // compile-time, E2111 for anything else; once per argument.
  void reportGenericArgument(const Module& m, const ast::GenericArg& arg,
                             const ast::GenericParam& g, std::string_view item);
  // Binds `generics` (of the item `name`) from written arguments and
  // defaults (E2111, E2112); false when reported.
  bool bindGenerics(const Module& from, const ast::NamedTypeNode& named,
                    const std::vector<ast::GenericParam>& generics, const ast::Ident& name,
                    const Module& declModule, Substitution& out);
  void addWhere(const Module& m, const std::vector<ast::Constraint>& where, shape::Facts& facts);
  void checkDivisors(const Module& m, const ast::Expr* e, const shape::Facts& facts);
  // E2123 for a written dimension that is not a compile-time integer; the
  // second walks an alias body or a struct field type, once per declaration.
  void reportNonDimension(const Module& m, const ast::Expr* e);
  void reportNonDimensions(const Module& m, const ast::TypeNode* t);
  // E1208 for `*S` where `S` is no shape pack.
  void reportNotPack(const Module& m, const ast::Ident& name);
  // E1201 for a dotted type name the resolver leaves unresolved (`f32.x`).
  void reportUnresolvedType(const Module& m, const ast::NamedTypeNode& named);
  // E2205/E2208 for the dimensions of an alias body or a struct field type
  // (`t`, written in `declModule`), instantiated with `args`, at the use
  // `use` under `facts`. False when reported.
  bool checkDefinitionDims(const Module& declModule, const ast::TypeNode* t,
                           const Substitution& args, const shape::Facts& facts, Span use,
                           std::string_view item);
  void checkMemberRules(const ast::MemberItem& member, const Type& t);
  // Parts of the written type `t` with its aliases expanded, at most
  // kMaxTypeParts + 1; an alias that is Error (cyclic, too large) is one.
  size_t writtenParts(const Module& m, const ast::TypeNode* t);
  // Parts of the type `alias` stands for; nullopt (and E2190, once) when
  // there are more than kMaxTypeParts.
  std::optional<size_t> aliasParts(const Module& m, const ast::TypeAliasItem& alias);
  // E2190 at the outermost tuple of `t` with more than kMaxTypeParts parts
  // (resolveType makes such a type Error); false when reported.
  bool checkTypeSize(const Module& m, const ast::TypeNode* t);

  // ---- bodies (CheckStmt.cpp) ----
  void checkFunction(const ast::FunctionItem& f);
  // An op's `grad(y, dy) { ... }` (E2125; its `return` gives one gradient
  // per floating tensor parameter, a tuple when there are several).
  void checkGrad(const ast::FunctionItem& f, const Signature& sig);
  void checkStmts(const std::vector<ast::Stmt*>& stmts);
  void checkStmt(const ast::Stmt* s);
  void bindPattern(const ast::Pattern* p, const Type& t, bool isVar);
  // The value of `let`/`var`/assignment/`return`: a scan when it is one
  // (written directly, not parenthesized), any other expression otherwise.
  Type checkValue(const ast::Expr* e, const Type* expected);
  // `for i in A..B { ...; yield e }`: `e` stacked along a new leading axis
  // of length `B - A` (E2123 bounds, E2206 reversed range, E2124 no yield).
  Type checkScan(const ast::ForScanExpr* scan, const Type* expected);
  // One yielded value stacked `length` times (tuples element-wise);
  // untyped numbers adopt the expected element dtype if any.
  Type stackYield(const Type& element, const Type* expected, const shape::DimExpr& length,
                  const ast::Expr* value);

  // ---- expressions (CheckExpr.cpp) ----
  Type checkExpr(const ast::Expr* e, const Type* expected = nullptr);
  Type checkName(const ast::NameExpr* e);
  Type checkUnary(const ast::UnaryExpr* e);
  Type checkBinary(const ast::BinaryExpr* e);
  Type checkIf(const ast::IfExpr* e, const Type* expected);
  Type checkMatch(const ast::MatchExpr* e, const Type* expected);
  // The type of a value that is either `a` or `b` (if/match branches);
  // nullopt when they differ (E2115), Error when a literal did not fit
  // (reported).
  std::optional<Type> joinBranches(const Type& a, const Type& b, Span bSpan);
  Type checkMember(const ast::MemberExpr* e);
  Type memberOfBlock(const BlockInstance& instance, const ast::Ident& member, Span span,
                     bool callee);
  // An operand pair of an elementwise operation: dtypes equal (literals and
  // compile-time integers adopt the other side's) and shapes broadcast.
  // `what` names the operation for messages, `lName` and `rName` the two
  // operands in its notes. Error when reported.
  Type elementwise(const Type& l, const Type& r, Span span, Span lSpan, Span rSpan,
                   std::string_view what, std::string_view lName = "left operand",
                   std::string_view rName = "right operand");
  // The shapes of `l` and `r` broadcast (E2207, its notes naming them
  // `lName` and `rName`, with `is`/`are` as `rPlural` says): `l` with the
  // broadcast shape, or Error when reported.
  Type broadcastOperands(const Type& l, const Type& r, Span span, std::string_view lName,
                         std::string_view rName, bool rPlural = false);
  // Gives an untyped number the dtype `d` (E2105/E2101 if it cannot be).
  bool literalFits(const Type& literal, const DType& d, const ast::Expr* e, Span span);
  // The type a `let` binding gets: untyped literals default to i64/f64.
  Type concretize(const Type& t);
  // `t`, the type of `e`, where the context expects `expected` (an element
  // of an annotated tuple, the value of `some`): an untyped number takes an
  // expected scalar's dtype (Error when it cannot, reported), so literals
  // are typed at any depth of a tuple or optional (spec §1.7).
  Type adoptExpected(const Type& t, const Type* expected, const ast::Expr* e);

  // ---- compatibility ----
  bool sameShape(const shape::Shape& a, const shape::Shape& b) const;
  // Whether a value of `actual` may stand where `expected` is required;
  // reports the mismatch at `span` (with a note at `declSpan`) if not.
  // A shape-only difference is `shapeKind` (E2202; a struct field's is
  // E2101, as the spec's conformance tests expect).
  bool requireType(const Type& actual, const Type& expected, Span span, Span declSpan,
                   std::string_view declLabel, const ast::Expr* valueExpr,
                   DiagnosticKind shapeKind = DiagnosticKind::ShapeMismatch);
  bool sameType(const Type& a, const Type& b) const;
  // Whether `actual` differs from `expected` at most by untyped numbers
  // where it expects scalars (at any depth of tuples and optionals) and
  // `none` where it expects an optional: what requireType then types.
  bool literalsCanTake(const Type& actual, const Type& expected) const;

  // ---- calls (CheckCall.cpp, CheckPrelude.cpp) ----
  // `expected`: the type the context requires, if any (a struct
  // construction takes its generics and field contexts from it).
  Type checkCall(const ast::CallExpr* call, const Type* expected = nullptr);
  // `S(field = value, ...)` (E2101 E2102 E2111 E2112); `expected` the struct
  // type the context requires, if any.
  Type checkStructConstruction(const ast::CallExpr* call, const ast::StructItem& st,
                               const Module& sm, const Type* expected);
  Type resolveCallee(const ast::Expr* callee);
  Type checkFunctionCall(const ast::CallExpr* call, const Type& callee);
  void unify(const Type& pattern, const Type& actual, Inference& inf, Span span);
  // E2112 for the first dtype generic of `generics` bound (inferred or
  // written) to a dtype outside its bound, at where it was bound.
  bool inferredDTypesSatisfyBounds(const std::vector<ast::GenericParam>& generics, Inference& inf,
                                   Span fallback);
  // A generic still open after the written and inferred ones takes its
  // default (spec §7.7), instantiated with what is bound so far; callers go
  // in declaration order, so a default may use earlier generics. False (the
  // generic stays open: E2110 at the caller) without a default, or when it
  // names a generic still unknown.
  bool bindGenericDefault(const Module& declModule, const ast::GenericParam& g, Inference& inf,
                          Span at);
  // `expected` gives two untyped choices of `select` their dtype.
  Type checkPreludeCall(const ast::CallExpr* call, const std::string& name,
                        const Type* expected = nullptr);
  // `min max shl shr` of two untyped numbers: untyped too, a dimension for
  // `min`/`max` of compile-time integers (E2104 for a shifted float).
  Type untypedPrelude(const std::string& name, const Type& a, const Type& b,
                      const ast::CallExpr* call, const ast::Expr* aExpr, const ast::Expr* bExpr);
  // A shape literal argument of `callee` (E2101 for anything else, E2123
  // and E2208 for its dimensions).
  std::optional<shape::Shape> shapeArg(const ast::Expr* e, std::string_view callee);
  std::optional<int64_t> constantArg(const ast::Expr* e);

  // ---- indexing (CheckIndex.cpp) ----
  Type checkIndex(const ast::IndexExpr* e);

  // ---- index notation (CheckNotation.cpp) ----
  void checkComprehension(const ast::LetComprehensionStmt* let);
  bool duplicateIndex(const std::vector<const ast::Ident*>& indices);
  Type checkReduction(const ast::ReductionExpr* e, const Type* expected = nullptr);
  Type checkAccess(const ast::IndexExpr* e);
  const Symbol* indexVariable(const ast::Expr* e) const;
  // The first index variable an expression computes with (not counting the
  // subscripts of nested accesses).
  const Symbol* indexVariableIn(const ast::Expr* e) const;
  // E3104 at the first operand of `body` that is a tensor with axes.
  void reportUnindexed(const ast::Expr* body, const Type& type);
  // Records or checks the domain of `index` (E2201, E3106); false if not.
  bool bindDomain(const Symbol& index, Span use, const shape::ShapeDim* dim,
                  const shape::Shape* pack);
  static std::string shapeString(const shape::Shape& s);

  // ---- items (Checker.cpp) ----
  // E2122: consts, aliases and structs defined in terms of themselves.
  void reportCyclicDefinitions(const std::vector<const Module*>& modules);
  size_t expandedLeaves(const Module& m, const ast::TypeNode* t, bool& tooLarge);
  size_t countLeaves(const Module& m, const ast::TypeNode* t, bool& tooLarge);  // expandedLeaves, uncached
  size_t structLeaves(const Module& m, const ast::StructItem& st);
  // A `const`: its value against its annotation, or its untyped value's
  // type (E2190 for types a const cannot have); once, reported there.
  void checkConst(const ast::ConstItem& c);
  // The type a use of the const `c` (declared in `m`) has: its annotation, a
  // compile-time integer, or its untyped value's type; Error when reported.
  Type constType(const ast::ConstItem& c, const Module& m);
  // W1002: locals never read (`_`-prefixed names exempt).
  void reportUnusedLocals(const ast::FunctionItem& f, const Module& m);
  void reportShadowedIndices(const ast::FunctionItem& f);
  // W1003: `param`/`buffer`/`state`/`sub` members no method of the block
  // reads (or, for `state`, assigns); `_`-prefixed names exempt.
  void reportUnusedMembers(const ast::BlockItem& b, const Module& m);
  // Members read through a path from outside their block (`bias.b`).
  std::set<const ast::MemberItem*> readThroughPath_;

  // ---- kernels (CheckKernel.cpp) ----
  // A `kernel` item: where it is declared, its generics (no packs), parameters
  // (tensors or scalars), results (tensors), launch settings (E2123 for a
  // grid that is not compile-time) and its body on tiles (E2127).
  void checkKernel(const ast::FunctionItem& f);
  // A kernel's named results as one type: the tensor, or a tuple of several;
  // Unit when there are none. Resolved once, by signature().
  Type kernelResultType(const ast::FunctionItem& f, const Module& m, const shape::Facts& facts);
  // `op f(...) -> T kernel k<args>`: the kernel, its generics bound, takes
  // the op's parameters and writes what the op returns (E2126).
  void checkKernelBinding(const ast::FunctionItem& op, const Signature& sig);
  // A kernel named as a value or called (E2126); returns Error.
  Type kernelUsedAsValue(const ast::FunctionItem& kernel, Span use);
  // Inside a kernel: a tensor parameter or a result named outside `load`,
  // `store` and the atomics (E2127, Error); nullopt for anything else.
  std::optional<Type> kernelMemoryName(const ast::NameExpr* e, const Symbol& s);
  // Inside a kernel: `program_id(axis)`, `load(x[...], mask, other)`, and
  // `store`/atomics misused as values; nullopt when `call` is none of them.
  std::optional<Type> checkKernelBuiltin(const ast::CallExpr* call);
  // `store(...)`, `atomic_add|max|min(...)` statements.
  void checkKernelWrite(const ast::KernelCallStmt* s);
  // `return` inside a kernel (E2127).
  void reportKernelReturn(const ast::Stmt* s);
  // The tile `x[i, ...]` (a bare `x`: no index) of a tensor parameter read by
  // `load`, or of a result written by `store`/an atomic (`result` gets its
  // position): integer and integer-tile indices, whose axes make the tile's
  // shape in order, and the tensor's dtype. Error when unknown or reported.
  Type kernelTile(const ast::Expr* target, const std::string& builtin, bool write, size_t* result);
  // A mask (`bool`, scalar or of the tile's shape: E2114, E2202) and a value
  // (`other` of `load`, the value written: a scalar or the tile, E2101/E2202).
  void kernelMask(const ast::Expr* mask, const Type& tile, const ast::Expr* target);
  void kernelValue(const ast::Expr* value, const Type& tile, const ast::Expr* target);
  struct KernelState;
  KernelState* kernel_ = nullptr;  // set while a kernel's body is checked

  // ---- helpers ----
  const shape::Facts& facts() const;
  // A compile-time position `value` into an axis of extent `extent` (an
  // index outside notation, or inside it): proved in range, or neither
  // proved nor refuted and recorded as a requirement of the function
  // (CheckedFunction::requirements, checked where the generics are bound),
  // or refuted: E2209 at `span`, false. docs/checker.md, "Constant indices".
  void requireNonNegative(const shape::DimExpr& d, Span span);
  bool constantIndexInRange(const shape::DimExpr& value, const shape::DimExpr& extent, Span span);
  Type record(const ast::Expr* e, Type t);
  const Module& module() const { return *scope_->module; }
  // Records Error for an expression that is no value (a shape literal, the
  // enum in `E.A`, a struct's or a builtin's name, an index variable).
  void recordNonValue(const ast::Expr* e);
  void reportRecursion();

  CheckOptions options_;
  const Program& program_;
  DiagnosticEmitter& diagnostics_;
  CheckedProgram& out_;
  FunctionScope* scope_ = nullptr;
  NotationScope* notation_ = nullptr;  // set inside index notation
  shape::Facts emptyFacts_;
  std::unordered_map<const ast::Item*, const Module*> itemModule_;
  std::unordered_map<const ast::Item*, const ast::BlockItem*> itemOwner_;
  std::set<const ast::FunctionItem*> signaturesInProgress_;
  std::set<const ast::BlockItem*> blocksInProgress_;
  // The block instances a block's tree holds (itself, and each `sub`'s, an
  // array's element once: its elements share one body), at most
  // kMaxBlockInstances + 1: every walk over a model's parameters visits each,
  // and two subs of the block below at every level double them.
  static constexpr uint64_t kMaxBlockInstances = uint64_t{1} << 16;
  // How many definitions (consts, type aliases, structs) deep one may be
  // defined through others: checking one checks those first, recursively.
  static constexpr size_t kMaxDefinitionDepth = 256;
  // How many blocks deep a chain of `sub`s may reach.
  static constexpr size_t kMaxBlockDepth = 256;
  std::unordered_map<const ast::BlockItem*, uint64_t> blockInstances_;
  // E2101 for a block where a value is needed (a `let`, a parameter, ...).
  void reportBlockValue(Span at, const Type& t);
  std::set<const ast::Item*> cyclic_;          // reported by E2122: not typed further
  std::set<const ast::TypeAliasItem*> aliasesInProgress_;
  std::unordered_map<const ast::TypeNode*, size_t> writtenParts_;
  std::unordered_map<const ast::TypeAliasItem*, std::optional<size_t>> aliasParts_;
  std::unordered_map<const ast::ConstItem*, std::optional<shape::DimExpr>> constDims_;  // dimOf
  std::unordered_map<const ast::StructItem*, size_t> structLeaves_;                      // structLeaves
  std::unordered_map<const ast::TypeNode*, std::pair<size_t, bool>> expandedLeaves_;     // expandedLeaves
  std::unordered_map<const ast::ConstItem*, Type> constTypes_;                          // constType
  std::set<const ast::GenericArg*> reportedGenericArgs_;  // reportGenericArgument
  std::unordered_map<const ast::GenericParam*, bool> badDefaults_;  // checkGenericDefault
  // Match arms no value reaches (W1004), found while checking and reported
  // with the lints, when the program has no error (spec §12.3).
  struct UnreachableArm {
    Span at;
    std::string label;
    std::optional<std::pair<Span, std::string>> earlier;
    std::string note;
  };
  std::vector<UnreachableArm> unreachableArms_;
  // The first statement after a `return` in the same body, and the return
  // (W1005), reported with the lints.
  std::vector<std::pair<Span, Span>> unreachableStmts_;
  // The first value typed Error while no error had been reported: a type
  // nothing explains. Reported (E2190) if the program has no error at the
  // end, so that no unknown type passes silently.
  const ast::Expr* unexplainedError_ = nullptr;
  // Call edges for E2119, in the order calls were checked.
  struct CallEdge {
    const ast::FunctionItem* caller;
    const ast::FunctionItem* callee;
    Span span;
  };
  std::vector<CallEdge> calls_;
};

}  // namespace linnet::check
