// Names: the prelude, keyword and reserved-word tables (spec §1.4, §2.3).
// The tables are small and fixed, so a linear scan is as fast as a hash.
#include "compiler/modules/Names.h"

#include <array>

namespace linnet::modules {

namespace {

struct PreludeEntry {
  std::string_view name;
  PreludeKind kind;
};

constexpr std::array kPrelude = {
    PreludeEntry{"bool", PreludeKind::ScalarType},   PreludeEntry{"i8", PreludeKind::ScalarType},
    PreludeEntry{"i16", PreludeKind::ScalarType},    PreludeEntry{"i32", PreludeKind::ScalarType},
    PreludeEntry{"i64", PreludeKind::ScalarType},    PreludeEntry{"u8", PreludeKind::ScalarType},
    PreludeEntry{"u16", PreludeKind::ScalarType},    PreludeEntry{"u32", PreludeKind::ScalarType},
    PreludeEntry{"u64", PreludeKind::ScalarType},    PreludeEntry{"f16", PreludeKind::ScalarType},
    PreludeEntry{"bf16", PreludeKind::ScalarType},   PreludeEntry{"f32", PreludeKind::ScalarType},
    PreludeEntry{"f64", PreludeKind::ScalarType},    PreludeEntry{"Tensor", PreludeKind::TensorType},
    PreludeEntry{"Dim", PreludeKind::Constraint},    PreludeEntry{"Shape", PreludeKind::Constraint},
    PreludeEntry{"DType", PreludeKind::Constraint},  PreludeEntry{"Numeric", PreludeKind::Constraint},
    PreludeEntry{"Integer", PreludeKind::Constraint}, PreludeEntry{"Float", PreludeKind::Constraint},
    PreludeEntry{"cast", PreludeKind::Function},     PreludeEntry{"reshape", PreludeKind::Function},
    PreludeEntry{"permute", PreludeKind::Function},  PreludeEntry{"broadcast_to", PreludeKind::Function},
    PreludeEntry{"concat", PreludeKind::Function},   PreludeEntry{"pad", PreludeKind::Function},
    PreludeEntry{"iota", PreludeKind::Function},     PreludeEntry{"fill", PreludeKind::Function},
    PreludeEntry{"cumsum", PreludeKind::Function},   PreludeEntry{"gather", PreludeKind::Function},
    PreludeEntry{"scatter", PreludeKind::Function},  PreludeEntry{"exp", PreludeKind::Function},
    PreludeEntry{"log", PreludeKind::Function},      PreludeEntry{"sqrt", PreludeKind::Function},
    PreludeEntry{"rsqrt", PreludeKind::Function},    PreludeEntry{"sin", PreludeKind::Function},
    PreludeEntry{"cos", PreludeKind::Function},      PreludeEntry{"tanh", PreludeKind::Function},
    PreludeEntry{"abs", PreludeKind::Function},      PreludeEntry{"min", PreludeKind::Function},
    PreludeEntry{"max", PreludeKind::Function},      PreludeEntry{"shl", PreludeKind::Function},
    PreludeEntry{"shr", PreludeKind::Function},      PreludeEntry{"select", PreludeKind::Function},
};

// Spec §1.4, newest list. `yield` and `kernel` are keywords now; older
// versions listed them as reserved.
constexpr std::array<std::string_view, 37> kKeywords = {
    "module", "use",   "pub",   "crate",  "self",  "super", "as",    "const",  "type",  "struct",
    "enum",   "fn",    "op",    "kernel", "block", "entry", "param", "buffer", "state", "sub",
    "let",    "var",   "return", "if",    "else",  "match", "static", "for",   "in",    "while",
    "yield",  "where", "true",  "false",  "none",  "some",  "extern",
};

constexpr std::array<std::string_view, 12> kReserved = {
    "async", "await", "effect", "unsafe", "macro", "trait",
    "impl",  "derive", "rng",   "mut",    "ref",   "device",
};

constexpr std::array<std::string_view, 6> kKernelBuiltins = {
    "program_id", "load", "store", "atomic_add", "atomic_max", "atomic_min",
};

template <size_t N>
bool contains(const std::array<std::string_view, N>& table, std::string_view name) {
  for (std::string_view entry : table)
    if (entry == name) return true;
  return false;
}

bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentContinue(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

bool isPreludeName(std::string_view name, PreludeKind* kind) {
  for (const PreludeEntry& entry : kPrelude) {
    if (entry.name == name) {
      if (kind) *kind = entry.kind;
      return true;
    }
  }
  return false;
}

bool isIdentifier(std::string_view text) {
  if (text.empty() || !isIdentStart(text.front())) return false;
  for (char c : text)
    if (!isIdentContinue(c)) return false;
  return true;
}

bool isKeyword(std::string_view text) { return contains(kKeywords, text); }
bool isReservedWord(std::string_view text) { return contains(kReserved, text); }
bool isKernelBuiltin(std::string_view name) { return contains(kKernelBuiltins, name); }

}  // namespace linnet::modules
