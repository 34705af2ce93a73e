// GraphBuilder: walks one function's AST with the checker's typed IR beside
// it and records the dataflow graph (Graph.h). Each function body is walked
// in a Frame: the names bound so far (parameters, `let`, `var`, assignments)
// map to the node producing their value, and a Substitution maps the frame's
// generics to the entry's, so that a type read inside an expanded callee
// (`Tensor[*S, H; T]` of Embedding.forward) prints in the entry's names
// (`T[B, S, H]`). The callee's block generics come from the receiver's block
// instance; its own generics are matched from the argument types. Runtime
// loops note which reads see a local's value from before the loop, so a local
// the loop reassigns also feeds those reads (a back edge).
// Assumes a checked program: where the checker left an expression untyped
// (Error, or no entry) the edge reads `?`; nothing here reports or aborts.
#include <algorithm>
#include <map>
#include <ostream>

#include "compiler/graph/Graph.h"

namespace linnet::graph {

namespace {

using check::Type;
using check::TypeKind;

// Block calls open no deeper than this many nested groups, and not while the
// walk is this many statements and expressions deep (each opened call walks
// the callee's body recursively; a function's own body is bounded by the
// parser's nesting limit).
constexpr int kMaxGroupDepth = 100;
constexpr int kMaxWalkDepth = 1000;

struct Frame;

struct Value {
  int node = -1;  // -1: nothing drawn produces it (a literal, a generic)
  Type type;      // in the entry's generics
  // Set when the value was read through a local name: loops use it to find
  // the reads that see the previous iteration's value (back edges).
  std::string name;
  const Frame* frame = nullptr;
};

// A runtime loop (`while`, `for`, a scan) being walked: the locals it has
// changed so far, with their values at its start, and the reads, inside it,
// of starting values. A local it has not changed still holds its start value
// in the frame, so nothing is copied when a loop begins (a copy of every
// local per loop made 8000 loops after 8000 locals take seconds).
struct LoopRecord {
  const Frame* frame = nullptr;
  std::map<std::string, int> changed;  // name -> node at the loop's start (-1: none)
  struct Use {
    std::string name;
    int to;
    Type type;
    std::string location;
  };
  std::vector<Use> uses;
};

struct Frame {
  const check::CheckedFunction* function = nullptr;
  const Module* module = nullptr;
  check::Substitution subst;
  std::map<std::string, Value> env;
  std::map<std::string, std::string> receivers;  // loop variable -> `layers[layer]`
  int group = 0;
  int depth = 0;
  Value returned;
};

class Builder {
 public:
  Builder(const check::CheckedProgram& checked, const SourceManager& sources, Graph& graph,
          int expand)
      : checked_(checked), sources_(sources), graph_(graph), expand_(expand) {}

  bool tooLarge() const { return tooLarge_; }

  void buildEntry(const ast::FunctionItem& entry, const check::Signature* signature) {
    Group root;
    root.label = entry.name.name;
    root.location = location(entry.name.span);
    graph_.groups.push_back(root);
    groupDepth_.push_back(0);
    Frame frame;
    frame.function = checked_.functionOf(&entry);
    frame.module = signature ? signature->module : nullptr;
    for (size_t i = 0; i < entry.params.size(); ++i) {
      const ast::Param& p = entry.params[i];
      Type type = signature && i < signature->params.size() ? signature->params[i] : Type();
      int id = addNode(0, NodeKind::Input, p.name.name, typeName(type), p.name.span);
      frame.env[p.name.name] = Value{id, type, {}, nullptr};
    }
    body(frame, entry.body);
  }

 private:
  const check::CheckedProgram& checked_;
  const SourceManager& sources_;
  Graph& graph_;
  int expand_;
  int seq_ = 0;
  int resultNode_ = -1;
  std::vector<LoopRecord> loops_;
  std::vector<int> groupDepth_;  // nesting of each group, the entry's 0
  int walkDepth_ = 0;            // statements and expressions being walked
  bool tooLarge_ = false;        // kMaxGraphElements passed: the walk stops

  // Counts the statements and expressions being walked, so that opening one
  // more block call never deepens the recursion past what the stack holds.
  struct Walking {
    explicit Walking(int& depth) : depth_(depth) { ++depth_; }
    ~Walking() { --depth_; }
    int& depth_;
  };

  void noteSize() {
    if (graph_.nodes.size() + graph_.edges.size() + graph_.groups.size() > kMaxGraphElements)
      tooLarge_ = true;
  }

  std::string location(Span span) const {
    if (!span.valid()) return "";
    const SourceFile& file = sources_.file(span.file);
    LineColumn lc = file.lineColumn(span.begin);
    return file.path() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.column);
  }

