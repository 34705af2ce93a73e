// The lowering's internals: the values a Linnet expression lowers to, the
// frame of one instantiated function, and the Lowerer that walks the typed
// IR. Shared by the Lower*.cpp files only.
//
// A function body is lowered once per instantiation, in place, into the
// entry being built: its generics are substituted down to the entry's own
// (root generics are integers by then, entry generics stay symbols), so every
// type met while lowering is the checker's type instantiated with the frame's
// substitution. Values that are structure rather than data (tuples,
// optionals, blocks, compile-time integers, literals) stay structure: only
// tensors become SSA values (an optional's presence too, when only the run
// time knows it: Val::Kind::Maybe).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/IR/Builders.h>
#include <mlir/IR/BuiltinTypes.h>
#include <mlir/IR/Value.h>

#include "compiler/check/CheckerImpl.h"
#include "compiler/lower/Emit.h"
#include "compiler/lower/Lowering.h"

namespace linnet::lower {

using check::SpanKey;
using check::keyOf;

// What a Linnet expression lowers to.
struct Val {
  enum class Kind {
    Tensor,    // `value`: a ranked tensor (rank 0 for a scalar); `type` its Linnet type
    Element,   // `value`: a scalar element inside a notation body; `type` rank 0
    Int,       // an untyped integer (literal or compile-time): `dim`
    Float,     // an untyped float literal: `number`
    Bool,      // a literal `true`/`false`: `flag`
    Unit,
    None,
    Some,      // elements[0]
    // An optional whose presence is known only at run time (an `if` on data
    // yielding `some` in one branch and `none` in the other): elements[0] is
    // the presence, a Tensor of Linnet type `bool` (rank 0, i1), elements[1]
    // the payload, whose tensors are zeros when absent. Flattened like a
    // tuple (presence first); consumers choose on the presence at run time.
    Maybe,
    Tuple,     // elements
    Struct,    // elements, in field order; `structItem`
    Enum,      // `variant` of `enumItem`
    Block,     // a block instance at `path` (`layers.3.attention`, "" for the root)
    BlockArray,  // `path` (`layers`), `count` elements
  };
  Kind kind = Kind::Unit;
  mlir::Value value;
  check::Type type;
  shape::DimExpr dim;
  double number = 0;
  bool flag = false;
  std::vector<Val> elements;
  std::string path;
  const ast::BlockItem* block = nullptr;
  const Module* blockModule = nullptr;
  // Block, BlockArray: what the block's generics stand for (in the entry's terms).
  std::shared_ptr<const check::Substitution> blockSubst;
  int64_t count = 0;
  const ast::StructItem* structItem = nullptr;
  const ast::EnumItem* enumItem = nullptr;
  uint32_t variant = 0;

