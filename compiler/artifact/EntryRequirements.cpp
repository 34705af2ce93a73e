// EntryRequirements: see EntryRequirements.h.
#include "compiler/artifact/EntryRequirements.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>
#include <unordered_set>

#include "compiler/check/Type.h"
#include "compiler/shape/Facts.h"

namespace linnet::artifact {

namespace {

// Calls followed below one entry, at most: a program's call tree is small,
// but a bound keeps a pathological one from exploding.
constexpr size_t kMaxVisits = 100000;
constexpr size_t kMaxDepth = 64;

class Collector {
 public:
  // `root` is the entry's block, null for a module-level entry.
  Collector(const check::CheckedProgram& program, const ast::BlockItem* root, const ast::FunctionItem& entry,
            const bind::GenericBindings& generics, const SourceManager& sources)
      : program_(program), sources_(sources) {
    for (const ast::GenericParam& g : entry.generics)
      if (!g.isPack && g.constraint == ast::GenericKind::Dim) entryDims_.insert(check::symbolIdOf(g));
    if (!root) return;
    for (const ast::GenericParam& g : root->generics) {
      if (g.isPack || g.constraint != ast::GenericKind::Dim) continue;
      auto it = generics.find(g.name.name);
      if (it == generics.end() || !it->second.dim) continue;
      rootDims_.insert(check::symbolIdOf(g));
      rootValues_.dims[check::symbolIdOf(g)] = *it->second.dim;
    }
  }

  void run(const ast::FunctionItem& entry, std::vector<DimRequirement>& out, size_t& omitted) {
    out_ = &out;
    omitted_ = &omitted;
    const check::CheckedFunction* checked = program_.functionOf(&entry);
    if (checked && checked->signature)
      for (const check::WhereClause& c : checked->signature->where) add(c.lhs, c.relation, c.rhs, "`where` clause");
    std::vector<const ast::FunctionItem*> stack;
    visit(entry, shape::Bindings{}, /*callee=*/false, stack);
  }

 private:
  std::string location(Span span) const {
    if (!span.valid()) return "";
    const SourceFile& file = sources_.file(span.file);
    LineColumn lc = file.lineColumn(span.begin);
    return std::filesystem::path(file.path()).filename().string() + ":" + std::to_string(lc.line) + ":" +
           std::to_string(lc.column);
  }

  // The requirements of `fn` (in its generics) and of what it calls, mapped
  // into the entry's generics by `into`.
  void visit(const ast::FunctionItem& fn, const shape::Bindings& into, bool callee,
             std::vector<const ast::FunctionItem*>& stack) {
    if (++visits_ > kMaxVisits || stack.size() >= kMaxDepth ||
        std::find(stack.begin(), stack.end(), &fn) != stack.end()) {
      ++*omitted_;  // a recursive call, or past the bounds: not followed
      return;
    }
    const check::CheckedFunction* checked = program_.functionOf(&fn);
    if (!checked) return;
    stack.push_back(&fn);
    for (const check::WhereClause& c : checked->requirements) {
      std::string index = c.span.valid() ? std::string(sources_.text(c.span)) : std::string();
      std::string why = index.empty() || index.size() > 64 ? std::string(c.what)
                                                           : fmt::format("{} `{}`", c.what, index);
      if (callee) why += " in `" + fn.name.name + "`";
      if (std::string at = location(c.span); !at.empty()) why += " at " + at;
      add(shape::instantiate(c.lhs, into), c.relation, shape::instantiate(c.rhs, into), why);
    }
    // Calls in source order, so the manifest does not depend on hashing.
    std::vector<std::pair<const ast::CallExpr*, const check::CallBinding*>> calls;
    for (const auto& [call, binding] : checked->calls) calls.push_back({call, &binding});
    std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) {
      return std::tie(a.first->span.file, a.first->span.begin, a.first->span.end) <
             std::tie(b.first->span.file, b.first->span.begin, b.first->span.end);
    });
    for (const auto& [call, binding] : calls) {
      if (!binding->callee) continue;
      shape::Bindings composed;
      for (const auto& [id, d] : binding->subst.shapes.dims) composed.dims[id] = shape::instantiate(d, into);
      for (const auto& [id, s] : binding->subst.shapes.packs) composed.packs[id] = shape::instantiate(s, into);
      visit(*binding->callee, composed, /*callee=*/true, stack);
    }
    stack.pop_back();
  }

  // Whether the manifest can spell `e`: symbols of the entry's dims and the
  // root's Dim generics, sums, products, `/`, `%`, `min` and `max`.
  bool expressible(const shape::DimExpr& e, bool& namesEntryDim) const {
    if (e.overflowed()) return false;
    std::vector<shape::Atom> atoms;
    e.collectAtoms(atoms);
    for (const shape::Atom& a : atoms) {
      switch (a.kind()) {
        case shape::AtomKind::Symbol:
          if (entryDims_.count(a.id())) namesEntryDim = true;
          else if (!rootDims_.count(a.id())) return false;
          break;
        case shape::AtomKind::Quotient:
        case shape::AtomKind::FloorDiv:
        case shape::AtomKind::Mod:
        case shape::AtomKind::Min:
        case shape::AtomKind::Max:
          break;
        default:
          return false;
      }
    }
    return true;
  }

  void add(const shape::DimExpr& lhs, shape::Relation relation, const shape::DimExpr& rhs, std::string why) {
    bool namesEntryDim = false;
    if (!expressible(lhs, namesEntryDim) || !expressible(rhs, namesEntryDim)) {
      ++*omitted_;
      return;
    }
    if (!namesEntryDim) {
      // Only bound generics: decided now. One that holds needs no check; one
      // that fails (or cannot be evaluated) goes in, and every call fails it.
      shape::Evaluation l = shape::evaluate(lhs, rootValues_), r = shape::evaluate(rhs, rootValues_);
      if (l && r && shape::holds(relation, *l.value, *r.value)) return;
    }
    DimRequirement requirement{lhs.str(), std::string(shape::spelling(relation)), rhs.str(), std::move(why)};
    if (!seen_.insert(requirement.lhs + " " + requirement.relation + " " + requirement.rhs).second) return;
    out_->push_back(std::move(requirement));
  }

  const check::CheckedProgram& program_;
  const SourceManager& sources_;
  std::unordered_set<shape::SymbolId> entryDims_, rootDims_;
  shape::Values rootValues_;
  std::set<std::string> seen_;
  std::vector<DimRequirement>* out_ = nullptr;
  size_t* omitted_ = nullptr;
  size_t visits_ = 0;
};

}  // namespace

EntryRequirements entryRequirements(const check::CheckedProgram& program,
                                    const std::vector<manifest::EntryRef>& entries,
                                    const bind::GenericBindings& generics, const SourceManager& sources) {
  EntryRequirements result;
  for (const manifest::EntryRef& entry : entries) {
    std::vector<DimRequirement> list;
    Collector(program, entry.block, *entry.entry, generics, sources).run(*entry.entry, list, result.omitted);
    if (!list.empty()) result.byEntry[entry.entry->name.name] = std::move(list);
  }
  return result;
}

}  // namespace linnet::artifact