  // Source text on one line, for labels of index expressions and loops.
  std::string text(Span span, size_t limit = 40) const {
    if (!span.valid()) return "";
    std::string out;
    bool space = false;
    for (char c : sources_.text(span)) {
      if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += c;
      if (out.size() > limit) break;  // enough to shorten: the rest is not read
    }
    if (out.size() > limit) out = out.substr(0, limit - 3) + "...";
    return out;
  }

  std::string spanText(const ast::Expr* e) const { return e ? text(e->span) : std::string(); }

  static std::string typeName(const Type& t) { return t.isError() ? "?" : check::str(t); }
  static std::string edgeType(const Type& t) {
    return t.isError() || check::containsError(t) ? "?" : check::compactStr(t);
  }

  Type typeIn(const Frame& f, const ast::Expr* e) const {
    if (!e) return Type();
    const Type* t = f.function ? f.function->typeOf(e) : nullptr;
    if (!t) t = checked_.typeOf(e);
    if (!t) return Type();
    return f.subst.empty() ? *t : check::instantiate(*t, f.subst);
  }

  int addNode(int group, NodeKind kind, std::string label, std::string detail, Span span) {
    Node n;
    n.id = static_cast<int>(graph_.nodes.size());
    n.group = group;
    n.seq = seq_++;
    n.kind = kind;
    n.label = std::move(label);
    n.detail = std::move(detail);
    n.location = location(span);
    graph_.nodes.push_back(std::move(n));
    noteSize();
    return graph_.nodes.back().id;
  }

  int addGroup(int parent, GroupKind kind, std::string label, std::string detail, Span span) {
    Group g;
    g.id = static_cast<int>(graph_.groups.size());
    g.parent = parent;
    g.seq = seq_++;
    g.kind = kind;
    g.label = std::move(label);
    g.detail = std::move(detail);
    g.location = location(span);
    graph_.groups.push_back(std::move(g));
    groupDepth_.push_back(groupDepth_[parent] + 1);
    noteSize();
    return graph_.groups.back().id;
  }

  void connect(const Value& v, int to, Span at) {
    if (v.node < 0 || to < 0) return;
    graph_.edges.push_back(Edge{v.node, to, edgeType(v.type), v.type, location(at)});
    noteSize();
    if (v.name.empty()) return;
    for (LoopRecord& loop : loops_) {
      if (loop.frame != v.frame) continue;
      int start = startNode(loop, *v.frame, v.name);
      if (start >= 0 && start == v.node)
        loop.uses.push_back(LoopRecord::Use{v.name, to, v.type, location(at)});
    }
  }

  static int currentNode(const Frame& f, const std::string& name) {
    auto it = f.env.find(name);
    return it == f.env.end() ? -1 : it->second.node;
  }

  // The node `name` held when `loop` began.
  static int startNode(const LoopRecord& loop, const Frame& f, const std::string& name) {
    auto it = loop.changed.find(name);
    return it != loop.changed.end() ? it->second : currentNode(f, name);
  }

  // Every change of a local goes through here, so that the loops walking
  // the frame keep its start value.
  void setLocal(Frame& f, const std::string& name, const Value& v) {
    noteChange(f, name);
    f.env[name] = v;
  }

  void eraseLocal(Frame& f, const std::string& name) {
    noteChange(f, name);
    f.env.erase(name);
  }

  void noteChange(const Frame& f, const std::string& name) {
    for (LoopRecord& loop : loops_)
      if (loop.frame == &f && !loop.changed.count(name)) loop.changed[name] = currentNode(f, name);
  }

  void beginLoop(const Frame& f) {
    LoopRecord loop;
    loop.frame = &f;
    loops_.push_back(std::move(loop));
  }

  // A local reassigned in the loop feeds the next iteration's reads of it.
  void endLoop(const Frame& f) {
    LoopRecord loop = std::move(loops_.back());
    loops_.pop_back();
    for (const LoopRecord::Use& use : loop.uses) {
      int now = currentNode(f, use.name);
      if (now < 0 || now == startNode(loop, f, use.name)) continue;
      Edge e{now, use.to, edgeType(use.type), use.type, use.location};
      e.back = true;
      graph_.edges.push_back(std::move(e));
      noteSize();
    }
  }

  // ------------------------------------------------------------ statements

  void body(Frame& f, const std::vector<ast::Stmt*>& stmts) {
    for (const ast::Stmt* s : stmts) {
      if (tooLarge_) return;
      statement(f, s);
    }
  }