  static Val tensor(mlir::Value v, check::Type t) {
    Val r;
    r.kind = Kind::Tensor;
    r.value = v;
    r.type = std::move(t);
    return r;
  }
  static Val element(mlir::Value v, check::Type t) {
    Val r = tensor(v, std::move(t));
    r.kind = Kind::Element;
    return r;
  }
  static Val integer(shape::DimExpr d) {
    Val r;
    r.kind = Kind::Int;
    r.dim = std::move(d);
    return r;
  }
  static Val floating(double x) {
    Val r;
    r.kind = Kind::Float;
    r.number = x;
    return r;
  }
  static Val boolean(bool b) {
    Val r;
    r.kind = Kind::Bool;
    r.flag = b;
    return r;
  }
  static Val of(Kind k) {
    Val r;
    r.kind = k;
    return r;
  }
  static Val maybe(Val present, Val payload) {
    Val r;
    r.kind = Kind::Maybe;
    r.elements.push_back(std::move(present));
    r.elements.push_back(std::move(payload));
    return r;
  }
  // An enum value known only at run time (an `if` on data yielding different
  // variants, an enum carried by a loop, an entry parameter): Kind::Enum
  // with `variant` kRuntimeVariant and elements[0] the variant's index, a
  // Tensor of Linnet type `i32` (rank 0). Flattened as that tensor.
  static constexpr uint32_t kRuntimeVariant = UINT32_MAX;
  static Val runtimeEnum(const ast::EnumItem* item, Val index) {
    Val r;
    r.kind = Kind::Enum;
    r.enumItem = item;
    r.variant = kRuntimeVariant;
    r.elements.push_back(std::move(index));
    return r;
  }
  bool isRuntimeEnum() const { return kind == Kind::Enum && variant == kRuntimeVariant; }
  bool isData() const { return kind == Kind::Tensor || kind == Kind::Element; }
};

// The structure of a value, tensors by their type, appended to `out`: equal
// keys mean equal compile-time parts and tensor types. False for values that
// cannot be flattened (blocks, notation elements).
bool structureKey(const Val& v, std::string& out);
// The tensors of `v`, in order (depth first).
void collectTensors(const Val& v, std::vector<mlir::Value>& out);
// Calls `leaf` on each tensor leaf of `v`, in the same order; stops at, and
// returns false for, the first call that returns false.
bool forEachTensorLeaf(const Val& v, const std::function<bool(const Val&)>& leaf);
// `v` with its tensors replaced, in order, by `values` from `next` on.
Val refill(const Val& v, llvm::ArrayRef<mlir::Value> values, size_t& next);

// The Linnet type of a scalar of `t` (`bool`, `i32`: flags, enum indices).
inline check::Type scalarTypeOf(ast::ScalarType t) { return check::Type::scalar(check::DType::of(t)); }
// The type an untyped value computed at run time (an `if` on data between
// literals) has: the widest of its kind, `i64` or `f64`; any other type as is.
// Its users cast it to the type their context gives it.
inline check::Type computedLiteralType(const check::Type& t) {
  if (t.kind() == check::TypeKind::IntLiteral || t.kind() == check::TypeKind::CompileInt)
    return scalarTypeOf(ast::ScalarType::I64);
  if (t.kind() == check::TypeKind::FloatLiteral) return scalarTypeOf(ast::ScalarType::F64);
  return t;
}

// The structure two branches' values share (LowerControl.cpp), tensors as
// leaves with their result type; nullopt with `why` when they cannot merge.
std::optional<Val> planMerge(const Val& a, const Val& b, std::optional<check::Type> t, std::string& why);
// An optional of type `t` as a Maybe template whose presence and payload are
// data (Tensor leaves, value unset; an enum as its index); nullopt where the
// payload holds anything else (a block).
std::optional<Val> presenceAtRunTime(const check::Type& t, const check::CheckedProgram& checked);

// One instantiated function (or the entry itself) being lowered.
struct AttentionSignature;

struct Frame {
  const Module* module = nullptr;
  const check::CheckedFunction* fn = nullptr;
  const ast::FunctionItem* item = nullptr;
  check::Substitution subst;  // its generics -> the entry's (dims) and concrete dtypes
  std::string blockPath;      // the owner block instance ("" for the root block)
  const ast::BlockItem* block = nullptr;
  std::map<SpanKey, Val> locals;
  std::vector<Val> params;    // parallel to item->params
  std::optional<Val> returned;
};

// Index notation being lowered: the loop dims of one `linnet.notation`.
struct NotationState {
  // Each index variable (by its declaring identifier) -> its loop dims (a
  // pack index has several).
  std::map<SpanKey, std::vector<unsigned>> dims;
  // The indices of a reduction reduced inside the body one element at a
  // time (lowerReductionPerElement): its loops' induction variables.
  std::map<SpanKey, std::vector<mlir::Value>> scalarIndices;
  std::vector<std::optional<shape::DimExpr>> extents;  // per loop dim, once known
  mlir::Block* body = nullptr;
  unsigned loopCount = 0;
  // Inputs read at an affine map of the loop dims.
  std::vector<mlir::Value> inputs;
  std::vector<mlir::AffineMap> maps;
  // Where values the body reads from outside are created: before the op.
  mlir::OpBuilder::InsertPoint outer;
};

// A state tensor an entry changed: the runtime's buffer, the `to_tensor` the
// entry read it as, and its value at the end.
struct StateWrite {
  mlir::Value buffer;
  mlir::Value initial;
  mlir::Value now;
};
// Writes each one back into its buffer at the builder's insertion point,
// through One-Shot Bufferize's tensor analysis (LowerStateWrites.cpp); each
// of `results` (the entry's, read after the writes) that may share a written
// buffer's old contents becomes a copy taken where it is defined.
void writeBackState(mlir::OpBuilder& b, mlir::Location at, mlir::func::FuncOp fn, llvm::ArrayRef<StateWrite> writes,
                    llvm::MutableArrayRef<mlir::Value> results);

// Thrown nowhere: a failed lowering reports and returns std::nullopt up the
// call chain (`Result`).
using Result = std::optional<Val>;

bool isUnsignedScalar(ast::ScalarType s);

class Lowerer {
 public:
  Lowerer(mlir::MLIRContext& context, const LowerInputs& inputs, DiagnosticEmitter& diagnostics)
      : context_(context), inputs_(inputs), diagnostics_(diagnostics), builder_(&context) {}

