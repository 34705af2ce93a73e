// Resolver: resolveProgram, module by module (spec §2.2-§2.4, §11.1).
//
// For each module: bind its imports (E1201 missing item, E1203 private
// item, E1205 two imports of one name), then its items (E1204), then walk
// every item with nested scopes and record what each identifier refers to
// (Module::symbols). Rules that need only names are checked on the way:
// unknown names (E1201), prelude names redeclared (E1207), duplicate
// parameters/generics/fields/members/variants (E1205), names of plainly the
// wrong kind (E1208), `mod.item` of a private item (E1203). Member access on
// values (`x.weight`, `layer.forward`) is the checker's; only its leftmost
// name is resolved here, except through a module import.
//
// No cascades: an import that failed binds its name as Unresolved, which
// resolves silently; a module with parse errors is not walked; each unknown
// name is reported once per top-level item. Unused imports (W1001) are held
// back and emitted only if the whole program has no errors.
#include <set>

#include "compiler/modules/Names.h"
#include "compiler/modules/Scopes.h"

namespace linnet {

namespace {

using modules::Binding;
using modules::Frame;
using modules::ModuleEntry;
using modules::TypeUse;
using modules::ValueUse;

struct PendingWarning {
  Span span;
  std::string name;
};

Span identsSpan(const std::vector<ast::Ident>& path) {
  if (path.empty()) return {};
  return path.front().span.to(path.back().span);
}

Symbol makeSymbol(SymbolKind kind, std::string_view name = {}, Span declSpan = {},
                  const Module* module = nullptr, const ast::Item* item = nullptr,
                  uint32_t variant = 0) {
  Symbol symbol;
  symbol.kind = kind;
  symbol.name = name;
  symbol.declSpan = declSpan;
  symbol.module = module;
  symbol.item = item;
  symbol.variant = variant;
  return symbol;
}

// Nesting deeper than this is not walked: the parser bounds nesting far
// below it, so only a hostile tree gets here, and it has errors already.
constexpr int kMaxDepth = 1024;

class ModuleResolver {
 public:
  ModuleResolver(const Program& program, Module& module, DiagnosticEmitter& diagnostics,
                 std::vector<PendingWarning>& warnings)
      : program_(program), module_(module), diagnostics_(diagnostics), warnings_(warnings) {}

  void run() {
    bindImports();
    bindItems();
    for (const ast::Item* item : module_.ast->items) {
      reportedUnknown_.clear();
      reportedQualified_.clear();
      resolveItem(*item);
    }
    for (std::string_view name : importOrder_) {
      const ModuleEntry& entry = scope_.at(name);
      if (!entry.used && !name.starts_with('_'))
        warnings_.push_back({entry.useSpan, std::string(name)});
    }
  }

 private:
  // ------------------------------------------------------ module scope --

  void addImport(const ast::Ident& bound, const Symbol& symbol, Span useSpan) {
    if (modules::isPreludeName(bound.name)) reportPrelude(bound);
    auto [it, inserted] = scope_.try_emplace(bound.name);
    if (!inserted) {
      diagnostics_.emit(DiagnosticKind::DuplicateName, bound.span, "import", bound.name)
          .secondary(it->second.declSpan, "first imported here")
          .help("import it once, or rename one with `as`");
      return;
    }
    it->second = ModuleEntry{symbol, true, false, bound.span, useSpan};
    importOrder_.push_back(bound.name);
  }

  void bindImports() {
    for (size_t i = 0; i < module_.ast->uses.size(); ++i) {
      const ast::UseDecl& use = *module_.ast->uses[i];
      const Module* target = module_.useTargets[i];
      if (!use.hasSelector) {
        if (use.path.empty()) continue;
        const ast::Ident& last = use.path.back();
        Symbol symbol = makeSymbol(target ? SymbolKind::Module : SymbolKind::Unresolved,
                                   last.name, last.span, target);
        record(last, symbol);
        addImport(last, symbol, identsSpan(use.path));
        continue;
      }
      for (const ast::ImportName& imported : use.names) {
        const ast::Ident& bound = imported.alias.name.empty() ? imported.name : imported.alias;
        Symbol symbol = makeSymbol(SymbolKind::Unresolved, bound.name, bound.span);
        if (target) {
          if (const ast::Item* item = target->findItem(imported.name.name)) {
            if (!item->isPub && target != &module_) reportPrivate(imported.name, *target, *item);
            symbol = makeSymbol(SymbolKind::Item, item->name.name, item->name.span, target, item);
            record(imported.name, symbol);
          } else if (!target->hasParseErrors) {
            diagnostics_.emit(DiagnosticKind::UnknownImportedItem, imported.name.span,
                              target->name, imported.name.name);
          }
        }
        addImport(bound, symbol, imported.name.span.to(bound.span));
      }
    }
  }