  void bindPattern(Frame& f, const ast::Pattern* p, const Value& v) {
    if (!p) return;
    if (p->kind == ast::PatternKind::Binding) setLocal(f, p->name.name, v);
    for (const ast::Pattern* e : p->elements) bindPattern(f, e, Value{v.node, Type(), {}, nullptr});
    if (p->inner) bindPattern(f, p->inner, Value{v.node, Type(), {}, nullptr});
  }

  void statement(Frame& f, const ast::Stmt* s) {
    Walking walking(walkDepth_);
    if (auto* let = ast::as<ast::LetStmt>(s)) {
      bindPattern(f, let->pattern, eval(f, let->value));
    } else if (auto* var = ast::as<ast::VarStmt>(s)) {
      Value v = eval(f, var->value);
      Type declared = typeIn(f, var->value);
      bool literal = ast::isa<ast::IntLiteralExpr>(var->value) ||
                     ast::isa<ast::FloatLiteralExpr>(var->value) ||
                     ast::isa<ast::BoolLiteralExpr>(var->value);
      if (v.node < 0 && (literal || declared.isTensor())) {
        // A loop counter or accumulator started from a literal: draw its start
        // so that the loop's uses of it have a source.
        v.node = addNode(f.group, NodeKind::Value, var->name.name + " = " + text(var->value->span),
                         "", s->span);
        v.type = declared;
      }
      setLocal(f, var->name.name, v);
    } else if (auto* assign = ast::as<ast::AssignStmt>(s)) {
      Value v = eval(f, assign->value);
      if (f.env.count(assign->target.name)) {
        setLocal(f, assign->target.name, v);
      } else {
        // Not a local: a `state` member written (the only other mutation).
        int id = addNode(f.group, NodeKind::State, assign->target.name, "", s->span);
        connect(v, id, s->span);
      }
    } else if (auto* comp = ast::as<ast::LetComprehensionStmt>(s)) {
      std::string label = comp->name.name + "[";
      for (size_t i = 0; i < comp->outputs.size(); ++i)
        label += (i ? ", " : "") + std::string(comp->outputs[i].isPack ? "*" : "") +
                 comp->outputs[i].name.name;
      label += "]";
      int id = addNode(f.group, NodeKind::Value, label, "index notation", s->span);
      connectFree(f, comp->value, id);
      setLocal(f, comp->name.name, Value{id, Type(), {}, nullptr});
    } else if (auto* ret = ast::as<ast::ReturnStmt>(s)) {
      Value v = ret->value ? eval(f, ret->value) : Value{};
      if (f.depth > 0) {
        f.returned = v;
        return;
      }
      if (resultNode_ < 0) {
        const check::Signature* sig = f.function ? f.function->signature : nullptr;
        resultNode_ = addNode(0, NodeKind::Output, "result", sig ? typeName(sig->result) : "?",
                              s->span);
      }
      connect(v, resultNode_, s->span);
    } else if (auto* loop = ast::as<ast::StaticForStmt>(s)) {
      staticFor(f, *loop);
    } else if (auto* loop = ast::as<ast::WhileStmt>(s)) {
      int g = addGroup(f.group, GroupKind::Loop, "while " + spanText(loop->condition), "",
                       s->span);
      int outer = f.group;
      f.group = g;
      beginLoop(f);
      eval(f, loop->condition);
      body(f, loop->body);
      endLoop(f);
      f.group = outer;
    } else if (auto* loop = ast::as<ast::ForStmt>(s)) {
      counted(f, loop->variable, loop->start, loop->end, loop->body, s->span, nullptr);
    } else if (auto* y = ast::as<ast::YieldStmt>(s)) {
      f.returned = eval(f, y->value);
    } else if (auto* k = ast::as<ast::KernelCallStmt>(s)) {
      eval(f, k->call);
    }
  }

  void staticFor(Frame& f, const ast::StaticForStmt& loop) {
    std::string variable = loop.pattern && loop.pattern->kind == ast::PatternKind::Binding
                               ? loop.pattern->name.name
                               : text(loop.pattern ? loop.pattern->span : Span{});
    std::string label = "for " + variable + " in " + spanText(loop.iterable);
    if (loop.rangeEnd) label += ".." + spanText(loop.rangeEnd);
    int g = addGroup(f.group, GroupKind::Loop, label, "", loop.span);
    int outer = f.group;
    f.group = g;
    // Over a block array the variable is a receiver: `layers[layer].forward`.
    std::string saved = f.receivers.count(variable) ? f.receivers[variable] : "";
    if (!loop.rangeEnd && loop.iterable) f.receivers[variable] = receiverText(f, loop.iterable) + "[" + variable + "]";
    eraseLocal(f, variable);
    body(f, loop.body);
    if (saved.empty()) f.receivers.erase(variable);
    else f.receivers[variable] = saved;
    f.group = outer;
  }

