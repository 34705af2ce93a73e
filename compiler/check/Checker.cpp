// The checker's entry point: indexes which module and block declares each
// item, checks every block (members, sub-block `where` proofs) and every
// function of every cleanly parsed module, then reports recursion (E2119)
// from the call edges the bodies recorded.
#include "compiler/check/Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>

#include "compiler/check/CheckerImpl.h"
#include "compiler/parse/ASTPrinter.h"
#include "compiler/parse/ASTWalk.h"

namespace linnet::check {

const Type* CheckedProgram::typeOf(const ast::Expr* e) const {
  for (const auto& [item, function] : functions_)
    if (const Type* t = function->typeOf(e)) return t;
  return nullptr;
}

namespace {

void indexItems(const Module& m, const std::vector<ast::Item*>& items, const ast::BlockItem* owner,
                std::unordered_map<const ast::Item*, const Module*>& modules,
                std::unordered_map<const ast::Item*, const ast::BlockItem*>& owners) {
  for (const ast::Item* item : items) {
    modules[item] = &m;
    if (owner) owners[item] = owner;
    if (auto* b = ast::as<ast::BlockItem>(item)) indexItems(m, b->body, b, modules, owners);
  }
}

// A reference from a const, alias or struct to another one (E2122).
struct DefinitionEdge {
  const ast::Item* to;
  Span at;
};

bool isDefinition(const ast::Item* item) {
  return item && (item->kind == ast::ItemKind::Const || item->kind == ast::ItemKind::TypeAlias ||
                  item->kind == ast::ItemKind::Struct);
}

// The consts, aliases and structs an expression or written type mentions.
struct DefinitionRefs {
  const Module& module;
  std::vector<DefinitionEdge>& out;

  void symbol(const Symbol* s, Span at) {
    if (s && s->kind == SymbolKind::Item && isDefinition(s->item)) out.push_back({s->item, at});
  }
  void expr(const ast::Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ast::ExprKind::Name: {
        auto* n = static_cast<const ast::NameExpr*>(e);
        symbol(module.symbolOf(n->name), n->name.span);
        return;
      }
      case ast::ExprKind::Member: {
        auto* m = static_cast<const ast::MemberExpr*>(e);
        expr(m->base);
        symbol(module.symbolOf(m->member), m->member.span);
        return;
      }
      case ast::ExprKind::Some: expr(static_cast<const ast::SomeExpr*>(e)->value); return;
      case ast::ExprKind::Unary: expr(static_cast<const ast::UnaryExpr*>(e)->operand); return;
      case ast::ExprKind::Binary: {
        auto* b = static_cast<const ast::BinaryExpr*>(e);
        expr(b->lhs);
        expr(b->rhs);
        return;
      }
      case ast::ExprKind::Paren: expr(static_cast<const ast::ParenExpr*>(e)->inner); return;
      case ast::ExprKind::Tuple:
        for (const ast::Expr* x : static_cast<const ast::TupleExpr*>(e)->elements) expr(x);
        return;
      case ast::ExprKind::Call: {
        auto* c = static_cast<const ast::CallExpr*>(e);
        expr(c->callee);
        for (const ast::GenericArg& g : c->genericArgs) {
          type(g.type);
          expr(g.expr);
        }
        for (const ast::Argument& a : c->args) expr(a.value);
        return;
      }
      case ast::ExprKind::If: {
        auto* i = static_cast<const ast::IfExpr*>(e);
        expr(i->condition);
        expr(i->thenValue);
        expr(i->elseValue);
        return;
      }
      default:
        // Other forms do not occur in const values the checker reads; a
        // missed reference only means a cycle is not reported here.
        return;
    }
  }
  void type(const ast::TypeNode* t) {
    if (auto* named = ast::as<ast::NamedTypeNode>(t)) {
      ResolvedItem item = resolveTypeName(module, *named);
      if (isDefinition(item.item) && !named->path.empty())
        out.push_back({item.item, named->path.back().span});
    }
    ast::forEachChild(t, [&](const ast::Expr* e) { expr(e); },
                      [&](const ast::TypeNode* x) { type(x); });
  }
};

// W1002: the locals a body declares and the ones it reads, found
// syntactically (independent of how much the checker types).
struct LocalUses {
  const Module& module;
  std::vector<const ast::Ident*> declared;
  std::set<SpanKey> used;
  std::set<const ast::Item*> usedMembers;  // block members read or assigned (W1003)

