// dumpAST: the tree behind `linnet inspect --ast`, one node per line,
// indented two spaces per level: `Kind details line:col`. The format is for
// people and tests of the parser; it is not a stable interface. Recursion is
// safe because the parser bounds the tree's depth.
#include <fmt/format.h>

#include <ostream>

#include "compiler/parse/ASTPrinter.h"

namespace linnet::ast {

namespace {

class Dumper {
 public:
  Dumper(const SourceModule& module, std::ostream& out) : module_(module), out_(out) {}

  void run() {
    line(0, fmt::format("Module {}", module_.moduleName()), module_.moduleDeclSpan);
    for (const UseDecl* use : module_.uses) {
      std::string names;
      for (const ImportName& n : use->names) {
        if (!names.empty()) names += ", ";
        names += n.name.name;
        if (!n.alias.name.empty()) names += " as " + n.alias.name;
      }
      std::string path;
      for (const Ident& segment : use->path) path += (path.empty() ? "" : ".") + segment.name;
      std::string detail = path;
      if (use->hasSelector) detail += use->braced ? "::{" + names + "}" : "::" + names;
      line(1, "Use " + detail, use->span);
    }
    for (const Item* item : module_.items) this->item(1, item);
  }

 private:
  void line(int depth, std::string_view text, Span span) {
    out_ << std::string(size_t(depth) * 2, ' ') << text;
    if (span.valid()) {
      LineColumn at = module_.lineColumn(span.begin);
      out_ << " " << at.line << ":" << at.column;
    }
    out_ << "\n";
  }

  void generics(int depth, const std::vector<GenericParam>& params) {
    for (const GenericParam& g : params) {
      line(depth, fmt::format("Generic {}{}: {}", g.isPack ? "*" : "", g.name.name,
                              genericKindName(g.constraint)),
           g.span);
      if (g.defaultValue) genericArg(depth + 1, "Default", *g.defaultValue);
    }
  }

  void genericArg(int depth, std::string_view label, const GenericArg& arg) {
    line(depth, label, arg.span);
    if (arg.type) type(depth + 1, arg.type);
    if (arg.expr) expr(depth + 1, arg.expr);
  }

  void where(int depth, const std::vector<Constraint>& constraints) {
    for (const Constraint& c : constraints) {
      line(depth, fmt::format("Where {}", binaryOpSpelling(c.relation)), c.span);
      expr(depth + 1, c.lhs);
      expr(depth + 1, c.rhs);
    }
  }

  void item(int depth, const Item* node) {
    if (!node) return;
    std::string pub = node->isPub ? "pub " : "";
    itemLine(depth, node, pub);
    for (const Span& doc : node->docComments) line(depth + 1, "Doc", doc);
    itemChildren(depth, node);
  }

  void itemLine(int depth, const Item* node, const std::string& pub) {
    std::string_view kind;
    std::string detail = node->name.name;
    switch (node->kind) {
      case ItemKind::Const: kind = "Const"; break;
      case ItemKind::TypeAlias: kind = "TypeAlias"; break;
      case ItemKind::Struct: kind = "Struct"; break;
      case ItemKind::Enum: kind = "Enum"; break;
      case ItemKind::Block: kind = "Block"; break;
      case ItemKind::Function:
        kind = "Function";
        detail = fmt::format("{} {}", functionKindKeyword(static_cast<const FunctionItem*>(node)->function),
                             node->name.name);
        break;
      case ItemKind::Member:
        kind = "Member";
        detail = fmt::format("{} {}", memberKindKeyword(static_cast<const MemberItem*>(node)->member),
                             node->name.name);
        break;
    }
    line(depth, fmt::format("{} {}{}", kind, pub, detail), node->span);
  }