  std::optional<LoweredProgram> run();

  // ---- types and dims (LowerTypes.cpp) ----
  mlir::Type elementType(ast::ScalarType s);
  std::optional<ast::ScalarType> concreteDType(const check::DType& d, Span at);
  check::Type instantiate(const check::Type& t) const;
  // The dtype of field `field` of `structType` when it is declared a scalar
  // (`n: i32`, or `n: T` with the struct's `T` bound); nullopt otherwise.
  std::optional<check::DType> scalarFieldDType(const check::Type& structType, size_t field) const;
  // The checker's type of `e` in the current frame, instantiated.
  check::Type typeOf(const ast::Expr* e) const;
  std::optional<mlir::RankedTensorType> tensorType(const check::Type& t, Span at);
  // Index values of the dynamic dims of `t`, in order.
  std::optional<std::vector<mlir::Value>> dynamicDims(const check::Type& t, Span at);
  std::optional<mlir::Value> floorDivLargeOffset(const shape::Atom& a, Span at);
  std::optional<mlir::Value> dimValue(const shape::DimExpr& d, Span at);
  std::string dimSpelling(const shape::DimExpr& d) const;
  std::optional<shape::DimExpr> dimOfShape(const shape::ShapeDim& d, Span at);

  // ---- expressions (LowerExpr.cpp) ----
  Result lowerExpr(const ast::Expr* e);  // as lowerExprAsIs, in the checked dtype
  Result lowerExprAsIs(const ast::Expr* e);
  // `v` (a tensor or element) cast to dtype `to`; anything else as it is.
  Result inDType(const Val& v, const check::DType& to, Span at);
  // A value as a tensor of `type` (literals and compile-time ints take it).
  std::optional<mlir::Value> asTensor(const Val& v, const check::Type& type, Span at);
  // A value as a rank-0 tensor of dtype `d`.
  std::optional<mlir::Value> asScalarTensor(const Val& v, ast::ScalarType d, Span at);
  Result lowerName(const ast::NameExpr* e);
  Result lowerMemberOfBlock(const Val& block, const ast::Ident& member, const Module& m, Span at);
  // The block the current frame's method belongs to, as a value.
  Val selfBlock() const;
  // Every state tensor under `self` (at `self.path`), sized from the checked
  // member types: what a program without a checkpoint has (with one, the
  // binder sizes it).
  bool collectState(const Val& self, std::vector<TensorSlot>& out, Span at);
  Result lowerUnary(const ast::UnaryExpr* e);
  Result lowerBinary(const ast::BinaryExpr* e);
  Result lowerCall(const ast::CallExpr* e);
  Result lowerIndex(const ast::IndexExpr* e);
  // Where the value an `if` or `match` chooses goes: by default it is the
  // result (typed as the `if` or `match`); lowerThrough passes a use of it,
  // lowered in each arm, and the type of that use's result.
  struct ArmUse {
    std::function<Result(const ast::Expr*)> lower;  // lowers an arm's value and uses it
    std::optional<check::Type> type;
  };
  Result lowerArm(const ast::Expr* value, const ArmUse* through) {
    return through ? through->lower(value) : lowerExpr(value);
  }
  std::optional<check::Type> armsType(const ast::Expr* choice, const ArmUse* through) {
    return through ? through->type : std::optional<check::Type>(typeOf(choice));
  }
  Result lowerMatch(const ast::MatchExpr* e, const ArmUse* through = nullptr);
  // `match` on a value known while lowering: the first arm that matches.
  Result lowerMatchOn(const ast::MatchExpr* e, const Val& scrutinee, const ArmUse* through = nullptr);
  // `match` on an optional whose presence is known only at run time (LowerControl.cpp).
  Result lowerMaybeMatch(const ast::MatchExpr* e, const Val& scrutinee, const ArmUse* through);
  Result lowerRuntimeEnumMatch(const ast::MatchExpr* e, const Val& scrutinee, size_t firstArm,
                               const ArmUse* through);
  std::optional<mlir::Value> enumIndex(const Val& v, Span at);
  Result enumIndexTensor(const Val& v, Span at);
  Result lowerIf(const ast::IfExpr* e, const ArmUse* through = nullptr);
  Result callFunction(const check::CallBinding& binding, const ast::CallExpr* call,
                      std::optional<Val> receiver);
  Result lowerConst(const Module& m, const ast::ConstItem& c, Span at);