  void declare(const ast::Ident& name) {
    // Declaring identifiers have no symbol; a bare match-arm name that
    // names an enum variant has one and declares nothing.
    const Symbol* s = module.symbolOf(name);
    if (!s || (s->kind == SymbolKind::Local && s->declSpan.begin == name.span.begin))
      declared.push_back(&name);
  }
  void pattern(const ast::Pattern* p) {
    if (!p) return;
    if (p->kind == ast::PatternKind::Binding) declare(p->name);
    for (const ast::Pattern* e : p->elements) pattern(e);
    pattern(p->inner);
  }
  // A written type reads the locals its dimensions name (`Tensor[k; f32]`),
  // as does a generic argument that is one (`mk<k>()`).
  void type(const ast::TypeNode* t) {
    if (auto* named = ast::as<ast::NamedTypeNode>(t); named && named->path.size() == 1) {
      const Symbol* s = module.symbolOf(named->path[0]);
      if (s && s->kind == SymbolKind::Local) used.insert(keyOf(s->declSpan));
    }
    ast::forEachChild(t, [&](const ast::Expr* e) { expr(e); },
                      [&](const ast::TypeNode* x) { type(x); });
  }
  void expr(const ast::Expr* e) {
    if (!e) return;
    switch (e->kind) {
      case ast::ExprKind::Name: {
        const Symbol* s = module.symbolOf(static_cast<const ast::NameExpr*>(e)->name);
        if (s && s->kind == SymbolKind::Local) used.insert(keyOf(s->declSpan));
        if (s && s->kind == SymbolKind::Member) usedMembers.insert(s->item);
        break;
      }
      case ast::ExprKind::Call:
        for (const ast::GenericArg& g : static_cast<const ast::CallExpr*>(e)->genericArgs)
          type(g.type);
        break;
      case ast::ExprKind::Match:
        for (const ast::MatchArm& arm : static_cast<const ast::MatchExpr*>(e)->arms)
          pattern(arm.pattern);
        break;
      case ast::ExprKind::ForScan:
        declare(static_cast<const ast::ForScanExpr*>(e)->variable);
        break;
      case ast::ExprKind::IntLiteral:
      case ast::ExprKind::FloatLiteral:
      case ast::ExprKind::StringLiteral:
      case ast::ExprKind::BoolLiteral:
      case ast::ExprKind::NoneLiteral:
      case ast::ExprKind::Some:
      case ast::ExprKind::Unary:
      case ast::ExprKind::Binary:
      case ast::ExprKind::Index:
      case ast::ExprKind::Member:
      case ast::ExprKind::Tuple:
      case ast::ExprKind::ShapeLiteral:
      case ast::ExprKind::Reduction:
      case ast::ExprKind::If:
      case ast::ExprKind::Paren:
        break;
    }
    ast::forEachChild(e, [&](const ast::Expr* child) { expr(child); });
    ast::forEachChildStmt(e, [&](const ast::Stmt* child) { stmt(child); });
  }
  void stmts(const std::vector<ast::Stmt*>& body) {
    for (const ast::Stmt* s : body) stmt(s);
  }
  void stmt(const ast::Stmt* s) {
    switch (s->kind) {
      case ast::StmtKind::Let: {
        auto* let = static_cast<const ast::LetStmt*>(s);
        pattern(let->pattern);
        type(let->type);
        expr(let->value);
        return;
      }
      case ast::StmtKind::LetComprehension: {
        auto* let = static_cast<const ast::LetComprehensionStmt*>(s);
        declare(let->name);
        expr(let->value);
        return;
      }
      case ast::StmtKind::Var: {
        auto* var = static_cast<const ast::VarStmt*>(s);
        declare(var->name);
        type(var->type);
        expr(var->value);
        return;
      }
      case ast::StmtKind::Assign: {
        auto* assign = static_cast<const ast::AssignStmt*>(s);
        // Writing a `state` member is an effect: it counts as a use.
        const Symbol* target = module.symbolOf(assign->target);
        if (target && target->kind == SymbolKind::Member) usedMembers.insert(target->item);
        expr(assign->value);
        return;
      }
      case ast::StmtKind::Return: expr(static_cast<const ast::ReturnStmt*>(s)->value); return;
      case ast::StmtKind::StaticFor: {
        auto* loop = static_cast<const ast::StaticForStmt*>(s);
        expr(loop->iterable);
        expr(loop->rangeEnd);
        pattern(loop->pattern);
        stmts(loop->body);
        return;
      }
      case ast::StmtKind::While: {
        auto* loop = static_cast<const ast::WhileStmt*>(s);
        expr(loop->condition);
        stmts(loop->body);
        return;
      }
      case ast::StmtKind::For: {
        auto* loop = static_cast<const ast::ForStmt*>(s);
        expr(loop->start);
        expr(loop->end);
        declare(loop->variable);
        stmts(loop->body);
        return;
      }
      case ast::StmtKind::Yield: expr(static_cast<const ast::YieldStmt*>(s)->value); return;
      case ast::StmtKind::KernelCall: expr(static_cast<const ast::KernelCallStmt*>(s)->call); return;
    }
  }
};

}  // namespace

