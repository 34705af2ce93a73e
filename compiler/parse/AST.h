// AST: the syntax tree of one Linnet source file, exactly as written.
//
// Nodes live in an arena owned by the SourceModule (never freed one by one, so
// destroying a deeply nested tree cannot recurse). Children are raw pointers
// into that arena. Every node has a span. Node kinds are closed enums; use
// `as<T>()` / `isa<T>()` (LLVM-style, via each node's static `classof`).
// The tree does no name resolution: `Linear<H, 3 * H, T>` is a NamedType whose
// generic arguments are GenericArgs holding either a type or an expression.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/source/SourceManager.h"

namespace linnet::ast {

struct Node {
  Span span;
};

template <typename T, typename Base>
T* as(Base* node) { return node && T::classof(node) ? static_cast<T*>(node) : nullptr; }
template <typename T, typename Base>
const T* as(const Base* node) { return node && T::classof(node) ? static_cast<const T*>(node) : nullptr; }
template <typename T, typename Base>
bool isa(const Base* node) { return node && T::classof(node); }

struct Ident {
  std::string name;
  Span span;
};

struct Expr;
struct TypeNode;

// ---------------------------------------------------------------- types ----

enum class TypeKind : uint8_t { Scalar, Tensor, Tuple, Array, Named, Optional };

struct TypeNode : Node {
  TypeKind kind;
  explicit TypeNode(TypeKind k) : kind(k) {}
};

enum class ScalarType : uint8_t { Bool, I8, I16, I32, I64, U8, U16, U32, U64, F16, BF16, F32, F64 };
std::string_view scalarTypeName(ScalarType type);
std::optional<ScalarType> scalarTypeFromName(std::string_view name);

// A generic argument or default: a type when it parses as one, otherwise an
// additive-level expression. A lone identifier parses as a NamedType.
struct GenericArg {
  TypeNode* type = nullptr;
  Expr* expr = nullptr;
  Span span;
};

struct ScalarTypeNode : TypeNode {
  ScalarType scalar;
  ScalarTypeNode() : TypeNode(TypeKind::Scalar) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Scalar; }
};

// One element of a shape: a dimension expression or a `*Pack`.
struct ShapeElement {
  Expr* dim = nullptr;   // set for a dimension
  Ident pack;            // set (non-empty name) for `*Pack`
  Span span;
  bool isPack() const { return dim == nullptr; }
};

struct TensorTypeNode : TypeNode {
  std::vector<ShapeElement> shape;
  TypeNode* dtype = nullptr;  // ScalarTypeNode or NamedTypeNode (a dtype generic)
  TensorTypeNode() : TypeNode(TypeKind::Tensor) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Tensor; }
};

struct TupleTypeNode : TypeNode {
  std::vector<TypeNode*> elements;
  TupleTypeNode() : TypeNode(TypeKind::Tuple) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Tuple; }
};

// `[Block<...>; N]`
struct ArrayTypeNode : TypeNode {
  TypeNode* element = nullptr;
  Expr* count = nullptr;
  ArrayTypeNode() : TypeNode(TypeKind::Array) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Array; }
};

// `a.b.Name<args>`: path segments joined by `.`, optional generic arguments.
struct NamedTypeNode : TypeNode {
  std::vector<Ident> path;
  std::vector<GenericArg> genericArgs;
  bool hasGenericArgs = false;
  NamedTypeNode() : TypeNode(TypeKind::Named) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Named; }
};

struct OptionalTypeNode : TypeNode {
  TypeNode* inner = nullptr;
  OptionalTypeNode() : TypeNode(TypeKind::Optional) {}
  static bool classof(const TypeNode* t) { return t->kind == TypeKind::Optional; }
};

// ---------------------------------------------------------- expressions ----

enum class ExprKind : uint8_t {
  IntLiteral, FloatLiteral, StringLiteral, BoolLiteral, NoneLiteral,
  Name, Some, Unary, Binary, Call, Index, Member, Tuple, ShapeLiteral,
  Reduction, If, Match, Paren, ForScan,
};

