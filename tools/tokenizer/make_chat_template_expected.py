"""Writes test/data/chat-templates/expected.json: what transformers' own
jinja2 environment renders for the committed chat templates and for small
templates that exercise each construct of the engine
(runtime/tokenizer/jinja/). Run with build/reference-venv/bin/python
(transformers 4.57.1, jinja2 3.1.6):

    build/reference-venv/bin/python tools/tokenizer/make_chat_template_expected.py

The template is compiled by transformers' _compile_jinja_template, so the
environment (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
loopcontrols, the generation tag, raise_exception, strftime_now, tojson) is
exactly apply_chat_template's. Variables are passed as render_jinja_template
passes them (tools=None, documents=None unless a case sets them).
strftime_now is pinned to NOW (local time), which the C++ test passes as
RenderOptions::now. A case whose render raises records the exception's type
and message instead of text.
"""

import json
from datetime import datetime
from pathlib import Path

from transformers.utils.chat_template_utils import _compile_jinja_template

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "test/data/chat-templates"
NOW = 1768478400  # 2026-01-15 12:00 UTC: the same date in every time zone within 11 hours

# The special tokens each checkpoint's tokenizer sets (transformers passes
# the ones that are set as bos_token, eos_token, ...).
TOKENS = {
    "microsoft-Phi-3.5-mini-instruct": {"bos_token": "<s>", "eos_token": "<|endoftext|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"},
    "meta-llama-Llama-3.2-3B-Instruct": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "meta-llama-Llama-3.3-70B-Instruct": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "mistralai-Mistral-Nemo-Instruct-2407": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"},
    "Qwen-Qwen3-0.6B": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "Qwen-QwQ-32B": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "HuggingFaceTB-SmolLM2-Instruct": {"bos_token": "<|im_start|>", "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>", "pad_token": "<|im_end|>"},
    "TinyLlama-TinyLlama-1.1B-Chat-v1.0": {"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>", "pad_token": "</s>"},
}

CONVERSATIONS = {
    "user": [{"role": "user", "content": "Hello!"}],
    "system_user": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "What is 2+2?"},
    ],
    "multi_turn": [
        {"role": "system", "content": "  Be kind.\n"},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        {"role": "user", "content": "Say \"quotes\" and 'apostrophes' \\ back\nslash"},
    ],
    "unicode": [
        {"role": "user", "content": "Grüße, 世界! 🙂\ttab\n\nnew paragraph  "},
        {"role": "assistant", "content": "<think>\nhmm\n</think>\n\nÇa va."},
        {"role": "user", "content": "{{ not a template }} {% neither %}"},
    ],
    "assistant_first": [
        {"role": "assistant", "content": "I speak first."},
        {"role": "user", "content": "Odd."},
    ],
    "empty": [],
}


def render(template, context):
    compiled = _compile_jinja_template(template)
    compiled.environment.globals["strftime_now"] = lambda fmt: datetime.fromtimestamp(NOW).strftime(fmt)
    try:
        return {"expected": compiled.render(**context)}
    except Exception as e:  # the test compares the message
        return {"error": str(e), "error_type": type(e).__name__}