void Checker::reportUnusedLocals(const ast::FunctionItem& f, const Module& m) {
  LocalUses uses{m, {}, {}, {}};
  uses.stmts(f.body);
  if (f.grad) uses.stmts(f.grad->body);
  for (const ast::Ident* name : uses.declared) {
    if (name->name.empty() || name->name[0] == '_' || uses.used.count(keyOf(name->span))) continue;
    diagnostics_.emit(DiagnosticKind::UnusedLocal, name->span, name->name)
        .label("never read")
        .help(fmt::format("remove it, or name it `_{}`", name->name));
  }
}

// W1006: a reduction declaring an index that an enclosing reduction or the
// comprehension already declares. A reduction reaches to the end of its
// expression (spec: reductions are at the `expr` level), so `sum[k] a[k] *
// b[k, j] + sum[k] h[k] * u[k, j]` is one sum over the other, the second `k`
// a new index hiding the first: valid, and read as two sums by anyone who
// has not met the rule (a spec sweep wrote exactly this for an RNN cell).
void Checker::reportShadowedIndices(const ast::FunctionItem& f) {
  std::map<std::string, std::pair<Span, bool>> enclosing;  // name -> (declared at, a comprehension output)
  std::function<void(const ast::Stmt*)> stmt;
  std::function<void(const ast::Expr*)> expr = [&](const ast::Expr* e) {
    if (!e) return;
    auto* r = ast::as<ast::ReductionExpr>(e);
    if (!r) {
      ast::forEachChild(e, expr);
      ast::forEachChildStmt(e, stmt);  // a scan's body
      return;
    }
    auto saved = enclosing;
    for (const ast::Ident& i : r->indices) {
      auto outer = enclosing.find(i.name);
      if (outer != enclosing.end() && !i.name.empty() && i.name[0] != '_') {
        auto d = diagnostics_.emit(DiagnosticKind::ShadowedIndex, i.span, i.name);
        d.label(fmt::format("declares a new `{}`", i.name)).secondary(outer->second.first, "the enclosing one");
        if (outer->second.second)  // a comprehension's output
          d.help(fmt::format("rename the reduction's `{}`", i.name));
        else
          d.note("a reduction reaches to the end of its expression: `sum[k] a[k] + sum[k] b[k]` is one sum "
                 "over the other")
              .help(fmt::format("parenthesize the reduction before it, `(sum[{0}] ...) + ...`, or rename `{0}`",
                                i.name));
      }
      enclosing[i.name] = {i.span, false};
    }
    expr(r->body);
    enclosing = saved;
  };
  stmt = [&](const ast::Stmt* s) {
    std::map<std::string, std::pair<Span, bool>> saved;
    saved.swap(enclosing);
    if (auto* c = ast::as<ast::LetComprehensionStmt>(s))
      for (const ast::IndexOutput& o : c->outputs) enclosing[o.name.name] = {o.name.span, true};
    ast::forEachChild(s, expr);
    enclosing.clear();
    ast::forEachChildStmt(s, stmt);
    enclosing.swap(saved);
  };
  for (const ast::Stmt* s : f.body) stmt(s);
  if (f.grad)
    for (const ast::Stmt* s : f.grad->body) stmt(s);
}

