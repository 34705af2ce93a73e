// Template source -> tokens: text between tags, and the tokens inside
// `{{ }}` and `{% %}` tags (comments are dropped). Whitespace control is
// applied here, as in jinja2's lexer: `{%-`/`-%}` (and the same on `{{ }}`,
// `{# #}`) strip all whitespace on that side; trim_blocks drops the first
// newline after a block or comment tag; lstrip_blocks strips spaces and tabs
// before a block or comment tag that starts its line (`{%+` opts out).
// Newlines are normalized to "\n" and one trailing newline is dropped
// (keep_trailing_newline=False).
#pragma once

#include "runtime/support/Status.h"

#include <string>
#include <string_view>
#include <vector>

namespace linnet::rt::jinja {

struct Token {
  enum class Kind {
    Text,        // text: literal template text
    VarBegin,    // {{
    VarEnd,      // }}
    BlockBegin,  // {%
    BlockEnd,    // %}
    Name,        // text
    String,      // text: the unescaped value
    Integer,     // text
    Float,       // text
    Operator,    // text: ( ) [ ] { } . , : | + - * / // % ** ~ = == != < <= > >=
    End,
  };
  Kind kind;
  std::string text;
  int line = 0;
};

Expected<std::vector<Token>> lexTemplate(std::string_view source);

} // namespace linnet::rt::jinja
