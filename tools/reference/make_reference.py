#!/usr/bin/env python3
"""Regenerate linnet's Phi-3 parity data: small random checkpoints, Hugging Face
reference outputs for every entry of ENTRIES.md, and jax.random reference values.

HOW TO REGENERATE (from the repository root):

    python3 tools/reference/make_reference.py

The script creates build/reference-venv on first use (pip, PyPI only, pinned by
tools/reference/requirements.txt; ~7 GB since PyPI's torch wheel pulls CUDA
runtime wheels), re-executes itself inside it at `nice 19`, and rewrites
test/data/reference/ from scratch. Everything is seeded; a rerun on the same
machine produces byte-identical files. It takes a few minutes of one CPU core.
Options: --out DIR (default test/data/reference), --skip-jax.

WHAT IT PRODUCES (test/data/reference/, format described in tools/reference/README.md):

    VERSIONS.json            python, torch, transformers, jax, jaxlib, numpy, ... used
    index.json               every checkpoint and case, the recommended tolerances,
                             and the results of the self-checks below
    checkpoints/<name>/      Hugging Face layout: config.json, generation_config.json,
                             model.safetensors (bf16), or for `sharded`
                             model-0000{1,2}-of-00002.safetensors + model.safetensors.index.json
    cases/<ckpt>/<case>.json + .safetensors
                             one case = a sequence of entry calls on fresh state,
                             inputs and the f32-run and bf16-run outputs of HF's
                             Phi3ForCausalLM (attn_implementation="eager")
    jax_random.json          jax.random values (split, bits, uniform, fold_in, normal,
                             gumbel, categorical) for four keys, under the
                             jax_threefry_partitionable setting in force (and the other)

SELF-CHECKS (the script fails if one does not hold):
  * HF's Phi-3 eager attention applies `sliding_window`: on a tiny config with
    sliding_window=4 the logits of a 12-token sequence equal the no-window logits
    exactly at positions 0..3 and differ from position 4 on (so a query at p sees
    keys p-W < s <= p), and both equal an independent float64 numpy Phi-3.
  * HF f32 outputs of every case match the float64 numpy model (which implements
    the ENTRIES.md semantics directly: packed segments, positions, window).
  * prefill+decode through HF's DynamicCache equals forward; hidden_states[-1]
    is the final-norm hidden state; our greedy loop equals HF's generate().
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_bootstrap import REPO, enter_venv  # noqa: E402

if __name__ == "__main__":
    enter_venv(__file__)

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402

import numpy as np  # noqa: E402

# ----------------------------------------------------------------------------
# small utilities
# ----------------------------------------------------------------------------


def nice_ceil(x: float) -> float:
    """Round up to one significant digit (3.2e-5 -> 4e-5)."""
    if x <= 0:
        return 0.0
    e = math.floor(math.log10(x))
    m = math.ceil(x / 10 ** e - 1e-9)
    if m >= 10:
        m, e = 1, e + 1
    return float(f"{m}e{e}")


def f32_bits(a) -> list:
    return [int(v) for v in np.asarray(a, dtype=np.float32).reshape(-1).view(np.uint32)]


def _fmt_json(o, ind=0):
    """JSON with lists of scalars and small flat objects kept on one line."""
    scalar = (str, int, float, bool, type(None))
    pad = " " * (ind + 1)
    if isinstance(o, list):
        if all(isinstance(x, scalar) for x in o):
            return json.dumps(o)
        return "[\n" + ",\n".join(pad + _fmt_json(x, ind + 1) for x in o) + "\n" + " " * ind + "]"
    if isinstance(o, dict):
        flat = json.dumps(o)
        if len(flat) <= 100 and all(isinstance(v, scalar) or (isinstance(v, list) and len(v) <= 8)
                                   for v in o.values()):
            return flat
        return ("{\n" + ",\n".join(pad + json.dumps(k) + ": " + _fmt_json(v, ind + 1) for k, v in o.items())
                + "\n" + " " * ind + "}")
    return json.dumps(o)


def dump_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    assert json.loads(_fmt_json(obj)) == json.loads(json.dumps(obj))
    path.write_text(_fmt_json(obj) + "\n")


def rfloat(x: float) -> float:
    """A float rounded to 4 significant digits for the manifests."""
    return float(f"{float(x):.4g}")


# ----------------------------------------------------------------------------
# checkpoints
# ----------------------------------------------------------------------------

CHECKPOINTS = {
    # name: config fields, seed, save mode, MaxSeq bound by the stateful cases
    "tiny": dict(vocab_size=500, hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
                 intermediate_size=128, max_position_embeddings=4096, sliding_window=2047,
                 seed=1001, max_seq=64),
    "ratios": dict(vocab_size=384, hidden_size=96, num_attention_heads=6, num_hidden_layers=3,
                   intermediate_size=160, max_position_embeddings=512, sliding_window=2047,
                   seed=1002, max_seq=48),
    "sharded": dict(vocab_size=500, hidden_size=64, num_attention_heads=4, num_hidden_layers=2,
                    intermediate_size=128, max_position_embeddings=256, sliding_window=2047,
                    seed=1003, max_seq=64, shards=2),
    "window": dict(vocab_size=64, hidden_size=32, num_attention_heads=2, num_hidden_layers=1,
                   intermediate_size=64, max_position_embeddings=4096, sliding_window=2047,
                   seed=1004, max_seq=4096),
    "window_small": dict(vocab_size=64, hidden_size=32, num_attention_heads=2, num_hidden_layers=2,
                         intermediate_size=64, max_position_embeddings=128, sliding_window=5,
                         seed=1005, max_seq=32),
}

CHECKPOINT_NOTES = {
    "tiny": "2 layers, head dim 16; sliding_window 2047 like Phi-3-mini-4k",
    "ratios": "other ratios: 6 heads of 16, MLP 160, 3 layers",
    "sharded": "tiny's shape, other weights, saved as two safetensors shards + index",
    "window": "1 layer; cases run 2100+ positions so the 2047 window is exercised",
    "window_small": ("sliding_window 5 in config.json: only meaningful for an implementation "
                     "that takes W from the config (ENTRIES.md fixes W = 2047 for phi3)"),
}


def phi3_config(spec):
    from transformers import Phi3Config
    eos = 2
    return Phi3Config(
        vocab_size=spec["vocab_size"],
        hidden_size=spec["hidden_size"],
        intermediate_size=spec["intermediate_size"],
        num_hidden_layers=spec["num_hidden_layers"],
        num_attention_heads=spec["num_attention_heads"],
        num_key_value_heads=spec["num_attention_heads"],
        resid_pdrop=0.0,
        embd_pdrop=0.0,
        attention_dropout=0.0,
        hidden_act="silu",
        max_position_embeddings=spec["max_position_embeddings"],
        original_max_position_embeddings=spec["max_position_embeddings"],
        initializer_range=0.02,
        rms_norm_eps=1e-5,
        use_cache=True,
        tie_word_embeddings=False,
        rope_theta=10000.0,
        rope_scaling=None,
        partial_rotary_factor=1.0,
        bos_token_id=1,
        eos_token_id=eos,
        pad_token_id=eos,
        sliding_window=spec["sliding_window"],
        architectures=["Phi3ForCausalLM"],
    )


def random_phi3_weights(cfg, seed):
    """Random weights whose scale gives non-degenerate logits (std ~2) and fairly
    sharp attention. Returned in f32; they are stored (and used) as bf16."""
    import torch
    g = torch.Generator().manual_seed(seed)
    H, I, V = cfg.hidden_size, cfg.intermediate_size, cfg.vocab_size

    def n(*shape, std):
        return torch.randn(*shape, generator=g, dtype=torch.float32) * std

    def norm_w(dim):
        return 1.0 + 0.2 * (torch.rand(dim, generator=g, dtype=torch.float32) * 2 - 1)

    sd = {"model.embed_tokens.weight": n(V, H, std=1.0)}
    for i in range(cfg.num_hidden_layers):
        p = f"model.layers.{i}."
        qkv = n(3 * H, H, std=1.0 / math.sqrt(H))
        qkv[: 2 * H] *= 1.6          # sharper attention: scores of std ~2.5
        sd[p + "input_layernorm.weight"] = norm_w(H)
        sd[p + "self_attn.qkv_proj.weight"] = qkv
        sd[p + "self_attn.o_proj.weight"] = n(H, H, std=0.7 / math.sqrt(H))
        sd[p + "post_attention_layernorm.weight"] = norm_w(H)
        sd[p + "mlp.gate_up_proj.weight"] = n(2 * I, H, std=1.0 / math.sqrt(H))
        sd[p + "mlp.down_proj.weight"] = n(H, I, std=0.7 / math.sqrt(I))
    sd["model.norm.weight"] = norm_w(H)
    sd["lm_head.weight"] = n(V, H, std=2.0 / math.sqrt(H))
    return {k: v.to(torch.bfloat16) for k, v in sd.items()}


def save_checkpoint(name, spec, out_dir: Path):
    import torch
    from transformers import Phi3ForCausalLM
    cfg = phi3_config(spec)
    torch.manual_seed(spec["seed"])
    model = Phi3ForCausalLM(cfg)
    sd = random_phi3_weights(cfg, spec["seed"])
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in sd.items()}, strict=True)
    assert not missing and not unexpected
    model = model.to(torch.bfloat16).eval()
    ck = out_dir / "checkpoints" / name
    if ck.exists():
        shutil.rmtree(ck)
    total = sum(v.numel() * 2 for v in sd.values())
    if spec.get("shards"):
        # find a max_shard_size that gives exactly two shards
        for frac in (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8):
            if ck.exists():
                shutil.rmtree(ck)
            model.save_pretrained(ck, safe_serialization=True, max_shard_size=int(total * frac))
            files = sorted(p.name for p in ck.glob("*.safetensors"))
            if files == ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]:
                break
        else:
            raise SystemExit("could not save `sharded` as exactly two shards")
        assert (ck / "model.safetensors.index.json").exists()
    else:
        model.save_pretrained(ck, safe_serialization=True, max_shard_size=10 * total + (1 << 30))
        assert sorted(p.name for p in ck.glob("*.safetensors")) == ["model.safetensors"]
    return ck


def load_hf(ck: Path, dtype, sliding_window="config"):
    from transformers import Phi3Config, Phi3ForCausalLM
    kwargs = {}
    if sliding_window != "config":
        cfg = Phi3Config.from_pretrained(ck)
        cfg.sliding_window = sliding_window
        kwargs["config"] = cfg
    m = Phi3ForCausalLM.from_pretrained(ck, dtype=dtype, attn_implementation="eager", **kwargs)
    m.eval()
    for name, p in m.named_parameters():
        assert p.dtype == dtype, (name, p.dtype)
    return m


# ----------------------------------------------------------------------------
# independent float64 numpy Phi-3 (the ENTRIES.md semantics, written from scratch)
# ----------------------------------------------------------------------------


class NpPhi3:
    def __init__(self, state_dict, cfg):
        import torch
        self.w = {k: v.detach().to(dtype=torch.float64).numpy() for k, v in state_dict.items()}
        self.H = cfg.hidden_size
        self.heads = cfg.num_attention_heads
        self.d = self.H // self.heads
        self.I = cfg.intermediate_size
        self.layers = cfg.num_hidden_layers
        self.eps = cfg.rms_norm_eps
        self.window = cfg.sliding_window
        # HF computes inv_freq in f32; we do too, the rest in f64.
        d = self.d
        self.inv_freq = (1.0 / (np.float32(cfg.rope_theta) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))).astype(np.float32).astype(np.float64)

    def rms(self, x, w):
        return w * (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps))

    def rope(self, x, pos):  # x [L, heads, d]
        ang = pos[:, None].astype(np.float64) * self.inv_freq[None, :]
        ang = np.concatenate([ang, ang], axis=-1)[:, None, :]
        half = self.d // 2
        rot = np.concatenate([-x[..., half:], x[..., :half]], axis=-1)
        return x * np.cos(ang) + rot * np.sin(ang)

    def run(self, tokens, positions=None, segments=None, window="config"):
        """Returns (final-norm hidden [L,H], logits [L,V]) for packed tokens."""
        tokens = np.asarray(tokens).reshape(-1)
        L = tokens.shape[0]
        pos = np.arange(L) if positions is None else np.asarray(positions).reshape(-1)
        seg = np.zeros(L, np.int64) if segments is None else np.asarray(segments).reshape(-1)
        W = self.window if window == "config" else window
        allowed = (seg[None, :] == seg[:, None]) & (pos[None, :] <= pos[:, None])
        if W is not None:
            allowed &= pos[None, :] > pos[:, None] - W
        w = self.w
        x = w["model.embed_tokens.weight"][tokens]
        for i in range(self.layers):
            p = f"model.layers.{i}."
            h = self.rms(x, w[p + "input_layernorm.weight"])
            qkv = h @ w[p + "self_attn.qkv_proj.weight"].T
            q, k, v = (qkv[:, j * self.H:(j + 1) * self.H].reshape(L, self.heads, self.d) for j in range(3))
            q, k = self.rope(q, pos), self.rope(k, pos)
            s = np.einsum("ihd,jhd->hij", q, k) / math.sqrt(self.d)
            s = np.where(allowed[None], s, -np.inf)
            s = s - s.max(axis=-1, keepdims=True)
            a = np.exp(s)
            a /= a.sum(axis=-1, keepdims=True)
            o = np.einsum("hij,jhd->ihd", a, v).reshape(L, self.H)
            x = x + o @ w[p + "self_attn.o_proj.weight"].T
            h = self.rms(x, w[p + "post_attention_layernorm.weight"])
            gu = h @ w[p + "mlp.gate_up_proj.weight"].T
            g, u = gu[:, : self.I], gu[:, self.I:]
            x = x + (g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
        hn = self.rms(x, w["model.norm.weight"])
        return hn, hn @ w["lm_head.weight"].T


def np_log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


# ----------------------------------------------------------------------------
# Hugging Face runs
# ----------------------------------------------------------------------------

RUNS = ("f32", "bf16")


class Ctx:
    """One checkpoint: HF models for both runs, the numpy model, helpers."""

    def __init__(self, name, spec, ck: Path):
        import torch
        self.torch = torch
        self.name = name
        self.spec = spec
        self.ck = ck
        self.models = {"f32": load_hf(ck, torch.float32), "bf16": load_hf(ck, torch.bfloat16)}
        self.cfg = self.models["f32"].config
        self.V = self.cfg.vocab_size
        self.H = self.cfg.hidden_size
        self.np = NpPhi3(self.models["f32"].state_dict(), self.cfg)
        self.max_seq = spec["max_seq"]
        self.rng = np.random.default_rng(spec["seed"] + 77)

    def tokens(self, *shape):
        return self.rng.integers(0, self.V, size=shape).astype(np.int32)

    def hf(self, run, ids, position_ids=None, cache=None, hidden=False):
        torch = self.torch
        ids_t = torch.as_tensor(np.asarray(ids), dtype=torch.long)
        if ids_t.dim() == 1:
            ids_t = ids_t[None]
        kw = {}
        if position_ids is not None:
            kw["position_ids"] = torch.as_tensor(np.asarray(position_ids), dtype=torch.long).reshape(ids_t.shape)
        with torch.no_grad():
            m = self.models[run]
            if hidden:
                return m.model(input_ids=ids_t, use_cache=False, **kw).last_hidden_state
            if cache == "new":
                out = m(input_ids=ids_t, use_cache=True, **kw)
                return out.logits, out.past_key_values
            if cache is not None:
                out = m(input_ids=ids_t, past_key_values=cache, use_cache=True, **kw)
                return out.logits, out.past_key_values
            return m(input_ids=ids_t, use_cache=False, **kw).logits

    def alone_last(self, run, seq, positions=None):
        """Logits of the last token of one sequence run alone: [V] (run dtype)."""
        return self.hf(run, np.asarray(seq)[None], position_ids=None if positions is None else np.asarray(positions)[None])[0, -1]

    def alone_last64(self, seq, positions=None):
        return self.np.run(seq, positions)[1][-1]


class Case:
    def __init__(self, ctx: Ctx, name: str, entry_summary: str, bind=None, note=None):
        self.ctx = ctx
        self.name = name
        self.summary = entry_summary
        self.bind = bind or {}
        self.note = note
        self.calls = []
        self.inputs = {}   # tensor name -> (np array, dtype str)

    def arg_tensor(self, name, arr, dtype):
        np_dtype = {"i32": np.int32, "i64": np.int64, "f32": np.float32}[dtype]
        arr = np.asarray(arr).astype(np_dtype)
        if name in self.inputs:
            assert np.array_equal(self.inputs[name][0], arr), name
        self.inputs[name] = (arr, dtype)
        return {"tensor": name, "dtype": dtype, "shape": list(arr.shape)}

    def call(self, entry, generics, args, outputs):
        self.calls.append(dict(entry=entry, generics=generics, args=args, outputs=outputs))


def out_float(name, values, ref64=None, check_rows=None, diagnostic=False, note=None, compare_bf16=True):
    """values: run -> torch tensor (run dtype) or np array; ref64: np array (f64) or None."""
    return dict(name=name, kind="float", values=values, ref64=ref64, check_rows=check_rows,
                diagnostic=diagnostic, note=note, compare_bf16=compare_bf16)


def out_exact(name, values, dtype, margins=None, note=None):
    return dict(name=name, kind="exact", values=values, dtype=dtype, margins=margins, note=note)


def to_np32(t):
    import torch
    if isinstance(t, torch.Tensor):
        return t.detach().to(torch.float32).numpy()
    return np.asarray(t, dtype=np.float32)


def top2_margin(logits_2d):
    z = np.sort(np.asarray(logits_2d, dtype=np.float64), axis=-1)
    return float(np.min(z[..., -1] - z[..., -2]))


# ---------------------------------------------------------------- case builders


def case_forward(ctx: Ctx, B, S, name=None):
    toks = ctx.tokens(B, S)
    if B * S > 1:
        toks[0, 0] = 0
        toks[-1, -1] = ctx.V - 1
    c = Case(ctx, name or f"forward_b{B}s{S}", f"forward<B={B}, S={S}>: logits of every position")
    args = {"tokens": c.arg_tensor("tokens", toks, "i32")}
    vals = {r: ctx.hf(r, toks) for r in RUNS}
    ref = np.stack([ctx.np.run(row)[1] for row in toks])
    c.call("forward", {"B": B, "S": S}, args, [out_float("logits", vals, ref)])
    return c


def case_next_token(ctx: Ctx, B, S):
    toks = ctx.tokens(B, S)
    c = Case(ctx, f"next_token_b{B}s{S}", f"next_token<B={B}, S={S}>: last position's logits")
    args = {"tokens": c.arg_tensor("tokens", toks, "i32")}
    vals = {r: ctx.hf(r, toks)[:, -1] for r in RUNS}
    ref = np.stack([ctx.np.run(row)[1][-1] for row in toks])
    c.call("next_token", {"B": B, "S": S}, args, [out_float("logits", vals, ref)])
    return c


def case_forward_window(ctx: Ctx, S=2100, keep_head=8, keep_tail=64):
    """forward<1, S> with S > 2047; stores the logits at a subset of positions."""
    toks = ctx.tokens(1, S)
    c = Case(ctx, f"forward_b1s{S}",
             f"forward<B=1, S={S}>: positions past the 2047 window; only the rows at "
             f"`check_positions` are stored (output `logits` is forward's logits[:, check_positions])")
    args = {"tokens": c.arg_tensor("tokens", toks, "i32")}
    keep = np.concatenate([np.arange(keep_head), np.arange(S - keep_tail, S)])
    vals = {r: ctx.hf(r, toks)[:, keep] for r in RUNS}
    ref = ctx.np.run(toks[0])[1][keep][None]
    ref_nowin = ctx.np.run(toks[0], window=None)[1][keep][None]
    m_nowin = load_hf(ctx.ck, ctx.torch.float32, sliding_window=None)
    with ctx.torch.no_grad():
        hf_nowin = m_nowin(input_ids=ctx.torch.as_tensor(toks, dtype=ctx.torch.long)).logits[:, keep]
    hf_nowin = to_np32(hf_nowin)
    effect = float(np.max(np.abs(to_np32(vals["f32"]) - hf_nowin)))
    assert np.max(np.abs(hf_nowin - ref_nowin)) < 1e-3, "no-window HF vs numpy"
    assert effect > 1e-2, f"window has too little effect ({effect})"
    # positions below the window are untouched by it
    assert np.max(np.abs(to_np32(vals["f32"])[:, :keep_head] - hf_nowin[:, :keep_head])) == 0.0
    c.window_effect = effect
    c.extra_tensors = {"f32_nowindow/c0.logits": hf_nowin.astype(np.float32)}
    c.call("forward", {"B": 1, "S": S}, args,
           [out_float("logits", vals, ref,
                      note=("forward logits at check_positions only; f32_nowindow/c0.logits holds the "
                            "same model without the window (a wrong window lands near it)"))])
    c.check_positions = c.arg_tensor("check_positions", keep, "i32")
    return c


def case_prefill_decode(ctx: Ctx, batch, chunks, n_decode):
    total = sum(chunks) + n_decode
    seq = ctx.tokens(batch, total)
    c = Case(ctx, f"prefill_decode_b{batch}",
             f"prefill of {len(chunks)} chunk(s) {chunks} then {n_decode} decodes, Batch={batch}; "
             f"HF through its DynamicCache", bind={"Batch": batch, "MaxSeq": ctx.max_seq})
    ref_full = [ctx.np.run(row)[1] for row in seq]
    results = {r: [] for r in RUNS}
    for r in RUNS:
        cache = "new"
        p = 0
        for n in chunks + [1] * n_decode:
            logits, cache = ctx.hf(r, seq[:, p:p + n], cache=cache)
            results[r].append(logits[:, -1])
            p += n
        # self-check: same as forward over the whole sequence
        full = ctx.hf(r, seq)
        ends = np.cumsum(chunks + [1] * n_decode) - 1
        d = float(np.max(np.abs(to_np32(full[:, ends]) - np.stack([to_np32(x) for x in results[r]], 1))))
        assert d < (1e-4 if r == "f32" else 0.25), (r, d)
    p = 0
    for i, n in enumerate(chunks + [1] * n_decode):
        end = p + n - 1
        ref = np.stack([ref_full[b][end] for b in range(batch)])
        vals = {r: results[r][i] for r in RUNS}
        if i < len(chunks):
            args = {"tokens": c.arg_tensor(f"c{i}.tokens", seq[:, p:p + n], "i32"), "pos": {"value": p, "dtype": "i32"}}
            c.call("prefill", {"S": n}, args, [out_float("logits", vals, ref)])
        else:
            args = {"token": c.arg_tensor(f"c{i}.token", seq[:, p:p + 1], "i32"), "pos": {"value": p, "dtype": "i32"}}
            c.call("decode", {}, args, [out_float("logits", vals, ref)])
        p += n
    return c


def case_slots_rows(ctx: Ctx, lengths, slots, batch, S, decode_steps, park_last_step=True):
    """prefill_slots into cache rows, then decode_rows steps (each row alone in HF)."""
    M = len(lengths)
    c = Case(ctx, f"prefill_slots_m{M}_decode_rows_b{batch}",
             f"prefill_slots<M={M}, S={S}> (lengths {lengths} -> slots {slots}) then {decode_steps} "
             f"decode_rows steps; a row with no prompt, or parked, sits at MaxSeq-1 (its output is "
             f"not checked)", bind={"Batch": batch, "MaxSeq": ctx.max_seq})
    prompts = [ctx.tokens(L) for L in lengths]
    toks = np.zeros((M, S), np.int32)
    for m, pr in enumerate(prompts):
        toks[m, :len(pr)] = pr
        toks[m, len(pr):] = ctx.cfg.pad_token_id
    vals = {r: ctx.torch.stack([ctx.alone_last(r, pr) for pr in prompts]) for r in RUNS}
    ref = np.stack([ctx.alone_last64(pr) for pr in prompts])
    args = {"tokens": c.arg_tensor("c0.tokens", toks, "i32"), "slots": c.arg_tensor("c0.slots", slots, "i32"),
            "lengths": c.arg_tensor("c0.lengths", lengths, "i32")}
    c.call("prefill_slots", {"M": M, "S": S}, args, [out_float("logits", vals, ref)])
    hist = {slots[m]: list(prompts[m]) for m in range(M)}
    for step in range(decode_steps):
        tok = ctx.tokens(batch, 1)
        positions = []
        check = []
        park = park_last_step and step == decode_steps - 1 and M == batch
        for b in range(batch):
            if b in hist and not (park and b == slots[1 % M]):
                positions.append(len(hist[b]))
                check.append(1)
            else:
                positions.append(ctx.max_seq - 1)
                check.append(0)
        vals = {r: [] for r in RUNS}
        ref = []
        for b in range(batch):
            if check[b]:
                seq = hist[b] + [int(tok[b, 0])]
                for r in RUNS:
                    vals[r].append(ctx.alone_last(r, seq))
                ref.append(ctx.alone_last64(seq))
            else:
                for r in RUNS:
                    vals[r].append(ctx.torch.zeros(ctx.V, dtype=ctx.models[r].dtype))
                ref.append(np.zeros(ctx.V))
        for b in range(batch):
            if check[b]:
                hist[b].append(int(tok[b, 0]))
        i = len(c.calls)
        args = {"tokens": c.arg_tensor(f"c{i}.tokens", tok, "i32"),
                "positions": c.arg_tensor(f"c{i}.positions", positions, "i32")}
        c.call("decode_rows", {}, args,
               [out_float("logits", {r: ctx.torch.stack(vals[r]) for r in RUNS}, np.stack(ref),
                          check_rows=check)])
    return c


def case_packed(ctx: Ctx, seg_lens, name="packed"):
    P = sum(seg_lens)
    c = Case(ctx, f"{name}_p{P}",
             f"hidden_packed / log_probs_packed / loss_packed<P={P}> over segments of lengths "
             f"{seg_lens}; HF ran each segment alone")
    segs = [ctx.tokens(L) for L in seg_lens]
    tokens = np.concatenate(segs)
    positions = np.concatenate([np.arange(L) for L in seg_lens])
    segments = np.concatenate([np.full(L, s) for s, L in enumerate(seg_lens)])
    targets = np.concatenate([np.append(sg[1:], ctx.rng.integers(0, ctx.V)) for sg in segs]).astype(np.int64)
    weights = np.ones(P, np.float64)
    ends = np.cumsum(seg_lens) - 1
    weights[ends] = 0.0                      # last token of a segment: no next token
    weights[1] = 0.0                         # and one more ignored token
    weights = (weights / weights.sum()).astype(np.float32)
    # HF: each segment alone, concatenated
    hid = {r: ctx.torch.cat([ctx.hf(r, sg, hidden=True)[0] for sg in segs]) for r in RUNS}
    logits = {r: ctx.torch.cat([ctx.hf(r, sg)[0] for sg in segs]) for r in RUNS}
    torch = ctx.torch
    tt = torch.as_tensor(targets)
    lp = {r: torch.log_softmax(logits[r].float(), dim=-1).gather(-1, tt[:, None])[:, 0] for r in RUNS}
    loss = {r: (torch.as_tensor(weights) * -lp[r]).sum() for r in RUNS}
    # numpy: packed directly, with segment masking
    h64, z64 = ctx.np.run(tokens, positions, segments)
    lp64 = np_log_softmax(z64)[np.arange(P), targets]
    loss64 = float(np.sum(weights.astype(np.float64) * -lp64))
    base = {"tokens": c.arg_tensor("tokens", tokens, "i32"),
            "positions": c.arg_tensor("positions", positions, "i32"),
            "segments": c.arg_tensor("segments", segments, "i32")}
    c.call("hidden_packed", {"P": P}, dict(base), [out_float("hidden", hid, h64)])
    a2 = dict(base, targets=c.arg_tensor("targets", targets, "i64"))
    c.call("log_probs_packed", {"P": P}, a2, [out_float("log_probs", lp, lp64)])
    a3 = dict(a2, weights=c.arg_tensor("weights", weights, "f32"))
    c.call("loss_packed", {"P": P}, a3, [out_float("loss", loss, np.asarray(loss64))])
    return c


def case_packed_rows(ctx: Ctx):
    """prefill_packed (rows 2 and 0 + one padding token), step_packed (row 1's prompt
    while rows 0 and 2 step, row 1 parked), then decode_rows for all rows."""
    Ms = ctx.max_seq
    batch = 3
    c = Case(ctx, "prefill_packed_step_packed_b3",
             "prefill_packed<P=8> (row 2: 4 tokens, row 0: 3 tokens, 1 padding token at MaxSeq-1 in "
             "its own segment), step_packed<P=5> (row 1's 5-token prompt; rows 0 and 2 step, row 1 "
             "parked at MaxSeq-1, its step row unchecked), then decode_rows for all rows",
             bind={"Batch": batch, "MaxSeq": Ms})
    A, Bp, Cp = ctx.tokens(4), ctx.tokens(3), ctx.tokens(5)
    pad = ctx.cfg.pad_token_id
    tokens = np.concatenate([A, Bp, [pad]])
    rows = [2] * 4 + [0] * 3 + [1]
    positions = [0, 1, 2, 3, 0, 1, 2, Ms - 1]
    segments = [0] * 4 + [1] * 3 + [2]
    last = [6, 7, 3]
    seqs1 = [(list(Bp), None), ([pad], [Ms - 1]), (list(A), None)]
    vals = {r: ctx.torch.stack([ctx.alone_last(r, s, p) for s, p in seqs1]) for r in RUNS}
    ref = np.stack([ctx.alone_last64(s, p) for s, p in seqs1])
    args = {"tokens": c.arg_tensor("c0.tokens", tokens, "i32"), "rows": c.arg_tensor("c0.rows", rows, "i32"),
            "positions": c.arg_tensor("c0.positions", positions, "i32"),
            "segments": c.arg_tensor("c0.segments", segments, "i32"), "last": c.arg_tensor("c0.last", last, "i32")}
    c.call("prefill_packed", {"P": 8}, args, [out_float("logits", vals, ref)])
    # step_packed
    st = ctx.tokens(batch, 1)
    step_positions = [3, Ms - 1, 4]
    seqs2 = [(list(Cp), None)] * 3 + [(list(Bp) + [int(st[0, 0])], None), None, (list(A) + [int(st[2, 0])], None)]
    check = [1, 1, 1, 1, 0, 1]
    vals = {r: ctx.torch.stack([ctx.alone_last(r, *s) if s else ctx.torch.zeros(ctx.V, dtype=ctx.models[r].dtype)
                                for s in seqs2]) for r in RUNS}
    ref = np.stack([ctx.alone_last64(*s) if s else np.zeros(ctx.V) for s in seqs2])
    args = {"tokens": c.arg_tensor("c1.tokens", Cp, "i32"), "rows": c.arg_tensor("c1.rows", [1] * 5, "i32"),
            "positions": c.arg_tensor("c1.positions", np.arange(5), "i32"),
            "segments": c.arg_tensor("c1.segments", [0] * 5, "i32"),
            "last": c.arg_tensor("c1.last", [4, 4, 4], "i32"),
            "step_tokens": c.arg_tensor("c1.step_tokens", st, "i32"),
            "step_positions": c.arg_tensor("c1.step_positions", step_positions, "i32")}
    c.call("step_packed", {"P": 5}, args, [out_float("logits", vals, ref, check_rows=check)])
    # decode_rows: everyone continues
    hist = [list(Bp) + [int(st[0, 0])], list(Cp), list(A) + [int(st[2, 0])]]
    dt = ctx.tokens(batch, 1)
    seqs3 = [hist[b] + [int(dt[b, 0])] for b in range(batch)]
    vals = {r: ctx.torch.stack([ctx.alone_last(r, s) for s in seqs3]) for r in RUNS}
    ref = np.stack([ctx.alone_last64(s) for s in seqs3])
    args = {"tokens": c.arg_tensor("c2.tokens", dt, "i32"),
            "positions": c.arg_tensor("c2.positions", [len(h) for h in hist], "i32")}
    c.call("decode_rows", {}, args, [out_float("logits", vals, ref)])
    return c


def greedy_chain(ctx: Ctx, run, prompt, steps):
    """HF greedy with its cache: prefill prompt[:, :-1], then `steps` decodes starting
    from prompt[:, -1]. Returns prefill logits, tokens [B, steps], step logits [steps, B, V]."""
    torch = ctx.torch
    logits, cache = ctx.hf(run, prompt[:, :-1], cache="new")
    pre = logits[:, -1]
    tok = torch.as_tensor(prompt[:, -1:], dtype=torch.long)
    out, step_logits = [], []
    for _ in range(steps):
        lg, cache = ctx.hf(run, tok.numpy(), cache=cache)
        lg = lg[:, -1]
        step_logits.append(lg)
        tok = lg.float().argmax(-1, keepdim=True)
        out.append(tok[:, 0])
    return pre, torch.stack(out, 1).numpy().astype(np.int32), torch.stack(step_logits)


def hf_generate_check(ctx: Ctx, run, prompt, steps, chain):
    from transformers import GenerationConfig
    torch = ctx.torch
    gc = GenerationConfig(max_new_tokens=steps, min_new_tokens=0, do_sample=False, num_beams=1,
                          eos_token_id=None, pad_token_id=ctx.cfg.pad_token_id, bos_token_id=None)
    with torch.no_grad():
        g = ctx.models[run].generate(torch.as_tensor(prompt, dtype=torch.long), generation_config=gc)
    got = g[:, prompt.shape[1]:].numpy()
    eos = ctx.models[run].generation_config.eos_token_id
    for b in range(got.shape[0]):
        # generate() may still stop a row at the model's eos (then pads it): compare up to there
        n = got.shape[1]
        hits = np.nonzero(got[b] == eos)[0] if eos is not None else []
        if len(hits):
            n = int(hits[0]) + 1
        assert n >= 1 and np.array_equal(got[b, :n], chain[b, :n]), (run, got, chain)


def pick_prompt(ctx: Ctx, batch, length, score, tries=64):
    """Among `tries` seeded random prompts, the one whose f32 token chain has the
    largest smallest decision margin (so the expected tokens are robust to the
    rounding differences of another implementation)."""
    best, best_score = None, -1.0
    for _ in range(tries):
        cand = ctx.tokens(batch, length)
        sc = score(cand)
        if sc > best_score:
            best, best_score = cand, sc
    return best


def case_generate(ctx: Ctx, batch, S, steps):
    prompt = pick_prompt(ctx, batch, S + 1,
                         lambda p: top2_margin(to_np32(greedy_chain(ctx, "f32", p, steps)[2])))
    c = Case(ctx, f"generate_b{batch}",
             f"prefill<S={S}> of the prompt, then generate<Steps={steps}> from its last token at pos {S}",
             bind={"Batch": batch, "MaxSeq": ctx.max_seq})
    res = {r: greedy_chain(ctx, r, prompt, steps) for r in RUNS}
    for r in RUNS:
        hf_generate_check(ctx, r, prompt, steps, res[r][1])
    ref_pre = np.stack([ctx.np.run(row[:-1])[1][-1] for row in prompt])
    # float64 margins along the f32 chain
    chain = res["f32"][1]
    full = np.concatenate([prompt, chain], 1)
    z64 = np.stack([ctx.np.run(row)[1][S:S + steps] for row in full])          # [B, steps, V]
    assert np.array_equal(z64.argmax(-1), chain), "float64 argmax disagrees with HF f32 greedy chain"
    margins = {r: top2_margin(to_np32(res[r][2])) for r in RUNS}
    margins["f64_along_f32_chain"] = top2_margin(z64)
    args0 = {"tokens": c.arg_tensor("c0.tokens", prompt[:, :S], "i32"), "pos": {"value": 0, "dtype": "i32"}}
    c.call("prefill", {"S": S}, args0, [out_float("logits", {r: res[r][0] for r in RUNS}, ref_pre)])
    same = np.array_equal(res["f32"][1], res["bf16"][1])
    args1 = {"token": c.arg_tensor("c1.token", prompt[:, S:], "i32"), "pos": {"value": S, "dtype": "i32"}}
    c.call("generate", {"Steps": steps}, args1,
           [out_exact("tokens", {r: res[r][1] for r in RUNS}, "i32", margins=margins),
            out_float("step_logits", {r: res[r][2] for r in RUNS}, np.transpose(z64, (1, 0, 2)),
                      diagnostic=True, compare_bf16=same,
                      note="[Steps, Batch, Vocab] logits of each greedy step (diagnostic, not an entry output)")])
    c.bf16_chain_equals_f32 = bool(same)
    return c


def case_generate_until(ctx: Ctx, batch, S, max_new, eos_step):
    prompt = pick_prompt(ctx, batch, S + 1,
                         lambda p: top2_margin(to_np32(greedy_chain(ctx, "f32", p, max_new)[2])))
    res = {r: greedy_chain(ctx, r, prompt, max_new) for r in RUNS}
    chain32 = res["f32"][1]
    eos = int(chain32[0, eos_step])

    def until(chain):
        count = max_new
        for t in range(max_new):
            if all(chain[b, t] == eos for b in range(batch)):
                count = t + 1
                break
        toks = chain.copy()
        toks[:, count:] = 0
        return toks, count

    c = Case(ctx, f"generate_until_b{batch}",
             f"prefill<S={S}>, then generate_until<MaxNew={max_new}> with eos = {eos} (row 0's greedy "
             f"token at step {eos_step}); tokens past the count are 0",
             bind={"Batch": batch, "MaxSeq": ctx.max_seq})
    got = {r: until(res[r][1]) for r in RUNS}
    margins = {r: top2_margin(to_np32(res[r][2])) for r in RUNS}
    args0 = {"tokens": c.arg_tensor("c0.tokens", prompt[:, :S], "i32"), "pos": {"value": 0, "dtype": "i32"}}
    ref_pre = np.stack([ctx.np.run(row[:-1])[1][-1] for row in prompt])
    c.call("prefill", {"S": S}, args0, [out_float("logits", {r: res[r][0] for r in RUNS}, ref_pre)])
    args1 = {"token": c.arg_tensor("c1.token", prompt[:, S:], "i32"), "pos": {"value": S, "dtype": "i32"},
             "eos": {"value": eos, "dtype": "i32"}}
    c.call("generate_until", {"MaxNew": max_new}, args1,
           [out_exact("tokens", {r: got[r][0] for r in RUNS}, "i32", margins=margins),
            out_exact("count", {r: np.asarray(got[r][1], np.int32) for r in RUNS}, "i32")])
    c.counts = {r: got[r][1] for r in RUNS}
    return c


def case_sample(ctx: Ctx, batch, S, steps, key, temperature, tag):
    import jax
    import jax.numpy as jnp
    keys = jax.random.split(jnp.asarray(np.asarray(key, np.uint32)), steps)

    def sample_run(r, prompt):
        logits, cache = ctx.hf(r, prompt[:, :-1], cache="new")
        pre = logits[:, -1]
        tok = prompt[:, -1:]
        out, marg = [], []
        for t in range(steps):
            lg, cache = ctx.hf(r, tok, cache=cache)
            z = jnp.asarray(to_np32(lg[:, -1])) / jnp.float32(temperature)
            s = np.asarray(jax.random.categorical(keys[t], z, axis=-1))
            gum = jax.random.gumbel(keys[t], z.shape, jnp.float32)
            tot = np.asarray(gum + z, np.float64)
            assert np.array_equal(tot.argmax(-1), s), "categorical is not argmax(gumbel + logits)"
            marg.append(top2_margin(tot) * temperature)   # in logit units
            tok = s.astype(np.int32)[:, None]
            out.append(s.astype(np.int32))
        return pre, np.stack(out, 1), float(min(marg))

    prompt = pick_prompt(ctx, batch, S + 1, lambda p: sample_run("f32", p)[2], tries=32)
    c = Case(ctx, f"sample_b{batch}_{tag}",
             f"prefill<S={S}>, then sample<Steps={steps}>(key={list(key)}, temperature={temperature}): "
             f"step t draws jax.random.categorical(split(key, {steps})[t], logits / temperature) with the "
             f"logits in f32 (bf16 run: its bf16 logits converted to f32)",
             bind={"Batch": batch, "MaxSeq": ctx.max_seq})
    res, margins, pres = {}, {}, {}
    for r in RUNS:
        pres[r], res[r], margins[r] = sample_run(r, prompt)
    ref_pre = np.stack([ctx.np.run(row[:-1])[1][-1] for row in prompt])
    args0 = {"tokens": c.arg_tensor("c0.tokens", prompt[:, :S], "i32"), "pos": {"value": 0, "dtype": "i32"}}
    c.call("prefill", {"S": S}, args0, [out_float("logits", pres, ref_pre)])
    args1 = {"token": c.arg_tensor("c1.token", prompt[:, S:], "i32"), "pos": {"value": S, "dtype": "i32"},
             "key": c.arg_tensor("c1.key", np.asarray(key, np.int64), "i64"),
             "temperature": {"value": temperature, "dtype": "f32"}}
    c.call("sample", {"Steps": steps}, args1,
           [out_exact("tokens", res, "i32", margins=margins,
                      note=("margins: smallest top-1 minus top-2 gap of gumbel + logits/temperature, times "
                            "temperature (i.e. in logit units, comparable with the logits atol)"))])
    return c


# ---------------------------------------------------------------- writing cases


def finalize(case: Case, out_dir: Path):
    import torch
    from safetensors.torch import save_file
    ctx = case.ctx
    rel_dir = Path("cases") / ctx.name
    d = out_dir / rel_dir
    d.mkdir(parents=True, exist_ok=True)
    tensors = {}
    for name, (arr, _dt) in case.inputs.items():
        tensors[name] = torch.from_numpy(np.array(arr, order="C", copy=True))
    for name, arr in getattr(case, "extra_tensors", {}).items():
        tensors[name] = torch.from_numpy(np.array(arr, order="C", copy=True))
    calls_json = []
    for i, call in enumerate(case.calls):
        outs_json = []
        for o in call["outputs"]:
            oj = {"name": o["name"], "kind": o["kind"]}
            if o["kind"] == "float":
                rows = o["check_rows"]
                v32 = to_np32(o["values"]["f32"]).astype(np.float64)
                v16 = to_np32(o["values"]["bf16"]).astype(np.float64)
                sel = (lambda a: a) if rows is None else (lambda a: a[np.asarray(rows, bool)])
                m = {}
                if o["ref64"] is not None:
                    r64 = np.asarray(o["ref64"], np.float64)
                    m["f32_vs_f64"] = float(np.max(np.abs(sel(v32) - sel(r64))))
                    m["max_abs_value"] = float(np.max(np.abs(sel(r64))))
                    limit = 1e-3 * max(1.0, m["max_abs_value"])
                    assert m["f32_vs_f64"] < limit, (case.name, o["name"], m)
                if o["compare_bf16"]:
                    m["bf16_vs_f32"] = float(np.max(np.abs(sel(v16) - sel(v32))))
                tol32 = nice_ceil(max(10 * m.get("f32_vs_f64", 1e-6), 1e-5))
                oj["atol"] = {"f32": tol32}
                if "bf16_vs_f32" in m:
                    oj["atol"]["bf16"] = nice_ceil(3 * m["bf16_vs_f32"] + tol32)
                oj["measured"] = {k: rfloat(v) for k, v in m.items()}
                for r in RUNS:
                    t = o["values"][r]
                    if not isinstance(t, torch.Tensor):
                        t = torch.from_numpy(np.asarray(t, np.float32))
                    t = t.detach().contiguous()
                    if r == "f32":
                        t = t.to(torch.float32)
                    tensors[f"{r}/c{i}.{o['name']}"] = t
                oj["tensors"] = {r: f"{r}/c{i}.{o['name']}" for r in RUNS}
                oj["dtype"] = {r: str(tensors[f"{r}/c{i}.{o['name']}"].dtype).replace("torch.", "")
                               .replace("float32", "f32").replace("bfloat16", "bf16") for r in RUNS}
                oj["shape"] = list(tensors[f"f32/c{i}.{o['name']}"].shape)
                if rows is not None:
                    oj["check_rows"] = list(int(x) for x in rows)
                if o["diagnostic"]:
                    oj["diagnostic"] = True
            else:
                for r in RUNS:
                    arr = np.asarray(o["values"][r]).astype(np.int32)
                    tensors[f"{r}/c{i}.{o['name']}"] = torch.from_numpy(np.array(arr, order="C", copy=True))
                oj["tensors"] = {r: f"{r}/c{i}.{o['name']}" for r in RUNS}
                oj["dtype"] = o["dtype"]
                oj["shape"] = list(np.asarray(o["values"]["f32"]).shape)
                oj["compare"] = "exact"
                if o.get("margins") is not None:
                    oj["min_top2_margin"] = {k: rfloat(v) for k, v in o["margins"].items()}
            if o.get("note"):
                oj["note"] = o["note"]
            outs_json.append(oj)
        calls_json.append({"entry": call["entry"], "generics": call["generics"], "args": call["args"],
                           "outputs": outs_json})
    st_name = f"{case.name}.safetensors"
    save_file({k: v for k, v in sorted(tensors.items())}, str(d / st_name), metadata={"format": "pt"})
    manifest = {
        "schema": "linnet-reference-case/1",
        "case": f"{ctx.name}/{case.name}",
        "summary": case.summary,
        "checkpoint": f"checkpoints/{ctx.name}",
        "tensors": st_name,
        "bind": case.bind,
        "runs": {
            "f32": "T = f32: the bf16 checkpoint upcast exactly to f32, HF computes in f32",
            "bf16": "T = bf16: HF computes in bf16 (its RMSNorm variance, rotary tables and attention "
                    "softmax in f32)",
        },
        "calls": calls_json,
    }
    if case.note:
        manifest["note"] = case.note
    if hasattr(case, "check_positions"):
        manifest["check_positions"] = case.check_positions
    if hasattr(case, "window_effect"):
        manifest["window_effect_max_abs"] = rfloat(case.window_effect)
    if hasattr(case, "bf16_chain_equals_f32"):
        manifest["bf16_chain_equals_f32"] = case.bf16_chain_equals_f32
    dump_json(d / f"{case.name}.json", manifest)
    return str(rel_dir / f"{case.name}.json"), manifest


# ----------------------------------------------------------------------------
# sliding-window verification on a tiny config
# ----------------------------------------------------------------------------


def verify_sliding_window(work: Path):
    import torch
    spec = dict(vocab_size=50, hidden_size=32, num_attention_heads=2, num_hidden_layers=2,
                intermediate_size=64, max_position_embeddings=64, sliding_window=4, seed=7, max_seq=64)
    ck = save_checkpoint("verify_window", spec, work)
    W, L = 4, 12
    toks = np.random.default_rng(5).integers(0, 50, size=(1, L))
    ids = torch.as_tensor(toks)
    m_w = load_hf(ck, torch.float32)
    m_n = load_hf(ck, torch.float32, sliding_window=None)
    assert m_w.config.sliding_window == W and m_n.config.sliding_window is None
    with torch.no_grad():
        lw = m_w(input_ids=ids).logits[0].numpy().astype(np.float64)
        ln = m_n(input_ids=ids).logits[0].numpy().astype(np.float64)
        # through the cache too
        out = m_w(input_ids=ids[:, :6], use_cache=True)
        steps = [out.logits[0, -1]]
        pkv = out.past_key_values
        for p in range(6, L):
            out = m_w(input_ids=ids[:, p:p + 1], past_key_values=pkv, use_cache=True)
            pkv = out.past_key_values
            steps.append(out.logits[0, -1])
        lc = torch.stack(steps).numpy().astype(np.float64)
        # hidden_states[-1] is the final-norm hidden state
        o = m_w(input_ids=ids, output_hidden_states=True)
        hs_last = o.hidden_states[-1]
        last_hidden = m_w.model(input_ids=ids).last_hidden_state
        assert torch.equal(hs_last, last_hidden)
        assert torch.allclose(m_w.lm_head(hs_last), o.logits, atol=1e-6, rtol=0)
        pre_norm = o.hidden_states[-2]
    npm = NpPhi3(m_w.state_dict(), m_w.config)
    ref_w = npm.run(toks[0])[1]
    ref_n = npm.run(toks[0], window=None)[1]
    res = {
        "config": {"sliding_window": W, "sequence_length": L, "hidden": 32, "heads": 2, "layers": 2},
        "max_abs_window_vs_nowindow_positions_lt_W": float(np.max(np.abs(lw[:W] - ln[:W]))),
        "min_over_positions_ge_W_of_max_abs_window_vs_nowindow": float(min(np.max(np.abs(lw[p] - ln[p])) for p in range(W, L))),
        "max_abs_hf_window_vs_numpy_window": float(np.max(np.abs(lw - ref_w))),
        "max_abs_hf_nowindow_vs_numpy_nowindow": float(np.max(np.abs(ln - ref_n))),
        "max_abs_hf_window_vs_numpy_nowindow": float(np.max(np.abs(lw - ref_n))),
        "max_abs_hf_cache_decode_vs_forward": float(np.max(np.abs(lc - lw[5:]))),
        "hidden_states_last_is_final_norm": True,
        "hidden_states_second_last_is_last_layer_output_before_norm":
            bool(not torch.allclose(pre_norm, hs_last)),
    }
    assert res["max_abs_window_vs_nowindow_positions_lt_W"] == 0.0, res
    assert res["min_over_positions_ge_W_of_max_abs_window_vs_nowindow"] > 1e-2, res
    assert res["max_abs_hf_window_vs_numpy_window"] < 1e-4, res
    assert res["max_abs_hf_nowindow_vs_numpy_nowindow"] < 1e-4, res
    assert res["max_abs_hf_window_vs_numpy_nowindow"] > 1e-2, res
    assert res["max_abs_hf_cache_decode_vs_forward"] < 1e-4, res
    res["result"] = ("PASS: HF Phi3 eager applies sliding_window (query p sees keys p-W < s <= p), "
                     "equal to the float64 numpy reference; the DynamicCache path agrees")
    shutil.rmtree(ck)
    return {k: (rfloat(v) if isinstance(v, float) else v) for k, v in res.items()}


# ----------------------------------------------------------------------------
# jax.random reference
# ----------------------------------------------------------------------------

JAX_KEYS = [
    ("PRNGKey(0)", None, 0),
    ("PRNGKey(42)", None, 42),
    ("key_data[1, 2]", [1, 2], None),
    ("key_data[0xFFFFFFFF, 0x12345678]", [0xFFFFFFFF, 0x12345678], None),
]
CATEGORICAL_LOGITS = np.array([
    [0.0, 1.0, 2.0, 3.0, -1.0, 0.5, 0.25, -2.0, 1.5, 0.0],
    [5.0, -5.0, 0.0, 0.1, 0.2, 0.3, 4.9, -0.5, 2.0, 1.0],
    [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0],
], dtype=np.float32)


def jax_part(partitionable: bool):
    """Computed in a child process so that the flag is set before anything is traced."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_threefry_partitionable", partitionable)
    u32 = lambda a: [int(x) for x in np.asarray(a, np.uint32).reshape(-1)]  # noqa: E731

    def fl(a):
        a = np.asarray(a, np.float32)
        return {"values": [float(x) for x in a.reshape(-1)], "bits": f32_bits(a), "shape": list(a.shape)}

    out = []
    for label, data, seed in JAX_KEYS:
        key = jax.random.PRNGKey(seed) if data is None else jnp.asarray(np.asarray(data, np.uint32))
        assert key.dtype == jnp.uint32 and key.shape == (2,)
        z = jnp.asarray(CATEGORICAL_LOGITS)
        e = {
            "label": label,
            "key": u32(key),
            "split_4": [u32(k) for k in jax.random.split(key, 4)],
            "split_2": [u32(k) for k in jax.random.split(key, 2)],
            "fold_in_7": u32(jax.random.fold_in(key, 7)),
            "bits_u32_8": u32(jax.random.bits(key, (8,), jnp.uint32)),
            "bits_u32_7": u32(jax.random.bits(key, (7,), jnp.uint32)),
            "bits_u32_2x3": u32(jax.random.bits(key, (2, 3), jnp.uint32)),
            "uniform_f32_8": fl(jax.random.uniform(key, (8,), jnp.float32)),
            "normal_f32_8": fl(jax.random.normal(key, (8,), jnp.float32)),
            "gumbel_f32_3x10": fl(jax.random.gumbel(key, (3, 10), jnp.float32)),
            "categorical_3x10": [int(x) for x in np.asarray(jax.random.categorical(key, z, axis=-1))],
            "categorical_3x10_over_0.8": [int(x) for x in np.asarray(
                jax.random.categorical(key, z / jnp.float32(0.8), axis=-1))],
        }
        out.append(e)
    return {"jax_threefry_partitionable": bool(jax.config.jax_threefry_partitionable), "keys": out}