# Small templates, one construct each (the engine's unit cases).
M = [{"role": "system", "content": "S"}, {"role": "user", "content": "U1"}, {"role": "assistant", "content": "A1"}, {"role": "user", "content": "U2"}]
D = {"a": 1, "b": [1, 2.5, "x"], "c": {"d": None, "e": True}, "s": "  Hi There  "}
CONSTRUCTS = [
    ("text", "plain text", {}),
    ("trailing_newline", "a\n", {}),
    ("output_literals", "{{ 1 }} {{ 1.5 }} {{ 'a' }} {{ \"b\" }} {{ true }} {{ False }} {{ none }} {{ None }}", {}),
    ("string_escapes", "{{ 'a\\nb\\t\\'\\\\ \\x41\\u00e9' }}", {}),
    ("list_dict_repr", "{{ [1, 'a', none, true, 1.0, {'k': \"it's\"}, ('t',), (1, 2)] }}", {}),
    ("arithmetic", "{{ 1 + 2 }} {{ 7 - 10 }} {{ 3 * 4 }} {{ 1 / 2 }} {{ 7 // 2 }} {{ -7 // 2 }} {{ -7 % 3 }} {{ 2 ** 10 }} {{ 1.5 + 1 }} {{ 0.1 + 0.2 }} {{ 10 / 4 }}", {}),
    ("concat", "{{ 'a' ~ 1 ~ none ~ x }} {{ 'ab' + 'cd' }} {{ [1] + [2] }} {{ 'ab' * 3 }}", {}),
    ("compare", "{{ 1 < 2 }} {{ 2 <= 1 }} {{ 'a' < 'b' }} {{ 1 == 1.0 }} {{ 'a' != 'a' }} {{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }}", {}),
    ("logic", "{{ true and 'x' }} {{ false or 'y' }} {{ not none }} {{ 0 or '' }} {{ 'a' and 0 }}", {}),
    ("in", "{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'a' in d }} {{ 'z' not in d }} {{ 'x' in undefinedvar }}", {"d": D}),
    ("attr_item", "{{ d.a }} {{ d['b'][2] }} {{ d.b[-1] }} {{ d.c.d }} {{ d.c['e'] }} {{ d.missing }}|{{ d['missing'] }}|{{ d.b.0 }}", {"d": D}),
    ("slices", "{{ m[1:] | length }} {{ 'abcdef'[1:4] }} {{ 'abcdef'[::-1] }} {{ 'abcdef'[::2] }} {{ [1,2,3,4][-2:] }} {{ [1,2,3][5:] }} {{ 'héllo'[1:3] }} {{ [1,2,3,4][3:0:-1] }}", {"m": M}),
    ("conditional_expr", "{{ 'y' if true else 'n' }} {{ 'y' if 0 else 'n' }} [{{ 'only' if false }}]", {}),
    ("if_elif_else", "{% for i in [1, 2, 3] %}{% if i == 1 %}one{% elif i == 2 %}two{% else %}many{% endif %};{% endfor %}", {}),
    ("for_loop_vars", "{% for m in messages %}{{ loop.index }}/{{ loop.index0 }}/{{ loop.revindex }}/{{ loop.revindex0 }}/{{ loop.first }}/{{ loop.last }}/{{ loop.length }}/{{ loop.previtem is defined }} {% endfor %}", {"messages": M}),
    ("for_else", "{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in [1] %}{{ x }}{% else %}no{% endfor %}", {}),
    ("for_filter", "{% for m in messages if m.role != 'system' %}{{ loop.index }}:{{ m.content }}{{ ',' if not loop.last }}{% endfor %}", {"messages": M}),
    ("for_unpack", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}{% for k, v in d | items %}{{ k }};{% endfor %}{% for k in d %}{{ k }}{% endfor %}", {"d": {"x": 1, "y": "two"}}),
    ("for_string", "{% for c in 'héllo' %}[{{ c }}]{% endfor %}", {}),
    ("break_continue", "{% for i in range(10) %}{% if i == 2 %}{% continue %}{% endif %}{% if i == 5 %}{% break %}{% endif %}{{ i }}{% endfor %}", {}),
    ("scoping", "{% set x = 1 %}{% for i in [1, 2] %}{% set x = x + 1 %}{{ x }}{% endfor %}{{ x }}{% if true %}{% set y = 5 %}{% endif %}{{ y }}{% for i in [1, 2] %}{% if i == 1 %}{% set z = 5 %}{% endif %}[{{ z }}]{% endfor %}", {}),
    ("namespace", "{% set ns = namespace(count=0, found=false) %}{% for m in messages %}{% if m.role == 'user' %}{% set ns.count = ns.count + 1 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.count }} {{ ns.found }}{% set ns2 = namespace() %}{% set ns2.x = 'v' %}{{ ns2.x }}", {"messages": M}),
    ("set_block_and_tuple", "{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set blk %}inner {{ a }}{% endset %}[{{ blk }}]", {}),
    ("macro", "{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}{{ greet('A') }} {{ greet('B', '?') }} {{ greet(name='C', punct='.') }}", {}),
    ("tests", "{{ x is defined }} {{ y is undefined }} {{ none is none }} {{ 'a' is string }} {{ d is mapping }} {{ [1] is iterable }} {{ 'a' is sequence }} {{ 1 is number }} {{ 1.5 is float }} {{ 1 is integer }} {{ true is boolean }} {{ true is true }} {{ false is false }} {{ 1 is true }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 'a' is equalto 'a' }} {{ 'x' is not none }} {{ d is not string }} {{ none is sameas none }} {{ 'abc' is lower }} {{ y is iterable }}", {"x": 1, "d": D}),
    ("filters_text", "[{{ d.s | trim }}] [{{ d.s | upper }}] [{{ d.s | lower }}] [{{ 'hello world' | capitalize }}] [{{ \"they're bill's (big)-deal\" | title }}] [{{ 'a-b-a' | replace('a', 'x') }}] [{{ 'xyx' | trim('x') }}] [{{ ' \u00a0 nb \u3000' | trim }}]", {"d": D}),
    ("filters_misc", "{{ d.b | length }} {{ 'héllo' | length }} {{ d | length }} {{ d.b | first }} {{ d.b | last }} {{ d.b | join(', ') }} {{ [1, 2] | join }} {{ x | default('dflt') }} {{ '' | default('e', true) }} {{ d.a | string }} {{ '42' | int + 1 }} {{ 'x' | int }} {{ 3.9 | int }} {{ '2.5' | float }} {{ d.b | reverse | list }} {{ 'abc' | list }} {{ -3 | abs }} {{ [3, 1, 2] | sort }} {{ [1, 2, 1] | unique | list }}", {"d": D}),
    ("filters_select_map", "{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='content') | join(',') }} {{ messages | rejectattr('role', 'equalto', 'user') | list | length }} {{ [0, 1, 2, none] | select | list }} {{ ['a', 'code_interpreter', 'b'] | reject('equalto', 'code_interpreter') | join(', ') }} {{ ['a', 'b'] | map('upper') | list }} {{ d | items | list }}", {"messages": M, "d": {"k": 1}}),
    ("tojson", "{{ d | tojson }}\n{{ d | tojson(indent=2) }}\n{{ 'é\"\\n\\u0001' | tojson }} {{ [] | tojson }} {{ {} | tojson(indent=4) }} {{ 1.0 | tojson }} {{ none | tojson }}", {"d": D}),
    ("string_methods", "{{ d.s.strip() }}|{{ d.s.lstrip() }}|{{ d.s.rstrip() }}|{{ 'xxhixx'.strip('x') }}|{{ 'a b  c'.split() }}|{{ 'a,b,,c'.split(',') }}|{{ 'a,b,c'.split(',', 1) }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith(('x', 'c')) }}|{{ 'aBc'.upper() }}|{{ 'aBc'.lower() }}|{{ 'hello world'.title() }}|{{ \"they're bill's\".title() }}|{{ 'aaa'.replace('a', 'b', 2) }}|{{ 'x</think>y'.split('</think>')[-1] }}|{{ ', '.join(['a', 'b']) }}|{{ 'hello'.find('l') }}|{{ 'hello'.count('l') }}|{{ 'hi'.capitalize() }}", {"d": D}),
    ("dict_methods", "{{ d.get('a') }} {{ d.get('zz') }} {{ d.get('zz', 'def') }} {{ d.keys() | list }} {{ d.values() | length }} {% for k, v in d.items() %}{{ k }}{% endfor %}", {"d": D}),
    ("whitespace_control", "a  {{- ' b ' -}}  c\n  {%- if true -%}\n  d\n  {%- endif %}\ne {#- comment -#} f {# kept #} g", {}),
    ("trim_lstrip_blocks", "<ul>\n  {% for i in [1, 2] %}\n    <li>{{ i }}</li>\n  {% endfor %}\n</ul>\n  {# comment #}\nend {% if true %}x{% endif %}\n  {{ 'var' }}\n  {%+ if true %}plus{% endif %}\n{% if true +%}\nkept{% endif %}", {}),
    ("generation_tag", "{% for m in messages %}{% if m.role == 'assistant' %}{% generation %}[{{ m.content }}]{% endgeneration %}{% else %}{{ m.content }}{% endif %}{% endfor %}", {"messages": M}),
    ("raise_exception", "{% if messages[0].role != 'user' %}{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}{% endif %}ok", {"messages": M}),
    ("undefined_attribute_error", "{{ foo.bar }}", {}),
    ("undefined_add_error", "{{ foo + 'a' }}", {}),
    ("missing_key_chain_error", "{{ d.x.y }}", {"d": D}),
    ("type_error", "{{ 'a' + 1 }}", {}),
    ("strftime_now", "{{ strftime_now('%d %b %Y') }} {{ strftime_now('%Y-%m-%d') }}", {}),
    ("range_and_dict", "{{ range(3) | list }} {{ range(1, 10, 3) | list }} {{ range(3, 0, -1) | list }} {{ dict(a=1) }}", {}),
    ("messages_default", "{% for message in messages %}{{ '<|' + message['role'] + '|>\\n' + message['content'] + '<|end|>\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|assistant|>\\n' }}{% else %}{{ eos_token }}{% endif %}", {"messages": M, "add_generation_prompt": False, "eos_token": "<|endoftext|>"}),
    ("tools_none_defined", "{{ tools is defined }} {{ tools is none }} {{ documents is none }} {{ enable_thinking is defined }}", {}),
    ("comment_multiline", "a{#\n multi\n line\n#}\nb", {}),
    ("float_print", "{{ 1e20 }} {{ 1.5e-7 }} {{ 100.0 }} {{ 2.5 * 2 }} {{ 1e16 }} {{ 123456789.125 }}", {}),
]


def main():
    cases = []
    for name, template, context in CONSTRUCTS:
        full = {"tools": None, "documents": None, **context}
        cases.append({"name": "construct/" + name, "template": template, "context": full, **render(template, full)})
    for path in sorted(DATA.glob("*.jinja")):
        template = path.read_text(encoding="utf-8")
        model = path.stem
        for conv_name, messages in CONVERSATIONS.items():
            for prompt in (True, False):
                context = {"messages": messages, "tools": None, "documents": None, "add_generation_prompt": prompt, **TOKENS[model]}
                cases.append({"name": f"{model}/{conv_name}/{'prompt' if prompt else 'noprompt'}", "template_file": path.name, "context": context, **render(template, context)})
        if model == "Qwen-Qwen3-0.6B":
            context = {"messages": CONVERSATIONS["system_user"], "tools": None, "documents": None, "add_generation_prompt": True, "enable_thinking": False, **TOKENS[model]}
            cases.append({"name": f"{model}/enable_thinking_false", "template_file": path.name, "context": context, **render(template, context)})
    out = {"now": NOW, "cases": cases}
    (DATA / "expected.json").write_text(json.dumps(out, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(cases)} cases")


if __name__ == "__main__":
    main()
