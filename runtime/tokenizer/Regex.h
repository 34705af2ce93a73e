// The small regular-expression engine behind tokenizer.json's `Split`
// pre-tokenizer (and ByteLevel's use_regex). It implements exactly the
// subset the GPT-2, Llama 3 and Qwen2 patterns use, with Oniguruma's
// (Perl's) semantics: leftmost match, alternatives tried in order, greedy
// quantifiers that backtrack. It works on Unicode code points.
//
// Supported:
//   literals, `\` + punctuation, `\r \n \t \f \v`, `.` (anything but \n)
//   `\s \S` (Unicode White_Space), `\p{L} \p{N} \P{L} \P{N}` (general
//   categories L*, N*; also `\pL`, `\pN`)
//   character classes `[...]`, `[^...]` of those, with ranges `a-z`
//   groups `(...)`, `(?:...)`, `(?i:...)` (ASCII case-insensitive, as
//   Oniguruma applies it to these patterns), lookaheads `(?=...)`, `(?!...)`
//   alternation `|`; quantifiers `? * + {n} {n,} {n,m}` and their lazy forms
// Anything else (anchors, backreferences, `\d`, `\w`, other properties,
// possessive quantifiers, inline flags other than i, ...) is refused by
// compile() with an Error naming the construct and its offset.
//
// Matching is bounded: a search that takes more than a fixed number of
// steps, or nests too deeply, is an Error rather than a hang or a stack
// overflow.
#pragma once

#include "runtime/support/Status.h"

#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

namespace linnet::rt {

class Regex {
public:
  // `pattern` is UTF-8.
  static Expected<Regex> compile(std::string_view pattern);

  Regex(Regex &&) noexcept;
  Regex &operator=(Regex &&) noexcept;
  ~Regex();

  // The successive non-overlapping leftmost matches in `text`, as
  // [begin, end) code point offsets; empty matches are skipped.
  Expected<std::vector<std::pair<std::size_t, std::size_t>>>
  findAll(std::u32string_view text) const;

  struct Program;

private:
  explicit Regex(std::unique_ptr<Program> program);
  std::unique_ptr<Program> program_;
};

} // namespace linnet::rt
