// The Jinja engine on malformed, refused and hostile templates: each is an
// Error naming the line (never a crash, a hang or unbounded memory), and
// random damage to the committed real templates never crashes the parser or
// the renderer.
#include "runtime/tokenizer/jinja/Template.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace linnet::rt::jinja {
namespace {

namespace fs = std::filesystem;

Expected<std::string> render(std::string_view source, RenderLimits limits = {}) {
  Expected<Template> compiled = Template::parse(source);
  if (!compiled)
    return compiled.error();
  DictData context;
  context.set("messages", Value::list({Value::dict()}));
  RenderOptions options;
  options.limits = limits;
  return compiled->render(context, options);
}

void expectError(std::string_view source, std::string_view fragment, RenderLimits limits = {}) {
  Expected<std::string> text = render(source, limits);
  ASSERT_FALSE(text.ok()) << "rendered: " << *text;
  EXPECT_NE(text.message().find(fragment), std::string::npos) << text.message();
}

TEST(JinjaErrorsTest, MalformedTemplatesNameTheLine) {
  expectError("a\n{{ x", "line 2: unterminated `{{` tag");
  expectError("{% if x %}", "missing `elif` or `else` or `endif`");
  expectError("\n\n{% for x in y %}a", "line 3");
  expectError("{# never closed", "line 1: unterminated comment");
  expectError("{{ 'abc }}", "unterminated string literal");
  expectError("{{ 1 + }}", "line 1: expected an expression");
  expectError("x\n{% endif %}", "line 2: unknown statement `endif`");
  expectError("{% if %}{% endif %}", "expected an expression");
  expectError("{{ a b }}", "expected `}}`");
  expectError("{{ x[1:2:3:4] }}", "expected `]`");
  expectError("{% set %}", "expected a name");
  expectError("{{ $ }}", "unexpected character `$`");
  expectError("{% break %}", "`break` outside a for loop");
  expectError("{{ 99999999999999999999 }}", "out of range");
}

TEST(JinjaErrorsTest, RefusedConstructs) {
  expectError("{% include 'x' %}", "the `include` statement is not supported");
  expectError("{% extends 'x' %}", "not supported");
  expectError("{% raw %}x{% endraw %}", "not supported");
  expectError("{% for x in y recursive %}{% endfor %}", "recursive for loops are not supported");
  expectError("{{ x | wordwrap }}", "unsupported filter 'wordwrap'");
  expectError("{{ 1 is prime }}", "unsupported test 'prime'");
  expectError("{{ '%s' % 1 }}", "printf-style");
  expectError("{{ messages.append(1) }}", "'append' of 'list' object");
  expectError("{{ f(*xs) }}", "`*args`");
  expectError("{{ {1: 2} }}", "dict keys must be strings");
}

TEST(JinjaErrorsTest, RuntimeErrors) {
  expectError("\n{{ raise_exception('no system role') }}", "line 2: no system role");
  expectError("{{ 1 // 0 }}", "division or modulo by zero");
  expectError("{{ 1 / 0 }}", "division by zero");
  expectError("{{ 9223372036854775807 + 1 }}", "integer overflow");
  expectError("{{ 1 < 'a' }}", "'<' not supported between instances of 'int' and 'str'");
  expectError("{% for x in 3 %}{% endfor %}", "'int' object is not iterable");
  expectError("{{ messages[0].x.y }}", "'dict object' has no attribute 'x'");
  expectError("{{ nothing() }}", "'nothing' is undefined");
  expectError("{{ 'a'() }}", "'str' object is not callable");
  expectError("{% set x = 1 %}{% set x.y = 2 %}", "non-namespace");
  expectError("{{ range(200000) | length }}", "Range too big");
  expectError("{{ lipsum() }}", "'lipsum' is undefined");
}

TEST(JinjaErrorsTest, DeepNestingIsAnErrorNotAStackOverflow) {
  expectError("{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}",
              "nests deeper than");
  expectError("{{ " + std::string(100000, '[') + std::string(100000, ']') + " }}",
              "nests deeper than");
  // An unclosed bracket keeps `}}` inside the expression, as in jinja2.
  expectError("{{ " + std::string(100000, '[') + " }}", "unterminated `{{` tag");
  expectError("{{ " + std::string(50000, '-') + "1 }}", "nests deeper than");
  std::string ifs;
  for (int i = 0; i < 10000; ++i)
    ifs += "{% if true %}";
  expectError(ifs, "nests deeper than");
  std::string nots = "{{ ";
  for (int i = 0; i < 10000; ++i)
    nots += "not ";
  expectError(nots + "x }}", "nests deeper than");
}

TEST(JinjaErrorsTest, HugeLoopsHitTheStepLimit) {
  expectError("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
              "steps");
  expectError("{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}"
              "{% endfor %}",
              "more than", RenderLimits{.maxOutputBytes = 1 << 20});
}

TEST(JinjaErrorsTest, GrowingOutputHitsTheSizeLimit) {
  // Doubling a string: 2^40 bytes without the limit.
  expectError("{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
              "{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s | length }}",
              "bytes", RenderLimits{.maxOutputBytes = 1 << 20});
  expectError("{{ 'x' * 10000000000 }}", "larger than");
  expectError("{{ [1, 2] * 9223372036854775807 }}", "larger than");
  expectError("{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
              "{% set ns.s = [ns.s, ns.s] | join %}{% endfor %}",
              "bytes", RenderLimits{.maxOutputBytes = 1 << 20});
}

TEST(JinjaErrorsTest, RecursiveMacrosHitTheDepthLimit) {
  expectError("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "nest deeper than 64");
  // Fan-out recursion is bounded by the step limit.
  expectError("{% macro f(n) %}{% if n < 60 %}{{ f(n + 1) }}{{ f(n + 1) }}{% endif %}"
              "{% endmacro %}{{ f(0) }}",
              "steps");
}

// Macro recursion with each call inside blocks nested almost to the parse
// limit: the render depth limit stops it while the stack is still small
// (this test passes with `ulimit -s 512`).
TEST(JinjaErrorsTest, DeepBlocksInsideDeepRecursionFitTheStack) {
  std::string open, close;
  for (int i = 0; i < 190; ++i) {
    open += "{% if true %}";
    close += "{% endif %}";
  }
  expectError("{% macro f(n) %}" + open + "{{ f(n + 1) }}" + close + "{% endmacro %}{{ f(0) }}",
              "nests deeper than 256 blocks and macro calls");
}

TEST(JinjaErrorsTest, DamagedRealTemplatesNeverCrash) {
  fs::path dir = fs::path(LINNET_SOURCE_DIR) / "test" / "data" / "chat-templates";
  std::mt19937 rng(1234);
  const std::string alphabet = "{}%#-+()[]'\"|.,: \nabcxyz0129";
  int rendered = 0, failed = 0;
  for (const auto &entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".jinja")
      continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string original = buffer.str();
    for (int trial = 0; trial < 300; ++trial) {
      std::string damaged = original;
      int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits && !damaged.empty(); ++e) {
        std::size_t at = rng() % damaged.size();
        switch (rng() % 4) {
        case 0: damaged.erase(at, 1 + rng() % 8); break;
        case 1: damaged.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
        case 2: damaged[at] = alphabet[rng() % alphabet.size()]; break;
        case 3: damaged.resize(at); break;
        }
      }
      Expected<std::string> text =
          render(damaged, RenderLimits{.maxOutputBytes = 1 << 20, .maxSteps = 100000});
      (text.ok() ? rendered : failed)++;
    }
  }
  EXPECT_GT(rendered + failed, 0);
}

} // namespace
} // namespace linnet::rt::jinja
