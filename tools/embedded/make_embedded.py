#!/usr/bin/env python3
"""Build linnet's embedded default checkpoint: a small Phi-3-architecture model
trained briefly on real English text, with a SentencePiece tokenizer laid out
like Phi-3-mini's (added chat tokens after the SentencePiece vocabulary).

HOW TO REGENERATE (from the repository root):

    python3 tools/embedded/make_embedded.py            # corpus, tokenizer, training, export
    python3 tools/embedded/make_embedded.py --reference-only   # only re-record the continuation

It enters build/reference-venv (created from tools/reference/requirements.txt
on first use, see tools/reference/venv_bootstrap.py) at `nice 19`, trains on ONE
CPU thread for a fixed number of steps (about 9 CPU-minutes on the development
machine), and writes test/data/embedded/:

    config.json, generation_config.json, model.safetensors   (Phi3ForCausalLM.save_pretrained, bf16)
    tokenizer.model                                          (SentencePiece BPE, byte fallback)
    tokenizer_config.json, special_tokens_map.json           (Phi-3's added-token layout + chat_template)
    reference_continuation.json                              (HF greedy continuations, f32 and bf16 runs)
    CORPUS.md                                                (where the text came from, its license, hashes)

CORPUS: the English prose of CPython's own documentation that ships with the
interpreter running this script (3.11.7 here): the `pydoc_data.topics` module
(the Language Reference topics used by `help()`) and the docstrings of the
standard library modules, read with `ast` (nothing is imported). Both are
under the Python Software Foundation License Version 2 (the documentation's
license; PSF-2.0 is permissive: use, modification and redistribution allowed
with the copyright notice kept). Code blocks, grammar rules and doctest lines
are dropped; only prose paragraphs are kept. A few question/answer pairs built
from the same paragraphs are rendered with the chat template so the chat
tokens are not untrained.

Determinism: fixed seeds, one thread, a fixed step count; the corpus depends on
the Python version (recorded with its sha256 in CORPUS.md).
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))
from venv_bootstrap import REPO, enter_venv  # noqa: E402

if __name__ == "__main__":
    enter_venv(__file__)

import argparse  # noqa: E402
import ast  # noqa: E402
import hashlib  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import sysconfig  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

OUT = REPO / "test" / "data" / "embedded"
WORK = Path("/tmp/ref-work/embedded")

# ---------------------------------------------------------------- model / tokenizer shape
SP_VOCAB = 1500                 # SentencePiece pieces: <unk>=0, <s>=1, </s>=2, 256 bytes, BPE merges
# Phi-3-mini's added tokens, in its order, right after the SentencePiece vocabulary
ADDED = ["<|endoftext|>", "<|assistant|>", "<|placeholder1|>", "<|placeholder2|>", "<|placeholder3|>",
         "<|placeholder4|>", "<|system|>", "<|end|>", "<|placeholder5|>", "<|placeholder6|>", "<|user|>"]
VOCAB = 1536                    # padded to a multiple of 64 (Phi-3-mini: 32011 used, 32064 rows)
HIDDEN, HEADS, LAYERS, INNER = 128, 4, 4, 256
MAX_POS, WINDOW = 4096, 2047

# ---------------------------------------------------------------- training schedule
SEQ, BATCH = 128, 32
STEPS = 1200                    # fixed (not timed) for determinism: ~9 CPU-minutes of one core here
WARMUP, LR, MIN_LR_FRAC, WD = 40, 3e-3, 0.1, 0.1
SEED = 20240601

# Candidate prompts for the recorded continuations: the script keeps, of each kind, the one
# whose greedy chain is the same in the f32 and bf16 runs and has the largest smallest
# top-1/top-2 margin (robust to another implementation's rounding).
PLAIN_PROMPTS = ["The import statement", "A list is", "This module provides", "The function returns",
                 "If the file does not exist", "An exception is raised when", "The default value is",
                 "Return a new dictionary"]
CHAT_QUESTIONS = ["What does the len() function do?", "What is the os module for?", "What does open() do?",
                  "What is a generator?", "Tell me about lambda in Python.", "What does sorted() do?",
                  "What is the json module for?", "What does print() do?"]
CONTINUATION_STEPS = 32

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if message['role'] in ['system', 'user', 'assistant'] %}"
    "{{ '<|' + message['role'] + '|>\n' + message['content'] + '<|end|>\n' }}"
    "{% endif %}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>\n' }}{% else %}{{ eos_token }}{% endif %}"
)


def tok_id(name):
    return SP_VOCAB + ADDED.index(name)


# ---------------------------------------------------------------- corpus


def prose_paragraphs(text):
    text = textwrap.dedent(text.replace("\t", "    "))
    out = []
    for block in re.split(r"\n\s*\n", text):
        lines = [ln for ln in block.split("\n") if ln.strip()]
        if not lines or any(ln.startswith((" ", ">>>", "...")) for ln in lines):
            continue                                  # code, grammar, indented examples
        p = " ".join(ln.strip() for ln in lines).strip()
        if len(p) < 60 or "::=" in p or ">>>" in p:
            continue
        plain = sum(ch.isalpha() or ch in " ,.;:'\"()-?!" for ch in p)
        if plain / len(p) < 0.93 or not p.endswith((".", "?", "!", ":")):
            continue
        out.append(p)
    return out


def build_corpus():
    """Returns (documents, chat pairs); each document is a list of paragraphs."""
    import pydoc_data.topics as topics_mod
    docs, chats = [], []
    for key in sorted(topics_mod.topics):
        paras = prose_paragraphs(topics_mod.topics[key])
        if paras:
            docs.append(paras)
            chats.append((f"Tell me about {key.replace('-', ' ')} in Python.", paras[0]))
    lib = Path(sysconfig.get_paths()["stdlib"])
    skip = {"test", "idlelib", "site-packages", "lib2to3", "tkinter", "turtledemo", "ensurepip"}
    for path in sorted(lib.rglob("*.py")):
        rel = path.relative_to(lib)
        if rel.parts[0] in skip or rel.parts[0].startswith("config-") or "tests" in rel.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        module = ".".join(rel.with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            d = ast.get_docstring(node)
            if not d:
                continue
            paras = prose_paragraphs(d)
            if not paras:
                continue
            docs.append(paras)
            if isinstance(node, ast.Module):
                chats.append((f"What is the {module} module for?", paras[0]))
            elif isinstance(node, ast.ClassDef):
                chats.append((f"What is {node.name} in {module}?", paras[0]))
            elif not node.name.startswith("_"):
                chats.append((f"What does {node.name}() do?", paras[0]))
    return docs, chats


# ---------------------------------------------------------------- tokenizer


def train_tokenizer(docs, out_dir: Path):
    import sentencepiece as spm
    sentences = [p for d in docs for p in d]
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(sentences), model_writer=buf,
        vocab_size=SP_VOCAB, model_type="bpe", character_coverage=0.9995,
        byte_fallback=True, split_digits=True, normalization_rule_name="identity",
        add_dummy_prefix=True, remove_extra_whitespaces=False, allow_whitespace_only_pieces=True,
        unk_id=0, bos_id=1, eos_id=2, pad_id=-1, unk_piece="<unk>", bos_piece="<s>", eos_piece="</s>",
        num_threads=1, input_sentence_size=0, shuffle_input_sentence=False, max_sentence_length=1 << 16,
        minloglevel=2)
    (out_dir / "tokenizer.model").write_bytes(buf.getvalue())
    sp = spm.SentencePieceProcessor(model_proto=buf.getvalue())
    assert sp.get_piece_size() == SP_VOCAB
    assert [sp.id_to_piece(i) for i in range(3)] == ["<unk>", "<s>", "</s>"]


def write_tokenizer_config(out_dir: Path):
    def entry(content, special=True):
        return {"content": content, "lstrip": False, "normalized": False, "rstrip": False,
                "single_word": False, "special": special}

    decoder = {"0": entry("<unk>"), "1": entry("<s>"), "2": entry("</s>", special=False)}
    for i, name in enumerate(ADDED):
        decoder[str(SP_VOCAB + i)] = entry(name)
    cfg = {
        "add_bos_token": True,
        "add_eos_token": False,
        "added_tokens_decoder": decoder,
        "bos_token": "<s>",
        "chat_template": CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "eos_token": "<|endoftext|>",
        "extra_special_tokens": {},
        "legacy": False,
        "model_max_length": MAX_POS,
        "pad_token": "<|endoftext|>",
        "padding_side": "left",
        "sp_model_kwargs": {},
        "tokenizer_class": "LlamaTokenizer",
        "unk_token": "<unk>",
        "use_default_system_prompt": False,
    }
    (out_dir / "tokenizer_config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    stm = {"bos_token": entry("<s>"), "eos_token": entry("<|endoftext|>"),
           "pad_token": entry("<|endoftext|>"), "unk_token": entry("<unk>")}
    for v in stm.values():
        v.pop("special")
    (out_dir / "special_tokens_map.json").write_text(json.dumps(stm, indent=2) + "\n")


def write_tokenizer_json(out_dir: Path):
    """tokenizer.json: HF's fast tokenizer converted from tokenizer.model, so every
    HF user gets the same ids as our training data (the slow LlamaTokenizer with
    legacy=false differs in one way: a lone '▁' before a leading special token)."""
    from transformers import LlamaTokenizerFast
    fast = LlamaTokenizerFast.from_pretrained(out_dir)
    fast.backend_tokenizer.save(str(out_dir / "tokenizer.json"))


def load_tokenizer(out_dir: Path):
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(out_dir)
    assert tok.is_fast and (out_dir / "tokenizer.json").exists()
    for name in ADDED:
        assert tok.convert_tokens_to_ids(name) == tok_id(name), name
    assert tok.eos_token_id == tok_id("<|endoftext|>") and tok.bos_token_id == 1
    return tok


def tokenize_corpus(tok, docs, chats):
    rng = random.Random(SEED)
    eot = tok_id("<|endoftext|>")
    seqs = []
    for paras in docs:
        seqs.append(tok("\n\n".join(paras))["input_ids"] + [eot])
    for q, a in chats:
        text = tok.apply_chat_template([{"role": "user", "content": q}, {"role": "assistant", "content": a}],
                                       tokenize=False)
        ids = tok(text, add_special_tokens=True)["input_ids"]
        seqs.append(ids)          # the template ends with eos_token = <|endoftext|>
    rng.shuffle(seqs)
    stream = np.fromiter((t for s in seqs for t in s), dtype=np.int64)
    return stream


# ---------------------------------------------------------------- model


def phi3_config():
    from transformers import Phi3Config
    return Phi3Config(
        vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=INNER, num_hidden_layers=LAYERS,
        num_attention_heads=HEADS, num_key_value_heads=HEADS, resid_pdrop=0.0, embd_pdrop=0.0,
        attention_dropout=0.0, hidden_act="silu", max_position_embeddings=MAX_POS,
        original_max_position_embeddings=MAX_POS, initializer_range=0.02, rms_norm_eps=1e-5,
        use_cache=True, tie_word_embeddings=False, rope_theta=10000.0, rope_scaling=None,
        partial_rotary_factor=1.0, bos_token_id=1, eos_token_id=tok_id("<|endoftext|>"),
        pad_token_id=tok_id("<|endoftext|>"), sliding_window=WINDOW, architectures=["Phi3ForCausalLM"])


def train(stream, log):
    import torch
    from transformers import Phi3ForCausalLM
    torch.manual_seed(SEED)
    model = Phi3ForCausalLM._from_config(phi3_config(), attn_implementation="sdpa", dtype=torch.float32)
    model.train()
    n_params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": WD}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95), eps=1e-8)
    # hold out the last 2% of the stream for a validation loss
    n_val = len(stream) // 50
    train_s, val_s = stream[:-n_val], stream[-n_val:]
    g = np.random.default_rng(SEED)
    n_windows = (len(train_s) - 1) // SEQ

    def lr_at(step):
        if step < WARMUP:
            return LR * (step + 1) / WARMUP
        t = (step - WARMUP) / max(1, STEPS - WARMUP)
        return LR * (MIN_LR_FRAC + (1 - MIN_LR_FRAC) * 0.5 * (1 + math.cos(math.pi * t)))

    def val_loss():
        model.eval()
        with torch.no_grad():
            n = (len(val_s) - 1) // SEQ
            x = torch.as_tensor(val_s[: n * SEQ].reshape(n, SEQ))
            y = torch.as_tensor(val_s[1: n * SEQ + 1].reshape(n, SEQ))
            logits = model(input_ids=x).logits
            loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1)).item()
        model.train()
        return loss

    cpu0 = time.process_time()
    log(f"params {n_params}, train tokens {len(train_s)}, val tokens {len(val_s)}, "
        f"{STEPS} steps x {BATCH} x {SEQ} = {STEPS * BATCH * SEQ} tokens "
        f"({STEPS * BATCH * SEQ / len(train_s):.1f} epochs)")
    t0 = time.time()
    order = g.permutation(n_windows)
    pos = 0
    history = []
    for step in range(STEPS):
        if pos + BATCH > len(order):
            order, pos = g.permutation(n_windows), 0
        idx = order[pos:pos + BATCH]
        pos += BATCH
        # random offset inside the window so boundaries vary between epochs
        off = int(g.integers(0, SEQ))
        starts = np.minimum(idx * SEQ + off, len(train_s) - SEQ - 1)
        x = torch.as_tensor(np.stack([train_s[s:s + SEQ] for s in starts]))
        y = torch.as_tensor(np.stack([train_s[s + 1:s + SEQ + 1] for s in starts]))
        for grp in opt.param_groups:
            grp["lr"] = lr_at(step)
        logits = model(input_ids=x).logits
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == STEPS - 1:
            el = time.time() - t0
            msg = (f"step {step:5d} loss {loss.item():.3f} lr {lr_at(step):.2e} elapsed {el:6.0f}s "
                   f"cpu {time.process_time() - cpu0:6.0f}s")
            if step % 200 == 0 or step == STEPS - 1:
                vl = val_loss()
                msg += f" val {vl:.3f}"
                history.append({"step": step, "train_loss": round(loss.item(), 4), "val_loss": round(vl, 4)})
            log(msg)
    return model, history, time.time() - t0, n_params


# ---------------------------------------------------------------- reference continuation


def greedy(model, ids, steps, stop_ids):
    """HF greedy decoding through its cache; stops after a token in stop_ids."""
    import torch
    with torch.no_grad():
        out = model(input_ids=torch.as_tensor([ids]), use_cache=True)
        cache = out.past_key_values
        logits = out.logits[0, -1]
        chosen, margins = [], []
        for _ in range(steps):
            z = logits.float()
            top = torch.topk(z, 2).values
            margins.append(float(top[0] - top[1]))
            nxt = int(z.argmax())
            chosen.append(nxt)
            if nxt in stop_ids:
                break
            out = model(input_ids=torch.as_tensor([[nxt]]), past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            logits = out.logits[0, -1]
    return chosen, margins


def record_reference(out_dir: Path):
    import torch
    from transformers import Phi3ForCausalLM
    tok = load_tokenizer(out_dir)
    gen = json.loads((out_dir / "generation_config.json").read_text())
    stop_ids = list(gen["eos_token_id"])
    cands = {"plain": [], "chat": []}
    for text in PLAIN_PROMPTS:
        cands["plain"].append({"text": text, "ids": tok(text)["input_ids"]})
    for q in CHAT_QUESTIONS:
        msgs = [{"role": "user", "content": q}]
        chat_text = tok.apply_chat_template(msgs, tokenize=False, add_generation_prompt=True)
        cands["chat"].append({"messages": msgs, "text": chat_text, "ids": tok(chat_text)["input_ids"]})
    models = {name: Phi3ForCausalLM.from_pretrained(out_dir, dtype=dt, attn_implementation="eager").eval()
              for name, dt in (("f32", torch.float32), ("bf16", torch.bfloat16))}
    res = {"schema": "linnet-embedded-reference/1",
           "checkpoint": "test/data/embedded",
           "note": ("HF Phi3ForCausalLM (attn_implementation='eager') greedy decoding with its cache: "
                    "prompt ids run as one prefill from position 0, then each step decodes the argmax, "
                    "up to `max_steps` tokens, stopping after the first token in `stop_ids` "
                    "(generation_config.json's eos list), which is included. "
                    "`ids` come from tokenizer.json (HF's fast tokenizer; the slow LlamaTokenizer would "
                    "put a lone '\u2581' between <s> and a leading special token) and include "
                    "the <s> it adds (add_bos_token). The f32 run upcasts the "
                    "bf16 weights exactly. `min_top2_margin` is the smallest top-1 minus top-2 logit gap "
                    "along the chain. Each prompt was chosen among the candidates listed in "
                    "tools/embedded/make_embedded.py as the one whose f32 and bf16 chains agree with "
                    "the largest smallest margin."),
           "max_steps": CONTINUATION_STEPS, "stop_ids": stop_ids, "prompts": {}}
    for kind, lst in cands.items():
        best, best_score = None, -1.0
        for cand in lst:
            runs = {}
            for name, model in models.items():
                chosen, margins = greedy(model, cand["ids"], CONTINUATION_STEPS, stop_ids)
                runs[name] = {"tokens": chosen, "text": tok.decode(chosen, skip_special_tokens=False),
                              "min_top2_margin": round(min(margins), 4)}
            same = runs["f32"]["tokens"] == runs["bf16"]["tokens"]
            score = min(r["min_top2_margin"] for r in runs.values()) if same else -0.5
            if score > best_score:
                best, best_score = dict(cand, **runs), score
        res["prompts"][kind] = best
    from make_reference import dump_json
    dump_json(out_dir / "reference_continuation.json", res)
    return res


# ---------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference-only", action="store_true", help="only re-record reference_continuation.json")
    ap.add_argument("--steps", type=int, default=None, help="override the step count (experiments only)")
    a = ap.parse_args()
    import torch
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    if a.reference_only:
        res = record_reference(OUT)
        print(json.dumps(res["prompts"], indent=1, ensure_ascii=False))
        return
    global STEPS
    if a.steps is not None:
        STEPS = a.steps
    WORK.mkdir(parents=True, exist_ok=True)
    logf = open(WORK / "train.log", "w")

    def log(msg):
        print(msg, flush=True)
        logf.write(msg + "\n")
        logf.flush()

    docs, chats = build_corpus()
    corpus_text = "\n\n".join("\n\n".join(d) for d in docs) + "\n\n" + "\n".join(q + "\t" + a_ for q, a_ in chats)
    corpus_sha = hashlib.sha256(corpus_text.encode()).hexdigest()
    log(f"corpus: {len(docs)} documents, {len(chats)} chat pairs, {len(corpus_text)} characters, sha256 {corpus_sha}")

    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    train_tokenizer(docs, OUT)
    write_tokenizer_config(OUT)
    write_tokenizer_json(OUT)
    tok = load_tokenizer(OUT)
    stream = tokenize_corpus(tok, docs, chats)
    log(f"tokens: {len(stream)} ({len(corpus_text) / len(stream):.2f} characters per token)")

    model, history, seconds, n_params = train(stream, log)
    model = model.to(torch.bfloat16).eval()
    model.config.use_cache = True
    model.generation_config.bos_token_id = 1
    model.generation_config.eos_token_id = [tok_id("<|endoftext|>"), tok_id("<|assistant|>"), tok_id("<|end|>")]
    model.generation_config.pad_token_id = tok_id("<|endoftext|>")
    model.save_pretrained(OUT, safe_serialization=True)
    assert (OUT / "model.safetensors").exists()

    res = record_reference(OUT)
    import transformers
    corpus_md = f"""# The embedded checkpoint's training corpus

