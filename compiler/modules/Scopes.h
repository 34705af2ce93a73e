// Scopes: the name tables resolveProgram walks (internal to the modules
// stage). A module scope maps each top-level item and import binding to its
// Symbol; nested scopes (a block's generics and members, a function's
// generics and parameters, locals) are frames searched innermost first, and
// within a frame latest first, so a later `let x` shadows an earlier one.
// The prelude and, inside kernels, the kernel builtins come last: no
// declaration may take a prelude name (E1207), so nothing can hide them.
#pragma once

#include <string_view>
#include <unordered_map>
#include <vector>

#include "compiler/modules/Program.h"

namespace linnet::modules {

struct ModuleEntry {
  Symbol symbol;
  bool isImport = false;
  bool used = false;
  Span declSpan;  // the binding identifier (the alias for `x as y`)
  Span useSpan;   // what W1001 underlines: the whole imported name
};

struct Binding {
  std::string_view name;
  Symbol symbol;
};

// One scope's bindings in declaration order, with an index from each name to
// its latest binding: a body of 10^5 `let`s resolves in linear time.
class Frame {
 public:
  void add(Binding binding) {
    latest_[binding.name] = bindings_.size();
    if (binding.symbol.kind == SymbolKind::Item) items_.push_back(bindings_.size());
    bindings_.push_back(binding);
  }

  const Binding* find(std::string_view name) const {
    auto it = latest_.find(name);
    return it == latest_.end() ? nullptr : &bindings_[it->second];
  }

  // The bindings of items (a block's nested enums, ...), in declaration order.
  template <typename F>
  void forEachItem(F&& f) const {
    for (size_t i : items_) f(bindings_[i]);
  }

 private:
  std::vector<Binding> bindings_;
  std::unordered_map<std::string_view, size_t> latest_;
  std::vector<size_t> items_;
};

// How a name is used, which decides what kinds of symbol fit (E1208).
enum class ValueUse : uint8_t { Value, Callee, MemberBase };
enum class TypeUse : uint8_t { Type, DType, GenericArg };

// "a block", "a dimension generic", ... for E1208 messages.
std::string describeSymbol(const Symbol& symbol);

// Whether `symbol` can stand where `use` needs it, judged from names alone;
// sets `expected` ("a value", "a type", ...) when it cannot.
bool fitsValueUse(const Symbol& symbol, ValueUse use, std::string_view* expected);
bool fitsTypeUse(const Symbol& symbol, TypeUse use, std::string_view* expected);

}  // namespace linnet::modules