  void bindItems() {
    for (const ast::Item* item : module_.ast->items) {
      const ast::Ident& name = item->name;
      if (name.name.empty()) continue;
      if (modules::isPreludeName(name.name)) reportPrelude(name);
      auto [it, inserted] = scope_.try_emplace(name.name);
      if (!inserted) {
        bool imported = it->second.isImport;
        diagnostics_.emit(DiagnosticKind::DuplicateItem, name.span, name.name, "module")
            .secondary(it->second.declSpan, imported ? fmt::format("`{}` is imported here", name.name)
                                                     : std::string("first defined here"))
            .note("Linnet has no overloading: a module defines each name once");
        continue;
      }
      it->second = ModuleEntry{makeSymbol(SymbolKind::Item, name.name, name.span, &module_, item),
                               false, false, name.span, name.span};
      if (item->kind == ast::ItemKind::Enum) enums_.push_back(&it->second);
    }
    // Imported enums, after the module's own: bare variants in match arms
    // may belong to either.
    for (std::string_view name : importOrder_) {
      ModuleEntry& entry = scope_.at(name);
      if (entry.symbol.kind == SymbolKind::Item && entry.symbol.item->kind == ast::ItemKind::Enum)
        enums_.push_back(&entry);
    }
  }

  // ---------------------------------------------------------- reporting --

  void record(const ast::Ident& ident, const Symbol& symbol) { module_.symbols[&ident] = symbol; }

  void reportPrelude(const ast::Ident& ident) {
    diagnostics_.emit(DiagnosticKind::ShadowsPrelude, ident.span, ident.name)
        .note("prelude names are visible in every module and cannot be shadowed")
        .help("choose another name");
  }

  void reportPrivate(const ast::Ident& use, const Module& owner, const ast::Item& item) {
    diagnostics_.emit(DiagnosticKind::PrivateItem, use.span, use.name, owner.name)
        .secondary(item.name.span, "declared here without `pub`")
        .help(fmt::format("mark `{}` as `pub` in `{}` to use it from other modules", use.name,
                          owner.name));
  }

  void reportUnknown(const ast::Ident& ident) {
    if (!reportedUnknown_.insert(ident.name).second) return;
    // A kernel builtin outside a kernel breaks a kernel rule (E2127), as the
    // public conformance tests expect, rather than naming nothing.
    if (modules::isKernelBuiltin(ident.name)) {
      diagnostics_.emit(DiagnosticKind::KernelBuiltinOutsideKernel, ident.span, ident.name)
          .label("not inside a `kernel`")
          .help("tiles are loaded and stored by a `kernel` that an `op` binds with "
                "`-> T kernel k<...>`; outside one, compute with tensors and `return`");
      return;
    }
    auto diag = diagnostics_.emit(DiagnosticKind::UnknownSymbol, ident.span, ident.name);
    // A public item of another loaded module: say where to import it from.
    for (const auto& other : program_.modules()) {
      if (other.get() == &module_) continue;
      const ast::Item* item = other->findItem(ident.name);
      if (!item || !item->isPub || other->name.empty()) continue;
      std::string path;
      if (other->isStd) {
        path = other->name;
      } else if (other->package && other->package == module_.package &&
                 !other->package->moduleName.empty() &&
                 other->name.starts_with(other->package->moduleName)) {
        path = "crate" + other->name.substr(other->package->moduleName.size());
      } else {
        continue;
      }
      diag.help(fmt::format("`{}` is defined in `{}`: `use {}::{{{}}}`", ident.name, other->name,
                            path, ident.name));
      return;
    }
  }

  void reportUnboundIndex(const ast::Ident& ident) {
    if (!reportedUnknown_.insert(ident.name).second) return;
    diagnostics_.emit(DiagnosticKind::UnboundIndex, ident.span, ident.name)
        .label("not an output index and not reduced")
        .help(fmt::format("add `{0}` to the output indices, or reduce over it: `sum[{0}] ...`",
                          ident.name));
  }

