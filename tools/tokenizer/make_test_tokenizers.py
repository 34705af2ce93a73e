#!/usr/bin/env python3
"""Regenerate test/data/tokenizers/: tiny byte-level BPE tokenizers trained by
Hugging Face's `tokenizers` library, and the ids it gives for test strings.

HOW TO REGENERATE (from the repository root):

    python3 tools/tokenizer/make_test_tokenizers.py

Re-executes itself inside build/reference-venv (tools/reference/venv_bootstrap.py;
`tokenizers` 0.22.1, `transformers` 4.57.1) and rewrites, for each tokenizer
<name> below, test/data/tokenizers/<name>/:

    tokenizer.json         saved by `tokenizers` (merges in the "a b" string form
                           for gpt2, the ["a", "b"] list form for the others)
    tokenizer_config.json  what transformers reads (bos/eos/..., tokenizer_class)
    expected.json          {"tokenizers_version", "cases": [{"text", "ids",
                           "decoded", "decoded_skip"}], "single_decodes"}
                           ids = Tokenizer.encode(text).ids (special tokens
                           added as the post-processor says), decoded =
                           decode(ids, skip_special_tokens=False), decoded_skip
                           with True; single_decodes[i] = decode([i]) for
                           every id (partial UTF-8 shows as U+FFFD).

The tokenizers:
    gpt2        ByteLevel(add_prefix_space=False) pre-tokenizer (GPT-2's regex),
                <|endoftext|>
    gpt2-prefix the same with add_prefix_space=True
    llama3      Split(Llama 3's regex, Isolated) + ByteLevel(use_regex=False),
                ignore_merges, TemplateProcessing adding <|begin_of_text|>
    smollm      Digits(individual_digits=True) + ByteLevel(use_regex=True) (SmolLM's
                StarCoder-style pipeline), <|endoftext|> <|im_start|> <|im_end|>
    qwen2       NFC normalizer, Split(Qwen2's regex) + ByteLevel(use_regex=False),
                <|endoftext|> <|im_start|> <|im_end|> and a non-special <think>

It also writes seeds for test/fuzz/tokenizer_json_fuzzer.cpp into
test/fuzz/corpus/tokenizer_json/: the same three pipelines trained on a few
words without the full byte alphabet (so each file stays under the fuzz runs'
4096-byte input limit), and 'R' + pattern + NUL + text regex inputs.

Each is also loaded with transformers' AutoTokenizer from its directory and the
script fails if that gives other ids (so the tokenizer_config.json files say
what the tokenizer.json does). Everything is deterministic (fixed corpus, seeded
random strings).
"""

import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))
from venv_bootstrap import enter_venv  # noqa: E402

enter_venv(__file__)

import tokenizers  # noqa: E402
from tokenizers import (AddedToken, Regex, Tokenizer, decoders, models,  # noqa: E402
                        normalizers, pre_tokenizers, processors, trainers)

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "test" / "data" / "tokenizers"

GPT2_VOCAB = 700

LLAMA3_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|"
                  r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}|"
                 r" ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")

CORPUS = [
    "The quick brown fox jumps over the lazy dog. It's a classic pangram, isn't it? "
    "We'll see; they're sure you've heard it, and I'm certain she'd agree.",
    "Once upon a time, in a land far, far away, there lived a tokenizer who loved "
    "merging pairs of bytes into longer and longer tokens.\n\nThe end.",
    "Café, naïve, façade, Ångström, São Paulo, Zürich, résumé, jalapeño, Øresund, Łódź.",
    "日本語のテキストを少し書きます。東京は大きな都市です。中文测试：你好，世界！안녕하세요 세계.",
    "Emoji time: 😀😃😄 👋🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ ✨ — and some symbols: © ® ™ € £ ¥ ½ ¾ ① ② ③.",
    "Numbers: 0 1 12 123 1234 12345 3.14159 2,718 1e-10 -42 +7 100% $19.99 (555) 010-9999.",
    "def fibonacci(n):\n    if n < 2:\n        return n\n    return fibonacci(n - 1) + fibonacci(n - 2)\n",
    "for (int i = 0; i < 10; ++i) {\n\tprintf(\"%d\\n\", i);\n}\n// done\n",
    "Whitespace    runs\t\ttabs\n\n\nnewlines   \r\n windows line endings   and trailing   ",
    "Привет, мир! Ελληνικά γράμματα. مرحبا بالعالم. नमस्ते दुनिया. שלום עולם.",
    "HTML: <div class=\"note\">Hello &amp; welcome</div> URL: https://example.com/a?b=c&d=e#f",
    "ALL CAPS SENTENCE WITH SHOUTING! Mixed CaSe WoRdS and snake_case and camelCase and kebab-case.",
]

