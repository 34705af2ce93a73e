// Toml: a small, strict reader for the subset of TOML that `linnet.toml`
// needs: `[table]` headers, `key = value` lines, basic and literal strings,
// decimal integers, booleans, one-line inline tables and arrays of those
// scalars, and `#` comments. Everything else TOML has (dotted keys, arrays of
// tables, multi-line strings, floats, dates, nested inline tables) is
// rejected with a message naming it, so a manifest never means something we
// did not read. The reader is iterative (no recursion deeper than one inline
// table holding an array), bounded by `kMaxTomlBytes`, and never throws: any
// byte string gives either a document or one error with its span.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace linnet::modules {

inline constexpr size_t kMaxTomlBytes = 1u << 20;

struct TomlEntry;

struct TomlValue {
  enum class Kind : uint8_t { String, Integer, Bool, Array, InlineTable };
  Kind kind = Kind::String;
  std::string string;
  int64_t integer = 0;
  bool boolean = false;
  std::vector<TomlValue> array;   // Array: scalar elements
  std::vector<TomlEntry> table;   // InlineTable: scalar or array values
  uint32_t begin = 0;             // byte range of the value's spelling
  uint32_t end = 0;

  std::string_view kindName() const;  // "a string", "an integer", ...
};

struct TomlEntry {
  std::string key;
  uint32_t keyBegin = 0;
  uint32_t keyEnd = 0;
  TomlValue value;
};

struct TomlTable {
  std::string name;        // "" for the root table (keys before any header)
  uint32_t headerBegin = 0;
  uint32_t headerEnd = 0;
  std::vector<TomlEntry> entries;

  const TomlEntry* find(std::string_view key) const;
};

struct TomlDocument {
  std::vector<TomlTable> tables;  // tables[0] is the root table

  const TomlTable* find(std::string_view name) const;
};

struct TomlError {
  std::string message;  // lowercase, no period
  uint32_t begin = 0;
  uint32_t end = 0;
};

// Parses `text`; on failure returns nullopt and fills `error` (the first
// problem only: later lines are not read).
std::optional<TomlDocument> parseToml(std::string_view text, TomlError* error);

}  // namespace linnet::modules
