// The entries of the root block, one `func.func` each (docs/abi.md's
// argument order): the entry's own Dim generics as `index` arguments, every
// parameter and state tensor of the model, then the entry's parameters.
// Root generics are integers and dtypes here; entry generics stay symbols
// bound to the `index` arguments.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>

#include <mlir/Dialect/Bufferization/IR/Bufferization.h>
#include <mlir/Dialect/Func/IR/FuncOps.h>
#include <mlir/Dialect/Tensor/IR/Tensor.h>

#include "compiler/lower/LowerImpl.h"
#include "compiler/modules/ConstantValues.h"

namespace linnet::lower {

std::optional<LoweredProgram> Lowerer::run() {
  LoweredProgram out;
  out.module = mlir::ModuleOp::create(builder_.getUnknownLoc());
  out.parameters = inputs_.parameters;
  stateSlots_ = inputs_.state;
  std::vector<manifest::EntryRef> compiled = inputs_.compiled;
  if (compiled.empty() && inputs_.root.block)
    for (const manifest::EntryRef& e : manifest::programEntries({}, inputs_.root)) compiled.push_back(e);
  auto wanted = [&](const manifest::EntryRef& e) {
    return inputs_.entries.empty() ||
           std::find(inputs_.entries.begin(), inputs_.entries.end(), e.entry->name.name) != inputs_.entries.end();
  };
  // Module-level entries read no state: a build of only those needs no root
  // generics to size it.
  bool blockEntries = std::any_of(compiled.begin(), compiled.end(),
                                  [&](const manifest::EntryRef& e) { return e.block && wanted(e); });
  if (stateSlots_.empty() && inputs_.parameters.empty() && blockEntries) {
    // No checkpoint was bound: size the state from the checked types.
    Frame root;
    root.module = inputs_.root.module;
    root.block = inputs_.root.block;
    if (!rootSubstitution(root.subst)) return std::nullopt;
    FrameGuard guard(*this, root);
    if (!collectState(selfBlock(), stateSlots_, inputs_.root.block->name.span)) return std::nullopt;
  }
  out.state = stateSlots_;
  builder_.setInsertionPointToEnd(out.module->getBody());
  bool ok = true;
  for (const manifest::EntryRef& e : compiled) {
    if (!wanted(e)) continue;
    std::optional<std::vector<EntryVariant>> variants = variantsOf(*e.entry, *e.module);
    if (!variants) {
      ok = false;
      continue;
    }
    size_t first = out.entries.size();
    for (const EntryVariant& variant : *variants) {
      LoweredEntry entry;
      if (lowerEntry(e, variant, entry)) out.entries.push_back(std::move(entry));
      else ok = false;
      builder_.setInsertionPointToEnd(out.module->getBody());
      if (!ok) break;
    }
    // A call picks its variant by the arguments' names, dtypes and ranks
    // (and which defaults it leaves out): two packs in one argument's shape
    // (`Tensor[*A, *B; f32]`) give variants no call can tell apart, and an
    // artifact the runtime refuses whole.
    auto same = [](const LoweredEntry& a, const LoweredEntry& b) {
      if (a.args.size() != b.args.size() || a.defaulted != b.defaulted) return false;
      for (size_t i = 0; i < a.args.size(); ++i)
        if (a.args[i].name != b.args[i].name || a.args[i].dtype != b.args[i].dtype ||
            a.args[i].shape.size() != b.args[i].shape.size())
          return false;
      return true;
    };
    for (size_t i = first; ok && i < out.entries.size(); ++i)
      for (size_t j = first; ok && j < i; ++j)
        if (same(out.entries[j], out.entries[i])) {
          diagnostics_
              .emit(DiagnosticKind::NotCompilable, e.entry->name.span,
                    fmt::format("the entry `{}`, whose variants `{}` and `{}` take the same arguments (names, "
                                "dtypes and ranks),",
                                e.entry->name.name, out.entries[j].symbol, out.entries[i].symbol))
              .label("no call could choose between them")
              .help("bind what tells them apart when building: the number of axes of a shape pack (`--bind "
                    "A=1`), a type generic (`--bind T=f32`)");
          ok = false;
        }
  }
  for (const std::string& name : inputs_.entries) {
    bool found = std::any_of(compiled.begin(), compiled.end(),
                             [&](const manifest::EntryRef& e) { return e.entry->name.name == name; });
    if (found) continue;
    Span at = inputs_.root.block ? inputs_.root.block->name.span : Span{};
    auto d = diagnostics_.emit(
        DiagnosticKind::NotCompilable, at,
        fmt::format("the entry `{}`, which `{}` does not have,", name, inputs_.root.qualifiedName()));
    if (inputs_.root.block) d.label("the root block");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

// A result or argument type, every part a tensor.
static bool flatten(const check::Type& t, std::vector<check::Type>& out) {
  if (t.kind() == check::TypeKind::Tensor || t.kind() == check::TypeKind::Enum) {
    out.push_back(t);
    return true;
  }
  if (t.kind() == check::TypeKind::Tuple) {
    for (const check::Type& e : t.elements())
      if (!flatten(e, out)) return false;
    return true;
  }
  // An optional: its presence (a `bool` scalar), then its payload's parts
  // (zeros when absent; docs/abi.md "Optional results").
  if (t.kind() == check::TypeKind::Optional && t.optionalInner().kind() != check::TypeKind::Optional) {
    out.push_back(scalarTypeOf(ast::ScalarType::Bool));
    return flatten(t.optionalInner(), out);
  }
  return t.kind() == check::TypeKind::Unit;
}

// The tensors of a result, in order (a tuple's or a struct's parts).
static bool flattenValue(const Val& v, std::vector<Val>& out) {
  if (v.kind == Val::Kind::Tensor) {
    out.push_back(v);
    return true;
  }
  if (v.kind == Val::Kind::Tuple || v.kind == Val::Kind::Struct) {
    for (const Val& e : v.elements)
      if (!flattenValue(e, out)) return false;
    return true;
  }
  return v.kind == Val::Kind::Unit;
}

static bool containsStruct(const check::Type& t) {
  if (t.kind() == check::TypeKind::Struct) return true;
  for (const check::Type& e : t.elements())
    if (containsStruct(e)) return true;
  return false;
}

namespace {

// Pack lengths an entry is compiled for when its arguments decide them.
constexpr int64_t kMaxPackLength = 4;
// Variants of one entry at most: past that, --bind must fix some choices.
constexpr size_t kMaxVariants = 64;

// The dtypes a type generic of `kind` may be, in the order a literal argument
// tries them (docs/lowering.md "Entry variants").
std::vector<ast::ScalarType> dtypesOf(ast::GenericKind kind) {
  using S = ast::ScalarType;
  std::vector<S> floats = {S::F32, S::F64, S::BF16, S::F16};
  std::vector<S> ints = {S::I64, S::I32, S::I16, S::I8, S::U64, S::U32, S::U16, S::U8};
  std::vector<S> out;
  if (kind == ast::GenericKind::Float || kind == ast::GenericKind::Numeric || kind == ast::GenericKind::DType)
    out.insert(out.end(), floats.begin(), floats.end());
  if (kind == ast::GenericKind::Integer || kind == ast::GenericKind::Numeric || kind == ast::GenericKind::DType)
    out.insert(out.end(), ints.begin(), ints.end());
  if (kind == ast::GenericKind::DType) out.push_back(S::Bool);
  return out;
}

// Whether `t` (an argument's type) has dtype generic `g`, or pack `g` among
// its axes, anywhere in it (a struct's fields included).
bool mentions(const check::Type& t, const ast::GenericParam& g, const check::CheckedProgram& program) {
  if (t.isTensor()) {
    if (t.dtype().generic == &g) return true;
    for (const shape::ShapeDim& d : t.shape())
      if (auto* pack = std::get_if<shape::Pack>(&d); pack && pack->id == check::symbolIdOf(g)) return true;
    return false;
  }
  if (t.kind() == check::TypeKind::Struct) {
    const std::vector<check::Type>* fields = program.structFieldsOf(t.structItem());
    if (!fields) return false;
    for (const check::Type& field : *fields)
      if (mentions(check::instantiate(field, t.structArgs()), g, program)) return true;
    return false;
  }
  for (const check::Type& e : t.elements())
    if (mentions(e, g, program)) return true;
  return false;
}

// The axes of a pack compiled at a length, and an entry dim renamed apart
// from a root generic, are fresh symbols of no source file (file ids are
// 32-bit; LowerAttentionBound.cpp's use 0xffffffff).
shape::SymbolId freshDimSymbol() {
  static uint32_t next = 0;
  return (shape::SymbolId{0xfffffffeu} << 32) | shape::SymbolId{next++};
}

}  // namespace

std::optional<std::vector<EntryVariant>> Lowerer::variantsOf(const ast::FunctionItem& entry, const Module& module) {
  const check::CheckedFunction* checked = inputs_.checked->functionOf(&entry);
  if (!checked || !checked->signature) return std::vector<EntryVariant>{EntryVariant{}};
  std::vector<EntryVariant> out{EntryVariant{}};
  std::vector<std::string> suffixes{""};
  // Every variant so far, once for each of `count` choices (`choose` makes
  // choice k, `spell` names it in the symbol); false, reported, past the cap.
  auto times = [&](size_t count, const std::function<void(EntryVariant&, size_t)>& choose,
                   const std::function<std::string(size_t)>& spell) {
    std::vector<EntryVariant> next;
    std::vector<std::string> nextSuffixes;
    for (size_t v = 0; v < out.size(); ++v)
      for (size_t k = 0; k < count; ++k) {
        next.push_back(out[v]);
        choose(next.back(), k);
        nextSuffixes.push_back(suffixes[v] + spell(k));
      }
    out = std::move(next);
    suffixes = std::move(nextSuffixes);
    if (out.size() <= kMaxVariants) return true;
    diagnostics_
        .emit(DiagnosticKind::NotCompilable, entry.name.span,
              fmt::format("the entry `{}`, whose shape packs, type generics and optional parameters give more "
                          "than {} variants,",
                          entry.name.name, kMaxVariants))
        .label("the compiler cannot lower this yet")
        .help("bind some of them when building: `--bind T=f32` for a type generic, `--bind S=2` for the "
              "number of axes of a pack `*S`");
    return false;
  };
  for (const ast::GenericParam& g : entry.generics) {
    if (!g.isPack && g.constraint == ast::GenericKind::Dim) continue;
    bool decidedByArguments = std::any_of(checked->signature->params.begin(), checked->signature->params.end(),
                                          [&](const check::Type& t) { return mentions(t, g, *inputs_.checked); });
    if (g.isPack) {
      std::vector<int64_t> lengths;
      if (auto it = inputs_.entryPacks.find(g.name.name); it != inputs_.entryPacks.end()) lengths = {it->second};
      else if (decidedByArguments)
        for (int64_t n = 0; n <= kMaxPackLength; ++n) lengths.push_back(n);
      else if (const ast::ShapeLiteralExpr* axes = packDefault(g))
        lengths = {static_cast<int64_t>(axes->elements.size())};
      if (lengths.empty()) {
        diagnostics_
            .emit(DiagnosticKind::EntryGenericUnbound, g.name.span, entry.name.name, "*" + g.name.name, "Shape")
            .help(fmt::format("no argument's shape has `*{0}`, so no call can tell its length: bind it when "
                              "building: `--bind {0}=<number of axes>`, or give it a default (`*{0}: Shape = "
                              "[2, 3]`)",
                              g.name.name));
        return std::nullopt;
      }
      if (!times(
              lengths.size(), [&](EntryVariant& e, size_t k) { e.packLengths[&g] = lengths[k]; },
              [&](size_t k) { return fmt::format("_{}{}", g.name.name, lengths[k]); }))
        return std::nullopt;
      continue;
    }
    // A type generic fixes the code: bound at build time, else its default,
    // else one variant per dtype the arguments may have (one no argument's
    // dtype names is unbound: lowerEntry says so).
    if (inputs_.entryTypes.count(g.name.name) || (g.defaultValue && g.defaultValue->type) || !decidedByArguments)
      continue;
    std::vector<ast::ScalarType> dtypes = dtypesOf(g.constraint);
    if (!times(
            dtypes.size(), [&](EntryVariant& e, size_t k) { e.dtypes[&g] = dtypes[k]; },
            [&](size_t k) { return fmt::format("_{}{}", g.name.name, ast::scalarTypeName(dtypes[k])); }))
      return std::nullopt;
  }
  // An optional parameter, or an optional field or part of a struct or
  // tuple parameter, is given or left out (`none`) by each call: a variant
  // with it, and one without. One inside an optional's payload (`s: S?` with
  // `b: f32?`) is chosen only where the enclosing one is given: with that
  // left out the two would differ in nothing.
  std::vector<std::string> optionals;  // argument paths, in argument order
  std::map<std::string, std::string> enclosing;  // an optional's path -> the optional around it
  std::function<bool(const check::Type&, const std::string&, size_t, const std::string&)> findOptionals =
      [&](const check::Type& t, const std::string& path, size_t param, const std::string& around) {
        if (t.kind() == check::TypeKind::Optional) {
          optionals.push_back(path);
          if (!around.empty()) enclosing[path] = around;
          return findOptionals(t.elements()[0], path, param, path);
        }
        if (t.kind() == check::TypeKind::Tuple) {
          for (size_t k = 0; k < t.elements().size(); ++k)
            if (!findOptionals(t.elements()[k], fmt::format("{}.{}", path, k), param, around)) return false;
          return true;
        }
        if (t.kind() == check::TypeKind::Struct) {
          const std::vector<check::Type>* fields = inputs_.checked->structFieldsOf(t.structItem());
          if (!fields) return true;
          for (size_t k = 0; k < fields->size(); ++k)
            if (!findOptionals(check::instantiate((*fields)[k], t.structArgs()),
                               fmt::format("{}.{}", path, t.structItem()->fields[k].name.name), param,
                               around))
              return false;
        }
        return true;
      };
  for (size_t i = 0; i < entry.params.size(); ++i)
    if (!findOptionals(checked->signature->params[i], entry.params[i].name.name, i, "")) return std::nullopt;
  // A parameter's default other than `none` (`o: f32? = some(2.0)`) is a
  // third choice: left out, the variant computing the default runs; an
  // explicit `none` runs the one without it.
  auto defaultsToSome = [&](const std::string& path) {
    for (const ast::Param& p : entry.params)
      if (p.name.name == path) return p.defaultValue && !ast::as<ast::NoneLiteralExpr>(p.defaultValue);
    return false;
  };
  for (const std::string& path : optionals) {
    std::string spelled = path;
    std::replace(spelled.begin(), spelled.end(), '.', '_');
    if (!times(
            defaultsToSome(path) ? 3 : 2,
            [&](EntryVariant& e, size_t k) {
              if (k >= 1) e.absent.insert(path);
              if (k == 2) e.defaulted.insert(path);
            },
            [&](size_t k) { return k == 1 ? "_no_" + spelled : k == 2 ? "_default_" + spelled : std::string(); }))
      return std::nullopt;
    // Left out inside an enclosing optional left out: the same variant as
    // the one giving it there, dropped.
    if (auto around = enclosing.find(path); around != enclosing.end()) {
      std::vector<EntryVariant> kept;
      std::vector<std::string> keptSuffixes;
      for (size_t v = 0; v < out.size(); ++v) {
        bool outerAbsent = false;
        for (std::string a = around->second;;) {
          outerAbsent = outerAbsent || out[v].absent.count(a);
          auto next = enclosing.find(a);
          if (next == enclosing.end()) break;
          a = next->second;
        }
        if (outerAbsent && out[v].absent.count(path)) continue;
        kept.push_back(out[v]);
        keptSuffixes.push_back(suffixes[v]);
      }
      out = std::move(kept);
      suffixes = std::move(keptSuffixes);
    }
  }
  // A default the manifest cannot carry (`k: i64 = N * 2`, `e: f64 =
  // exp(1.0)`, a tensor's) is computed by the code: a variant that takes the
  // argument, and one that leaves it out and lowers its default. (An
  // optional's absent variant above computes a default other than `none`.)
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const ast::Expr* fallback = entry.params[i].defaultValue;
    const check::Type& t = checked->signature->params[i];
    if (!fallback || t.kind() == check::TypeKind::Optional || carriedDefault(module, entry, i, t)) continue;
    const std::string& name = entry.params[i].name.name;
    if (!times(
            2, [&](EntryVariant& e, size_t k) { if (k == 1) e.defaulted.insert(name); },
            [&](size_t k) { return k == 1 ? "_default_" + name : std::string(); }))
      return std::nullopt;
  }
  // A pack or type generic that only optionals a variant leaves out mention
  // (`g: Tensor[*S; f32]? = none`) changes nothing in that variant: its
  // copies for each length or dtype would take the same arguments and no
  // call could choose between them. The first is kept.
  auto wordCount = [&](Span span, std::string_view word) {
    if (!inputs_.sources || !span.valid()) return size_t(0);
    std::string_view text = inputs_.sources->text(span);
    auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    size_t n = 0;
    for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1))
      if ((at == 0 || !isWord(text[at - 1])) &&
          (at + word.size() == text.size() || !isWord(text[at + word.size()])))
        ++n;
    return n;
  };
  auto irrelevant = [&](const ast::GenericParam& g, const EntryVariant& v) {
    if (mentions(checked->signature->result, g, *inputs_.checked)) return false;
    size_t inLeftOut = 0;
    for (size_t i = 0; i < entry.params.size(); ++i) {
      if (!mentions(checked->signature->params[i], g, *inputs_.checked)) continue;
      if (checked->signature->params[i].kind() != check::TypeKind::Optional ||
          !v.absent.count(entry.params[i].name.name))
        return false;
      inLeftOut += wordCount(entry.params[i].span, g.name.name);
    }
    // Named nowhere else: not in the body, another generic's default, a
    // parameter's default or a `where` clause (its declaration is the one).
    return inLeftOut > 0 && wordCount(entry.span, g.name.name) == 1 + inLeftOut;
  };
  {
    std::vector<EntryVariant> kept;
    std::vector<std::string> keptSuffixes;
    for (size_t v = 0; v < out.size(); ++v) {
      auto sameButIrrelevant = [&](const EntryVariant& u) {
        if (u.absent != out[v].absent || u.defaulted != out[v].defaulted) return false;
        for (const auto& [g, length] : out[v].packLengths)
          if (u.packLengths.at(g) != length && !irrelevant(*g, out[v])) return false;
        for (const auto& [g, dtype] : out[v].dtypes)
          if (u.dtypes.at(g) != dtype && !irrelevant(*g, out[v])) return false;
        return true;
      };
      if (std::any_of(kept.begin(), kept.end(), sameButIrrelevant)) continue;
      kept.push_back(out[v]);
      keptSuffixes.push_back(suffixes[v]);
    }
    out = std::move(kept);
    suffixes = std::move(keptSuffixes);
  }
  for (size_t v = 0; v < out.size(); ++v)
    out[v].symbol = out.size() == 1 ? entry.name.name : entry.name.name + "_" + suffixes[v];
  return out;
}