TEST_STRINGS = [
    "",
    "Hello world",
    "Hello, world! How are you?",
    " leading space",
    "   three leading spaces",
    "trailing spaces   ",
    "a\nb",
    "line one\n\nline three\n",
    "\n\n\n",
    "tabs\tand\t\ttabs",
    "windows\r\nline\r\nendings",
    "I'm sure you'll see they're here, it's fine, we've done it, he'd go",
    "IT'S LOUD, YOU'LL SEE, THEY'RE HERE",
    "'s 'S 'ſ 'K 'K's",
    "numbers 1 12 123 1234 12345 123456 1234567",
    "3.14159 2,718 1e-10 -42 $19.99 100%",
    "café naïve Ångström façade",
    "日本語のテキスト",
    "中文测试：你好，世界！",
    "안녕하세요",
    "Привет мир Ελληνικά",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "emoji 😀 👋🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️",
    "def f(x):\n    return x ** 2  # square\n",
    "if (a && b) { return c[i]; }",
    "    indented\n        more\n",
    "a\u00a0b\u00a0\u00a0c",
    "ideographic\u3000space",
    "zero\u200bwidth\u200bspace",
    "control\x1cchars\x1f",
    "!!!???...,,,;;;",
    "x" * 40,
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbb",
    "The quick brown fox jumps over the lazy dog.",
    "   \n   \n",
    "mixed 日本 and English and 123 and émoji 🎉!",
    "https://example.com/path?query=1&x=y#frag",
]

SPECIAL_STRINGS = {
    "gpt2": ["Hello<|endoftext|>world", "<|endoftext|>", " <|endoftext|> spaced "],
    "gpt2-prefix": ["Hello<|endoftext|>world", "<|endoftext|>start", "a <|endoftext|>b"],
    "llama3": ["<|begin_of_text|>Hello", "<|start_header_id|>user<|end_header_id|>\n\nHi!<|eot_id|>",
               "text<|eot_id|><|end_of_text|>",
               "an unreachableword, a Kangaroo and zzzq", " unreachableword unreachablewords zzzqzzzq"],
    "smollm": ["<|im_start|>user\nWhat is 2+2?<|im_end|>\n", "<|endoftext|>x1y22z333",
               "2024-01-15 12:30:45.678 v1.2.3", "a½bⅠc①d٣e ٣٤٥"],
    "qwen2": ["<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
              "<think>\nhmm\n</think>\n\nanswer", "x<|endoftext|>y<think>z"],
}


# Byte-level spellings of " unreachableword", " Kangaroo" and "zzzq".
IGNORE_MERGES_WORDS = ["\u0120unreachableword", "\u0120Kangaroo", "zzzq"]


def random_strings(seed, count):
    rng = random.Random(seed)
    pool = (list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789  \n\t.,!?'\"-_()[]{}")
            + ["é", "ß", "日", "本", "語", "😀", "👋🏽", "\u00a0", "\u3000", "’s", "'S", "'ll",
               "  ", "\r\n", "½", "①", "Ω", "ж", "ع"])
    return ["".join(rng.choice(pool) for _ in range(rng.randint(1, 30))) for _ in range(count)]


def train(pre_tokenizer, normalizer, specials, vocab_size):
    tok = Tokenizer(models.BPE())
    if normalizer is not None:
        tok.normalizer = normalizer
    tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS * 3, trainer)
    return tok