  void reportWrongKind(const ast::Ident& ident, const Symbol& symbol, std::string_view expected) {
    auto diag = diagnostics_.emit(DiagnosticKind::WrongSymbolKind, ident.span, ident.name,
                                  modules::describeSymbol(symbol), expected);
    if (symbol.declSpan.valid() && symbol.declSpan.begin != ident.span.begin)
      diag.secondary(symbol.declSpan, fmt::format("`{}` is declared here", ident.name));
    if (symbol.kind == SymbolKind::Generic && symbol.generic->isPack)
      diag.help(fmt::format("write `*{}` to expand the pack", ident.name));
  }

  // ------------------------------------------------------------ lookup --

  std::optional<Symbol> lookup(std::string_view name) {
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame)
      if (const Binding* binding = frame->find(name)) return binding->symbol;
    if (auto it = scope_.find(name); it != scope_.end()) {
      it->second.used = true;
      return it->second.symbol;
    }
    if (modules::isPreludeName(name)) return makeSymbol(SymbolKind::Prelude, name);
    if (inKernel_ && modules::isKernelBuiltin(name))
      return makeSymbol(SymbolKind::KernelBuiltin, name);
    return std::nullopt;
  }

  // The innermost binding of `name` that is not an index of notation, where
  // an index of that name shadows it; nullopt where no index does.
  std::optional<Symbol> lookupPastIndices(std::string_view name) {
    std::optional<Symbol> first = lookup(name);
    if (!first || first->kind != SymbolKind::IndexVariable) return std::nullopt;
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame)
      if (const Binding* binding = frame->find(name); binding && binding->symbol.kind != SymbolKind::IndexVariable)
        return binding->symbol;
    if (auto it = scope_.find(name); it != scope_.end()) {
      it->second.used = true;
      return it->second.symbol;
    }
    return std::nullopt;
  }

  // Resolves `ident` and records it; reports it if unknown.
  std::optional<Symbol> resolveIdent(const ast::Ident& ident) {
    std::optional<Symbol> symbol = lookup(ident.name);
    if (!symbol) {
      reportUnknown(ident);
      return std::nullopt;
    }
    record(ident, *symbol);
    return symbol;
  }

  // A bare variant in a match arm: a variant of an enum declared in an
  // enclosing block (innermost first), else of one in module scope.
  std::optional<Symbol> findVariant(std::string_view name) {
    for (auto frame = frames_.rbegin(); frame != frames_.rend(); ++frame) {
      std::optional<Symbol> found;
      frame->forEachItem([&](const Binding& binding) {
        const Symbol& symbol = binding.symbol;
        auto* item = ast::as<ast::EnumItem>(symbol.item);
        if (!item || found) return;
        for (uint32_t v = 0; v < item->variants.size(); ++v)
          if (item->variants[v].name == name) {
            found = makeSymbol(SymbolKind::EnumVariant, name, item->variants[v].span, symbol.module, item, v);
            return;
          }
      });
      if (found) return found;
    }
    for (ModuleEntry* entry : enums_) {
      auto* item = static_cast<const ast::EnumItem*>(entry->symbol.item);
      for (uint32_t v = 0; v < item->variants.size(); ++v) {
        if (item->variants[v].name != name) continue;
        entry->used = true;
        return makeSymbol(SymbolKind::EnumVariant, name, item->variants[v].span, entry->symbol.module,
                          item, v);
      }
    }
    return std::nullopt;
  }

  // -------------------------------------------------------- declaration --

  void pushFrame() { frames_.emplace_back(); }
  void popFrame() { frames_.pop_back(); }

  // Declares `ident` in the innermost frame. With `noun`, a name already in
  // that frame is a duplicate (E1205); without, it shadows (locals).
  void declare(const ast::Ident& ident, Symbol symbol, std::string_view noun = {}) {
    if (ident.name.empty()) return;
    if (modules::isPreludeName(ident.name)) reportPrelude(ident);
    Frame& frame = frames_.back();
    if (!noun.empty()) {
      if (const Binding* first = frame.find(ident.name)) {
        diagnostics_.emit(DiagnosticKind::DuplicateName, ident.span, noun, ident.name)
            .secondary(first->symbol.declSpan, "first declared here");
        return;
      }
    }
    symbol.name = ident.name;
    symbol.declSpan = ident.span;
    frame.add({ident.name, symbol});
  }

  void declareLocal(const ast::Ident& ident, SymbolKind kind = SymbolKind::Local) {
    declare(ident, makeSymbol(kind));
  }