std::optional<double> Lowerer::carriedDefault(const Module& module, const ast::FunctionItem& entry, size_t param,
                                              const check::Type& type) {
  const ast::Expr* fallback = entry.params[param].defaultValue;
  if (!fallback) return std::nullopt;
  if (type.kind() == check::TypeKind::Enum) {
    const ast::Ident* name = nullptr;
    if (auto* m = ast::as<ast::MemberExpr>(fallback)) name = &m->member;
    else if (auto* id = ast::as<ast::NameExpr>(fallback)) name = &id->name;
    const Symbol* variant = name ? module.symbolOf(*name) : nullptr;
    if (!variant || variant->kind != SymbolKind::EnumVariant || variant->item != type.enumItem()) return std::nullopt;
    return variant->variant;
  }
  if (!type.isTensor() || !type.isScalar()) return std::nullopt;
  std::optional<ConstantNumber> folded = foldConstantExpr(module, fallback);
  return folded ? std::optional<double>(folded->asDouble()) : std::nullopt;
}

bool Lowerer::lowerEntry(const manifest::EntryRef& ref, const EntryVariant& variant, LoweredEntry& out) {
  const ast::FunctionItem& entry = *ref.entry;
  const check::CheckedFunction* checked = inputs_.checked->functionOf(&entry);
  if (!checked || !checked->signature) {
    unsupported(entry.name.span, fmt::format("the entry `{}`", entry.name.name));
    return false;
  }
  const check::Signature& sig = *checked->signature;
  Frame f;
  f.module = ref.module;
  f.fn = checked;
  f.item = &entry;
  f.block = ref.block;  // null for a module-level entry: no members to read
  if (ref.block && !rootSubstitution(f.subst)) return false;
  entryDims_.clear();
  unrolledBodies_ = inlinedBodies_ = 0;
  parameterArgs_.clear();
  state_.clear();
  readsState_ = writesState_ = false;
  FrameGuard guard(*this, f);
  mlir::Location at = loc(entry.name.span);

  // ---- the signature ----
  std::vector<mlir::Type> inputs;
  // Each `index` argument: the symbol it binds and its name in the manifest.
  std::vector<std::pair<shape::SymbolId, std::string>> dims;
  auto taken = [&](const std::string& name) {
    return std::any_of(entry.generics.begin(), entry.generics.end(),
                       [&](const ast::GenericParam& g) { return g.name.name == name; }) ||
           std::any_of(dims.begin(), dims.end(), [&](const auto& d) { return d.second == name; }) ||
           inputs_.generics.count(name);
  };
  std::map<std::string, std::string> dimNames;  // a dim generic's manifest name, for defaults
  for (const ast::GenericParam& g : entry.generics) {
    if (g.isPack) {
      // Compiled at one length (variantsOf): its axes are dims of their own,
      // `S_0`, `S_1`, ... in the manifest.
      auto length = variant.packLengths.find(&g);
      if (length == variant.packLengths.end()) {
        unsupported(g.name.span, "a shape-pack entry generic");
        return false;
      }
      // A default of as many axes gives each axis its default (used where
      // no argument or bind fixes it, as a dim generic's).
      const ast::ShapeLiteralExpr* defaults = packDefault(g);
      if (defaults && static_cast<int64_t>(defaults->elements.size()) != length->second) defaults = nullptr;
      shape::Shape axes;
      for (int64_t k = 0; k < length->second; ++k) {
        std::string name = fmt::format("{}_{}", g.name.name, k);
        while (taken(name)) name += "_";
        shape::SymbolId id = freshDimSymbol();
        axes.push_back(shape::DimExpr::symbol(id, name));
        dims.push_back({id, name});
        inputs.push_back(builder_.getIndexType());
        out.dims.push_back(name);
        if (!defaults) continue;
        std::optional<std::string> spelled = defaultSpelling(defaults->elements[k].dim, dimNames);
        if (!spelled) {
          unsupported(defaults->elements[k].span, fmt::format("this default of axis {} of `*{}`", k, g.name.name));
          return false;
        }
        out.defaults[name] = *spelled;
      }
      f.subst.shapes.packs[check::symbolIdOf(g)] = std::move(axes);
      continue;
    }
    if (g.constraint != ast::GenericKind::Dim) {
      // A type generic fixes the code: bound at build time, else its default,
      // else this variant's dtype (variantsOf).
      std::optional<ast::ScalarType> value;
      if (auto it = variant.dtypes.find(&g); it != variant.dtypes.end()) value = it->second;
      else if (auto it = inputs_.entryTypes.find(g.name.name); it != inputs_.entryTypes.end()) value = it->second;
      else if (g.defaultValue && g.defaultValue->type)
        if (auto* scalar = ast::as<ast::ScalarTypeNode>(g.defaultValue->type)) value = scalar->scalar;
      if (!value) {
        diagnostics_
            .emit(DiagnosticKind::EntryGenericUnbound, g.name.span, entry.name.name, g.name.name,
                  ast::genericKindName(g.constraint))
            .help(fmt::format("bind it when building: `--bind {}=<dtype>`", g.name.name));
        return false;
      }
      f.subst.dtypes[&g] = check::DType::of(*value);
      continue;
    }
    // A module-level entry's dim may share a root generic's name (its own
    // `H` beside the model's): the manifest names it apart (`H_`).
    shape::SymbolId id = check::symbolIdOf(g);
    std::string name = g.name.name;
    if (inputs_.generics.count(name)) {
      while (taken(name)) name += "_";
      id = freshDimSymbol();
      f.subst.shapes.dims[check::symbolIdOf(g)] = shape::DimExpr::symbol(id, name);
    }
    dims.push_back({id, name});
    inputs.push_back(builder_.getIndexType());
    out.dims.push_back(name);
    if (g.defaultValue && g.defaultValue->expr) {
      std::optional<std::string> spelled = defaultSpelling(g.defaultValue->expr, dimNames);
      if (!spelled) {
        unsupported(g.defaultValue->span, fmt::format("this default of the entry dim `{}`", g.name.name));
        return false;
      }
      out.defaults[name] = *spelled;
    }
    dimNames[g.name.name] = name;
  }
  auto slotType = [&](const TensorSlot& s) {
    return mlir::RankedTensorType::get(s.shape, elementType(s.dtype));
  };
  for (const TensorSlot& p : inputs_.parameters) inputs.push_back(slotType(p));
  // State is the runtime's memory, read and written in place.
  for (const TensorSlot& p : stateSlots_)
    inputs.push_back(mlir::MemRefType::get(p.shape, elementType(p.dtype)));
  // Each parameter's tensors: a tensor or scalar is one argument; a tuple is
  // its parts (`p.0`, `p.1`, ...); an optional is its payload's when this
  // variant takes it, and none when it leaves it out (variantsOf).
  std::vector<std::vector<check::Type>> paramLeaves(entry.params.size());
  // Field `k` of struct type `t`, in the entry's generics.
  auto fieldType = [&](const check::Type& t, size_t k) {
    return instantiate(check::instantiate((*inputs_.checked->structFieldsOf(t.structItem()))[k], t.structArgs()));
  };
  std::function<bool(const check::Type&, const std::string&, size_t)> addLeaves =
      [&](const check::Type& t, const std::string& name, size_t param) {
        if (t.kind() == check::TypeKind::Tuple) {
          for (size_t k = 0; k < t.elements().size(); ++k)
            if (!addLeaves(t.elements()[k], fmt::format("{}.{}", name, k), param)) return false;
          return true;
        }
        if (t.kind() == check::TypeKind::Struct) {
          const std::vector<check::Type>* fields = inputs_.checked->structFieldsOf(t.structItem());
          if (!fields) return false;
          for (size_t k = 0; k < fields->size(); ++k)
            if (!addLeaves(fieldType(t, k), fmt::format("{}.{}", name, t.structItem()->fields[k].name.name), param))
              return false;
          return true;
        }
        if (t.kind() == check::TypeKind::Enum) {
          // Its variant's index, an i32 scalar the runtime checks is one.
          inputs.push_back(mlir::RankedTensorType::get({}, builder_.getI32Type()));
          paramLeaves[param].push_back(t);
          SlotType slot{name, ast::ScalarType::I32, {}};
          slot.enumItem = t.enumItem();
          out.args.push_back(slot);
          return true;
        }
        if (t.kind() == check::TypeKind::Optional) {
          // Given or left out by the variant (variantsOf): its payload's
          // arguments, or none.
          if (variant.absent.count(name)) return true;
          return addLeaves(t.elements()[0], name, param);
        }
        if (!t.isTensor()) {
          unsupported(entry.params[param].span,
                      fmt::format("an entry parameter of type `{}` inside `{}`", check::str(t),
                                  check::str(instantiate(sig.params[param]))));
          return false;
        }
        auto tt = tensorType(t, entry.params[param].span);
        if (!tt) return false;
        inputs.push_back(*tt);
        paramLeaves[param].push_back(t);
        SlotType slot{name, *concreteDType(t.dtype(), entry.params[param].span), {}};
        for (const shape::ShapeDim& d : t.shape()) slot.shape.push_back(dimSpelling(std::get<shape::DimExpr>(d)));
        out.args.push_back(slot);
        return true;
      };
  for (size_t i = 0; i < entry.params.size(); ++i) {
    check::Type t = instantiate(sig.params[i]);
    size_t before = out.args.size();
    if (variant.defaulted.count(entry.params[i].name.name)) continue;  // computed from its default
    if (!addLeaves(t, entry.params[i].name.name, i)) return false;
    // A scalar's default that folds to a number, or an enum's that names a
    // variant (its index), travels with it (the runtime fills it in); any
    // other default is computed by the variant that leaves it out, as an
    // optional's is by its absent variant.
    if (out.args.size() == before + 1) out.args.back().defaultValue = carriedDefault(module(), entry, i, t);
  }
  std::vector<check::Type> resultTypes;
  check::Type declared = instantiate(sig.result);
  // A struct's parts are typed by what the body builds (its fields' types
  // are the checker's business): the result types are set after the body.
  bool resultsFromBody = containsStruct(declared);
  if (!resultsFromBody && !flatten(declared, resultTypes)) {
    unsupported(entry.name.span, fmt::format("an entry returning `{}`", check::str(declared)));
    return false;
  }
  std::vector<mlir::Type> results;
  for (const check::Type& t : resultTypes) {
    if (t.kind() == check::TypeKind::Enum) {
      results.push_back(mlir::RankedTensorType::get({}, builder_.getI32Type()));
      SlotType slot{"", ast::ScalarType::I32, {}};
      slot.enumItem = t.enumItem();
      out.results.push_back(slot);
      continue;
    }
    auto tt = tensorType(t, entry.name.span);
    if (!tt) return false;
    results.push_back(*tt);
    SlotType slot{"", *concreteDType(t.dtype(), entry.name.span), {}};
    for (const shape::ShapeDim& d : t.shape()) slot.shape.push_back(dimSpelling(std::get<shape::DimExpr>(d)));
    out.results.push_back(slot);
  }
  out.name = entry.name.name;
  out.symbol = variant.symbol.empty() ? entry.name.name : variant.symbol;
  for (const ast::Param& p : entry.params)
    if (variant.defaulted.count(p.name.name)) out.defaulted.push_back(p.name.name);

  auto fn = builder_.create<mlir::func::FuncOp>(at, out.symbol, builder_.getFunctionType(inputs, results));
  fn->setAttr("linnet.entry", builder_.getStringAttr(out.symbol));
  mlir::Block* body = fn.addEntryBlock();
  builder_.setInsertionPointToStart(body);
  unsigned arg = 0;
  for (const auto& [id, name] : dims) entryDims_[id] = body->getArgument(arg++);
  for (const TensorSlot& p : inputs_.parameters) parameterArgs_[p.path] = body->getArgument(arg++);
  std::vector<std::pair<mlir::Value, mlir::Value>> stateBuffers;  // memref, its tensor
  for (const TensorSlot& p : stateSlots_) {
    mlir::Value buffer = body->getArgument(arg++);
    mlir::Value t = builder_.create<mlir::bufferization::ToTensorOp>(at, buffer, /*restrict=*/true,
                                                                     /*writable=*/true);
    state_[p.path] = t;
    stateBuffers.push_back({buffer, t});
  }
  // A parameter's value from its arguments (the order and paths of addLeaves).
  std::function<Val(const check::Type&, const std::string&)> fromArguments = [&](const check::Type& t,
                                                                                 const std::string& name) -> Val {
    if (t.kind() == check::TypeKind::Optional) {
      if (variant.absent.count(name)) return Val::of(Val::Kind::None);
      Val some = Val::of(Val::Kind::Some);
      some.elements.push_back(fromArguments(t.elements()[0], name));
      return some;
    }
    if (t.kind() == check::TypeKind::Struct) {
      Val v = Val::of(Val::Kind::Struct);
      v.structItem = t.structItem();
      for (size_t k = 0; k < t.structItem()->fields.size(); ++k)
        v.elements.push_back(
            fromArguments(fieldType(t, k), fmt::format("{}.{}", name, t.structItem()->fields[k].name.name)));
      return v;
    }
    if (t.kind() == check::TypeKind::Enum)
      return Val::runtimeEnum(t.enumItem(), Val::tensor(body->getArgument(arg++), scalarTypeOf(ast::ScalarType::I32)));
    if (t.kind() != check::TypeKind::Tuple) return Val::tensor(body->getArgument(arg++), t);
    Val v = Val::of(Val::Kind::Tuple);
    for (size_t k = 0; k < t.elements().size(); ++k)
      v.elements.push_back(fromArguments(t.elements()[k], fmt::format("{}.{}", name, k)));
    return v;
  };
  for (size_t i = 0; i < entry.params.size(); ++i) {
    const ast::Param& p = entry.params[i];
    check::Type t = instantiate(sig.params[i]);
    if (!variant.defaulted.count(p.name.name)) {
      f.params.push_back(fromArguments(t, p.name.name));
      continue;
    }
    // Left out by this variant's calls: its default, computed here (in the
    // entry's frame: it may use the entry's dims and earlier parameters).
    Result value = lowerExpr(p.defaultValue);
    if (value) value = coerceToType(*value, t, p.span);
    if (!value) return false;
    f.params.push_back(*value);
  }

  // ---- the body ----
  if (!lowerBody(entry.body)) return false;
  Val result = f.returned ? *f.returned : Val::of(Val::Kind::Unit);
  // Compile-time parts of the result (`(x, 4)`, `(x, N)`) become tensors of
  // their declared type; a struct's fields are typed by the body, so a number
  // there takes its default dtype (i64, f64). An enum's index keeps its enum
  // for the manifest (a struct's slots are made from the parts).
  std::map<void*, const ast::EnumItem*> enumParts;
  std::function<bool(Val&, const check::Type*)> materialize = [&](Val& v, const check::Type* type) {
    if (type && type->kind() == check::TypeKind::Optional &&
        (v.kind == Val::Kind::Some || v.kind == Val::Kind::None || v.kind == Val::Kind::Maybe)) {
      // Its presence, then its payload (zeros when absent).
      check::Type flag = scalarTypeOf(ast::ScalarType::Bool);
      const check::Type& inner = type->optionalInner();
      if (v.kind == Val::Kind::None) {
        // Absent: a false flag and zeros, shaped as the payload's parts.
        auto tmpl = presenceAtRunTime(*type, *inputs_.checked);
        auto flat = tmpl ? flattenLike(*tmpl, v, entry.name.span) : std::nullopt;
        if (!flat) {
          if (!tmpl) unsupported(entry.name.span, fmt::format("`none` as a result of type `{}`", check::str(*type)));
          return false;
        }
        size_t next = 0;
        v = refill(*tmpl, *flat, next);
      }
      bool runtimePresence = v.kind == Val::Kind::Maybe;
      Val presence = runtimePresence ? v.elements[0] : Val::boolean(true);
      Val payload = v.elements[runtimePresence ? 1 : 0];
      if (!materialize(payload, &inner)) return false;
      if (!materialize(presence, &flag)) return false;
      // Presence known only at run time: the payload's parts are zeros where
      // it is absent (a branch that is `none` may have left the other
      // branch's compile-time payload there: `if c { some(K.C) } else { none }`).
      std::function<bool(Val&)> zeroAbsent = [&](Val& part) {
        if (part.kind == Val::Kind::Tuple || part.kind == Val::Kind::Struct) {
          for (Val& e : part.elements)
            if (!zeroAbsent(e)) return false;
          return true;
        }
        if (part.kind != Val::Kind::Tensor) return true;
        check::Type scalar = check::Type::scalar(part.type.dtype());
        auto zero = asTensor(Val::integer(shape::DimExpr::constant(0)), scalar, entry.name.span);
        if (!zero) return false;
        auto type = mlir::cast<mlir::RankedTensorType>(part.value.getType());
        mlir::Value picked = emit::select(builder_, loc(entry.name.span), presence.value, part.value, *zero, type);
        if (auto it = enumParts.find(part.value.getAsOpaquePointer()); it != enumParts.end()) {
          const ast::EnumItem* item = it->second;
          enumParts.erase(it);
          enumParts[picked.getAsOpaquePointer()] = item;
        }
        part.value = picked;
        return true;
      };
      if (runtimePresence && !zeroAbsent(payload)) return false;
      Val parts = Val::of(Val::Kind::Tuple);
      parts.elements = {presence, payload};
      v = parts;
      return true;
    }
    if (v.kind == Val::Kind::Tuple || v.kind == Val::Kind::Struct) {
      bool typed = type && type->kind() == check::TypeKind::Tuple && type->elements().size() == v.elements.size();
      // A struct's declared field types (an optional field is split into
      // its presence and payload like any optional result).
      bool typedStruct = type && type->kind() == check::TypeKind::Struct && v.kind == Val::Kind::Struct &&
                         v.structItem == type->structItem() && v.structItem &&
                         v.structItem->fields.size() == v.elements.size();
      for (size_t i = 0; i < v.elements.size(); ++i) {
        std::optional<check::Type> field;
        if (typedStruct) field = fieldType(*type, i);
        if (!materialize(v.elements[i], typed ? &type->elements()[i] : field ? &*field : nullptr)) return false;
        if (field && field->kind() == check::TypeKind::Enum && v.elements[i].isData())
          enumParts[v.elements[i].value.getAsOpaquePointer()] = field->enumItem();
      }
      return true;
    }
    if (v.kind == Val::Kind::Enum) {
      // Its variant's index (docs/abi.md "Enums").
      const ast::EnumItem* item = v.enumItem;
      auto index = enumIndexTensor(v, entry.name.span);
      if (!index) return false;
      v = *index;
      enumParts[v.value.getAsOpaquePointer()] = item;
      return true;
    }
    if (v.kind == Val::Kind::Tensor && type && type->isTensor()) {
      // Numbers joined at run time (`return if c { 1.0 } else { 2.0 }`) are
      // computed in the widest dtype of their kind: made the declared one.
      auto casted = inDType(v, type->dtype(), entry.name.span);
      if (!casted) return false;
      v = *casted;
      return true;
    }
    if (v.isData() || (v.kind != Val::Kind::Int && v.kind != Val::Kind::Float && v.kind != Val::Kind::Bool))
      return true;
    check::Type t = type && type->isTensor() ? *type
                    : scalarTypeOf(v.kind == Val::Kind::Int     ? ast::ScalarType::I64
                                                           : v.kind == Val::Kind::Float ? ast::ScalarType::F64
                                                                                        : ast::ScalarType::Bool);
    auto tensor = asTensor(v, t, entry.name.span);
    if (!tensor) return false;
    v = Val::tensor(*tensor, t);
    return true;
  };
  if (!materialize(result, &declared)) return false;
  std::vector<Val> parts;
  if (!flattenValue(result, parts) || (!resultsFromBody && parts.size() != results.size())) {
    unsupported(entry.name.span, fmt::format("the result of `{}`", entry.name.name));
    return false;
  }
  std::vector<mlir::Value> values;
  for (const Val& p : parts) values.push_back(p.value);
  if (resultsFromBody) {
    for (const Val& p : parts) {
      auto dtype = p.type.isTensor() ? concreteDType(p.type.dtype(), entry.name.span) : std::nullopt;
      if (!dtype) return false;
      results.push_back(p.value.getType());
      SlotType slot{"", *dtype, {}};
      for (const shape::ShapeDim& d : p.type.shape()) slot.shape.push_back(dimSpelling(std::get<shape::DimExpr>(d)));
      if (auto e = enumParts.find(p.value.getAsOpaquePointer()); e != enumParts.end()) slot.enumItem = e->second;
      out.results.push_back(slot);
    }
    fn.setType(builder_.getFunctionType(inputs, results));
  }
  // The checker proved each result's shape; static and dynamic spellings
  // of one type may still differ, so results are cast to the declared type.
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].getType() != results[i])
      values[i] = builder_.create<mlir::tensor::CastOp>(at, results[i], values[i]);
  // Every state tensor that changed goes back into its buffer; a result
  // still holding a buffer's old contents is copied first (LowerStateWrites.cpp).
  std::vector<StateWrite> writes;
  for (size_t i = 0; i < stateSlots_.size(); ++i) {
    mlir::Value now = state_.at(stateSlots_[i].path);
    if (now == stateBuffers[i].second) continue;
    writesState_ = true;
    writes.push_back({stateBuffers[i].first, stateBuffers[i].second, now});
  }
  writeBackState(builder_, at, fn, writes, values);
  out.readsState = readsState_ || writesState_;
  out.writesState = writesState_;
  builder_.create<mlir::func::ReturnOp>(at, values);
  // A dim this variant's code never reads (one only an optional parameter
  // it leaves out had: `b: Tensor[M, N; f32]? = none`) need not be given.
  for (size_t k = 0; k < dims.size(); ++k)
    if (body->getArgument(static_cast<unsigned>(k)).use_empty()) out.unreadDims.push_back(dims[k].second);
  return true;
}