def build(name):
    if name in ("gpt2", "gpt2-prefix"):
        tok = train(pre_tokenizers.ByteLevel(add_prefix_space=(name == "gpt2-prefix")), None,
                    ["<|endoftext|>"], GPT2_VOCAB)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        config = {"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|endoftext|>",
                  "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
                  "add_prefix_space": name == "gpt2-prefix"}
    elif name == "llama3":
        specials = ["<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
                    "<|end_header_id|>", "<|eot_id|>"]
        pre = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        tok = train(pre, None, specials, 800)
        bos = tok.token_to_id("<|begin_of_text|>")
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(
                single="<|begin_of_text|> $A",
                pair="<|begin_of_text|> $A <|begin_of_text|> $B:1",
                special_tokens=[("<|begin_of_text|>", bos)])])
        config = {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<|begin_of_text|>",
                  "eos_token": "<|end_of_text|>"}
    elif name == "smollm":
        specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        pre = pre_tokenizers.Sequence([
            pre_tokenizers.Digits(individual_digits=True),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)])
        tok = train(pre, None, specials, 600)
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        config = {"tokenizer_class": "GPT2Tokenizer", "bos_token": "<|im_start|>",
                  "eos_token": "<|im_end|>", "unk_token": "<|endoftext|>",
                  "pad_token": "<|im_end|>",
                  "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]}
    elif name == "qwen2":
        specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
        pre = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
        tok = train(pre, normalizers.NFC(), specials, 800)
        tok.add_tokens([AddedToken("<think>", normalized=True, special=False),
                        AddedToken("</think>", normalized=True, special=False)])
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
        config = {"tokenizer_class": "Qwen2Tokenizer", "bos_token": None,
                  "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>", "unk_token": None,
                  "additional_special_tokens": ["<|im_start|>", "<|im_end|>"]}
    else:
        raise ValueError(name)

    data = json.loads(tok.to_str())
    if name == "llama3":
        data["model"]["ignore_merges"] = True
        # Whole words no merge sequence builds (as Llama 3's vocab has):
        # only ignore_merges can produce them.
        vocab = data["model"]["vocab"]
        for word in IGNORE_MERGES_WORDS:
            vocab[word] = len(vocab)
    if name == "gpt2":
        data["model"]["merges"] = [" ".join(pair) for pair in data["model"]["merges"]]
    return Tokenizer.from_str(json.dumps(data)), data, config


def check_transformers(directory, tok, texts):
    from transformers import AutoTokenizer
    hf = AutoTokenizer.from_pretrained(str(directory))
    assert hf.is_fast
    bad = [t for t in texts if hf(t)["input_ids"] != tok.encode(t).ids]
    if bad:
        raise SystemExit(f"{directory.name}: transformers disagrees with tokenizers on {bad[:3]!r}")


FUZZ_CORPUS = REPO / "test" / "fuzz" / "corpus" / "tokenizer_json"


def write_fuzz_seeds():
    FUZZ_CORPUS.mkdir(parents=True, exist_ok=True)
    for name, pre in [
            ("gpt2", pre_tokenizers.ByteLevel(add_prefix_space=False)),
            ("llama3", pre_tokenizers.Sequence([
                pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])),
            ("qwen2", pre_tokenizers.Sequence([
                pre_tokenizers.Split(Regex(QWEN2_PATTERN), behavior="isolated", invert=False),
                pre_tokenizers.ByteLevel(add_prefix_space=True, use_regex=False)]))]:
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre
        tok.decoder = decoders.ByteLevel()
        if name == "qwen2":
            tok.normalizer = normalizers.NFC()
        trainer = trainers.BpeTrainer(vocab_size=40, special_tokens=["<s>"], show_progress=False)
        tok.train_from_iterator(["hello world, it's 12 hello hello world"] * 4, trainer)
        if name == "llama3":
            tok.post_processor = processors.TemplateProcessing(
                single="<s> $A", special_tokens=[("<s>", tok.token_to_id("<s>"))])
        text = tok.to_str()
        assert len(text) < 4096, (name, len(text))
        (FUZZ_CORPUS / f"{name}.json").write_text(text)
    for index, (pattern, text) in enumerate([(LLAMA3_PATTERN, "It's 12345  x\n\n y"),
                                             (QWEN2_PATTERN, "ab  cd\t\r\n"),
                                             (r"a{2,3}|(?:b|c)+?|[^\s\p{L}]", "aaaa bcbc !?"),
                                             (r"\s+(?!\S)|x(?=y)", "   xy  ")]):
        (FUZZ_CORPUS / f"regex{index}.txt").write_bytes(
            b"R" + pattern.encode() + b"\0" + text.encode())


def main():
    write_fuzz_seeds()
    OUT.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(["gpt2", "gpt2-prefix", "llama3", "smollm", "qwen2"]):
        tok, data, config = build(name)
        directory = OUT / name
        directory.mkdir(exist_ok=True)
        (directory / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False, indent=None) + "\n")
        (directory / "tokenizer_config.json").write_text(json.dumps(config, indent=1) + "\n")
        texts = TEST_STRINGS + SPECIAL_STRINGS[name] + random_strings(index, 12)
        cases = []
        for text in texts:
            ids = tok.encode(text).ids
            cases.append({"text": text, "ids": ids,
                          "decoded": tok.decode(ids, skip_special_tokens=False),
                          "decoded_skip": tok.decode(ids, skip_special_tokens=True)})
        single = [tok.decode([i], skip_special_tokens=False) for i in range(tok.get_vocab_size())]
        expected = {"tokenizers_version": tokenizers.__version__, "cases": cases,
                    "single_decodes": single}
        (directory / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=0) + "\n")
        check_transformers(directory, tok, texts)
        extra = ""
        if name == "llama3":
            plain = Tokenizer.from_str(json.dumps({**data, "model": {**data["model"], "ignore_merges": False}}))
            extra = f", ignore_merges changes {sum(plain.encode(t).ids != tok.encode(t).ids for t in texts)}"
        print(f"{name}: vocab {tok.get_vocab_size()}, {len(cases)} cases{extra}")


if __name__ == "__main__":
    main()