  void declareGenerics(const std::vector<ast::GenericParam>& generics) {
    for (const ast::GenericParam& generic : generics) {
      Symbol symbol = makeSymbol(SymbolKind::Generic);
      symbol.generic = &generic;
      declare(generic.name, symbol, "generic parameter");
    }
    for (const ast::GenericParam& generic : generics)
      if (generic.defaultValue) resolveGenericArg(*generic.defaultValue);
  }

  // Names that are declared but never looked up (fields, variants): only
  // duplicates and prelude names matter.
  void checkNames(const std::vector<const ast::Ident*>& names, std::string_view noun) {
    for (size_t i = 0; i < names.size(); ++i) {
      if (modules::isPreludeName(names[i]->name)) reportPrelude(*names[i]);
      for (size_t j = 0; j < i; ++j) {
        if (names[j]->name != names[i]->name) continue;
        diagnostics_.emit(DiagnosticKind::DuplicateName, names[i]->span, noun, names[i]->name)
            .secondary(names[j]->span, "first declared here");
        break;
      }
    }
  }

  // -------------------------------------------------------------- items --

  void resolveItem(const ast::Item& item) {
    switch (item.kind) {
      case ast::ItemKind::Const: {
        auto& constant = static_cast<const ast::ConstItem&>(item);
        resolveType(constant.type, TypeUse::Type);
        resolveExpr(constant.value);
        return;
      }
      case ast::ItemKind::TypeAlias: {
        auto& alias = static_cast<const ast::TypeAliasItem&>(item);
        pushFrame();
        declareGenerics(alias.generics);
        resolveType(alias.type, TypeUse::Type);
        popFrame();
        return;
      }
      case ast::ItemKind::Struct: {
        auto& structure = static_cast<const ast::StructItem&>(item);
        pushFrame();
        declareGenerics(structure.generics);
        std::vector<const ast::Ident*> names;
        for (const ast::Field& field : structure.fields) {
          names.push_back(&field.name);
          resolveType(field.type, TypeUse::Type);
        }
        checkNames(names, "field");
        popFrame();
        return;
      }
      case ast::ItemKind::Enum: {
        auto& enumeration = static_cast<const ast::EnumItem&>(item);
        pushFrame();
        declareGenerics(enumeration.generics);
        std::vector<const ast::Ident*> names;
        for (const ast::Ident& variant : enumeration.variants) names.push_back(&variant);
        checkNames(names, "variant");
        popFrame();
        return;
      }
      case ast::ItemKind::Function:
        resolveFunction(static_cast<const ast::FunctionItem&>(item));
        return;
      case ast::ItemKind::Block:
        resolveBlock(static_cast<const ast::BlockItem&>(item));
        return;
      case ast::ItemKind::Member: {
        auto& member = static_cast<const ast::MemberItem&>(item);
        resolveType(member.type, TypeUse::Type);
        // Weights and sub-blocks come from the checkpoint and the block
        // tree, never from source: a value other than `none` is E4102, and
        // the names in it are not looked up (they would only add errors).
        bool holdsValue = member.member == ast::MemberKind::Param ||
                          member.member == ast::MemberKind::Sub;
        if (holdsValue && member.initializer &&
            !ast::isa<ast::NoneLiteralExpr>(member.initializer)) {
          bool param = member.member == ast::MemberKind::Param;
          diagnostics_.emit(param ? DiagnosticKind::ParamPayload : DiagnosticKind::SubPayload,
                            member.initializer->span, member.name.name)
              .label(param ? "weights come from the checkpoint, not from source"
                           : "a sub-block is built from its type, not from a value")
              .help(fmt::format("remove the value; only an optional {} may be `= none`",
                                param ? "param" : "sub"));
          return;
        }
        resolveExpr(member.initializer);
        return;
      }
    }
  }

  void resolveFunction(const ast::FunctionItem& function) {
    bool outerKernel = inKernel_;
    inKernel_ = function.function == ast::FunctionKind::Kernel;
    pushFrame();
    declareGenerics(function.generics);
    for (const ast::Param& param : function.params) {
      Symbol symbol = makeSymbol(SymbolKind::Param);
      symbol.param = &param;
      declare(param.name, symbol, "parameter");
    }
    for (const ast::Param& param : function.params) {
      resolveType(param.type, TypeUse::Type);
      resolveExpr(param.defaultValue);
    }
    resolveType(function.returnType, TypeUse::Type);
    for (const ast::KernelResult& result : function.kernelResults) {
      resolveType(result.type, TypeUse::Type);
      declare(result.name, makeSymbol(SymbolKind::KernelResult), "kernel result");
    }
    for (const ast::KernelSetting& setting : function.kernelSettings)
      for (const ast::Expr* value : setting.values) resolveExpr(value);
    if (function.kernelBinding) {
      resolveIdent(function.kernelBinding->kernel);
      for (const ast::GenericArg& arg : function.kernelBinding->genericArgs) resolveGenericArg(arg);
    }
    resolveConstraints(function.where);
    resolveBody(function.body);
    if (function.grad) {
      pushFrame();
      declare(function.grad->result, makeSymbol(SymbolKind::GradName), "gradient name");
      declare(function.grad->gradient, makeSymbol(SymbolKind::GradName), "gradient name");
      resolveBody(function.grad->body);
      popFrame();
    }
    popFrame();
    inKernel_ = outerKernel;
  }