// A shape pack's default when it is a shape literal of dims only
// (`*S: Shape = [2, 3]`), else null.
const ast::ShapeLiteralExpr* Lowerer::packDefault(const ast::GenericParam& g) const {
  if (!g.isPack || !g.defaultValue || !g.defaultValue->expr) return nullptr;
  const auto* axes = ast::as<ast::ShapeLiteralExpr>(g.defaultValue->expr);
  // As many axes as `--bind S=N` may give (compiler/bind/GenericValues.cpp).
  if (!axes || axes->elements.size() > 16) return nullptr;
  for (const ast::ShapeElement& e : axes->elements)
    if (e.isPack()) return nullptr;
  return axes;
}

// An entry dim's default as the manifest spells it (the runtime's DimExpr:
// numbers, names, + - * / %, min, max, parentheses): the model's generics and
// constants are numbers here, the entry's earlier dims their manifest names
// (`earlier`: generic name to manifest name); nullopt for anything else.
std::optional<std::string> Lowerer::defaultSpelling(const ast::Expr* e,
                                                    const std::map<std::string, std::string>& earlier) {
  if (auto* p = ast::as<ast::ParenExpr>(e)) {
    auto inner = defaultSpelling(p->inner, earlier);
    return inner ? std::optional<std::string>("(" + *inner + ")") : std::nullopt;
  }
  if (auto* n = ast::as<ast::NameExpr>(e)) {
    if (auto it = earlier.find(n->name.name); it != earlier.end()) return it->second;
    if (auto it = inputs_.generics.find(n->name.name); it != inputs_.generics.end() && it->second.dim)
      return std::to_string(*it->second.dim);
  }
  if (auto* b = ast::as<ast::BinaryExpr>(e)) {
    const char* op = b->op == ast::BinaryOp::Add   ? " + "
                     : b->op == ast::BinaryOp::Sub ? " - "
                     : b->op == ast::BinaryOp::Mul ? " * "
                     : b->op == ast::BinaryOp::Div ? " / "
                     : b->op == ast::BinaryOp::Rem ? " % "
                                                   : nullptr;
    auto l = op ? defaultSpelling(b->lhs, earlier) : std::nullopt;
    auto r = l ? defaultSpelling(b->rhs, earlier) : std::nullopt;
    if (r) return "(" + *l + op + *r + ")";
  }
  if (auto* c = ast::as<ast::CallExpr>(e); c && c->args.size() == 2 && !c->hasGenericArgs)
    if (auto* callee = ast::as<ast::NameExpr>(c->callee); callee && (callee->name.name == "min" || callee->name.name == "max")) {
      auto a = defaultSpelling(c->args[0].value, earlier);
      auto z = a ? defaultSpelling(c->args[1].value, earlier) : std::nullopt;
      if (z) return callee->name.name + "(" + *a + ", " + *z + ")";
    }
  // A number or a constant.
  if (std::optional<ConstantNumber> v = foldConstantExpr(module(), e);
      v && v->kind == ConstantNumber::Kind::Integer)
    return std::to_string(v->integer);
  return std::nullopt;
}

bool Lowerer::rootSubstitution(check::Substitution& out) {
  for (const ast::GenericParam& g : inputs_.root.block->generics) {
    auto it = inputs_.generics.find(g.name.name);
    if (it == inputs_.generics.end()) {
      unsupported(g.name.span, fmt::format("the root generic `{}` without a value (give `--bind {}=...` "
                                            "or a checkpoint)", g.name.name, g.name.name));
      return false;
    }
    if (it->second.dim) out.shapes.dims[check::symbolIdOf(g)] = shape::DimExpr::constant(*it->second.dim);
    else if (it->second.dtype) out.dtypes[&g] = check::DType::of(*it->second.dtype);
  }
  return true;
}

std::optional<LoweredProgram> lowerProgram(mlir::MLIRContext& context, const LowerInputs& inputs,
                                           DiagnosticEmitter& diagnostics) {
  Lowerer lowerer(context, inputs, diagnostics);
  return lowerer.run();
}

}  // namespace linnet::lower