void Checker::reportUnusedMembers(const ast::BlockItem& b, const Module& m) {
  LocalUses uses{m, {}, {}, {}};
  for (const ast::Item* item : b.body) {
    if (auto* f = ast::as<ast::FunctionItem>(item)) {
      for (const ast::Param& p : f->params) uses.expr(p.defaultValue);
      uses.stmts(f->body);
      if (f->grad) uses.stmts(f->grad->body);
    } else if (auto* member = ast::as<ast::MemberItem>(item)) {
      uses.expr(member->initializer);
    }
  }
  for (const ast::Item* item : b.body) {
    auto* member = ast::as<ast::MemberItem>(item);
    if (!member || member->name.name.empty() || member->name.name[0] == '_' ||
        uses.usedMembers.count(member) || readThroughPath_.count(member))
      continue;
    std::string_view kind = ast::memberKindKeyword(member->member);
    diagnostics_.emit(DiagnosticKind::UnusedMember, member->name.span, kind, member->name.name)
        .label(fmt::format("no method of `{}` uses it, nor does any path to it", b.name.name))
        .help(fmt::format("remove it, or name it `_{}`", member->name.name));
  }
}

void Checker::reportCyclicDefinitions(const std::vector<const Module*>& modules) {
  std::map<const ast::Item*, std::vector<DefinitionEdge>> edges;
  std::vector<const ast::Item*> order;
  for (const Module* m : modules) {
    for (const ast::Item* item : m->ast->items) {
      if (!isDefinition(item)) continue;
      order.push_back(item);
      DefinitionRefs refs{*m, edges[item]};
      if (auto* c = ast::as<ast::ConstItem>(item)) {
        refs.type(c->type);
        refs.expr(c->value);
      } else if (auto* a = ast::as<ast::TypeAliasItem>(item)) {
        refs.type(a->type);
      } else if (auto* st = ast::as<ast::StructItem>(item)) {
        for (const ast::Field& f : st->fields) refs.type(f.type);
      }
    }
  }
  // Which items may lie on a cycle: those of a strongly connected component
  // of more than one item, or with an edge to themselves (Tarjan's
  // algorithm, iterative). A search back to each item from each of its
  // edges was quadratic (a chain of 30000 constants: 55 s), and recursive.
  std::map<const ast::Item*, size_t> index, low;
  std::set<const ast::Item*> onStack, mayCycle;
  std::vector<const ast::Item*> stack;
  for (const ast::Item* root : order) {
    if (index.count(root)) continue;
    std::vector<std::pair<const ast::Item*, size_t>> work;  // (item, next edge)
    auto visit = [&](const ast::Item* v) {
      index[v] = low[v] = index.size();
      stack.push_back(v);
      onStack.insert(v);
      work.push_back({v, 0});
    };
    visit(root);
    while (!work.empty()) {
      const ast::Item* v = work.back().first;
      const std::vector<DefinitionEdge>& out = edges[v];
      if (size_t i = work.back().second++; i < out.size()) {
        const ast::Item* w = out[i].to;
        if (!index.count(w)) visit(w);
        else if (onStack.count(w)) low[v] = std::min(low[v], index[w]);
        continue;
      }
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[v]);
      if (low[v] != index[v]) continue;
      std::vector<const ast::Item*> component;
      do {
        component.push_back(stack.back());
        onStack.erase(stack.back());
        stack.pop_back();
      } while (component.back() != v);
      bool selfEdge = std::any_of(out.begin(), out.end(), [&](const DefinitionEdge& e) { return e.to == v; });
      if (component.size() > 1 || selfEdge) mayCycle.insert(component.begin(), component.end());
    }
  }
  // A path from `from` (the last of `trail`) back to `to` through items
  // that may lie on a cycle, as the items visited after `from`.
  auto path = [&](const ast::Item* from, const ast::Item* to, std::vector<const ast::Item*>& trail) {
    std::set<const ast::Item*> seen{from};
    std::vector<std::pair<const ast::Item*, size_t>> work{{from, 0}};
    while (!work.empty()) {
      const std::vector<DefinitionEdge>& out = edges[work.back().first];
      size_t i = work.back().second++;
      if (i == out.size()) {
        work.pop_back();
        if (!work.empty()) trail.pop_back();
        continue;
      }
      const ast::Item* w = out[i].to;
      if (w == to) return true;
      if (!mayCycle.count(w) || !seen.insert(w).second) continue;
      trail.push_back(w);
      work.push_back({w, 0});
    }
    return false;
  };
  for (const ast::Item* item : order) {
    if (cyclic_.count(item) || !mayCycle.count(item)) continue;
    for (const DefinitionEdge& first : edges[item]) {
      std::vector<const ast::Item*> trail{first.to};
      if (first.to != item && (!mayCycle.count(first.to) || !path(first.to, item, trail))) continue;
      if (first.to == item) trail.clear();
      cyclic_.insert(item);
      for (const ast::Item* x : trail) cyclic_.insert(x);
      auto d = diagnostics_.emit(DiagnosticKind::CyclicDefinition, first.at, item->name.name);
      if (trail.empty()) {
        d.label(fmt::format("`{}` refers to itself here", item->name.name));
      } else {
        std::string chain = fmt::format("`{}` refers to ", item->name.name);
        for (const ast::Item* x : trail) chain += fmt::format("`{}`, which refers to ", x->name.name);
        d.label(fmt::format("{}`{}`", chain, item->name.name));
      }
      d.secondary(item->name.span, fmt::format("`{}` is declared here", item->name.name))
          .help("a const, type alias or struct cannot be defined in terms of itself");
      break;
    }
  }
  // How many definitions deep each one is (0: it names none): checking one
  // checks what it names first, recursively, so a chain of 2000 constants
  // each naming the next overflowed the stack. Past kMaxDefinitionDepth a
  // definition is refused, reported where the chain first passes the bound
  // (what refers to it is refused with it, unreported: its type is an
  // error).
  std::map<const ast::Item*, size_t> depth;
  for (const ast::Item* root : order) {
    if (depth.count(root) || cyclic_.count(root)) continue;
    std::vector<std::pair<const ast::Item*, size_t>> work{{root, 0}};
    std::set<const ast::Item*> open{root};
    while (!work.empty()) {
      const ast::Item* v = work.back().first;
      const std::vector<DefinitionEdge>& out = edges[v];
      if (size_t i = work.back().second++; i < out.size()) {
        const ast::Item* w = out[i].to;
        if (!depth.count(w) && !cyclic_.count(w) && open.insert(w).second) work.push_back({w, 0});
        continue;
      }
      work.pop_back();
      size_t d = 0;
      for (const DefinitionEdge& e : out)
        if (auto it = depth.find(e.to); it != depth.end()) d = std::max(d, it->second + 1);
      depth[v] = d;
      if (d <= kMaxDefinitionDepth) continue;
      if (d == kMaxDefinitionDepth + 1)
        diagnostics_.emit(DiagnosticKind::DefinitionTooDeep, v->name.span, v->name.name, kMaxDefinitionDepth)
            .label("checking it checks each definition it names first, and theirs")
            .help("define it with fewer steps, or give the value directly");
      cyclic_.insert(v);
    }
  }
}