  void itemChildren(int depth, const Item* node) {
    switch (node->kind) {
      case ItemKind::Const: {
        auto* c = static_cast<const ConstItem*>(node);
        type(depth + 1, c->type);
        expr(depth + 1, c->value);
        return;
      }
      case ItemKind::TypeAlias: {
        auto* alias = static_cast<const TypeAliasItem*>(node);
        generics(depth + 1, alias->generics);
        type(depth + 1, alias->type);
        return;
      }
      case ItemKind::Struct: {
        auto* s = static_cast<const StructItem*>(node);
        generics(depth + 1, s->generics);
        for (const Field& f : s->fields) {
          line(depth + 1, "Field " + f.name.name, f.span);
          type(depth + 2, f.type);
        }
        return;
      }
      case ItemKind::Enum: {
        auto* e = static_cast<const EnumItem*>(node);
        generics(depth + 1, e->generics);
        for (const Ident& v : e->variants) line(depth + 1, "Variant " + v.name, v.span);
        return;
      }
      case ItemKind::Function: {
        auto* fn = static_cast<const FunctionItem*>(node);
        generics(depth + 1, fn->generics);
        for (const Param& p : fn->params) {
          line(depth + 1, "Param " + p.name.name, p.span);
          type(depth + 2, p.type);
          if (p.defaultValue) expr(depth + 2, p.defaultValue);
        }
        if (fn->returnType) {
          line(depth + 1, "Returns", fn->returnType->span);
          type(depth + 2, fn->returnType);
        }
        for (const KernelResult& r : fn->kernelResults) {
          line(depth + 1, "Result " + r.name.name, r.span);
          type(depth + 2, r.type);
        }
        for (const KernelSetting& s : fn->kernelSettings) {
          line(depth + 1, "Setting " + s.name.name, s.span);
          for (const Expr* v : s.values) expr(depth + 2, v);
        }
        if (fn->kernelBinding) {
          line(depth + 1, "KernelBinding " + fn->kernelBinding->kernel.name, fn->kernelBinding->span);
          for (const GenericArg& a : fn->kernelBinding->genericArgs) genericArg(depth + 2, "GenericArg", a);
        }
        where(depth + 1, fn->where);
        line(depth + 1, "Body", fn->bodySpan);
        stmts(depth + 2, fn->body);
        if (fn->grad) {
          line(depth + 1, fmt::format("Grad {}, {}", fn->grad->result.name, fn->grad->gradient.name),
               fn->grad->span);
          stmts(depth + 2, fn->grad->body);
        }
        return;
      }
      case ItemKind::Block: {
        auto* block = static_cast<const BlockItem*>(node);
        generics(depth + 1, block->generics);
        where(depth + 1, block->where);
        for (const Item* member : block->body) item(depth + 1, member);
        return;
      }
      case ItemKind::Member: {
        auto* member = static_cast<const MemberItem*>(node);
        type(depth + 1, member->type);
        if (member->initializer) expr(depth + 1, member->initializer);
        return;
      }
    }
  }

  void stmts(int depth, const std::vector<Stmt*>& list) {
    for (const Stmt* s : list) stmt(depth, s);
  }

  void stmt(int depth, const Stmt* s) {
    if (!s) return;
    switch (s->kind) {
      case StmtKind::Let: {
        auto* let = static_cast<const LetStmt*>(s);
        line(depth, "Let", s->span);
        pattern(depth + 1, let->pattern);
        type(depth + 1, let->type);
        expr(depth + 1, let->value);
        return;
      }
      case StmtKind::LetComprehension: {
        auto* let = static_cast<const LetComprehensionStmt*>(s);
        std::string outputs;
        for (const IndexOutput& o : let->outputs)
          outputs += (outputs.empty() ? "" : ", ") + std::string(o.isPack ? "*" : "") + o.name.name;
        line(depth, fmt::format("LetIndexed {}[{}]", let->name.name, outputs), s->span);
        expr(depth + 1, let->value);
        return;
      }
      case StmtKind::Var: {
        auto* var = static_cast<const VarStmt*>(s);
        line(depth, "Var " + var->name.name, s->span);
        type(depth + 1, var->type);
        expr(depth + 1, var->value);
        return;
      }
      case StmtKind::Assign: {
        auto* assign = static_cast<const AssignStmt*>(s);
        line(depth, "Assign " + assign->target.name, s->span);
        expr(depth + 1, assign->value);
        return;
      }
      case StmtKind::Return:
        line(depth, "Return", s->span);
        expr(depth + 1, static_cast<const ReturnStmt*>(s)->value);
        return;
      case StmtKind::StaticFor: {
        auto* loop = static_cast<const StaticForStmt*>(s);
        line(depth, loop->rangeEnd ? "StaticFor range" : "StaticFor", s->span);
        pattern(depth + 1, loop->pattern);
        expr(depth + 1, loop->iterable);
        expr(depth + 1, loop->rangeEnd);
        stmts(depth + 1, loop->body);
        return;
      }
      case StmtKind::While: {
        auto* loop = static_cast<const WhileStmt*>(s);
        line(depth, "While", s->span);
        expr(depth + 1, loop->condition);
        stmts(depth + 1, loop->body);
        return;
      }
      case StmtKind::For: {
        auto* loop = static_cast<const ForStmt*>(s);
        line(depth, "For " + loop->variable.name, s->span);
        expr(depth + 1, loop->start);
        expr(depth + 1, loop->end);
        stmts(depth + 1, loop->body);
        return;
      }
      case StmtKind::Yield:
        line(depth, "Yield", s->span);
        expr(depth + 1, static_cast<const YieldStmt*>(s)->value);
        return;
      case StmtKind::KernelCall:
        line(depth, "KernelCall", s->span);
        expr(depth + 1, static_cast<const KernelCallStmt*>(s)->call);
        return;
    }
  }