  // ---- known ops (LowerKnownOps.cpp): nullopt when `f` is not one ----
  Result lowerKnownOp(const ast::FunctionItem& f, const Frame& callee, Span at);
  // Masked attention over the keys some query sees, a tile of queries at a
  // time (LowerAttentionBound.cpp).
  Result lowerBoundedAttention(const ast::FunctionItem& f, const Frame& callee, Span at);
  // The op's body on `query` (all of the call's, or a tile of `queryRows`
  // rows: its Q generic and their count) and on key, value and mask cut to
  // the keys `mask` lets some query see (a null `mask`: the call's `none`,
  // all keys).
  Result boundedBody(const ast::FunctionItem& f, const Frame& callee, const AttentionSignature& sig, mlir::Value key,
                     mlir::Value value, mlir::Value mask, mlir::Value query,
                     std::optional<std::pair<shape::SymbolId, mlir::Value>> queryRows, mlir::Location l);

  // ---- outlining (LowerOutline.cpp) ----
  bool shouldOutline(const std::optional<Val>& receiver) const;
  // nullopt: the call cannot be outlined (the caller inlines it).
  std::optional<Result> callOutlined(const ast::FunctionItem& f, Frame& callee, const Val& receiver,
                                     std::vector<Val> args, Span at);

  // ---- prelude (LowerPrelude.cpp) ----
  Result lowerPrelude(const ast::CallExpr* call, const std::string& name);

  // ---- index notation (LowerNotation.cpp) ----
  Result lowerComprehension(const ast::LetComprehensionStmt* s);
  Result lowerReduction(const ast::ReductionExpr* r);
  Result lowerReductionPerElement(const ast::ReductionExpr* r);
  // Inside a notation body: whether `sym` names a value the body computes
  // per element (a parameter or local of a function called there), and
  // whether `e` uses one or an index variable it does not declare itself
  // (nor `declared`: the outputs of the index notation `e` is the value of).
  bool namesPerElementValue(const Symbol* sym);
  bool usesPerElementValues(const ast::Expr* e, const std::vector<ast::IndexOutput>* declared = nullptr);
  struct NotationOutput {
    SpanKey key;                         // the index variable's declaration
    std::vector<shape::DimExpr> extents;  // one per loop dim (a pack has several)
  };
  Result lowerNotation(const std::vector<NotationOutput>& outputs, const ast::Expr* value,
                       const std::map<SpanKey, std::vector<shape::DimExpr>>& domains, Span where);
  bool indexDomains(const ast::Expr* value, std::map<SpanKey, std::vector<shape::DimExpr>>& domains);
  Result lowerNotationValue(const ast::Expr* e, NotationState& n);
  std::optional<mlir::Value> asElement(const Val& v, ast::ScalarType d, Span at);
  Result lowerAccess(const ast::IndexExpr* e);
  // A run-time choice inside a notation body (lowerRuntimeChoice there): one
  // of two arms as an element, an scf.if on `cond` (an i1 element), or a
  // select when neither arm can trap. `type` is the choice's checked type.
  struct RuntimeArm;
  Result lowerNotationChoice(mlir::Value cond, Span span, const check::Type& type, const RuntimeArm& then,
                             const RuntimeArm& otherwise);
  // The same for a tuple or struct (of elements and enums): one scf.if
  // yielding each leaf as an element (LowerControl.cpp).
  Result lowerNotationStructuredChoice(mlir::Value cond, Span span, const check::Type& type, const RuntimeArm& then,
                                       const RuntimeArm& otherwise);
  std::optional<mlir::Value> addNotationInput(mlir::Value tensor, mlir::AffineMap map);