struct Expr : Node {
  ExprKind kind;
  explicit Expr(ExprKind k) : kind(k) {}
};

struct IntLiteralExpr : Expr {
  uint64_t value = 0;  // fits in i64 (checked by the lexer/parser)
  std::string spelling;  // as written (`0xff`, `1_000`), for the formatter; may be empty
  IntLiteralExpr() : Expr(ExprKind::IntLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::IntLiteral; }
};

struct FloatLiteralExpr : Expr {
  double value = 0;
  std::string spelling;  // as written (`1e-5`), for the formatter; may be empty
  FloatLiteralExpr() : Expr(ExprKind::FloatLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::FloatLiteral; }
};

struct StringLiteralExpr : Expr {
  std::string value;  // escapes decoded
  std::string spelling;  // as written, quotes included, for the formatter; may be empty
  StringLiteralExpr() : Expr(ExprKind::StringLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::StringLiteral; }
};

struct BoolLiteralExpr : Expr {
  bool value = false;
  BoolLiteralExpr() : Expr(ExprKind::BoolLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::BoolLiteral; }
};

struct NoneLiteralExpr : Expr {
  NoneLiteralExpr() : Expr(ExprKind::NoneLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::NoneLiteral; }
};

struct NameExpr : Expr {
  Ident name;
  NameExpr() : Expr(ExprKind::Name) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Name; }
};

struct SomeExpr : Expr {
  Expr* value = nullptr;
  SomeExpr() : Expr(ExprKind::Some) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Some; }
};

enum class UnaryOp : uint8_t { Not, Negate, Plus };
std::string_view unaryOpSpelling(UnaryOp op);

struct UnaryExpr : Expr {
  UnaryOp op;
  Expr* operand = nullptr;
  UnaryExpr() : Expr(ExprKind::Unary) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Unary; }
};

enum class BinaryOp : uint8_t {
  Or, And, Eq, Ne, Lt, Le, Gt, Ge, BitOr, BitXor, BitAnd, Add, Sub, Mul, Div, Rem,
};
std::string_view binaryOpSpelling(BinaryOp op);
// Binding strength: higher binds tighter (Or = 1 ... Mul/Div/Rem = 9).
int binaryOpPrecedence(BinaryOp op);

struct BinaryExpr : Expr {
  BinaryOp op;
  Span opSpan;
  Expr* lhs = nullptr;
  Expr* rhs = nullptr;
  BinaryExpr() : Expr(ExprKind::Binary) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Binary; }
};

struct Argument {
  Ident name;  // empty name for a positional argument
  Expr* value = nullptr;
  Span span;
  bool isNamed() const { return !name.name.empty(); }
};

struct CallExpr : Expr {
  Expr* callee = nullptr;
  std::vector<GenericArg> genericArgs;
  bool hasGenericArgs = false;
  std::vector<Argument> args;
  CallExpr() : Expr(ExprKind::Call) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Call; }
};

enum class IndexComponentKind : uint8_t { Expr, Ellipsis, Pack, Slice };

struct IndexComponent {
  IndexComponentKind kind = IndexComponentKind::Expr;
  Expr* value = nullptr;  // Expr
  Ident pack;             // Pack: `*s`
  Expr* start = nullptr;  // Slice parts, each optional
  Expr* stop = nullptr;
  Expr* step = nullptr;
  bool hasStep = false;   // a second `:` was written
  Span span;
};

struct IndexExpr : Expr {
  Expr* base = nullptr;
  std::vector<IndexComponent> components;
  IndexExpr() : Expr(ExprKind::Index) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Index; }
};

struct MemberExpr : Expr {
  Expr* base = nullptr;
  Ident member;
  MemberExpr() : Expr(ExprKind::Member) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Member; }
};

struct TupleExpr : Expr {
  std::vector<Expr*> elements;
  TupleExpr() : Expr(ExprKind::Tuple) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Tuple; }
};

// `[A, B * 2, *S]`: only meaningful where a shape is consumed.
struct ShapeLiteralExpr : Expr {
  std::vector<ShapeElement> elements;
  ShapeLiteralExpr() : Expr(ExprKind::ShapeLiteral) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::ShapeLiteral; }
};