  void resolveBlock(const ast::BlockItem& block) {
    pushFrame();
    declareGenerics(block.generics);
    // Members and methods share the block's scope with its generics:
    // members are bare names (there is no `self`).
    for (const ast::Item* item : block.body) {
      const ast::Ident& name = item->name;
      if (name.name.empty()) continue;
      bool isMember = item->kind == ast::ItemKind::Member;
      const Binding* first = frames_.back().find(name.name);
      bool firstIsItem = first && first->symbol.kind == SymbolKind::Item;
      if (first && !isMember && firstIsItem) {
        if (modules::isPreludeName(name.name)) reportPrelude(name);
        diagnostics_.emit(DiagnosticKind::DuplicateItem, name.span, name.name, "block")
            .secondary(first->symbol.declSpan, "first defined here")
            .note("Linnet has no overloading: a block defines each name once");
        continue;
      }
      Symbol symbol = makeSymbol(isMember ? SymbolKind::Member : SymbolKind::Item);
      symbol.module = &module_;
      symbol.item = item;
      declare(name, symbol, isMember ? "member" : "name");
    }
    resolveConstraints(block.where);
    for (const ast::Item* item : block.body) resolveItem(*item);
    popFrame();
  }

  void resolveConstraints(const std::vector<ast::Constraint>& constraints) {
    for (const ast::Constraint& constraint : constraints) {
      resolveExpr(constraint.lhs);
      resolveExpr(constraint.rhs);
    }
  }

  // --------------------------------------------------------- statements --

  void resolveBody(const std::vector<ast::Stmt*>& body) {
    pushFrame();
    for (const ast::Stmt* stmt : body) resolveStmt(stmt);
    popFrame();
  }

  void resolveStmt(const ast::Stmt* stmt) {
    if (!stmt) return;
    switch (stmt->kind) {
      case ast::StmtKind::Let: {
        auto* let = static_cast<const ast::LetStmt*>(stmt);
        resolveType(let->type, TypeUse::Type);
        resolveExpr(let->value);
        declarePattern(let->pattern, false);
        return;
      }
      case ast::StmtKind::LetComprehension: {
        auto* let = static_cast<const ast::LetComprehensionStmt*>(stmt);
        pushFrame();
        for (const ast::IndexOutput& output : let->outputs)
          declareLocal(output.name, SymbolKind::IndexVariable);
        ++notationDepth_;
        resolveExpr(let->value);
        --notationDepth_;
        popFrame();
        declareLocal(let->name);
        return;
      }
      case ast::StmtKind::Var: {
        auto* var = static_cast<const ast::VarStmt*>(stmt);
        resolveType(var->type, TypeUse::Type);
        resolveExpr(var->value);
        declareLocal(var->name);
        return;
      }
      case ast::StmtKind::Assign: {
        auto* assign = static_cast<const ast::AssignStmt*>(stmt);
        resolveExpr(assign->value);
        resolveIdent(assign->target);
        return;
      }
      case ast::StmtKind::Return:
        resolveExpr(static_cast<const ast::ReturnStmt*>(stmt)->value);
        return;
      case ast::StmtKind::StaticFor: {
        auto* loop = static_cast<const ast::StaticForStmt*>(stmt);
        resolveExpr(loop->iterable);
        resolveExpr(loop->rangeEnd);
        pushFrame();
        declarePattern(loop->pattern, false);
        resolveBody(loop->body);
        popFrame();
        return;
      }
      case ast::StmtKind::While: {
        auto* loop = static_cast<const ast::WhileStmt*>(stmt);
        resolveExpr(loop->condition);
        resolveBody(loop->body);
        return;
      }
      case ast::StmtKind::For: {
        auto* loop = static_cast<const ast::ForStmt*>(stmt);
        resolveExpr(loop->start);
        resolveExpr(loop->end);
        pushFrame();
        declareLocal(loop->variable);
        resolveBody(loop->body);
        popFrame();
        return;
      }
      case ast::StmtKind::Yield:
        resolveExpr(static_cast<const ast::YieldStmt*>(stmt)->value);
        return;
      case ast::StmtKind::KernelCall:
        resolveExpr(static_cast<const ast::KernelCallStmt*>(stmt)->call);
        return;
    }
  }