  Value counted(Frame& f, const ast::Ident& variable, const ast::Expr* start,
                const ast::Expr* end, const std::vector<ast::Stmt*>& stmts, Span span,
                const ast::Expr* scan) {
    std::string label = "for " + variable.name + " in " + spanText(start) + ".." + spanText(end);
    int g = addGroup(f.group, GroupKind::Loop, label, scan ? "scan" : "", span);
    int outer = f.group;
    f.group = g;
    eraseLocal(f, variable.name);
    Value saved = f.returned;
    f.returned = Value{};
    beginLoop(f);
    body(f, stmts);
    endLoop(f);
    Value yielded = f.returned;
    f.returned = saved;
    f.group = outer;
    if (scan) yielded.type = typeIn(f, scan);
    return yielded;
  }

  // ----------------------------------------------------------- expressions

  std::string receiverText(const Frame& f, const ast::Expr* e) const {
    if (auto* name = ast::as<ast::NameExpr>(e)) {
      auto it = f.receivers.find(name->name.name);
      if (it != f.receivers.end()) return it->second;
    }
    return text(e->span, 60);
  }

  // Edges from every drawn value a sub-expression names (index notation and
  // reductions are one node each: their bodies are per-element arithmetic).
  void connectFree(Frame& f, const ast::Expr* e, int to) {
    std::vector<const ast::Expr*> names;
    collectNames(e, names);
    std::vector<int> seen;
    for (const ast::Expr* n : names) {
      auto it = f.env.find(ast::as<ast::NameExpr>(n)->name.name);
      if (it == f.env.end() || it->second.node < 0) continue;
      if (std::find(seen.begin(), seen.end(), it->second.node) != seen.end()) continue;
      seen.push_back(it->second.node);
      connect(Value{it->second.node, typeIn(f, n), it->first, &f}, to, n->span);
    }
  }

  static void collectNames(const ast::Expr* e, std::vector<const ast::Expr*>& out) {
    if (!e) return;
    switch (e->kind) {
      case ast::ExprKind::Name: out.push_back(e); break;
      case ast::ExprKind::Some: collectNames(ast::as<ast::SomeExpr>(e)->value, out); break;
      case ast::ExprKind::Unary: collectNames(ast::as<ast::UnaryExpr>(e)->operand, out); break;
      case ast::ExprKind::Binary: {
        auto* b = ast::as<ast::BinaryExpr>(e);
        collectNames(b->lhs, out);
        collectNames(b->rhs, out);
        break;
      }
      case ast::ExprKind::Call: {
        auto* c = ast::as<ast::CallExpr>(e);
        if (!ast::isa<ast::NameExpr>(c->callee)) collectNames(c->callee, out);
        for (const ast::Argument& a : c->args) collectNames(a.value, out);
        break;
      }
      case ast::ExprKind::Index: {
        auto* i = ast::as<ast::IndexExpr>(e);
        collectNames(i->base, out);
        for (const ast::IndexComponent& c : i->components) {
          collectNames(c.value, out);
          collectNames(c.start, out);
          collectNames(c.stop, out);
          collectNames(c.step, out);
        }
        break;
      }
      case ast::ExprKind::Member: collectNames(ast::as<ast::MemberExpr>(e)->base, out); break;
      case ast::ExprKind::Tuple:
        for (const ast::Expr* x : ast::as<ast::TupleExpr>(e)->elements) collectNames(x, out);
        break;
      case ast::ExprKind::Reduction: collectNames(ast::as<ast::ReductionExpr>(e)->body, out); break;
      case ast::ExprKind::If: {
        auto* i = ast::as<ast::IfExpr>(e);
        collectNames(i->condition, out);
        collectNames(i->thenValue, out);
        collectNames(i->elseValue, out);
        break;
      }
      case ast::ExprKind::Match: {
        auto* m = ast::as<ast::MatchExpr>(e);
        collectNames(m->scrutinee, out);
        for (const ast::MatchArm& a : m->arms) collectNames(a.value, out);
        break;
      }
      case ast::ExprKind::Paren: collectNames(ast::as<ast::ParenExpr>(e)->inner, out); break;
      default: break;
    }
  }

  Value node(Frame& f, const ast::Expr* e, NodeKind kind, std::string label, std::string detail,
             const std::vector<const ast::Expr*>& inputs) {
    std::vector<Value> values;
    for (const ast::Expr* in : inputs) values.push_back(eval(f, in));
    int id = addNode(f.group, kind, std::move(label), std::move(detail), e->span);
    for (size_t i = 0; i < values.size(); ++i) connect(values[i], id, inputs[i]->span);
    return Value{id, typeIn(f, e), {}, nullptr};
  }