enum class ReductionKind : uint8_t { Sum, Prod, Max, Min, Any, All };
std::string_view reductionKindName(ReductionKind kind);

struct ReductionExpr : Expr {
  ReductionKind reduction;
  Span keywordSpan;
  std::optional<ScalarType> accumulator;  // `sum<f32>[k] ...`
  std::vector<Ident> indices;
  Expr* body = nullptr;
  ReductionExpr() : Expr(ExprKind::Reduction) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Reduction; }
};

struct IfExpr : Expr {
  Expr* condition = nullptr;
  Expr* thenValue = nullptr;
  Expr* elseValue = nullptr;
  IfExpr() : Expr(ExprKind::If) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::If; }
};

struct Pattern;

struct MatchArm {
  Pattern* pattern = nullptr;
  Expr* value = nullptr;
  Span span;
};

struct MatchExpr : Expr {
  Expr* scrutinee = nullptr;
  std::vector<MatchArm> arms;
  MatchExpr() : Expr(ExprKind::Match) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Match; }
};

// `(e)`: kept so that printing and rules that look at parentheses (a scan
// used as an operand, `sum` extents) can see them.
struct ParenExpr : Expr {
  Expr* inner = nullptr;
  ParenExpr() : Expr(ExprKind::Paren) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::Paren; }
};

struct Stmt;

// `for i in A..B { ...; yield e }` used as the whole right-hand side of
// `let`/`var`/assignment/`return` (a scan). Written anywhere else it is
// parsed the same way and rejected by the checker (E2124).
struct ForScanExpr : Expr {
  Ident variable;
  Expr* start = nullptr;
  Expr* end = nullptr;
  std::vector<Stmt*> body;
  ForScanExpr() : Expr(ExprKind::ForScan) {}
  static bool classof(const Expr* e) { return e->kind == ExprKind::ForScan; }
};

// ------------------------------------------------------------- patterns ----

enum class PatternKind : uint8_t { Binding, Tuple, Some, None };

struct Pattern : Node {
  PatternKind kind;
  Ident name;                     // Binding
  std::vector<Pattern*> elements; // Tuple
  Pattern* inner = nullptr;       // Some
  explicit Pattern(PatternKind k) : kind(k) {}
};

// ----------------------------------------------------------- statements ----

enum class StmtKind : uint8_t {
  Let, LetComprehension, Var, Assign, Return, StaticFor, While, For, Yield, KernelCall,
};

struct Stmt : Node {
  StmtKind kind;
  explicit Stmt(StmtKind k) : kind(k) {}
};

struct LetStmt : Stmt {
  Pattern* pattern = nullptr;
  TypeNode* type = nullptr;  // optional annotation
  Expr* value = nullptr;
  LetStmt() : Stmt(StmtKind::Let) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Let; }
};

struct IndexOutput {
  Ident name;
  bool isPack = false;  // `*s`
};

// `let c[m, n] = ...` (index notation)
struct LetComprehensionStmt : Stmt {
  Ident name;
  std::vector<IndexOutput> outputs;
  Expr* value = nullptr;
  LetComprehensionStmt() : Stmt(StmtKind::LetComprehension) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::LetComprehension; }
};

struct VarStmt : Stmt {
  Ident name;
  TypeNode* type = nullptr;
  Expr* value = nullptr;
  VarStmt() : Stmt(StmtKind::Var) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Var; }
};

struct AssignStmt : Stmt {
  Ident target;
  Expr* value = nullptr;
  AssignStmt() : Stmt(StmtKind::Assign) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Assign; }
};

struct ReturnStmt : Stmt {
  Expr* value = nullptr;  // optional
  ReturnStmt() : Stmt(StmtKind::Return) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Return; }
};

// `static for x in layers { }` or `static for i in A..B { }`
struct StaticForStmt : Stmt {
  Pattern* pattern = nullptr;
  Expr* iterable = nullptr;   // the array, or the range start
  Expr* rangeEnd = nullptr;   // set for a range
  std::vector<Stmt*> body;
  StaticForStmt() : Stmt(StmtKind::StaticFor) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::StaticFor; }
};

