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

struct Frame {
  std::vector<Binding> bindings;

  const Binding* find(std::string_view name) const {
    for (auto it = bindings.rbegin(); it != bindings.rend(); ++it)
      if (it->name == name) return &*it;
    return nullptr;
  }
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
