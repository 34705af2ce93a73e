// ASTPrinter: canonical Linnet source from the tree, the basis of `linnet
// fmt`, of `inspect` signatures and of round-trip tests.
//
// The style: 4-space indent, one statement or member per line, one blank
// line between top-level items, blank lines elsewhere kept (at most one) where
// the source had them, single spaces around binary operators, and every list
// on one line unless the source wrote it with a trailing comma, which keeps it
// one element per line. Comments are not in the tree; the module keeps them
// by position and they are re-attached: a comment on its own line before the
// next line printed after it, a trailing comment after the node it followed.
// Parentheses are printed as written (ParenExpr); for trees built by hand the
// printer adds the ones precedence needs. Printing is idempotent:
// print(parse(print(parse(x)))) == print(parse(x)).
#include "compiler/parse/ASTPrinter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace linnet::ast {

namespace {

constexpr int kPostfixLevel = 11;  // tighter than any binary operator and unary
constexpr int kUnaryLevel = 10;   // a prefix operator's operand is postfix-level

std::string escapeString(std::string_view value) {
  std::string out = "\"";
  for (char c : value) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\0': out += "\\0"; break;
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
          out += fmt::format("\\u{{{:x}}}", unsigned(static_cast<unsigned char>(c)));
        } else {
          out.push_back(c);
        }
    }
  }
  return out + "\"";
}