  // ---- subscripts read from data (LowerIndexBounds.cpp) ----
  // `index` clamped into 0..=max(extent - reach, 0) of axis `axis` of
  // `tensor` (reach: the elements a read starting there spans; null: 1).
  mlir::Value clampIndex(mlir::Location at, mlir::Value index, mlir::Value tensor, int64_t axis,
                         mlir::Value reach = {});
  // i1: axis `axis` of `tensor` is empty (a constant when the type says).
  mlir::Value isEmptyAxis(mlir::Location at, mlir::Value tensor, int64_t axis);
  // `read()` unless `empty`, else `zeros()` (both of `type`; an scf.if
  // unless `empty` is a constant).
  mlir::Value unlessEmpty(mlir::Location at, mlir::Value empty, mlir::Type type,
                          const std::function<mlir::Value()>& read,
                          const std::function<mlir::Value()>& zeros);

  // ---- statements (LowerStmt.cpp) ----
  bool lowerBody(const std::vector<ast::Stmt*>& body);
  bool lowerStmt(const ast::Stmt* s);
  bool bindPattern(const ast::Pattern* p, const Val& v);
  bool assignState(const ast::AssignStmt* s);
  // `v`, the value of `operand` in the elementwise `whole`, with each axis
  // the checker broadcast because the facts prove it 1 (`where N == 1`) cast
  // to a static 1: the elementwise ops stretch only axes whose MLIR extent
  // is 1, and a dynamic one would take the operand's extent.
  mlir::Value pinProvenOnes(mlir::Value v, const ast::Expr* operand, const ast::Expr* whole);
  // The type of the state at `path` (sized: in state_), as its buffer holds it.
  check::Type stateType(const std::string& path) const;