void Checker::checkConst(const ast::ConstItem& c) {
  if (const Module* m = moduleOf(c)) constType(c, *m);
}

Type Checker::constType(const ast::ConstItem& c, const Module& m) {
  if (!c.value || cyclic_.count(&c)) return Type::error();  // E2122
  auto [known, first] = constTypes_.try_emplace(&c, Type::error());
  if (!first) return known->second;  // Error while being typed: only a cycle (E2122) gets there
  FunctionScope scope;
  scope.module = &m;
  FunctionScope* saved = scope_;
  NotationScope* savedNotation = notation_;
  KernelState* savedKernel = kernel_;
  scope_ = &scope;
  notation_ = nullptr;
  kernel_ = nullptr;
  Type t;
  Span at = c.value->span;
  if (c.type) {
    checkTypeSize(m, c.type);  // resolveType below reports nothing
    reportNonDimensions(m, c.type);
    Type declared = resolveType(m, c.type, nullptr);
    Type value = checkExpr(c.value, &declared);
    requireType(value, declared, c.value->span, c.type->span, "type declared here", c.value);
    t = declared;
    at = c.type->span;
  } else if (auto d = dimOf(m, c.value); d && !d->overflowed()) {
    t = Type::compileInt(*d);
  } else {
    // Not a compile-time integer, or one whose folding overflows: checking
    // the expression reports the overflow where it happens (E2105), as for
    // a typed const or a `let`.
    t = checkExpr(c.value);
  }
  // A const holds a value: `none` needs its optional type written, and
  // `()`, blocks, functions and modules are none.
  if (t.kind() == TypeKind::None) {
    diagnostics_.emit(DiagnosticKind::NoneNeedsContext, c.value->span)
        .label("the optional type of this `none` is unknown")
        .help("annotate the constant: `const C: Tensor[...; T]? = none`");
    t = Type::error();
  } else if (t.kind() == TypeKind::Unit || t.kind() == TypeKind::Block ||
             t.kind() == TypeKind::BlockArray || t.kind() == TypeKind::Function ||
             t.kind() == TypeKind::Module) {
    diagnostics_.emit(DiagnosticKind::ConstTypeUnsupported, at, str(t))
        .label(fmt::format("this is `{}`", str(t)))
        .help("a constant holds a value: a number, a tensor, a tuple, a struct or an enum value");
    t = Type::error();
  }
  scope_ = saved;
  notation_ = savedNotation;
  kernel_ = savedKernel;
  constTypes_[&c] = t;
  return t;
}