  // Declares the bindings of `pattern`. A bare name at the top of a match
  // arm that is a variant of an enum in scope is that variant, not a binding.
  void declarePattern(const ast::Pattern* pattern, bool matchArm) {
    if (!pattern) return;
    switch (pattern->kind) {
      case ast::PatternKind::Binding:
        if (matchArm) {
          if (std::optional<Symbol> variant = findVariant(pattern->name.name)) {
            record(pattern->name, *variant);
            return;
          }
        }
        declareLocal(pattern->name);
        return;
      case ast::PatternKind::Tuple:
        for (const ast::Pattern* element : pattern->elements) declarePattern(element, false);
        return;
      case ast::PatternKind::Some:
        declarePattern(pattern->inner, false);
        return;
      case ast::PatternKind::None:
        return;
    }
  }

  // -------------------------------------------------------- expressions --

  struct DepthGuard {
    explicit DepthGuard(int& depth) : depth(depth) { ++depth; }
    ~DepthGuard() { --depth; }
    int& depth;
  };

  void resolveExpr(const ast::Expr* expr, ValueUse use = ValueUse::Value) {
    if (!expr || depth_ > kMaxDepth) return;
    DepthGuard guard(depth_);
    switch (expr->kind) {
      case ast::ExprKind::IntLiteral:
      case ast::ExprKind::FloatLiteral:
      case ast::ExprKind::StringLiteral:
      case ast::ExprKind::BoolLiteral:
      case ast::ExprKind::NoneLiteral:
        return;
      case ast::ExprKind::Name:
        resolveName(static_cast<const ast::NameExpr*>(expr)->name, use);
        return;
      case ast::ExprKind::Some:
        resolveExpr(static_cast<const ast::SomeExpr*>(expr)->value);
        return;
      case ast::ExprKind::Unary:
        resolveExpr(static_cast<const ast::UnaryExpr*>(expr)->operand);
        return;
      case ast::ExprKind::Binary: {
        // Left-associative chains grow to the left; walk that spine in a
        // loop so a long `a + b + ... + z` costs no stack.
        std::vector<const ast::Expr*> rights;
        const ast::Expr* left = expr;
        while (auto* binary = ast::as<ast::BinaryExpr>(left)) {
          rights.push_back(binary->rhs);
          left = binary->lhs;
        }
        resolveExpr(left);
        for (auto it = rights.rbegin(); it != rights.rend(); ++it) resolveExpr(*it);
        return;
      }
      case ast::ExprKind::Call: {
        auto* call = static_cast<const ast::CallExpr*>(expr);
        resolveExpr(call->callee, ValueUse::Callee);
        for (const ast::GenericArg& arg : call->genericArgs) resolveGenericArg(arg);
        // Named arguments (`axis = 0`, struct fields) are not looked up.
        for (const ast::Argument& arg : call->args) resolveExpr(arg.value);
        return;
      }
      case ast::ExprKind::Index: {
        auto* index = static_cast<const ast::IndexExpr*>(expr);
        // What is subscripted is a value: in `b[*b, k, n]` (spec 6.9) the
        // base is the tensor `b` though an index of that name is in scope.
        if (auto* base = ast::as<ast::NameExpr>(index->base); base && notationDepth_ > 0) {
          if (std::optional<Symbol> value = lookupPastIndices(base->name.name)) {
            record(base->name, *value);
            std::string_view expected;
            if (!modules::fitsValueUse(*value, ValueUse::Value, &expected))
              reportWrongKind(base->name, *value, expected);
          } else {
            resolveExpr(index->base);
          }
        } else {
          resolveExpr(index->base);
        }
        for (const ast::IndexComponent& component : index->components) {
          switch (component.kind) {
            case ast::IndexComponentKind::Expr:
              // In index notation an unknown bare subscript is an index that
              // is neither an output nor reduced (E3101), not a missing name.
              if (auto* name = ast::as<ast::NameExpr>(component.value);
                  notationDepth_ > 0 && name && !lookup(name->name.name)) {
                reportUnboundIndex(name->name);
                break;
              }
              resolveExpr(component.value);
              break;
            case ast::IndexComponentKind::Ellipsis: break;
            case ast::IndexComponentKind::Pack: resolveIdent(component.pack); break;
            case ast::IndexComponentKind::Slice:
              resolveExpr(component.start);
              resolveExpr(component.stop);
              resolveExpr(component.step);
              break;
          }
        }
        return;
      }
      case ast::ExprKind::Member:
        resolveMember(*static_cast<const ast::MemberExpr*>(expr), use);
        return;
      case ast::ExprKind::Tuple:
        for (const ast::Expr* element : static_cast<const ast::TupleExpr*>(expr)->elements)
          resolveExpr(element);
        return;
      case ast::ExprKind::ShapeLiteral:
        resolveShape(static_cast<const ast::ShapeLiteralExpr*>(expr)->elements);
        return;
      case ast::ExprKind::Reduction: {
        auto* reduction = static_cast<const ast::ReductionExpr*>(expr);
        pushFrame();
        for (const ast::Ident& index : reduction->indices)
          declareLocal(index, SymbolKind::IndexVariable);
        ++notationDepth_;
        resolveExpr(reduction->body);
        --notationDepth_;
        popFrame();
        return;
      }
      case ast::ExprKind::If: {
        auto* branch = static_cast<const ast::IfExpr*>(expr);
        resolveExpr(branch->condition);
        resolveExpr(branch->thenValue);
        resolveExpr(branch->elseValue);
        return;
      }
      case ast::ExprKind::Match: {
        auto* match = static_cast<const ast::MatchExpr*>(expr);
        resolveExpr(match->scrutinee);
        for (const ast::MatchArm& arm : match->arms) {
          pushFrame();
          declarePattern(arm.pattern, true);
          resolveExpr(arm.value);
          popFrame();
        }
        return;
      }
      case ast::ExprKind::Paren:
        resolveExpr(static_cast<const ast::ParenExpr*>(expr)->inner);
        return;
      case ast::ExprKind::ForScan: {
        auto* scan = static_cast<const ast::ForScanExpr*>(expr);
        resolveExpr(scan->start);
        resolveExpr(scan->end);
        pushFrame();
        declareLocal(scan->variable);
        resolveBody(scan->body);
        popFrame();
        return;
      }
    }
  }

