// The checker's entry point: indexes which module and block declares each
// item, checks every block (members, sub-block `where` proofs) and every
// function of every cleanly parsed module, then reports recursion (E2119)
// from the call edges the bodies recorded.
#include "compiler/check/Checker.h"

#include <fmt/format.h>

#include <functional>

#include "compiler/check/CheckerImpl.h"

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

}  // namespace

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
            case ast::ItemKind::TypeAlias:
            case ast::ItemKind::Struct:
            case ast::ItemKind::Enum:
            case ast::ItemKind::Member:
              // Members are typed with their block; consts, aliases, structs
              // and enums are not checked yet (docs/checker.md).
              break;
          }
        }
      };
  for (const Module* m : modules) checkItems(m->ast->items);
  reportRecursion();
}

void Checker::reportRecursion() {
  std::unordered_map<const ast::FunctionItem*, std::vector<const ast::FunctionItem*>> edges;
  for (const CallEdge& e : calls_) edges[e.caller].push_back(e.callee);
  auto reaches = [&](const ast::FunctionItem* from, const ast::FunctionItem* to) {
    std::set<const ast::FunctionItem*> seen;
    std::vector<const ast::FunctionItem*> work{from};
    while (!work.empty()) {
      const ast::FunctionItem* f = work.back();
      work.pop_back();
      if (f == to) return true;
      if (!seen.insert(f).second) continue;
      for (const ast::FunctionItem* next : edges[f]) work.push_back(next);
    }
    return false;
  };
  // One report per cycle: at the first call (in checking order) that closes it.
  std::set<const ast::FunctionItem*> reported;
  for (const CallEdge& e : calls_) {
    if (reported.count(e.caller) || !reaches(e.callee, e.caller)) continue;
    auto d = diagnostics_.emit(DiagnosticKind::Recursion, e.span, e.callee->name.name);
    if (e.callee == e.caller) {
      d.label(fmt::format("`{}` calls itself", e.caller->name.name));
    } else {
      d.label(fmt::format("`{}` calls `{}`, which calls `{}` again", e.caller->name.name,
                          e.callee->name.name, e.caller->name.name));
    }
    d.secondary(e.callee->name.span, "declared here")
        .help("Linnet forbids recursion; unroll it with `static for` or loop with `while`");
    for (const auto& [caller, callees] : edges)
      if (reaches(caller, e.caller) && reaches(e.caller, caller)) reported.insert(caller);
    reported.insert(e.caller);
  }
}

CheckedProgram checkProgram(const Program& program, DiagnosticEmitter& diagnostics) {
  CheckedProgram out;
  Checker checker(program, diagnostics, out);
  checker.run();
  return out;
}

}  // namespace linnet::check