  void pattern(int depth, const Pattern* p) {
    if (!p) return;
    switch (p->kind) {
      case PatternKind::Binding: line(depth, "Bind " + p->name.name, p->span); return;
      case PatternKind::None: line(depth, "NonePattern", p->span); return;
      case PatternKind::Some:
        line(depth, "SomePattern", p->span);
        pattern(depth + 1, p->inner);
        return;
      case PatternKind::Tuple:
        line(depth, "TuplePattern", p->span);
        for (const Pattern* e : p->elements) pattern(depth + 1, e);
        return;
    }
  }

  void type(int depth, const TypeNode* t) {
    if (!t) return;
    switch (t->kind) {
      case TypeKind::Scalar:
        line(depth, fmt::format("ScalarType {}", scalarTypeName(static_cast<const ScalarTypeNode*>(t)->scalar)),
             t->span);
        return;
      case TypeKind::Tensor: {
        auto* tensor = static_cast<const TensorTypeNode*>(t);
        line(depth, "TensorType", t->span);
        for (const ShapeElement& e : tensor->shape) shapeElement(depth + 1, e);
        type(depth + 1, tensor->dtype);
        return;
      }
      case TypeKind::Tuple:
        line(depth, "TupleType", t->span);
        for (const TypeNode* e : static_cast<const TupleTypeNode*>(t)->elements) type(depth + 1, e);
        return;
      case TypeKind::Array: {
        auto* array = static_cast<const ArrayTypeNode*>(t);
        line(depth, "ArrayType", t->span);
        type(depth + 1, array->element);
        expr(depth + 1, array->count);
        return;
      }
      case TypeKind::Named: {
        auto* named = static_cast<const NamedTypeNode*>(t);
        line(depth, "NamedType " + printType(t), t->span);
        for (const GenericArg& a : named->genericArgs) genericArg(depth + 1, "GenericArg", a);
        return;
      }
      case TypeKind::Optional:
        line(depth, "OptionalType", t->span);
        type(depth + 1, static_cast<const OptionalTypeNode*>(t)->inner);
        return;
    }
  }

  void shapeElement(int depth, const ShapeElement& e) {
    if (e.isPack()) {
      line(depth, "Pack " + e.pack.name, e.span);
    } else {
      expr(depth, e.dim);
    }
  }