def jax_reference(out_dir: Path):
    import jax
    default = bool(jax.config.jax_threefry_partitionable)
    parts = {}
    for flag in (default, not default):
        r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--jax-part",
                            "1" if flag else "0"], check=True, capture_output=True, text=True)
        parts[flag] = json.loads(r.stdout)
        assert parts[flag]["jax_threefry_partitionable"] == flag
    doc = {
        "schema": "linnet-jax-random/1",
        "jax_version": jax.__version__,
        "jax_threefry_partitionable_default": default,
        "notes": [
            "Keys are raw uint32[2] key data (jax's legacy threefry2x32 keys); PRNGKey(n) = [0, n] "
            "for n < 2^32.",
            "Every uint32 is a JSON integer; floats come with their IEEE-754 binary32 bit patterns.",
            "categorical_3x10 = jax.random.categorical(key, logits, axis=-1) on `categorical_logits` "
            "(f32), i.e. argmax(gumbel(key, [3, 10]) + logits); categorical_3x10_over_0.8 uses "
            "logits / float32(0.8).",
            "`in_force` is computed with jax_threefry_partitionable at jax's default for this "
            "version; `other_setting` with the flag flipped.",
        ],
        "categorical_logits": {"values": [float(x) for x in CATEGORICAL_LOGITS.reshape(-1)],
                               "bits": f32_bits(CATEGORICAL_LOGITS), "shape": [3, 10]},
        "in_force": parts[default],
        "other_setting": parts[not default],
    }
    dump_json(out_dir / "jax_random.json", doc)
    return default


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------