void Checker::run() {
  std::vector<const Module*> modules;
  for (const auto& m : program_.modules()) {
    if (m->hasParseErrors || !m->ast) continue;
    modules.push_back(m.get());
    indexItems(*m, m->ast->items, nullptr, itemModule_, itemOwner_);
  }
  std::function<void(const std::vector<ast::Item*>&)> checkItems =
      [&](const std::vector<ast::Item*>& items) {
        for (const ast::Item* item : items) {
          switch (item->kind) {
            case ast::ItemKind::Function:
              checkFunction(*static_cast<const ast::FunctionItem*>(item));
              break;
            case ast::ItemKind::Block: {
              auto* b = static_cast<const ast::BlockItem*>(item);
              block(*b);
              checkItems(b->body);
              break;
            }
            case ast::ItemKind::Const:
              checkConst(*static_cast<const ast::ConstItem*>(item));
              break;
            case ast::ItemKind::TypeAlias:
              if (const Module* m = moduleOf(*item); m && !cyclic_.count(item)) {
                auto* alias = static_cast<const ast::TypeAliasItem*>(item);
                checkGenericDefaults(*m, alias->generics, alias->name.name);
                checkDimDefaults(*m, alias->generics, alias->name.name);
                reportNonDimensions(*m, alias->type);
                aliasParts(*m, *alias);  // E2190 even for an alias nothing uses
              }
              break;
            case ast::ItemKind::Struct:
              if (const Module* m = moduleOf(*item); m && !cyclic_.count(item)) {
                auto* st = static_cast<const ast::StructItem*>(item);
                checkGenericDefaults(*m, st->generics, st->name.name);
                checkDimDefaults(*m, st->generics, st->name.name);
                std::vector<Type> fields;
                for (const ast::Field& field : st->fields) {
                  reportNonDimensions(*m, field.type);
                  checkTypeSize(*m, field.type);
                  fields.push_back(resolveType(*m, field.type, nullptr));
                }
                out_.structFields_[st] = std::move(fields);
                structLeaves(*m, *st);  // E2190 even for a struct nothing uses
              }
              break;
            case ast::ItemKind::Enum:
              if (const Module* m = moduleOf(*item)) {
                auto* en = static_cast<const ast::EnumItem*>(item);
                checkGenericDefaults(*m, en->generics, en->name.name);
                checkDimDefaults(*m, en->generics, en->name.name);
              }
              break;
            case ast::ItemKind::Member:
              // Members are typed with their block.
              break;
          }
        }
      };
  reportCyclicDefinitions(modules);
  for (const Module* m : modules) checkItems(m->ast->items);
  reportRecursion();
  // The Error type means "reported": a program without errors holding one
  // would check clean with a type nothing knows (and agree with anything).
  if (unexplainedError_ && !diagnostics_.hasErrors())
    diagnostics_.emit(DiagnosticKind::UnknownType, unexplainedError_->span,
                      ast::printExpr(unexplainedError_))
        .label("the type of this expression is unknown")
        .help("this is a limit of the checker; rewrite the expression");
  // Lints only for programs without errors (spec §12).
  if ((!options_.unusedLocals && !options_.unusedMembers) || diagnostics_.hasErrors()) return;
  // W1004 goes with the other lints. A body checked twice records its arms
  // twice: one warning per arm.
  std::set<std::pair<FileId, uint32_t>> reportedArms;
  for (const UnreachableArm& arm : unreachableArms_) {
    if (!reportedArms.insert({arm.at.file, arm.at.begin}).second) continue;
    auto d = diagnostics_.emit(DiagnosticKind::UnreachableArm, arm.at);
    d.label(arm.label);
    if (arm.earlier) d.secondary(arm.earlier->first, arm.earlier->second);
    if (!arm.note.empty()) d.note(arm.note);
    d.help("remove this arm");
  }
  std::set<std::pair<FileId, uint32_t>> reportedStmts;
  for (const auto& [at, ret] : unreachableStmts_) {
    if (!reportedStmts.insert({at.file, at.begin}).second) continue;
    diagnostics_.emit(DiagnosticKind::UnreachableStatement, at)
        .label("never runs")
        .secondary(ret, "the body returns here")
        .help("remove the statements after the `return`");
  }
  std::function<void(const Module&, const std::vector<ast::Item*>&)> lintItems =
      [&](const Module& m, const std::vector<ast::Item*>& items) {
        for (const ast::Item* item : items) {
          if (auto* f = ast::as<ast::FunctionItem>(item)) {
            if (options_.unusedLocals) {
              reportUnusedLocals(*f, m);
              reportShadowedIndices(*f);
            }
          } else if (auto* b = ast::as<ast::BlockItem>(item)) {
            if (options_.unusedMembers) reportUnusedMembers(*b, m);
            lintItems(m, b->body);
          }
        }
      };
  for (const Module* m : modules) lintItems(*m, m->ast->items);
}