  // ---- run-time control flow (LowerControl.cpp) ----
  struct Carried;
  // A loop is lowered with a template per carried local, first keeping its
  // compile-time parts as they are before the loop. Where the body leaves a
  // local with other compile-time parts (a literal counted up, an enum field
  // given another variant), `again` is set and `templates` holds the looser
  // template, those parts as data: the loop is lowered once more with it.
  struct Widening {
    std::map<SpanKey, Val> templates;
    bool again = false;
  };
  // Lowers a loop by `attempt` (which builds `op`-like IR and returns
  // whether it succeeded) until no carried template widens: between
  // attempts, what the failed one built is erased (`erase`) and the locals
  // and state are as before it.
  bool untilCarriedSettle(Span at, const std::function<bool(Widening&, std::function<void()>& erase)>& attempt);
  std::optional<Carried> carriedBy(const std::vector<ast::Stmt*>& body, Span at, const Widening& wider);
  void bindCarried(const Carried& c, mlir::ValueRange values);
  std::optional<std::vector<mlir::Value>> currentCarried(const Carried& c, Span at, Widening& wider);
  std::optional<mlir::Value> conditionValue(const Val& v, Span at);
  // The tensors of `v`, each as the type of the Tensor leaf of `tmpl` in its
  // place; `v`'s other parts must equal the template's.
  std::optional<std::vector<mlir::Value>> flattenLike(const Val& tmpl, const Val& v, Span at);
  bool lowerWhile(const ast::WhileStmt* w);
  bool lowerFor(const ast::ForStmt* f);
  bool unrollBudget(int64_t count, const ast::Expr* at);
  bool unrollBlockArray(const ast::StaticForStmt* loop, const Val& array);
  // The operations in the function being built: unrolling is bounded by the
  // code it makes, not only by its trip count.
  int64_t functionOps();
  // `from`, when given, is the first iteration instead of `start`'s value
  // (the rest of a `static for` that stopped unrolling).
  bool lowerCountedLoop(const ast::Expr* start, const ast::Expr* end, const std::vector<ast::Stmt*>& body,
                        const std::function<bool(const Val&)>& bindVariable,
                        std::optional<int64_t> from = std::nullopt);
  // Lowers `e` and gives its value to `use`, whose result has type `type`;
  // where `e` is an `if` or `match` yielding a block (which cannot be data),
  // `use` runs in each arm on the block known there
  // (`(if c { a } else { b }).forward(x)`).
  Result lowerThrough(const ast::Expr* e, std::optional<check::Type> type,
                      const std::function<Result(const Val&)>& use);
  // Element `e` of the block array `array`, given to `use` (lowerThrough).
  Result useBlockArrayElement(const Val& array, const ast::IndexExpr* e, const std::function<Result(const Val&)>& use);
  // The member `m` of `base` (a block's parameter, state or sub-block, a
  // struct's field).
  Result memberOf(const Val& base, const ast::MemberExpr* m);
  Result lowerRuntimeIf(const ast::IfExpr* e, const Val& condition, const ArmUse* through);
  // One arm of a run-time choice: lowers its value (after binding what it
  // binds) with the builder inside its region.
  struct RuntimeArm {
    std::function<Result()> lower;
    Span span;
  };
  // An `scf.if` on `cond` (i1) choosing between two arms, yielding the arms'
  // merged value, then the outer locals and state either arm changed; inside
  // index notation, per element (lowerNotationChoice). `what` starts the
  // E2190 message when the arms cannot merge.
  Result lowerRuntimeChoice(mlir::Value cond, Span at, std::optional<check::Type> type, const RuntimeArm& then,
                            const RuntimeArm& otherwise, const std::string& what);
  Result lowerScan(const ast::ForScanExpr* scan);

  // ---- reporting ----
  std::nullopt_t unsupported(Span at, std::string what);

  Frame& frame() { return *frames_.back(); }
  const Frame& frame() const { return *frames_.back(); }
  const Module& module() const { return *frames_.back()->module; }
  mlir::Location loc(Span s);
  mlir::OpBuilder& builder() { return builder_; }

  // Runs `f` with the builder before the notation op being built (when a
  // body is being built), so what it creates is an input or a capture of
  // the body rather than part of it.
  template <typename F>
  auto outsideNotation(F f) {
    NotationState* n = notation_;
    if (!n) return f();
    mlir::OpBuilder::InsertPoint inside = builder_.saveInsertionPoint();
    notation_ = nullptr;
    NotationState* hoisted = hoistedFrom_;
    hoistedFrom_ = n;
    builder_.restoreInsertionPoint(n->outer);
    auto r = f();
    n->outer = builder_.saveInsertionPoint();
    builder_.restoreInsertionPoint(inside);
    hoistedFrom_ = hoisted;
    notation_ = n;
    return r;
  }

  // Runs `f` with whole tensors lowered as tensors at the builder's point
  // inside the notation body being built: a tensor computed from a value
  // the body computes per element (`fill([3], t)` in a function called
  // there) exists once per element (LowerExpr.cpp, lowerExpr).
  template <typename F>
  auto tensorsInNotationBody(F f) {
    NotationState* n = notation_;
    NotationState* enclosing = bodyNotation_;
    bodyNotation_ = n;
    notation_ = nullptr;
    auto r = f();
    notation_ = n;
    bodyNotation_ = enclosing;
    return r;
  }