  Value eval(Frame& f, const ast::Expr* e) {
    if (!e) return Value{};
    Walking walking(walkDepth_);
    switch (e->kind) {
      case ast::ExprKind::Name: {
        auto it = f.env.find(ast::as<ast::NameExpr>(e)->name.name);
        if (it == f.env.end()) return Value{};  // a generic, a member, a constant
        return Value{it->second.node, typeIn(f, e), it->first, &f};
      }
      case ast::ExprKind::Paren: return eval(f, ast::as<ast::ParenExpr>(e)->inner);
      case ast::ExprKind::Some: {
        Value v = eval(f, ast::as<ast::SomeExpr>(e)->value);
        v.type = typeIn(f, e);
        return v;
      }
      case ast::ExprKind::Unary: {
        // Compile-time arithmetic (`S - 1`, `2 * Inner`) is a dimension, not dataflow.
        if (typeIn(f, e).isUntypedNumber()) return Value{};
        auto* u = ast::as<ast::UnaryExpr>(e);
        return node(f, e, NodeKind::Operator, std::string(ast::unaryOpSpelling(u->op)), "",
                    {u->operand});
      }
      case ast::ExprKind::Binary: {
        if (typeIn(f, e).isUntypedNumber()) return Value{};
        auto* b = ast::as<ast::BinaryExpr>(e);
        return node(f, e, NodeKind::Operator, std::string(ast::binaryOpSpelling(b->op)), "",
                    {b->lhs, b->rhs});
      }
      case ast::ExprKind::Call: return call(f, *ast::as<ast::CallExpr>(e));
      case ast::ExprKind::Index: {
        auto* ix = ast::as<ast::IndexExpr>(e);
        std::vector<const ast::Expr*> inputs{ix->base};
        for (const ast::IndexComponent& c : ix->components)
          for (const ast::Expr* x : {c.value, c.start, c.stop, c.step})
            if (x) inputs.push_back(x);
        return node(f, e, NodeKind::Value, text(e->span), "index", inputs);
      }
      case ast::ExprKind::Member: {
        auto* m = ast::as<ast::MemberExpr>(e);
        if (!f.env.count(text(m->base->span))) return Value{};  // a member or module path
        return node(f, e, NodeKind::Value, "." + m->member.name, "", {m->base});
      }
      case ast::ExprKind::Tuple: {
        auto* t = ast::as<ast::TupleExpr>(e);
        std::vector<const ast::Expr*> inputs(t->elements.begin(), t->elements.end());
        return node(f, e, NodeKind::Value, "tuple", "", inputs);
      }
      case ast::ExprKind::Reduction: {
        auto* r = ast::as<ast::ReductionExpr>(e);
        std::string label = std::string(ast::reductionKindName(r->reduction)) + "[";
        for (size_t i = 0; i < r->indices.size(); ++i)
          label += (i ? ", " : "") + r->indices[i].name;
        label += "]";
        int id = addNode(f.group, NodeKind::Value, label, "reduction", e->span);
        connectFree(f, r->body, id);
        return Value{id, typeIn(f, e), {}, nullptr};
      }
      case ast::ExprKind::If: {
        auto* i = ast::as<ast::IfExpr>(e);
        return node(f, e, NodeKind::Value, "if", "", {i->condition, i->thenValue, i->elseValue});
      }
      case ast::ExprKind::Match: {
        auto* m = ast::as<ast::MatchExpr>(e);
        Value scrutinee = eval(f, m->scrutinee);
        std::vector<Value> arms;
        for (const ast::MatchArm& a : m->arms) {
          bindPattern(f, a.pattern, Value{scrutinee.node, Type(), {}, nullptr});
          arms.push_back(eval(f, a.value));
        }
        int id = addNode(f.group, NodeKind::Value, "match", "", e->span);
        connect(scrutinee, id, m->scrutinee->span);
        for (size_t i = 0; i < arms.size(); ++i) connect(arms[i], id, m->arms[i].value->span);
        return Value{id, typeIn(f, e), {}, nullptr};
      }
      case ast::ExprKind::ForScan: {
        auto* s = ast::as<ast::ForScanExpr>(e);
        return counted(f, s->variable, s->start, s->end, s->body, e->span, e);
      }
      default: return Value{};  // literals, `none`, shape literals: constants, not drawn
    }
  }