struct WhileStmt : Stmt {
  Expr* condition = nullptr;
  std::vector<Stmt*> body;
  WhileStmt() : Stmt(StmtKind::While) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::While; }
};

// A runtime counted loop used as a statement (no value).
struct ForStmt : Stmt {
  Ident variable;
  Expr* start = nullptr;
  Expr* end = nullptr;
  std::vector<Stmt*> body;
  ForStmt() : Stmt(StmtKind::For) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::For; }
};

struct YieldStmt : Stmt {
  Expr* value = nullptr;
  YieldStmt() : Stmt(StmtKind::Yield) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::Yield; }
};

// Inside a kernel: `store(...)`, `atomic_add(...)`, `atomic_max(...)`,
// `atomic_min(...)` written as a statement.
struct KernelCallStmt : Stmt {
  CallExpr* call = nullptr;
  KernelCallStmt() : Stmt(StmtKind::KernelCall) {}
  static bool classof(const Stmt* s) { return s->kind == StmtKind::KernelCall; }
};

// ---------------------------------------------------------------- items ----

enum class GenericKind : uint8_t { Dim, Shape, DType, Numeric, Integer, Float };
std::string_view genericKindName(GenericKind kind);

struct GenericParam {
  Ident name;
  bool isPack = false;             // `*S: Shape`
  GenericKind constraint = GenericKind::Dim;
  Span constraintSpan;
  std::optional<GenericArg> defaultValue;
  Span span;
};

struct Param {
  Ident name;
  TypeNode* type = nullptr;
  Expr* defaultValue = nullptr;
  Span span;
};

// `where a == b, c > 0`
struct Constraint {
  Expr* lhs = nullptr;
  BinaryOp relation = BinaryOp::Eq;  // Eq, Ne, Lt, Le, Gt, Ge
  Expr* rhs = nullptr;
  Span span;
};

enum class ItemKind : uint8_t { Const, TypeAlias, Struct, Enum, Function, Block, Member };

struct Item : Node {
  ItemKind kind;
  bool isPub = false;
  Ident name;
  std::vector<Span> docComments;
  explicit Item(ItemKind k) : kind(k) {}
};

struct ConstItem : Item {
  TypeNode* type = nullptr;  // optional
  Expr* value = nullptr;
  ConstItem() : Item(ItemKind::Const) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Const; }
};

struct TypeAliasItem : Item {
  std::vector<GenericParam> generics;
  TypeNode* type = nullptr;
  TypeAliasItem() : Item(ItemKind::TypeAlias) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::TypeAlias; }
};

struct Field {
  Ident name;
  TypeNode* type = nullptr;
  Span span;
};

struct StructItem : Item {
  std::vector<GenericParam> generics;
  std::vector<Field> fields;
  StructItem() : Item(ItemKind::Struct) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Struct; }
};

struct EnumItem : Item {
  std::vector<GenericParam> generics;
  std::vector<Ident> variants;
  EnumItem() : Item(ItemKind::Enum) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Enum; }
};

enum class FunctionKind : uint8_t { Fn, Op, Entry, Kernel };
std::string_view functionKindKeyword(FunctionKind kind);

// `op name<...>(...) -> T kernel kname<args>`
struct KernelBinding {
  Ident kernel;
  std::vector<GenericArg> genericArgs;
  bool hasGenericArgs = false;
  Span span;
};

// `grad(y, dy) { ... }` after an op body.
struct GradClause {
  Ident result;
  Ident gradient;
  std::vector<Stmt*> body;
  Span span;
};

// A kernel's named results: `-> y: Tensor[..]` or `-> (a: T1, b: T2)`.
struct KernelResult {
  Ident name;
  TypeNode* type = nullptr;
  Span span;
};

// A kernel launch setting: `grid(a, b)`, `warps(4)`, `stages(2)`.
struct KernelSetting {
  Ident name;
  std::vector<Expr*> values;
  Span span;
};