 private:
  friend struct FrameGuard;
  // The variants `entry` is compiled as: one per length of each pack generic
  // and per dtype of each unbound type generic that the arguments decide
  // (docs/lowering.md "Entry variants"); nullopt after reporting.
  std::optional<std::vector<EntryVariant>> variantsOf(const ast::FunctionItem& entry, const Module& module);
  // `v` as a value of `type`: untyped numbers become its tensors.
  Result coerceToType(const Val& v, const check::Type& type, Span at);
  // Parameter `param`'s default of `entry` as the manifest carries it, for
  // the runtime to fill in: the number a scalar's folds to, an enum's
  // variant index; nullopt for any other (a variant of its own computes it).
  std::optional<double> carriedDefault(const Module& module, const ast::FunctionItem& entry, size_t param,
                                       const check::Type& type);
  bool lowerEntry(const manifest::EntryRef& entry, const EntryVariant& variant, LoweredEntry& out);
  // A shape pack's default of dims only (`*S: Shape = [2, 3]`), else null.
  const ast::ShapeLiteralExpr* packDefault(const ast::GenericParam& g) const;
  // An entry dim's default in the manifest's spelling (LowerProgram.cpp).
  std::optional<std::string> defaultSpelling(const ast::Expr* e, const std::map<std::string, std::string>& earlier);
  // The root block's generics as bound; false after reporting one unbound.
  bool rootSubstitution(check::Substitution& out);

  mlir::MLIRContext& context_;
  const LowerInputs& inputs_;
  DiagnosticEmitter& diagnostics_;
  mlir::OpBuilder builder_;
  std::vector<Frame*> frames_;
  // The entry being built.
  std::map<shape::SymbolId, mlir::Value> entryDims_;
  // Bodies of `static for` loops unrolled in the entry being lowered, nested
  // loops multiplying: capped (kMaxUnrolledBodies in LowerStmt.cpp) so that
  // a hostile `--bind L=10^11` is an error, not unbounded memory.
  int64_t unrolledBodies_ = 0;
  // Function bodies compiled in place in the entry being lowered (each call
  // but an outlined layer's): capped, as a call chain can double them at
  // every link.
  static constexpr int64_t kMaxInlinedBodies = int64_t{1} << 16;
  int64_t inlinedBodies_ = 0;
  // Blocks of arrays collectState has visited (capped: LowerExpr.cpp).
  int64_t collectedBlocks_ = 0;
  std::map<shape::SymbolId, std::string> entryDimNames_;
  std::map<std::string, mlir::Value> parameterArgs_;  // by concrete path
  // Each state tensor's current value (SSA: an assignment replaces it), and
  // whether the entry read or wrote any.
  std::map<std::string, mlir::Value> state_;
  std::vector<TensorSlot> stateSlots_;  // the model's state tensors, in slot order
  bool readsState_ = false;
  bool writesState_ = false;
  NotationState* notation_ = nullptr;  // set while lowering a notation body
  // Set (and notation_ cleared) while a whole tensor computed per element is
  // lowered inside that notation's body (tensorsInNotationBody).
  NotationState* bodyNotation_ = nullptr;
  // Set while what a notation body uses is computed before it
  // (outsideNotation): a state written there would be written once, not per
  // element.
  NotationState* hoistedFrom_ = nullptr;
  struct Outlined {
    std::string name;
    Val result;  // the structure of what it returns; its tensors are the results
    std::vector<shape::SymbolId> dims;
    // Per tensor of `result`, then per state member the body writes: which
    // function result it is. A value returned twice (a layer returning the
    // state it wrote) is one result, so bufferization keeps it in place.
    std::vector<unsigned> resultOf;
    // Per state member: whether the body writes it (one it only reads is no
    // result: the caller's value stands, and an entry calling only such
    // bodies writes no state).
    std::vector<bool> stateWritten;
  };
  std::map<std::string, Outlined> outlined_;
  int depth_ = 0;                      // instantiation depth (recursion guard)
};

// Pushes a frame for the scope of a call.
struct FrameGuard {
  FrameGuard(Lowerer& l, Frame& f) : lowerer(l) { lowerer.frames_.push_back(&f); }
  ~FrameGuard() { lowerer.frames_.pop_back(); }
  Lowerer& lowerer;
};

}  // namespace linnet::lower