Produced by `tools/embedded/make_embedded.py`.

- Source: the English prose of CPython {platform.python_version()}'s own documentation as shipped with the
  interpreter: the `pydoc_data.topics` module (Language Reference topics shown by `help()`)
  and the docstrings of the standard library's modules, classes and functions (read with
  `ast`, not imported). Code blocks, grammar productions and doctests were dropped.
- License: Python Software Foundation License Version 2 (the license of CPython and its
  documentation); permissive: use, modification and redistribution are allowed provided the
  PSF copyright notice is retained: "Copyright (c) 2001-2023 Python Software Foundation; All
  Rights Reserved". The model weights are a derived work trained on that text.
- Size: {len(docs)} documents + {len(chats)} question/answer pairs built from the same paragraphs
  (rendered with the chat template), {len(corpus_text)} characters, {len(stream)} tokens.
- sha256 of the extracted corpus text: `{corpus_sha}`

Model: Phi3ForCausalLM, vocab {VOCAB} (SentencePiece BPE {SP_VOCAB} + {len(ADDED)} added Phi-3 tokens,
padded), hidden {HIDDEN}, {HEADS} heads, {LAYERS} layers, MLP {INNER}, {n_params} parameters, stored bf16.
Trained {STEPS} steps of {BATCH} x {SEQ} tokens (AdamW, lr {LR}, cosine, weight decay {WD}) on one
CPU thread (about 9 CPU-minutes on the development machine) with torch {torch.__version__} /
transformers {transformers.__version__}.
Loss history: {json.dumps(history)}

Greedy continuations recorded with HF: `reference_continuation.json`.
"""
    (OUT / "CORPUS.md").write_text(corpus_md)
    log(corpus_md)
    log(f"training took {seconds / 60:.1f} wall minutes")
    log(json.dumps(res["prompts"], indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