  // A call: a block method (closed node, or a group holding the callee's
  // body), an op/fn, or a prelude function.
  Value call(Frame& f, const ast::CallExpr& c) {
    std::vector<Value> args;
    for (const ast::Argument& a : c.args) args.push_back(eval(f, a.value));
    Type calleeType = typeIn(f, c.callee);
    const ast::FunctionItem* target =
        calleeType.kind() == TypeKind::Function ? calleeType.functionItem() : nullptr;
    const check::Signature* signature = target ? checked_.signatureOf(target) : nullptr;

    std::string label = text(c.callee->span, 60);
    std::string detail;
    NodeKind kind = NodeKind::Call;
    bool method = false;           // a block's method: expandable
    check::Substitution subst;     // the callee's generics in the entry's
    if (auto* m = ast::as<ast::MemberExpr>(c.callee)) {
      Type base = typeIn(f, m->base);
      if (base.kind() == TypeKind::Block && base.blockInstance()) {
        method = true;
        label = receiverText(f, m->base) + "." + m->member.name;
        detail = check::str(*base.blockInstance());
        subst = base.blockInstance()->args;
      }
    } else if (target && signature && signature->owner && ast::isa<ast::NameExpr>(c.callee)) {
      // A method of the caller's own block called by its bare name.
      method = target->function == ast::FunctionKind::Fn;
      if (method) detail = signature->owner->name.name;
      subst = f.subst;
    }
    if (!method && target && signature && signature->module) detail = signature->module->name;
    if (!target && calleeType.kind() == TypeKind::Function) detail = "prelude";
    if (method) kind = NodeKind::Block;

    const check::CheckedFunction* callee = target ? checked_.functionOf(target) : nullptr;
    Type result = typeIn(f, &c);
    // A call is opened up to --expand levels deep, while the groups nest less
    // than kMaxGroupDepth and the walk is shallow enough for the stack; past
    // that it stays closed (a chain of thousands of blocks at --expand 10000
    // overflowed the stack).
    bool open = f.depth < expand_ && groupDepth_[f.group] < kMaxGroupDepth &&
                walkDepth_ < kMaxWalkDepth && !tooLarge_;
    if (method && callee && open && !target->body.empty()) {
      int g = addGroup(f.group, GroupKind::BlockCall, label, detail, c.span);
      Frame inner;
      inner.function = callee;
      inner.module = signature->module;
      inner.group = g;
      inner.depth = f.depth + 1;
      inner.subst = std::move(subst);
      bindParams(c, *signature, args, inner);
      body(inner, target->body);
      Value v = inner.returned;
      v.type = result;
      return v;
    }
    int id = addNode(f.group, kind, label, detail, c.span);
    for (size_t i = 0; i < args.size(); ++i) connect(args[i], id, c.args[i].value->span);
    return Value{id, result, {}, nullptr};
  }

  // The callee's parameters take the caller's argument values; its own
  // generics are matched from their (entry-level) types.
  void bindParams(const ast::CallExpr& c, const check::Signature& sig,
                  const std::vector<Value>& args, Frame& inner) {
    const auto& params = sig.item->params;
    size_t positional = 0;
    for (size_t i = 0; i < c.args.size(); ++i) {
      size_t index = params.size();
      if (c.args[i].isNamed()) {
        for (size_t p = 0; p < params.size(); ++p)
          if (params[p].name.name == c.args[i].name.name) index = p;
      } else {
        index = positional++;
      }
      if (index >= params.size()) continue;
      if (index < sig.params.size()) match(sig.params[index], args[i].type, sig, inner.subst);
      inner.env[params[index].name.name] = args[i];
    }
  }

  static const ast::GenericParam* genericOf(const check::Signature& sig, shape::SymbolId id) {
    for (const ast::GenericParam* g : sig.generics)
      if (check::symbolIdOf(*g) == id) return g;
    return nullptr;
  }

  static void matchDim(const shape::DimExpr& p, const shape::DimExpr& a,
                       const check::Signature& sig, check::Substitution& s) {
    for (const ast::GenericParam* g : sig.generics) {
      if (g->isPack || g->constraint != ast::GenericKind::Dim) continue;
      shape::SymbolId id = check::symbolIdOf(*g);
      if (s.shapes.dims.count(id)) continue;
      if (p == check::dimSymbol(*g)) s.shapes.dims[id] = a;
    }
  }