  void resolveName(const ast::Ident& ident, ValueUse use) {
    std::optional<Symbol> symbol = resolveIdent(ident);
    if (!symbol) return;
    std::string_view expected;
    if (!modules::fitsValueUse(*symbol, use, &expected)) reportWrongKind(ident, *symbol, expected);
  }

  // The item `name` of the module `owner` bound by an import, checked for
  // existence and visibility; nullopt if it is missing (reported).
  // Like unknown names, each `mod.x` problem is reported once per top-level
  // item however often it is written.
  std::optional<Symbol> moduleItem(const Module& owner, const ast::Ident& name) {
    const ast::Item* item = owner.findItem(name.name);
    bool first = reportedQualified_.insert(owner.name + "." + name.name).second;
    if (!item) {
      if (!owner.hasParseErrors && first)
        diagnostics_.emit(DiagnosticKind::UnknownImportedItem, name.span, owner.name, name.name);
      return std::nullopt;
    }
    if (!item->isPub && &owner != &module_ && first) reportPrivate(name, owner, *item);
    Symbol symbol = makeSymbol(SymbolKind::Item, item->name.name, item->name.span, &owner, item);
    record(name, symbol);
    return symbol;
  }

  void resolveMember(const ast::MemberExpr& member, ValueUse use) {
    auto* base = ast::as<ast::NameExpr>(member.base);
    if (!base) {
      resolveExpr(member.base, ValueUse::MemberBase);
      return;
    }
    std::optional<Symbol> symbol = resolveIdent(base->name);
    if (!symbol) return;
    if (symbol->kind == SymbolKind::Module) {
      std::optional<Symbol> item = moduleItem(*symbol->module, member.member);
      std::string_view expected;
      if (item && !modules::fitsValueUse(*item, use, &expected))
        reportWrongKind(member.member, *item, expected);
      return;
    }
    std::string_view expected;
    if (!modules::fitsValueUse(*symbol, ValueUse::MemberBase, &expected)) {
      reportWrongKind(base->name, *symbol, expected);
      return;
    }
    // `E.A`: record the variant when it exists; a missing one is the
    // checker's unknown member (E2107).
    if (symbol->kind == SymbolKind::Item && symbol->item->kind == ast::ItemKind::Enum) {
      auto* enumeration = static_cast<const ast::EnumItem*>(symbol->item);
      for (uint32_t v = 0; v < enumeration->variants.size(); ++v)
        if (enumeration->variants[v].name == member.member.name)
          record(member.member, makeSymbol(SymbolKind::EnumVariant, member.member.name,
                                           enumeration->variants[v].span, symbol->module,
                                           enumeration, v));
    }
  }