struct FunctionItem : Item {
  FunctionKind function = FunctionKind::Fn;
  Span keywordSpan;
  std::vector<GenericParam> generics;
  std::vector<Param> params;
  TypeNode* returnType = nullptr;            // fn/op/entry (optional for fn/entry)
  std::vector<KernelResult> kernelResults;   // kernel
  bool kernelResultsParenthesized = false;
  std::vector<KernelSetting> kernelSettings; // kernel
  std::optional<KernelBinding> kernelBinding;  // op
  std::vector<Constraint> where;
  std::vector<Stmt*> body;
  Span bodySpan;
  std::optional<GradClause> grad;            // op
  FunctionItem() : Item(ItemKind::Function) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Function; }
};

enum class MemberKind : uint8_t { Param, Buffer, State, Sub };
std::string_view memberKindKeyword(MemberKind kind);

// A block member: `param w: T [= none]`, `buffer`, `state`, `sub c: B [= none]`.
struct MemberItem : Item {
  MemberKind member = MemberKind::Param;
  TypeNode* type = nullptr;
  Expr* initializer = nullptr;
  MemberItem() : Item(ItemKind::Member) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Member; }
};

// Items and members of a block, in source order.
struct BlockItem : Item {
  std::vector<GenericParam> generics;
  std::vector<Constraint> where;
  std::vector<Item*> body;
  BlockItem() : Item(ItemKind::Block) {}
  static bool classof(const Item* i) { return i->kind == ItemKind::Block; }
};

// ------------------------------------------------------------- modules ----

enum class ImportRoot : uint8_t { Std, Crate, Dependency };

struct ImportName {
  Ident name;
  Ident alias;  // empty when there is no `as`
};

// `use std.nn.linear::{Linear, linear as lin}` / `use std.random`
struct UseDecl : Node {
  ImportRoot root = ImportRoot::Dependency;
  std::vector<Ident> path;        // including the root segment
  bool hasSelector = false;       // `::` present
  bool braced = false;            // `{...}` selector
  std::vector<ImportName> names;  // selector names
};

class Arena {
 public:
  template <typename T, typename... Args>
  T* make(Args&&... args) {
    auto node = std::make_unique<Holder<T>>(std::forward<Args>(args)...);
    T* raw = &node->value;
    nodes_.push_back(std::move(node));
    return raw;
  }

 private:
  struct HolderBase { virtual ~HolderBase() = default; };
  template <typename T>
  struct Holder : HolderBase {
    template <typename... Args>
    explicit Holder(Args&&... args) : value(std::forward<Args>(args)...) {}
    T value;
  };
  std::deque<std::unique_ptr<HolderBase>> nodes_;
};

// A comment of the source (doc comments included), kept for the formatter.
struct Comment {
  Span span;
  std::string text;
  bool trailing = false;         // shares its line with the token before it
  bool blankLineBefore = false;  // an empty line precedes it
  // End of the token it follows, looking past one `,` (`a, // note` follows
  // `a`): a trailing comment stays after the node that ends there.
  uint32_t attachEnd = 0;
};

// One parsed source file.
struct SourceModule {
  FileId file = kNoFile;
  std::vector<Ident> modulePath;  // empty if the `module` line is missing
  Span moduleDeclSpan;
  std::vector<UseDecl*> uses;
  std::vector<Item*> items;
  std::unique_ptr<Arena> arena = std::make_unique<Arena>();

  // Layout facts the formatter (printModule) keeps; the tree itself has no
  // comments. All offsets are byte offsets into the file, sorted.
  std::vector<Comment> comments;
  std::vector<uint32_t> blankLineBefore;  // token starts preceded by an empty line
  // Start of the first element of each list written with a trailing comma
  // (parameters, arguments, generics, `where`, enum variants, ...): such a
  // list is printed one element per line.
  std::vector<uint32_t> multilineLists;
  // Line starts and UTF-8 continuation bytes, so dumps can show line:col
  // without the SourceManager.
  std::vector<uint32_t> lineStarts;
  std::vector<uint32_t> continuationBytes;

  std::string moduleName() const;  // "a.b.c"
  LineColumn lineColumn(uint32_t offset) const;
};

}  // namespace linnet::ast