def versions():
    import jax
    import jaxlib
    import safetensors
    import sentencepiece
    import tokenizers
    import torch
    import transformers
    return {
        "python": platform.python_version(),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "tokenizers": tokenizers.__version__,
        "safetensors": safetensors.__version__,
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
        "numpy": np.__version__,
        "sentencepiece": sentencepiece.__version__,
        "jax_threefry_partitionable": bool(jax.config.jax_threefry_partitionable),
        "attn_implementation": "eager",
        "torch_num_threads": torch.get_num_threads(),
    }


def build_cases(ctx: Ctx):
    n = ctx.name
    cases = []
    if n in ("tiny", "ratios"):
        cases += [case_forward(ctx, 1, 1), case_forward(ctx, 1, 7), case_forward(ctx, 3, 5),
                  case_next_token(ctx, 2, 6),
                  case_prefill_decode(ctx, 2, [4, 3], 4),
                  case_slots_rows(ctx, [6, 2, 4], [1, 2, 0], 3, 6, 3),
                  case_slots_rows(ctx, [5, 3], [2, 0], 3, 5, 2),
                  case_packed(ctx, [5, 3, 6]),
                  case_packed_rows(ctx),
                  case_generate(ctx, 2, 5, 8),
                  case_generate_until(ctx, 1, 4, 8, 3),
                  case_generate_until(ctx, 2, 4, 8, 2),
                  case_sample(ctx, 2, 5, 8, [0, 42], 0.8, "key42_t0.8"),
                  case_sample(ctx, 2, 5, 8, [0xFFFFFFFF, 0x12345678], 1.3, "keyffff_t1.3")]
    elif n == "sharded":
        cases += [case_forward(ctx, 3, 5), case_prefill_decode(ctx, 2, [4], 3), case_generate(ctx, 2, 5, 8)]
    elif n == "window":
        cases += [case_forward_window(ctx, 2100), case_prefill_decode(ctx, 1, [2096], 6)]
    elif n == "window_small":
        cases += [case_forward(ctx, 2, 12), case_prefill_decode(ctx, 2, [7, 3], 4),
                  case_slots_rows(ctx, [8, 3, 6], [0, 1, 2], 3, 8, 4, park_last_step=False),
                  case_packed(ctx, [9, 3, 8]), case_generate(ctx, 2, 6, 8)]
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(REPO / "test" / "data" / "reference"))
    ap.add_argument("--skip-jax", action="store_true")
    ap.add_argument("--jax-part", choices=["0", "1"], help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.jax_part is not None:
        print(json.dumps(jax_part(a.jax_part == "1")))
        return
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    out = Path(a.out).resolve()
    work = Path("/tmp/ref-work/make_reference")
    work.mkdir(parents=True, exist_ok=True)
    if out.exists():
        for sub in ("checkpoints", "cases"):
            if (out / sub).exists():
                shutil.rmtree(out / sub)
    out.mkdir(parents=True, exist_ok=True)

    print("[ref] verifying HF Phi-3 sliding window", flush=True)
    window_check = verify_sliding_window(work)
    print("      ", window_check["result"], flush=True)

    index = {"schema": "linnet-reference-index/1",
             "generated_by": "tools/reference/make_reference.py",
             "checks": {"sliding_window": window_check},
             "checkpoints": {}, "cases": [], "tolerance_summary": {}}
    summary = {}
    for name, spec in CHECKPOINTS.items():
        print(f"[ref] checkpoint {name}", flush=True)
        ck = save_checkpoint(name, spec, out)
        ctx = Ctx(name, spec, ck)
        files = sorted(p.name for p in ck.iterdir())
        index["checkpoints"][name] = {
            "path": f"checkpoints/{name}", "files": files, "note": CHECKPOINT_NOTES[name],
            "generics": {"Vocab": ctx.V, "H": ctx.H, "Heads": ctx.cfg.num_attention_heads,
                         "Inner": ctx.cfg.intermediate_size, "Layers": ctx.cfg.num_hidden_layers,
                         "MaxSeq": ctx.cfg.max_position_embeddings, "T": "bf16"},
            "sliding_window": ctx.cfg.sliding_window,
            "sha256": {f: hashlib.sha256((ck / f).read_bytes()).hexdigest() for f in files},
        }
        for case in build_cases(ctx):
            path, man = finalize(case, out)
            index["cases"].append(path)
            print(f"      {path}", flush=True)
            for call in man["calls"]:
                for o in call["outputs"]:
                    if o["kind"] != "float" or o.get("diagnostic"):
                        continue
                    k = f"{call['entry']}.{o['name']}"
                    s = summary.setdefault(k, {"f32_vs_f64": 0.0, "bf16_vs_f32": 0.0, "max_abs_value": 0.0})
                    for mk in s:
                        s[mk] = max(s[mk], o["measured"].get(mk, 0.0))
        del ctx
    for k, s in summary.items():
        s["recommended_atol_f32"] = nice_ceil(max(10 * s["f32_vs_f64"], 1e-5))
        s["recommended_atol_bf16"] = nice_ceil(3 * s["bf16_vs_f32"] + s["recommended_atol_f32"])
        summary[k] = {kk: rfloat(v) for kk, v in s.items()}
    index["tolerance_summary"] = dict(sorted(summary.items()))
    index["tolerance_rule"] = ("per output: atol_f32 = 10 x max|HF f32 - float64 numpy| (at least 1e-5); "
                               "atol_bf16 = 3 x max|HF bf16 - HF f32| + atol_f32; rounded up to one digit")

    if not a.skip_jax:
        print("[ref] jax.random reference", flush=True)
        jax_reference(out)
    dump_json(out / "index.json", index)
    dump_json(out / "VERSIONS.json", versions())
    print("[ref] done:", out, flush=True)


if __name__ == "__main__":
    main()
