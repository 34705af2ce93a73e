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
  // A raised message is the template's text, shown shortened and escaped (a
  // 4 MB one made a 4 MB error line).
  Expected<std::string> raised = render("{{ raise_exception('boom' * 1000000 ~ '\x1b') }}");
  ASSERT_FALSE(raised.ok());
  EXPECT_LT(raised.message().size(), 1200u);
  EXPECT_NE(raised.message().find("boomboom... (4000001 bytes)"), std::string::npos) << raised.message().substr(0, 200);
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

// Chains are parsed by loops but build left-deep trees that rendering and
// destruction walk recursively: 20000 links used to overflow the stack.
TEST(JinjaErrorsTest, LongChainsAreAnErrorNotAStackOverflow) {
  auto chain = [](std::string_view head, std::string_view link, int n) {
    std::string text = "{{ " + std::string(head);
    for (int i = 0; i < n; ++i)
      text += link;
    return text + " }}";
  };
  for (auto [head, link] : std::vector<std::pair<std::string_view, std::string_view>>{
           {"x", ".a"},
           {"'a'", "|upper"},
           {"1", "+1"},
           {"1", "~1"},
           {"x", "[0]"},
           {"x", "(1)"},
           {"x", " is defined()"},
           {"x", " or x"},
           {"x", " and x"},
           {"1", "*1"},
           {"2", "**1"},
           {"x", " if x"}}) {
    SCOPED_TRACE(std::string(head) + std::string(link));
    expectError(chain(head, link, 20000), "nests deeper than 200 levels");
  }
  // Long chains within the limit still render.
  Expected<std::string> sum = render(chain("1", "+1", 150));
  ASSERT_TRUE(sum.ok()) << sum.message();
  EXPECT_EQ(*sum, "151");
  Expected<std::string> upper = render(chain("'a'", "|upper", 150));
  ASSERT_TRUE(upper.ok()) << upper.message();
  EXPECT_EQ(*upper, "A");
}

TEST(JinjaErrorsTest, ANamespaceCannotHoldItself) {
  // Assigning a namespace into itself, directly, in a list or dict, or
  // through another namespace, is the only way to build a cycle of values:
  // refused (a cycle of shared pointers would also never be freed).
  expectError("{% set ns = namespace(a=1) %}{% set ns.a = ns %}{{ ns }}", "a namespace cannot hold itself");
  expectError("{% set ns = namespace(a=1) %}{% set ns.a = [1, [ns]] %}{{ ns }}", "a namespace cannot hold itself");
  expectError("{% set ns = namespace(a=1) %}{% set ns.a = {'k': ns} %}{{ ns }}", "a namespace cannot hold itself");
  expectError("{% set ns = namespace(a=1) %}{% set other = namespace(b=ns) %}{% set ns.a = other %}{{ ns }}",
              "a namespace cannot hold itself");
  // Another namespace, or this one's earlier value, is fine.
  EXPECT_EQ(render("{% set ns = namespace(a=1) %}{% set other = namespace(b=2) %}{% set ns.a = [other, ns.a] %}"
                   "{{ ns.a[1] }}{{ ns.a[0].b }}")
                .value(),
            "12");
}

TEST(JinjaErrorsTest, DeepAndHugeValuesAreBounded) {
  // Nesting a list 100000 deep: Python's walks stop at its recursion limit,
  // ours at kMaxValueDepth, when the value is built.
  expectError("{% set ns = namespace(l=[]) %}{% for i in range(100000) %}"
              "{% set ns.l = [ns.l] %}{% endfor %}{{ ns.l }}",
              "nests deeper than 256 levels");
  expectError("{% set ns = namespace(d={}) %}{% for i in range(100000) %}"
              "{% set ns.d = {'a': ns.d} %}{% endfor %}{{ ns.d|tojson }}",
              "nests deeper than 256 levels");
  // A namespace put in a list and then made deeper: the walks check again.
  expectError("{% set n = namespace(v=0) %}{% set ns = namespace(l=n) %}"
              "{% for i in range(200) %}{% set ns.l = [ns.l] %}{% endfor %}"
              "{% set h = namespace(l=[]) %}{% for i in range(200) %}"
              "{% set h.l = [h.l] %}{% endfor %}{% set n.v = h.l %}{{ ns }}",
              "nests deeper than 256 levels");
  // `[l, l]` sixty times over: small in memory, 2^60 items when printed,
  // serialized or compared.
  std::string doubled = "{% set a = namespace(l=[1]) %}{% set b = namespace(l=[1]) %}"
                        "{% for i in range(60) %}{% set a.l = [a.l, a.l] %}"
                        "{% set b.l = [b.l, b.l] %}{% endfor %}";
  expectError(doubled + "{{ a.l }}", "longer than 16777216 bytes");
  expectError(doubled + "{{ a.l|tojson }}", "longer than 16777216 bytes");
  expectError(doubled + "{{ a.l|string|length }}", "longer than 16777216 bytes");
  expectError(doubled + "{{ a.l == b.l }}", "comparing more than");
  expectError(doubled + "{{ [a.l, b.l]|unique|list }}", "comparing more than");
  expectError("{{ range(100000)|unique|list|length }}", "comparing more than");
}