  void expr(int depth, const Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ExprKind::IntLiteral: {
        auto* literal = static_cast<const IntLiteralExpr*>(e);
        std::string value = std::to_string(literal->value);
        if (!literal->spelling.empty() && literal->spelling != value)
          value += " (" + literal->spelling + ")";
        line(depth, "Int " + value, e->span);
        return;
      }
      case ExprKind::FloatLiteral: {
        auto* literal = static_cast<const FloatLiteralExpr*>(e);
        line(depth, "Float " + (literal->spelling.empty() ? fmt::format("{}", literal->value)
                                                          : literal->spelling),
             e->span);
        return;
      }
      case ExprKind::StringLiteral:
        line(depth, "String " + printExpr(e), e->span);
        return;
      case ExprKind::BoolLiteral:
        line(depth, static_cast<const BoolLiteralExpr*>(e)->value ? "Bool true" : "Bool false", e->span);
        return;
      case ExprKind::NoneLiteral: line(depth, "None", e->span); return;
      case ExprKind::Name:
        line(depth, "Name " + static_cast<const NameExpr*>(e)->name.name, e->span);
        return;
      case ExprKind::Some:
        line(depth, "Some", e->span);
        expr(depth + 1, static_cast<const SomeExpr*>(e)->value);
        return;
      case ExprKind::Unary: {
        auto* unary = static_cast<const UnaryExpr*>(e);
        line(depth, fmt::format("Unary {}", unaryOpSpelling(unary->op)), e->span);
        expr(depth + 1, unary->operand);
        return;
      }
      case ExprKind::Binary: {
        auto* binary = static_cast<const BinaryExpr*>(e);
        line(depth, fmt::format("Binary {}", binaryOpSpelling(binary->op)), e->span);
        expr(depth + 1, binary->lhs);
        expr(depth + 1, binary->rhs);
        return;
      }
      case ExprKind::Call: {
        auto* call = static_cast<const CallExpr*>(e);
        line(depth, "Call", e->span);
        expr(depth + 1, call->callee);
        for (const GenericArg& a : call->genericArgs) genericArg(depth + 1, "GenericArg", a);
        for (const Argument& a : call->args) {
          if (a.isNamed()) {
            line(depth + 1, "Named " + a.name.name, a.span);
            expr(depth + 2, a.value);
          } else {
            expr(depth + 1, a.value);
          }
        }
        return;
      }
      case ExprKind::Index: {
        auto* index = static_cast<const IndexExpr*>(e);
        line(depth, "Index", e->span);
        expr(depth + 1, index->base);
        for (const IndexComponent& c : index->components) component(depth + 1, c);
        return;
      }
      case ExprKind::Member: {
        auto* member = static_cast<const MemberExpr*>(e);
        line(depth, "Member " + member->member.name, e->span);
        expr(depth + 1, member->base);
        return;
      }
      case ExprKind::Tuple:
        line(depth, "Tuple", e->span);
        for (const Expr* x : static_cast<const TupleExpr*>(e)->elements) expr(depth + 1, x);
        return;
      case ExprKind::ShapeLiteral:
        line(depth, "Shape", e->span);
        for (const ShapeElement& s : static_cast<const ShapeLiteralExpr*>(e)->elements)
          shapeElement(depth + 1, s);
        return;
      case ExprKind::Reduction: {
        auto* r = static_cast<const ReductionExpr*>(e);
        std::string indices;
        for (const Ident& i : r->indices) indices += (indices.empty() ? "" : ", ") + i.name;
        std::string acc = r->accumulator ? fmt::format("<{}>", scalarTypeName(*r->accumulator)) : "";
        line(depth, fmt::format("Reduction {}{}[{}]", reductionKindName(r->reduction), acc, indices),
             e->span);
        expr(depth + 1, r->body);
        return;
      }
      case ExprKind::If: {
        auto* node = static_cast<const IfExpr*>(e);
        line(depth, "If", e->span);
        expr(depth + 1, node->condition);
        expr(depth + 1, node->thenValue);
        expr(depth + 1, node->elseValue);
        return;
      }
      case ExprKind::Match: {
        auto* node = static_cast<const MatchExpr*>(e);
        line(depth, "Match", e->span);
        expr(depth + 1, node->scrutinee);
        for (const MatchArm& arm : node->arms) {
          line(depth + 1, "Arm", arm.span);
          pattern(depth + 2, arm.pattern);
          expr(depth + 2, arm.value);
        }
        return;
      }
      case ExprKind::Paren:
        line(depth, "Paren", e->span);
        expr(depth + 1, static_cast<const ParenExpr*>(e)->inner);
        return;
      case ExprKind::ForScan: {
        auto* scan = static_cast<const ForScanExpr*>(e);
        line(depth, "ForScan " + scan->variable.name, e->span);
        expr(depth + 1, scan->start);
        expr(depth + 1, scan->end);
        stmts(depth + 1, scan->body);
        return;
      }
    }
  }

  void component(int depth, const IndexComponent& c) {
    switch (c.kind) {
      case IndexComponentKind::Expr: expr(depth, c.value); return;
      case IndexComponentKind::Ellipsis: line(depth, "Ellipsis", c.span); return;
      case IndexComponentKind::Pack: line(depth, "Pack " + c.pack.name, c.span); return;
      case IndexComponentKind::Slice:
        line(depth, c.hasStep ? "Slice with step" : "Slice", c.span);
        if (c.start) {
          line(depth + 1, "Start", c.start->span);
          expr(depth + 2, c.start);
        }
        if (c.stop) {
          line(depth + 1, "Stop", c.stop->span);
          expr(depth + 2, c.stop);
        }
        if (c.step) {
          line(depth + 1, "Step", c.step->span);
          expr(depth + 2, c.step);
        }
        return;
    }
  }

  const SourceModule& module_;
  std::ostream& out_;
};

}  // namespace

void dumpAST(const SourceModule& module, std::ostream& out) { Dumper(module, out).run(); }

}  // namespace linnet::ast