std::string floatSpelling(double value) {
  std::string text = fmt::format("{}", value);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

class Printer {
 public:
  explicit Printer(const SourceModule* module) : module_(module) {}
  std::string take() { return std::move(out_); }

  // ---- fragments -------------------------------------------------------------

  void type(const TypeNode* node) {
    if (!node) return;
    switch (node->kind) {
      case TypeKind::Scalar:
        out_ += scalarTypeName(static_cast<const ScalarTypeNode*>(node)->scalar);
        return;
      case TypeKind::Tensor: {
        auto* tensor = static_cast<const TensorTypeNode*>(node);
        out_ += "Tensor[";
        for (size_t i = 0; i < tensor->shape.size(); ++i) {
          if (i) out_ += ", ";
          shapeElement(tensor->shape[i]);
        }
        out_ += "; ";
        type(tensor->dtype);
        out_ += "]";
        return;
      }
      case TypeKind::Tuple: {
        auto* tuple = static_cast<const TupleTypeNode*>(node);
        list("(", ")", tuple->elements.size(), firstBegin(tuple->elements),
             [&](size_t i) { type(tuple->elements[i]); },
             [&](size_t i) { return tuple->elements[i] ? tuple->elements[i]->span : Span{}; },
             /*minimumForMultiline=*/2);
        if (tuple->elements.size() == 1) out_.insert(out_.size() - 1, ",");
        return;
      }
      case TypeKind::Array: {
        auto* array = static_cast<const ArrayTypeNode*>(node);
        out_ += "[";
        type(array->element);
        out_ += "; ";
        expr(array->count);
        out_ += "]";
        return;
      }
      case TypeKind::Named: {
        auto* named = static_cast<const NamedTypeNode*>(node);
        for (size_t i = 0; i < named->path.size(); ++i) {
          if (i) out_ += ".";
          out_ += named->path[i].name;
        }
        if (named->hasGenericArgs) genericArgs(named->genericArgs);
        return;
      }
      case TypeKind::Optional:
        type(static_cast<const OptionalTypeNode*>(node)->inner);
        out_ += "?";
        return;
    }
  }

  void genericArg(const GenericArg& arg) {
    if (arg.type) {
      type(arg.type);
    } else {
      // Generic arguments are additive-level expressions.
      expr(arg.expr, binaryOpPrecedence(BinaryOp::Add), true);
    }
  }

  void genericArgs(const std::vector<GenericArg>& args) {
    list("<", ">", args.size(), args.empty() ? kNone : args.front().span.begin,
         [&](size_t i) { genericArg(args[i]); }, [&](size_t i) { return args[i].span; });
  }

  void genericParams(const std::vector<GenericParam>& generics) {
    if (generics.empty()) return;
    list("<", ">", generics.size(), generics.front().span.begin,
         [&](size_t i) {
           const GenericParam& g = generics[i];
           if (g.isPack) out_ += "*";
           out_ += g.name.name;
           out_ += ": ";
           out_ += genericKindName(g.constraint);
           if (g.defaultValue) {
             out_ += " = ";
             genericArg(*g.defaultValue);
           }
         },
         [&](size_t i) { return generics[i].span; });
  }

  void shapeElement(const ShapeElement& element) {
    if (element.isPack()) {
      out_ += "*" + element.pack.name;
    } else {
      expr(element.dim);
    }
  }

  // `minimum` is the precedence the context needs (0: any expression);
  // `rightmost` says nothing follows the expression in its context, so a
  // reduction's body may extend to the end.
  void expr(const Expr* node, int minimum = 0, bool rightmost = true) {
    if (!node) return;
    bool parens = needsParens(node, minimum, rightmost);
    if (parens) out_ += "(";
    exprBody(node, parens ? true : rightmost);
    if (parens) out_ += ")";
  }

  void signature(const FunctionItem& fn) {
    if (fn.isPub) out_ += "pub ";
    out_ += functionKindKeyword(fn.function);
    out_ += " ";
    out_ += fn.name.name;
    genericParams(fn.generics);
    list("(", ")", fn.params.size(), fn.params.empty() ? kNone : fn.params.front().span.begin,
         [&](size_t i) {
           const Param& p = fn.params[i];
           out_ += p.name.name + ": ";
           type(p.type);
           if (p.defaultValue) {
             out_ += " = ";
             expr(p.defaultValue);
           }
         },
         [&](size_t i) { return fn.params[i].span; });
    if (fn.function == FunctionKind::Kernel) {
      if (!fn.kernelResults.empty() || fn.kernelResultsParenthesized) {
        out_ += " -> ";
        auto result = [&](size_t i) {
          out_ += fn.kernelResults[i].name.name + ": ";
          type(fn.kernelResults[i].type);
        };
        if (fn.kernelResultsParenthesized) {
          list("(", ")", fn.kernelResults.size(),
               fn.kernelResults.empty() ? kNone : fn.kernelResults.front().span.begin, result,
               [&](size_t i) { return fn.kernelResults[i].span; });
        } else {
          result(0);
        }
      }
      for (const KernelSetting& setting : fn.kernelSettings) {
        out_ += " " + setting.name.name;
        list("(", ")", setting.values.size(),
             setting.values.empty() || !setting.values.front() ? kNone
                                                               : setting.values.front()->span.begin,
             [&](size_t i) { expr(setting.values[i]); },
             [&](size_t i) { return setting.values[i] ? setting.values[i]->span : Span{}; });
      }
    } else if (fn.returnType) {
      out_ += " -> ";
      type(fn.returnType);
    }
    if (fn.kernelBinding) {
      out_ += " kernel " + fn.kernelBinding->kernel.name;
      if (fn.kernelBinding->hasGenericArgs) genericArgs(fn.kernelBinding->genericArgs);
    }
  }

  // ---- the whole module ------------------------------------------------------

  void module() {
    const SourceModule& m = *module_;
    bool first = true;
    if (!m.modulePath.empty()) {
      topLine(m.moduleDeclSpan.begin, false);
      out_ += "module " + m.moduleName();
      trailing(m.moduleDeclSpan.end);
      endLine();
      first = false;
    }
    std::vector<const UseDecl*> uses(m.uses.begin(), m.uses.end());
    std::sort(uses.begin(), uses.end(), [](const UseDecl* a, const UseDecl* b) {
      return a->span.begin < b->span.begin;
    });
    for (size_t i = 0; i < uses.size(); ++i) {
      topLine(uses[i]->span.begin, i == 0 ? !first : blankBefore(uses[i]->span.begin));
      useDecl(*uses[i]);
      trailing(uses[i]->span.end);
      endLine();
      first = false;
    }
    const Item* previous = nullptr;
    for (const Item* item : m.items) {
      if (!item) continue;
      // One blank line around every item that spans lines; a run of
      // one-line items (constants, aliases) keeps the source's spacing.
      bool separate = !first && (!previous || !isOneLine(*previous) || !isOneLine(*item) ||
                                 blankBefore(item->span.begin));
      topLine(item->span.begin, separate);
      itemBody(*item);
      trailing(item->span.end);
      endLine();
      first = false;
      previous = item;
    }
    flushComments(kNone);
  }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  // ---- layout facts ----------------------------------------------------------

  bool multiline(uint32_t firstBegin) const {
    if (!module_ || firstBegin == kNone) return false;
    return std::binary_search(module_->multilineLists.begin(), module_->multilineLists.end(),
                              firstBegin);
  }

  bool isOneLine(const Item& item) const {
    switch (item.kind) {
      case ItemKind::Const:
      case ItemKind::TypeAlias:
        return true;
      case ItemKind::Enum: {
        auto& e = static_cast<const EnumItem&>(item);
        return e.variants.empty() || !multiline(e.variants.front().span.begin);
      }
      case ItemKind::Struct:
      case ItemKind::Function:
      case ItemKind::Block:
      case ItemKind::Member:
        return false;
    }
    return false;
  }

  bool onLaterLine(uint32_t first, uint32_t second) const {
    return module_ && module_->lineColumn(second).line > module_->lineColumn(first).line;
  }

  bool blankBefore(uint32_t offset) const {
    if (!module_) return false;
    return std::binary_search(module_->blankLineBefore.begin(), module_->blankLineBefore.end(),
                              offset);
  }

  template <typename Node>
  static uint32_t firstBegin(const std::vector<Node*>& nodes) {
    return nodes.empty() || !nodes.front() ? kNone : nodes.front()->span.begin;
  }

  // ---- lines and comments ----------------------------------------------------

  void startLine(bool blank) {
    if (blank && !blockStart_) out_ += '\n';
    blockStart_ = false;
    out_.append(size_t(indent_) * 4, ' ');
  }

  void endLine() {
    while (!out_.empty() && out_.back() == ' ') out_.pop_back();
    out_ += '\n';
  }

  // Comments on their own lines, up to `limit`.
  void flushComments(uint32_t limit) {
    if (!module_) return;
    while (nextComment_ < module_->comments.size() &&
           module_->comments[nextComment_].span.begin < limit) {
      const Comment& c = module_->comments[nextComment_++];
      startLine(c.blankLineBefore);
      out_ += c.text;
      endLine();
    }
  }

  // Starts the line of a top-level element: its comments first. With
  // `blankRequired` one blank line separates it from what precedes (before
  // its comments, if any); otherwise blank lines follow the source.
  void topLine(uint32_t begin, bool blankRequired) {
    bool printed = false;
    while (module_ && nextComment_ < module_->comments.size() &&
           module_->comments[nextComment_].span.begin < begin) {
      const Comment& c = module_->comments[nextComment_++];
      startLine((!printed && blankRequired) || c.blankLineBefore);
      out_ += c.text;
      endLine();
      printed = true;
    }
    startLine(printed ? blankBefore(begin) : blankRequired);
  }

  // After a node's last token: comments left inside the node (a one-line
  // print has no place for them) and the comment that followed it on its
  // line go to the end of the line.
  // A comment that spans lines ends the run: what follows it is on a later
  // line than the node and is printed on its own line.
  void trailing(uint32_t end) {
    if (!module_) return;
    const std::vector<Comment>& comments = module_->comments;
    auto append = [&] {
      const std::string& text = comments[nextComment_++].text;
      out_ += " " + text;
      return text.find('\n') == std::string::npos;
    };
    while (nextComment_ < comments.size() && comments[nextComment_].span.begin < end)
      if (!append()) return;
    while (nextComment_ < comments.size() && comments[nextComment_].trailing &&
           comments[nextComment_].attachEnd == end)
      if (!append()) return;
  }

  // A line-level node inside a block: comments, then its line.
  void lineStart(uint32_t begin) {
    flushComments(begin);
    startLine(blankBefore(begin));
  }

  // `open` + elements + `close`, one line, or one element per line when the
  // source list had a trailing comma.
  template <typename PrintFn, typename SpanFn>
  void list(std::string_view open, std::string_view close, size_t count, uint32_t first,
            PrintFn print, SpanFn spanOf, size_t minimumForMultiline = 1) {
    out_ += open;
    if (count >= minimumForMultiline && multiline(first)) {
      endLine();
      ++indent_;
      blockStart_ = true;
      for (size_t i = 0; i < count; ++i) {
        Span span = spanOf(i);
        lineStart(span.begin);
        print(i);
        out_ += ",";
        trailing(span.end);
        endLine();
      }
      --indent_;
      blockStart_ = false;
      out_.append(size_t(indent_) * 4, ' ');
      out_ += close;
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      if (i) out_ += ", ";
      print(i);
    }
    out_ += close;
  }

  // ---- items -------------------------------------------------------------------

  void useDecl(const UseDecl& use) {
    out_ += "use ";
    for (size_t i = 0; i < use.path.size(); ++i) {
      if (i) out_ += ".";
      out_ += use.path[i].name;
    }
    if (!use.hasSelector) return;
    out_ += "::";
    auto name = [&](size_t i) {
      out_ += use.names[i].name.name;
      if (!use.names[i].alias.name.empty()) out_ += " as " + use.names[i].alias.name;
    };
    if (!use.braced && use.names.size() == 1) {
      name(0);
      return;
    }
    list("{", "}", use.names.size(), use.names.empty() ? kNone : use.names.front().name.span.begin,
         name, [&](size_t i) {
           const ImportName& n = use.names[i];
           return n.alias.name.empty() ? n.name.span : n.name.span.to(n.alias.span);
         });
  }

  void itemBody(const Item& item) {
    switch (item.kind) {
      case ItemKind::Const: {
        auto& c = static_cast<const ConstItem&>(item);
        pub(item);
        out_ += "const " + c.name.name;
        if (c.type) {
          out_ += ": ";
          type(c.type);
        }
        out_ += " = ";
        expr(c.value);
        return;
      }
      case ItemKind::TypeAlias: {
        auto& alias = static_cast<const TypeAliasItem&>(item);
        pub(item);
        out_ += "type " + alias.name.name;
        genericParams(alias.generics);
        out_ += " = ";
        type(alias.type);
        return;
      }
      case ItemKind::Struct: {
        auto& s = static_cast<const StructItem&>(item);
        pub(item);
        out_ += "struct " + s.name.name;
        genericParams(s.generics);
        out_ += " {";
        if (s.fields.empty() && !commentsBefore(item.span.end)) {
          out_ += "}";
          return;
        }
        openBlock();
        for (const Field& field : s.fields) {
          lineStart(field.span.begin);
          out_ += field.name.name + ": ";
          type(field.type);
          trailing(field.span.end);
          endLine();
        }
        closeBlock(item.span.end);
        return;
      }
      case ItemKind::Enum: {
        auto& e = static_cast<const EnumItem&>(item);
        pub(item);
        out_ += "enum " + e.name.name;
        genericParams(e.generics);
        if (e.variants.empty()) {
          out_ += " {}";
          return;
        }
        out_ += " ";
        if (multiline(e.variants.front().span.begin)) {
          list("{", "}", e.variants.size(), e.variants.front().span.begin,
               [&](size_t i) { out_ += e.variants[i].name; },
               [&](size_t i) { return e.variants[i].span; });
          return;
        }
        out_ += "{ ";
        for (size_t i = 0; i < e.variants.size(); ++i) {
          if (i) out_ += ", ";
          out_ += e.variants[i].name;
        }
        out_ += " }";
        return;
      }
      case ItemKind::Function: {
        auto& fn = static_cast<const FunctionItem&>(item);
        signature(fn);
        whereClause(fn.where);
        body(fn.body, fn.bodySpan.end);
        if (fn.grad) {
          out_ += " grad(" + fn.grad->result.name + ", " + fn.grad->gradient.name + ") ";
          body(fn.grad->body, fn.grad->span.end);
        }
        return;
      }
      case ItemKind::Block: {
        auto& block = static_cast<const BlockItem&>(item);
        pub(item);
        out_ += "block " + block.name.name;
        genericParams(block.generics);
        whereClause(block.where);
        if (block.body.empty() && !commentsBefore(item.span.end)) {
          out_ += "{}";
          return;
        }
        out_ += "{";
        openBlock();
        for (const Item* member : block.body) {
          if (!member) continue;
          lineStart(member->span.begin);
          itemBody(*member);
          trailing(member->span.end);
          endLine();
        }
        closeBlock(item.span.end);
        return;
      }
      case ItemKind::Member: {
        auto& member = static_cast<const MemberItem&>(item);
        pub(item);
        out_ += std::string(memberKindKeyword(member.member)) + " " + member.name.name + ": ";
        type(member.type);
        if (member.initializer) {
          out_ += " = ";
          expr(member.initializer);
        }
        return;
      }
    }
  }

  void pub(const Item& item) {
    if (item.isPub) out_ += "pub ";
  }

  // ` where ...` before a body's `{`; ends with the space or line that
  // precedes the `{`.
  void whereClause(const std::vector<Constraint>& where) {
    if (where.empty()) {
      out_ += " ";
      return;
    }
    endLine();
    startLine(false);
    out_ += "where";
    if (multiline(where.front().span.begin)) {
      endLine();
      ++indent_;
      blockStart_ = true;
      for (const Constraint& c : where) {
        lineStart(c.span.begin);
        constraint(c);
        out_ += ",";
        trailing(c.span.end);
        endLine();
      }
      --indent_;
      blockStart_ = false;
      startLine(false);
      return;
    }
    out_ += " ";
    for (size_t i = 0; i < where.size(); ++i) {
      if (i) out_ += ", ";
      constraint(where[i]);
    }
    out_ += " ";
  }

  void constraint(const Constraint& c) {
    int level = binaryOpPrecedence(c.relation);
    expr(c.lhs, level, false);
    out_ += fmt::format(" {} ", binaryOpSpelling(c.relation));
    expr(c.rhs, level + 1, true);
  }

  bool commentsBefore(uint32_t limit) const {
    return module_ && nextComment_ < module_->comments.size() &&
           module_->comments[nextComment_].span.begin < limit;
  }

  void openBlock() {
    endLine();
    ++indent_;
    blockStart_ = true;
  }

  // Comments left inside the block, then the closing brace at `end - 1`.
  void closeBlock(uint32_t end) {
    flushComments(end == 0 ? 0 : end - 1);
    --indent_;
    blockStart_ = false;
    out_.append(size_t(indent_) * 4, ' ');
    out_ += "}";
  }

  // `{ statements }` where `end` is just past the closing brace.
  void body(const std::vector<Stmt*>& stmts, uint32_t end) {
    if (stmts.empty() && !commentsBefore(end)) {
      out_ += "{}";
      return;
    }
    out_ += "{";
    openBlock();
    for (const Stmt* s : stmts) {
      if (!s) continue;
      lineStart(s->span.begin);
      stmt(*s);
      trailing(s->span.end);
      endLine();
    }
    closeBlock(end);
  }

  // ---- statements --------------------------------------------------------------

  void stmt(const Stmt& s) {
    switch (s.kind) {
      case StmtKind::Let: {
        auto& let = static_cast<const LetStmt&>(s);
        out_ += "let ";
        pattern(let.pattern);
        if (let.type) {
          out_ += ": ";
          type(let.type);
        }
        out_ += " = ";
        expr(let.value);
        return;
      }
      case StmtKind::LetComprehension: {
        auto& let = static_cast<const LetComprehensionStmt&>(s);
        out_ += "let " + let.name.name + "[";
        for (size_t i = 0; i < let.outputs.size(); ++i) {
          if (i) out_ += ", ";
          if (let.outputs[i].isPack) out_ += "*";
          out_ += let.outputs[i].name.name;
        }
        out_ += "] = ";
        expr(let.value);
        return;
      }
      case StmtKind::Var: {
        auto& var = static_cast<const VarStmt&>(s);
        out_ += "var " + var.name.name;
        if (var.type) {
          out_ += ": ";
          type(var.type);
        }
        out_ += " = ";
        expr(var.value);
        return;
      }
      case StmtKind::Assign: {
        auto& assign = static_cast<const AssignStmt&>(s);
        out_ += assign.target.name + " = ";
        expr(assign.value);
        return;
      }
      case StmtKind::Return: {
        auto& ret = static_cast<const ReturnStmt&>(s);
        out_ += "return";
        if (ret.value) {
          out_ += " ";
          expr(ret.value);
        }
        return;
      }
      case StmtKind::StaticFor: {
        auto& loop = static_cast<const StaticForStmt&>(s);
        out_ += "static for ";
        pattern(loop.pattern);
        out_ += " in ";
        if (loop.rangeEnd) {
          range(loop.iterable, loop.rangeEnd);
        } else {
          expr(loop.iterable);
        }
        out_ += " ";
        body(loop.body, s.span.end);
        return;
      }
      case StmtKind::While: {
        auto& loop = static_cast<const WhileStmt&>(s);
        out_ += "while ";
        expr(loop.condition);
        out_ += " ";
        body(loop.body, s.span.end);
        return;
      }
      case StmtKind::For: {
        auto& loop = static_cast<const ForStmt&>(s);
        out_ += "for " + loop.variable.name + " in ";
        range(loop.start, loop.end);
        out_ += " ";
        body(loop.body, s.span.end);
        return;
      }
      case StmtKind::Yield:
        out_ += "yield ";
        expr(static_cast<const YieldStmt&>(s).value);
        return;
      case StmtKind::KernelCall:
        expr(static_cast<const KernelCallStmt&>(s).call);
        return;
    }
  }

  // `A..B`: the start must not swallow the `..`, so only a reduction (whose
  // body would) needs parentheses there.
  void range(const Expr* start, const Expr* end) {
    expr(start, 0, false);
    out_ += "..";
    expr(end);
  }

  void pattern(const Pattern* p) {
    if (!p) return;
    switch (p->kind) {
      case PatternKind::Binding: out_ += p->name.name; return;
      case PatternKind::None: out_ += "none"; return;
      case PatternKind::Some:
        out_ += "some(";
        pattern(p->inner);
        out_ += ")";
        return;
      case PatternKind::Tuple:
        list("(", ")", p->elements.size(), firstBegin(p->elements),
             [&](size_t i) { pattern(p->elements[i]); },
             [&](size_t i) { return p->elements[i] ? p->elements[i]->span : Span{}; }, 2);
        if (p->elements.size() == 1) out_.insert(out_.size() - 1, ",");
        return;
    }
  }

  // ---- expressions -------------------------------------------------------------

  static bool needsParens(const Expr* e, int minimum, bool rightmost) {
    switch (e->kind) {
      case ExprKind::Binary:
        return binaryOpPrecedence(static_cast<const BinaryExpr*>(e)->op) < minimum;
      case ExprKind::Unary: return minimum > kUnaryLevel;
      case ExprKind::If:
      case ExprKind::Match: return minimum > 0;
      case ExprKind::Reduction: return minimum > 0 && !rightmost;
      case ExprKind::IntLiteral:
      case ExprKind::FloatLiteral:
      case ExprKind::StringLiteral:
      case ExprKind::BoolLiteral:
      case ExprKind::NoneLiteral:
      case ExprKind::Name:
      case ExprKind::Some:
      case ExprKind::Call:
      case ExprKind::Index:
      case ExprKind::Member:
      case ExprKind::Tuple:
      case ExprKind::ShapeLiteral:
      case ExprKind::Paren:
      case ExprKind::ForScan: return false;
    }
    return false;
  }

  void exprBody(const Expr* e, bool rightmost) {
    switch (e->kind) {
      case ExprKind::IntLiteral: {
        auto* literal = static_cast<const IntLiteralExpr*>(e);
        out_ += literal->spelling.empty() ? std::to_string(literal->value) : literal->spelling;
        return;
      }
      case ExprKind::FloatLiteral: {
        auto* literal = static_cast<const FloatLiteralExpr*>(e);
        out_ += literal->spelling.empty() ? floatSpelling(literal->value) : literal->spelling;
        return;
      }
      case ExprKind::StringLiteral: {
        auto* literal = static_cast<const StringLiteralExpr*>(e);
        out_ += literal->spelling.empty() ? escapeString(literal->value) : literal->spelling;
        return;
      }
      case ExprKind::BoolLiteral:
        out_ += static_cast<const BoolLiteralExpr*>(e)->value ? "true" : "false";
        return;
      case ExprKind::NoneLiteral: out_ += "none"; return;
      case ExprKind::Name: out_ += static_cast<const NameExpr*>(e)->name.name; return;
      case ExprKind::Some:
        out_ += "some(";
        expr(static_cast<const SomeExpr*>(e)->value);
        out_ += ")";
        return;
      case ExprKind::Unary: {
        auto* unary = static_cast<const UnaryExpr*>(e);
        out_ += unaryOpSpelling(unary->op);
        expr(unary->operand, kPostfixLevel, rightmost);
        return;
      }
      case ExprKind::Binary: {
        auto* binary = static_cast<const BinaryExpr*>(e);
        int level = binaryOpPrecedence(binary->op);
        expr(binary->lhs, level, false);
        out_ += fmt::format(" {} ", binaryOpSpelling(binary->op));
        expr(binary->rhs, level + 1, rightmost);
        return;
      }
      case ExprKind::Call: {
        auto* call = static_cast<const CallExpr*>(e);
        expr(call->callee, kPostfixLevel, false);
        if (call->hasGenericArgs) genericArgs(call->genericArgs);
        list("(", ")", call->args.size(), call->args.empty() ? kNone : call->args.front().span.begin,
             [&](size_t i) {
               const Argument& a = call->args[i];
               if (a.isNamed()) out_ += a.name.name + " = ";
               expr(a.value);
             },
             [&](size_t i) { return call->args[i].span; });
        return;
      }
      case ExprKind::Index: {
        auto* index = static_cast<const IndexExpr*>(e);
        expr(index->base, kPostfixLevel, false);
        list("[", "]", index->components.size(),
             index->components.empty() ? kNone : index->components.front().span.begin,
             [&](size_t i) { component(index->components[i]); },
             [&](size_t i) { return index->components[i].span; });
        return;
      }
      case ExprKind::Member: {
        auto* member = static_cast<const MemberExpr*>(e);
        expr(member->base, kPostfixLevel, false);
        out_ += "." + member->member.name;
        return;
      }
      case ExprKind::Tuple: {
        auto* tuple = static_cast<const TupleExpr*>(e);
        list("(", ")", tuple->elements.size(), firstBegin(tuple->elements),
             [&](size_t i) { expr(tuple->elements[i]); },
             [&](size_t i) { return tuple->elements[i] ? tuple->elements[i]->span : Span{}; }, 2);
        if (tuple->elements.size() == 1) out_.insert(out_.size() - 1, ",");
        return;
      }
      case ExprKind::ShapeLiteral: {
        auto* shape = static_cast<const ShapeLiteralExpr*>(e);
        list("[", "]", shape->elements.size(),
             shape->elements.empty() ? kNone : shape->elements.front().span.begin,
             [&](size_t i) { shapeElement(shape->elements[i]); },
             [&](size_t i) { return shape->elements[i].span; });
        return;
      }
      case ExprKind::Reduction: {
        auto* reduction = static_cast<const ReductionExpr*>(e);
        out_ += reductionKindName(reduction->reduction);
        if (reduction->accumulator) out_ += fmt::format("<{}>", scalarTypeName(*reduction->accumulator));
        out_ += "[";
        for (size_t i = 0; i < reduction->indices.size(); ++i) {
          if (i) out_ += ", ";
          out_ += reduction->indices[i].name;
        }
        out_ += "] ";
        expr(reduction->body, 0, rightmost);
        return;
      }
      case ExprKind::If: {
        auto* node = static_cast<const IfExpr*>(e);
        out_ += "if ";
        expr(node->condition);
        // Written across lines (the value below the `if`), it stays so.
        if (node->thenValue && onLaterLine(node->span.begin, node->thenValue->span.begin)) {
          out_ += " {";
          openBlock();
          lineStart(node->thenValue->span.begin);
          expr(node->thenValue);
          endLine();
          --indent_;
          startLine(false);
          out_ += "} else {";
          openBlock();
          if (node->elseValue) lineStart(node->elseValue->span.begin);
          expr(node->elseValue);
          endLine();
          closeBlock(e->span.end);
          return;
        }
        out_ += " { ";
        expr(node->thenValue);
        out_ += " } else { ";
        expr(node->elseValue);
        out_ += " }";
        return;
      }
      case ExprKind::Match: {
        auto* node = static_cast<const MatchExpr*>(e);
        out_ += "match ";
        expr(node->scrutinee);
        out_ += " {";
        openBlock();
        for (const MatchArm& arm : node->arms) {
          lineStart(arm.span.begin);
          pattern(arm.pattern);
          out_ += " => ";
          expr(arm.value);
          trailing(arm.span.end);
          endLine();
        }
        closeBlock(e->span.end);
        return;
      }
      case ExprKind::Paren:
        out_ += "(";
        expr(static_cast<const ParenExpr*>(e)->inner);
        out_ += ")";
        return;
      case ExprKind::ForScan: {
        auto* scan = static_cast<const ForScanExpr*>(e);
        out_ += "for " + scan->variable.name + " in ";
        range(scan->start, scan->end);
        out_ += " ";
        body(scan->body, e->span.end);
        return;
      }
    }
  }

  void component(const IndexComponent& c) {
    switch (c.kind) {
      case IndexComponentKind::Expr: expr(c.value); return;
      case IndexComponentKind::Ellipsis: out_ += "..."; return;
      case IndexComponentKind::Pack: out_ += "*" + c.pack.name; return;
      case IndexComponentKind::Slice:
        if (c.start) expr(c.start);
        out_ += ":";
        if (c.stop) expr(c.stop);
        if (c.hasStep) {
          out_ += ":";
          if (c.step) expr(c.step);
        }
        return;
    }
  }

  const SourceModule* module_;
  std::string out_;
  int indent_ = 0;
  size_t nextComment_ = 0;
  // At the start of a file or block, where no blank line is printed.
  bool blockStart_ = true;
};

}  // namespace

std::string printType(const TypeNode* type) {
  Printer printer(nullptr);
  printer.type(type);
  return printer.take();
}

std::string printExpr(const Expr* expr) {
  Printer printer(nullptr);
  printer.expr(expr);
  return printer.take();
}

std::string printGenericArg(const GenericArg& arg) {
  Printer printer(nullptr);
  printer.genericArg(arg);
  return printer.take();
}

std::string printGenericParams(const std::vector<GenericParam>& generics) {
  Printer printer(nullptr);
  printer.genericParams(generics);
  return printer.take();
}

std::string printSignature(const FunctionItem& function) {
  Printer printer(nullptr);
  printer.signature(function);
  return printer.take();
}

std::string printModule(const SourceModule& module) {
  Printer printer(&module);
  printer.module();
  return printer.take();
}

}  // namespace linnet::ast