TEST(JinjaErrorsTest, ListsAndDictsAreBounded) {
  // A list doubled forty times: 2^40 items without the limit.
  expectError("{% set ns = namespace(l=['a']) %}{% for i in range(40) %}"
              "{% set ns.l = ns.l + ns.l %}{% endfor %}{{ ns.l|length }}",
              "more than 1000000 items");
  expectError("{% set s = ['a'] * 10000000 %}", "larger than 1000000 items");
  expectError("{% set s = ['a'] * 1000000 %}{% set t = s * 1000000 %}", "larger than");
  // A Value holds its string: copies of a big string in a list count.
  expectError("{% set s = 'a' * 1000000 %}{% set l = [s] * 100 %}", "larger than");
  std::string many = "{% set s = 'a' * 1000000 %}{% set l = [s";
  for (int i = 0; i < 100; ++i)
    many += ", s";
  expectError(many + "] %}", "more than 16777216 bytes of strings");
  expectError("{% set s = 'a' * 1000000 %}{% set d = {'a': s, 'b': s, 'c': s, 'd': s, 'e': s, "
              "'f': s, 'g': s, 'h': s, 'i': s, 'j': s, 'k': s, 'l': s, 'm': s, 'n': s, 'o': s, "
              "'p': s, 'q': s} %}",
              "bytes of strings");
  expectError("{% set s = 'a,' * 4000000 %}{{ s.split(',')|length }}", "more than 1000000 items");
  expectError("{% set s = 'a' * 4000000 %}{{ s|list|length }}", "more than 1000000 items");
  // replace computes its result's size before building it.
  expectError("{% set s = 'a' * 100000 %}{{ s.replace('', s)|length }}",
              "replace would give more than 16777216 bytes");
  expectError("{% set s = 'a' * 100000 %}{{ s|replace('a', s)|length }}",
              "replace would give more than 16777216 bytes");
  EXPECT_EQ(render("{{ 'abc'.replace('', '-') }}|{{ 'aXbX'.replace('X', 'yy', 1) }}").value(),
            "-a-b-c-|ayybX");
}

TEST(JinjaErrorsTest, HugeLoopsHitTheStepLimit) {
  // Each inner range(100000) builds its list of 100,000 items: without a
  // value budget it is the step limit that stops it.
  expectError("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
              "steps", RenderLimits{.maxValueBytes = SIZE_MAX});
  expectError("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
              "bytes of values");
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

TEST(JinjaErrorsTest, ManyLiveValuesHitTheRenderBudget) {
  // Each list and string is within its own bounds, but a list of 1-item
  // lists keeps every 64 KiB string alive: 1000 of them are 64 MiB, and the
  // same loop to 100,000 would be 6.4 GB.
  const char* keep =
      "{% set ns = namespace(keep=[]) %}{% set big = 'x' * 65536 %}"
      "{% for i in range(1000) %}{% set ns.keep = ns.keep + [[big ~ i]] %}{% endfor %}"
      "{{ ns.keep | length }}";
  expectError(keep, "built more than 8388608 bytes of values", RenderLimits{.maxValueBytes = 8 << 20});
  // The default budget (256 MiB) takes this one.
  EXPECT_EQ(render(keep).value(), "1000");
  expectError("{% set ns = namespace(keep=[]) %}{% set big = 'x' * 1048576 %}"
              "{% for i in range(100000) %}{% set ns.keep = ns.keep + [[big ~ i]] %}{% endfor %}",
              "built more than 268435456 bytes of values");
  // One render's budget is its own: the next render starts afresh.
  EXPECT_EQ(render(keep).value(), "1000");
}

TEST(JinjaErrorsTest, ComparingAndScanningHitTheWorkBudget) {
  // Each step may compare or scan a 16 MiB value: the step limit alone let
  // a million steps of that run for half an hour. A render compares and
  // scans at most 2^28 bytes and items in all.
  const char* prefix = "{% set s = 'a' * 1000000 %}{% set t = 'a' * 1000000 %}{% set l = range(100000) | list %}"
                       "{% for i in range(5000) %}";
  expectError(std::string(prefix) + "{% if s == t %}{% endif %}{% endfor %}",
              "compared or scanned values more than 268435456 times");
  for (const char* step : {"{% if 'b' in s %}{% endif %}", "{{ s.count('b') }}", "{% if -1 in l %}{% endif %}",
                           "{% if s < t %}{% endif %}", "{{ s | length }}"})
    expectError(std::string(prefix) + step + "{% endfor %}", "compared or scanned values more than 16777216 times",
                RenderLimits{.maxWork = 1 << 24});
  // Looking a key up in a dict looks at its entries.
  expectError("{% set d = {'a': 1, 'b': 2, 'c': 3} %}{% for i in range(100) %}{{ d['c'] }}{% endfor %}",
              "more than 100 times", RenderLimits{.maxWork = 100});
  // Within the budget the same work renders.
  EXPECT_EQ(render("{% set s = 'a' * 1000 %}{% for i in range(100) %}{% if 'b' in s %}x{% endif %}{% endfor %}ok")
                .value(),
            "ok");
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