void Checker::reportRecursion() {
  // A call closes a cycle when its caller and callee are in one strongly
  // connected component of the call graph (Tarjan's algorithm, iterative:
  // a chain of thousands of functions neither recurses deeply nor searches
  // the graph again for every call).
  std::unordered_map<const ast::FunctionItem*, std::vector<const ast::FunctionItem*>> edges;
  std::vector<const ast::FunctionItem*> functions;
  for (const CallEdge& e : calls_) {
    for (const ast::FunctionItem* f : {e.caller, e.callee})
      if (edges.try_emplace(f).second) functions.push_back(f);
    edges[e.caller].push_back(e.callee);
  }
  struct Visit {
    int index = -1;
    int low = 0;
    bool onStack = false;
  };
  std::unordered_map<const ast::FunctionItem*, Visit> visits;
  std::unordered_map<const ast::FunctionItem*, int> component;
  std::vector<const ast::FunctionItem*> stack;
  int counter = 0;
  int components = 0;
  for (const ast::FunctionItem* root : functions) {
    if (visits[root].index >= 0) continue;
    std::vector<std::pair<const ast::FunctionItem*, size_t>> work{{root, 0}};
    visits[root] = Visit{counter, counter, true};
    ++counter;
    stack.push_back(root);
    while (!work.empty()) {
      auto& [f, next] = work.back();
      const std::vector<const ast::FunctionItem*>& callees = edges[f];
      if (next < callees.size()) {
        const ast::FunctionItem* callee = callees[next++];
        Visit& v = visits[callee];
        if (v.index < 0) {
          v = Visit{counter, counter, true};
          ++counter;
          stack.push_back(callee);
          work.emplace_back(callee, 0);
        } else if (v.onStack) {
          visits[f].low = std::min(visits[f].low, v.index);
        }
        continue;
      }
      const ast::FunctionItem* done = f;
      work.pop_back();
      Visit& v = visits[done];
      if (!work.empty()) visits[work.back().first].low = std::min(visits[work.back().first].low, v.low);
      if (v.low != v.index) continue;
      const ast::FunctionItem* member = nullptr;
      do {
        member = stack.back();
        stack.pop_back();
        visits[member].onStack = false;
        component[member] = components;
      } while (member != done);
      ++components;
    }
  }
  // One report per cycle: at the first call (in checking order) that closes it.
  std::set<int> reported;
  for (const CallEdge& e : calls_) {
    int cycle = component[e.caller];
    if (reported.count(cycle) || component[e.callee] != cycle) continue;
    auto d = diagnostics_.emit(DiagnosticKind::Recursion, e.span, e.callee->name.name);
    if (e.callee == e.caller) {
      d.label(fmt::format("`{}` calls itself", e.caller->name.name));
    } else {
      d.label(fmt::format("`{}` calls `{}`, which calls `{}` again", e.caller->name.name,
                          e.callee->name.name, e.caller->name.name));
    }
    d.secondary(e.callee->name.span, "declared here")
        .help("Linnet forbids recursion; unroll it with `static for` or loop with `while`");
    reported.insert(cycle);
  }
}

CheckedProgram checkProgram(const Program& program, DiagnosticEmitter& diagnostics) {
  return checkProgram(program, diagnostics, CheckOptions{});
}

CheckedProgram checkProgram(const Program& program, DiagnosticEmitter& diagnostics,
                            const CheckOptions& options) {
  CheckedProgram out;
  Checker checker(program, diagnostics, out);
  checker.options_ = options;
  checker.run();
  return out;
}

}  // namespace linnet::check
