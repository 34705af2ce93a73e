// Names: the fixed name tables that modules and name resolution consult —
// the prelude (spec §2.3), the hard keywords and reserved words (spec §1.4),
// the kernel builtins — and the identifier test. They are checked here for
// names the lexer never sees as tokens: package names and dependency keys in
// `linnet.toml`, and the file and directory names a module path comes from.
// Self-contained (no parser), so the manifest fuzzer can link it alone.
#pragma once

#include <string_view>

namespace linnet::modules {

// What a prelude name denotes; name resolution uses it to tell a type from
// a value without the type checker.
enum class PreludeKind : uint8_t {
  ScalarType,   // bool i8 ... f64
  TensorType,   // Tensor
  Constraint,   // Dim Shape DType Numeric Integer Float
  Function,     // cast reshape ... select
};

// True (and `kind` set) for a name of the implicit prelude.
bool isPreludeName(std::string_view name, PreludeKind* kind = nullptr);

// `[A-Za-z_][A-Za-z0-9_]*`
bool isIdentifier(std::string_view text);

// A hard keyword (`module`, `type`, `kernel`, ...).
bool isKeyword(std::string_view text);

// A word reserved for future syntax (`async`, `trait`, `mut`, ...).
bool isReservedWord(std::string_view text);

// Kernel builtins, visible only inside a `kernel` body.
bool isKernelBuiltin(std::string_view name);

}  // namespace linnet::modules