  void resolveShape(const std::vector<ast::ShapeElement>& elements) {
    for (const ast::ShapeElement& element : elements) {
      if (element.isPack()) resolveIdent(element.pack);
      else resolveExpr(element.dim);
    }
  }

  // -------------------------------------------------------------- types --

  void resolveGenericArg(const ast::GenericArg& arg) {
    if (arg.type) resolveType(arg.type, TypeUse::GenericArg);
    else resolveExpr(arg.expr);
  }

  void resolveType(const ast::TypeNode* type, TypeUse use) {
    if (!type || depth_ > kMaxDepth) return;
    DepthGuard guard(depth_);
    switch (type->kind) {
      case ast::TypeKind::Scalar:
        return;
      case ast::TypeKind::Tensor: {
        auto* tensor = static_cast<const ast::TensorTypeNode*>(type);
        resolveShape(tensor->shape);
        resolveType(tensor->dtype, TypeUse::DType);
        return;
      }
      case ast::TypeKind::Tuple:
        for (const ast::TypeNode* element : static_cast<const ast::TupleTypeNode*>(type)->elements)
          resolveType(element, TypeUse::Type);
        return;
      case ast::TypeKind::Array: {
        auto* array = static_cast<const ast::ArrayTypeNode*>(type);
        resolveType(array->element, TypeUse::Type);
        resolveExpr(array->count);
        return;
      }
      case ast::TypeKind::Named:
        resolveNamedType(*static_cast<const ast::NamedTypeNode*>(type), use);
        return;
      case ast::TypeKind::Optional:
        resolveType(static_cast<const ast::OptionalTypeNode*>(type)->inner, use);
        return;
    }
  }

  void resolveNamedType(const ast::NamedTypeNode& named, TypeUse use) {
    for (const ast::GenericArg& arg : named.genericArgs) resolveGenericArg(arg);
    if (named.path.empty()) return;
    std::optional<Symbol> symbol = resolveIdent(named.path.front());
    if (!symbol) return;
    std::string_view expected;
    if (named.path.size() == 1) {
      if (!modules::fitsTypeUse(*symbol, use, &expected))
        reportWrongKind(named.path.front(), *symbol, expected);
      return;
    }
    // `module.Item`; other dotted names (`E.A` as a generic argument) are
    // left to the checker.
    if (symbol->kind != SymbolKind::Module) return;
    std::optional<Symbol> item = moduleItem(*symbol->module, named.path[1]);
    if (item && named.path.size() == 2 && !modules::fitsTypeUse(*item, use, &expected))
      reportWrongKind(named.path[1], *item, expected);
  }

  const Program& program_;
  Module& module_;
  DiagnosticEmitter& diagnostics_;
  std::vector<PendingWarning>& warnings_;
  std::unordered_map<std::string_view, ModuleEntry> scope_;
  std::vector<std::string_view> importOrder_;
  std::vector<ModuleEntry*> enums_;
  std::vector<Frame> frames_;
  std::set<std::string_view> reportedUnknown_;
  int notationDepth_ = 0;  // > 0 inside a comprehension value or reduction body
  std::set<std::string> reportedQualified_;
  bool inKernel_ = false;
  int depth_ = 0;
};

}  // namespace

void resolveProgram(Program& program, DiagnosticEmitter& diagnostics) {
  std::vector<PendingWarning> warnings;
  for (const auto& module : program.modules()) {
    // A module that did not parse cleanly would only produce follow-on
    // errors; its parse errors are reported already.
    if (module->hasParseErrors || !module->ast) continue;
    ModuleResolver(program, *module, diagnostics, warnings).run();
  }
  if (diagnostics.hasErrors()) return;
  for (const PendingWarning& warning : warnings)
    diagnostics.emit(DiagnosticKind::UnusedImport, warning.span, warning.name)
        .help(fmt::format("remove it, or import it as a name that starts with `_` (`{0} as _{0}`)", warning.name));
}

}  // namespace linnet