  static void match(const Type& param, const Type& arg, const check::Signature& sig,
                    check::Substitution& s) {
    if (param.kind() == TypeKind::Optional && arg.kind() == TypeKind::Optional)
      return match(param.optionalInner(), arg.optionalInner(), sig, s);
    if (param.kind() == TypeKind::Optional) return match(param.optionalInner(), arg, sig, s);
    if (param.kind() == TypeKind::Tuple && arg.kind() == TypeKind::Tuple) {
      for (size_t i = 0; i < param.elements().size() && i < arg.elements().size(); ++i)
        match(param.elements()[i], arg.elements()[i], sig, s);
      return;
    }
    if (!param.isTensor() || !arg.isTensor()) return;
    if (param.dtype().isGeneric() && !s.dtypes.count(param.dtype().generic))
      s.dtypes[param.dtype().generic] = arg.dtype();
    const shape::Shape& ps = param.shape();
    const shape::Shape& as = arg.shape();
    size_t pack = ps.size();
    for (size_t i = 0; i < ps.size(); ++i)
      if (std::holds_alternative<shape::Pack>(ps[i])) pack = i;
    if (pack == ps.size()) {
      if (ps.size() != as.size()) return;
      for (size_t i = 0; i < ps.size(); ++i)
        if (std::holds_alternative<shape::DimExpr>(as[i]))
          matchDim(std::get<shape::DimExpr>(ps[i]), std::get<shape::DimExpr>(as[i]), sig, s);
      return;
    }
    size_t suffix = ps.size() - pack - 1;
    if (as.size() < pack + suffix) return;
    for (size_t i = 0; i < pack; ++i)
      if (std::holds_alternative<shape::DimExpr>(ps[i]) &&
          std::holds_alternative<shape::DimExpr>(as[i]))
        matchDim(std::get<shape::DimExpr>(ps[i]), std::get<shape::DimExpr>(as[i]), sig, s);
    for (size_t i = 0; i < suffix; ++i) {
      const auto& pd = ps[ps.size() - 1 - i];
      const auto& ad = as[as.size() - 1 - i];
      if (std::holds_alternative<shape::DimExpr>(pd) && std::holds_alternative<shape::DimExpr>(ad))
        matchDim(std::get<shape::DimExpr>(pd), std::get<shape::DimExpr>(ad), sig, s);
    }
    shape::SymbolId id = std::get<shape::Pack>(ps[pack]).id;
    if (genericOf(sig, id) && !s.shapes.packs.count(id))
      s.shapes.packs[id] = shape::Shape(as.begin() + pack, as.end() - suffix);
  }
};

// Every function of the root modules, entries of blocks first.
std::vector<const ast::FunctionItem*> candidates(const Program& program) {
  std::vector<const ast::FunctionItem*> entries, others;
  for (const Module* m : program.rootModules()) {
    if (!m || !m->ast) continue;
    for (const ast::Item* item : m->ast->items) {
      if (auto* fn = ast::as<ast::FunctionItem>(item)) {
        (fn->function == ast::FunctionKind::Entry ? entries : others).push_back(fn);
      } else if (auto* block = ast::as<ast::BlockItem>(item)) {
        for (const ast::Item* inner : block->body)
          if (auto* fn = ast::as<ast::FunctionItem>(inner))
            (fn->function == ast::FunctionKind::Entry ? entries : others).push_back(fn);
      }
    }
  }
  entries.insert(entries.end(), others.begin(), others.end());
  return entries;
}

// The values beside an edge's tensor type: the bound dtype and each dim that
// evaluates as a number; a dim that does not (it names an unbound generic,
// `B`) stays as written, its bound generics substituted. `bf16[1, 7, 3072]`,
// or `bf16[B, S, 128]` when only `H` is bound; "" when that reads as the type
// itself (no generic of it is bound), or for anything but a tensor.
std::string boundText(const Type& t, const shape::Values& values,
                      const std::map<const ast::GenericParam*, ast::ScalarType>& dtypes) {
  if (!t.isTensor() || check::containsError(t)) return "";
  std::string out = t.dtype().str();
  if (t.dtype().isGeneric()) {
    auto it = dtypes.find(t.dtype().generic);
    if (it != dtypes.end()) out = ast::scalarTypeName(it->second);
  }
  if (!t.shape().empty()) {
    shape::Bindings known;  // the bound dims, for those that do not evaluate
    for (const auto& [id, value] : values.dims) known.dims[id] = shape::DimExpr::constant(value);
    out += "[";
    for (size_t i = 0; i < t.shape().size(); ++i) {
      const shape::ShapeDim& dim = t.shape()[i];
      std::string text = shape::str(dim);
      if (const auto* expr = std::get_if<shape::DimExpr>(&dim)) {
        shape::Evaluation e = shape::evaluate(*expr, values);
        text = e ? std::to_string(*e.value) : shape::instantiate(*expr, known).str();
      }
      out += (i ? ", " : "") + text;
    }
    out += "]";
  }
  return out == check::compactStr(t) ? "" : out;
}

// Applies the bound values to the edges: `fixed` (a checkpoint's values for
// the entry's block generics) first, then --bind NAME=VALUE over them; false
// with an error for a name that is no generic of the entry or a value that
// does not fit its kind.
bool bindValues(const check::Signature* sig, const std::map<const ast::GenericParam*, GenericValue>& fixed,
                const std::vector<std::string>& binds, Graph& graph, std::ostream& err) {
  shape::Values values;
  std::map<const ast::GenericParam*, ast::ScalarType> dtypes;
  std::vector<const ast::GenericParam*> generics;
  if (sig) generics = sig->generics;
  // Dtype defaults (`T: Float = bf16`) hold unless bound.
  for (const ast::GenericParam* g : generics)
    if (g->defaultValue && g->defaultValue->type)
      if (auto* scalar = ast::as<ast::ScalarTypeNode>(g->defaultValue->type))
        dtypes[g] = scalar->scalar;
  for (const ast::GenericParam* g : generics) {
    auto it = fixed.find(g);
    if (it == fixed.end() || g->isPack) continue;
    if (it->second.dim && g->constraint == ast::GenericKind::Dim)
      values.dims[check::symbolIdOf(*g)] = *it->second.dim;
    if (it->second.dtype && g->constraint != ast::GenericKind::Dim) dtypes[g] = *it->second.dtype;
  }
  for (const std::string& bind : binds) {
    size_t eq = bind.find('=');
    std::string name = bind.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : bind.substr(eq + 1);
    const ast::GenericParam* generic = nullptr;
    for (const ast::GenericParam* g : generics)
      if (g->name.name == name) generic = g;
    if (!generic || generic->isPack) {
      err << "linnet: error: --bind " << bind << ": `" << name << "` is no dim or dtype generic of `"
          << graph.entry << "`\n";
      return false;
    }
    if (generic->constraint == ast::GenericKind::Dim) {
      bool digits = !value.empty() && value.size() < 18 &&
                    std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) {
        err << "linnet: error: --bind " << bind << ": `" << name << "` takes a non-negative integer\n";
        return false;
      }
      values.dims[check::symbolIdOf(*generic)] = std::stoll(value);
    } else {
      std::optional<ast::ScalarType> scalar = ast::scalarTypeFromName(value);
      if (!scalar) {
        err << "linnet: error: --bind " << bind << ": `" << name << "` takes a dtype\n";
        return false;
      }
      dtypes[generic] = *scalar;
    }
  }
  for (Edge& e : graph.edges) {
    std::string bound = boundText(e.value, values, dtypes);
    if (!bound.empty()) e.type += " = " + bound;
  }
  return true;
}

}  // namespace

bool buildGraph(const Program& program, const check::CheckedProgram& checked,
                const SourceManager& sources, const GraphOptions& options, Graph& graph,
                std::ostream& err) {
  std::vector<const ast::FunctionItem*> all = candidates(program);
  const ast::FunctionItem* entry = nullptr;
  for (const ast::FunctionItem* fn : all)
    if (fn->name.name == options.entry && fn->kind == ast::ItemKind::Function && !fn->body.empty()) {
      entry = fn;
      break;
    }
  if (!entry) {
    err << "linnet: error: no entry `" << options.entry << "` to draw; entries:";
    bool any = false;
    for (const ast::FunctionItem* fn : all)
      if (fn->function == ast::FunctionKind::Entry) {
        err << " " << fn->name.name;
        any = true;
      }
    if (!any) err << " (none)";
    err << "\n";
    return false;
  }
  const check::Signature* signature = checked.signatureOf(entry);
  graph.entry = entry->name.name;
  if (signature && signature->owner) graph.entry = signature->owner->name.name + "." + graph.entry;
  if (signature && signature->module) graph.entry = signature->module->name + "." + graph.entry;
  graph.expand = options.expand;
  if (options.valuesBlock && (!signature || signature->owner != options.valuesBlock)) {
    err << "linnet: error: --checkpoint binds the generics of `" << options.valuesBlockName
        << "`; `" << graph.entry << "` is not one of its functions\n";
    return false;
  }
  Builder builder(checked, sources, graph, options.expand);
  builder.buildEntry(*entry, signature);
  if (builder.tooLarge()) {
    err << "linnet: error: the graph of `" << graph.entry << "` is too large to draw (more than "
        << kMaxGraphElements << " nodes, edges and groups at --expand " << options.expand << ")";
    if (options.expand > 0) err << "; draw fewer levels with a smaller --expand";
    err << "\n";
    return false;
  }
  if (options.binds.empty() && options.values.empty()) return true;
  return bindValues(signature, options.values, options.binds, graph, err);
}

}  // namespace linnet::graph
