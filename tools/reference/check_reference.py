#!/usr/bin/env python3
"""Replay every case of test/data/reference/ with an independent, stateful
float64 numpy engine that implements ENTRIES.md directly (a KV cache of
[Batch, Heads, MaxSeq, H/Heads] per layer, packed segments, parked rows, the
sliding window), reading the checkpoints and case files with a hand-written
safetensors parser (bf16 included), and compare with the recorded outputs
using each output's recommended tolerance.

    python3 tools/reference/check_reference.py [--data test/data/reference] [-v]

It is what a C++ parity test does, in Python: use it to see how a manifest is
meant to be consumed, or to check regenerated data. It needs numpy, and jax for
the `sample` entry's categorical draws (it enters build/reference-venv like the
generator; with --system it runs in the current interpreter instead, needing only
numpy, and skips the `sample` cases when jax is missing). f32-run outputs must match within atol.f32; bf16-run float outputs
within atol.bf16; token outputs exactly for the f32 run (bf16-run token
mismatches are reported, not failed: a float64 engine is not HF's bf16).
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, str(Path(__file__).resolve().parent))
from venv_bootstrap import REPO, enter_venv  # noqa: E402

if __name__ == "__main__" and "--system" not in sys.argv:
    enter_venv(__file__)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import struct  # noqa: E402

import numpy as np  # noqa: E402

# ---------------------------------------------------------------- safetensors


_DT = {"F32": np.float32, "F64": np.float64, "I32": np.int32, "I64": np.int64, "U8": np.uint8,
       "I8": np.int8, "I16": np.int16, "F16": np.float16, "U32": np.uint32}


def read_safetensors(path: Path):
    """{name: np.ndarray}; BF16 is widened to float32 exactly."""
    raw = path.read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        a, b = info["data_offsets"]
        buf = raw[base + a: base + b]
        shape = info["shape"]
        if info["dtype"] == "BF16":
            u = np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16
            arr = u.view(np.float32)
        else:
            arr = np.frombuffer(buf, dtype=np.dtype(_DT[info["dtype"]]).newbyteorder("<"))
        out[name] = arr.reshape(shape).copy()
    return out


def read_checkpoint(ck: Path):
    cfg = json.loads((ck / "config.json").read_text())
    index = ck / "model.safetensors.index.json"
    if index.exists():
        weight_map = json.loads(index.read_text())["weight_map"]
        tensors = {}
        for f in sorted(set(weight_map.values())):
            part = read_safetensors(ck / f)
            for k, v in part.items():
                assert weight_map[k] == f
                tensors[k] = v
        assert set(tensors) == set(weight_map)
    else:
        tensors = read_safetensors(ck / "model.safetensors")
    return cfg, {k: v.astype(np.float64) for k, v in tensors.items()}


# ---------------------------------------------------------------- the engine


class Engine:
    def __init__(self, cfg, w, batch, max_seq):
        self.w = w
        self.H = cfg["hidden_size"]
        self.heads = cfg["num_attention_heads"]
        self.d = self.H // self.heads
        self.I = cfg["intermediate_size"]
        self.L = cfg["num_hidden_layers"]
        self.V = cfg["vocab_size"]
        self.eps = cfg["rms_norm_eps"]
        self.W = cfg.get("sliding_window")
        d = self.d
        self.inv_freq = (1.0 / (np.float32(cfg["rope_theta"]) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d)))).astype(np.float64)
        self.batch, self.max_seq = batch, max_seq
        shape = (self.L, batch, self.heads, max_seq, d)
        self.ck = np.zeros(shape)
        self.cv = np.zeros(shape)

    def rms(self, x, w):
        return w * (x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps))

    def rope(self, x, pos):
        ang = pos[:, None].astype(np.float64) * self.inv_freq[None, :]
        ang = np.concatenate([ang, ang], axis=-1)[:, None, :]
        h = self.d // 2
        return x * np.cos(ang) + np.concatenate([-x[..., h:], x[..., :h]], axis=-1) * np.sin(ang)

    def visible(self, qpos, kpos):
        ok = kpos <= qpos
        if self.W is not None:
            ok &= kpos > qpos - self.W
        return ok

    def run(self, tokens, positions, seg=None, write_rows=None, cache_rows=None):
        """One pass over a set of tokens. Token i attends either to the tokens of this
        pass with seg[j] == seg[i] (seg[i] >= 0), or to its row's cache (cache_rows[i] >= 0)
        after this pass's writes. write_rows[i] >= 0 writes its K/V to that row at
        positions[i]. Returns logits [N, V] and final-norm hidden [N, H]."""
        tokens = np.asarray(tokens).reshape(-1)
        pos = np.asarray(positions).reshape(-1)
        N = len(tokens)
        seg = np.full(N, -1) if seg is None else np.asarray(seg).reshape(-1)
        wr = np.full(N, -1) if write_rows is None else np.asarray(write_rows).reshape(-1)
        cr = np.full(N, -1) if cache_rows is None else np.asarray(cache_rows).reshape(-1)
        w = self.w
        x = w["model.embed_tokens.weight"][tokens]
        segmask = (seg[None, :] == seg[:, None]) & (seg[:, None] >= 0) & self.visible(pos[:, None], pos[None, :])
        scale = 1.0 / math.sqrt(self.d)
        for li in range(self.L):
            p = f"model.layers.{li}."
            h = self.rms(x, w[p + "input_layernorm.weight"])
            qkv = h @ w[p + "self_attn.qkv_proj.weight"].T
            q, k, v = (qkv[:, j * self.H:(j + 1) * self.H].reshape(N, self.heads, self.d) for j in range(3))
            q, k = self.rope(q, pos), self.rope(k, pos)
            for i in range(N):
                if wr[i] >= 0:
                    self.ck[li, wr[i], :, pos[i]] = k[i]
                    self.cv[li, wr[i], :, pos[i]] = v[i]
            o = np.zeros((N, self.heads, self.d))
            if (seg >= 0).any():
                s = np.einsum("ihd,jhd->hij", q, k) * scale
                s = np.where(segmask[None], s, -np.inf)
                rows = np.nonzero(seg >= 0)[0]
                s = s[:, rows]
                s = s - s.max(-1, keepdims=True)
                a = np.exp(s)
                a /= a.sum(-1, keepdims=True)
                o[rows] = np.einsum("hij,jhd->ihd", a, v)
            for i in np.nonzero(cr >= 0)[0]:
                kpos = np.arange(self.max_seq)
                ok = self.visible(pos[i], kpos)
                K = self.ck[li, cr[i]][:, ok]
                Vv = self.cv[li, cr[i]][:, ok]
                s = np.einsum("hd,hjd->hj", q[i], K) * scale
                s = s - s.max(-1, keepdims=True)
                a = np.exp(s)
                a /= a.sum(-1, keepdims=True)
                o[i] = np.einsum("hj,hjd->hd", a, Vv)
            x = x + o.reshape(N, self.H) @ w[p + "self_attn.o_proj.weight"].T
            h = self.rms(x, w[p + "post_attention_layernorm.weight"])
            gu = h @ w[p + "mlp.gate_up_proj.weight"].T
            g, u = gu[:, :self.I], gu[:, self.I:]
            x = x + (g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
        hn = self.rms(x, w["model.norm.weight"])
        return hn @ w["lm_head.weight"].T, hn

    # ---- entries (ENTRIES.md)
    def forward(self, tokens):
        B, S = tokens.shape
        z, _ = self.run(tokens.reshape(-1), np.tile(np.arange(S), B), seg=np.repeat(np.arange(B), S))
        return z.reshape(B, S, -1)

    def next_token(self, tokens):
        return self.forward(tokens)[:, -1]

    def prefill(self, tokens, pos):
        B, S = tokens.shape
        assert B == self.batch and pos + S <= self.max_seq
        rows = np.repeat(np.arange(B), S)
        z, _ = self.run(tokens.reshape(-1), np.tile(np.arange(pos, pos + S), B), write_rows=rows, cache_rows=rows)
        return z.reshape(B, S, -1)[:, -1]

    def decode(self, token, pos):
        return self.prefill(token, pos)

    def decode_rows(self, tokens, positions):
        rows = np.arange(self.batch)
        z, _ = self.run(tokens.reshape(-1), positions, write_rows=rows, cache_rows=rows)
        return z

    def prefill_slots(self, tokens, slots, lengths):
        M, S = tokens.shape
        out = []
        for m in range(M):
            n = int(lengths[m])
            r = np.full(n, int(slots[m]))
            z, _ = self.run(tokens[m, :n], np.arange(n), write_rows=r, cache_rows=r)
            out.append(z[-1])
        return np.stack(out)

    def prefill_packed(self, tokens, rows, positions, segments, last):
        z, _ = self.run(tokens, positions, seg=segments, write_rows=rows)
        return z[np.asarray(last)]

    def step_packed(self, tokens, rows, positions, segments, last, step_tokens, step_positions):
        P = len(tokens)
        allt = np.concatenate([tokens, step_tokens.reshape(-1)])
        allp = np.concatenate([positions, step_positions])
        seg = np.concatenate([segments, np.full(self.batch, -1)])
        wr = np.concatenate([rows, np.arange(self.batch)])
        cr = np.concatenate([np.full(P, -1), np.arange(self.batch)])
        z, _ = self.run(allt, allp, seg=seg, write_rows=wr, cache_rows=cr)
        return np.concatenate([z[np.asarray(last)], z[P:]])

    def hidden_packed(self, tokens, positions, segments):
        return self.run(tokens, positions, seg=segments)[1]

    def log_probs_packed(self, tokens, positions, segments, targets):
        z, _ = self.run(tokens, positions, seg=segments)
        z = z - z.max(-1, keepdims=True)
        lp = z - np.log(np.exp(z).sum(-1, keepdims=True))
        return lp[np.arange(len(tokens)), np.asarray(targets)]

    def loss_packed(self, tokens, positions, segments, targets, weights):
        return np.asarray(np.sum(weights * -self.log_probs_packed(tokens, positions, segments, targets)))

    def generate(self, token, pos, steps):
        out = []
        tok = token
        for t in range(steps):
            z = self.decode(tok, pos + t)
            nxt = z.argmax(-1).astype(np.int32)
            out.append(nxt)
            tok = nxt[:, None]
        return np.stack(out, 1)

    def generate_until(self, token, pos, eos, max_new):
        toks = np.zeros((self.batch, max_new), np.int32)
        tok, count = token, 0
        while count < max_new and not (count > 0 and np.all(toks[:, count - 1] == eos)):
            z = self.decode(tok, pos + count)
            nxt = z.argmax(-1).astype(np.int32)
            toks[:, count] = nxt
            tok = nxt[:, None]
            count += 1
        return toks, np.asarray(count, np.int32)

    def sample(self, token, pos, key, temperature, steps):
        import jax
        import jax.numpy as jnp
        keys = jax.random.split(jnp.asarray(np.asarray(key, np.uint32)), steps)
        out, tok = [], token
        for t in range(steps):
            z = self.decode(tok, pos + t).astype(np.float32)
            s = np.asarray(jax.random.categorical(keys[t], jnp.asarray(z) / jnp.float32(temperature), axis=-1))
            out.append(s.astype(np.int32))
            tok = s.astype(np.int32)[:, None]
        return np.stack(out, 1)


# ---------------------------------------------------------------- replay


def replay(data: Path, case_path: Path, verbose: bool):
    man = json.loads(case_path.read_text())
    t = read_safetensors(case_path.parent / man["tensors"])
    cfg, w = read_checkpoint(data / man["checkpoint"])
    bind = man.get("bind", {})
    eng = Engine(cfg, w, bind.get("Batch", 1), bind.get("MaxSeq", cfg["max_position_embeddings"]))
    fails, notes = [], []
    for i, call in enumerate(man["calls"]):
        args = {}
        for name, a in call["args"].items():
            args[name] = t[a["tensor"]] if "tensor" in a else a["value"]
        e = call["entry"]
        g = call["generics"]
        if e == "generate":
            got = {"tokens": eng.generate(args["token"], args["pos"], g["Steps"])}
        elif e == "generate_until":
            toks, count = eng.generate_until(args["token"], args["pos"], args["eos"], g["MaxNew"])
            got = {"tokens": toks, "count": count}
        elif e == "sample":
            got = {"tokens": eng.sample(args["token"], args["pos"], args["key"], args["temperature"], g["Steps"])}
        else:
            res = getattr(eng, e)(**args)
            name = call["outputs"][0]["name"]
            got = {name: res}
        if "check_positions" in man and e == "forward":
            got["logits"] = got["logits"][:, t[man["check_positions"]["tensor"]]]
        for o in call["outputs"]:
            if o.get("diagnostic"):
                continue
            mine = np.asarray(got[o["name"]])
            for run in ("f32", "bf16"):
                ref = t[o["tensors"][run]].astype(np.float64)
                assert ref.shape == mine.shape, (case_path.name, o["name"], ref.shape, mine.shape)
                if o["kind"] == "float":
                    a, b = mine, ref
                    if "check_rows" in o:
                        keep = np.asarray(o["check_rows"], bool)
                        a, b = mine[keep], ref[keep]
                    diff = float(np.max(np.abs(a - b)))
                    ok = diff <= o["atol"][run]
                    line = f"c{i} {e}.{o['name']} [{run}] max|diff| {diff:.3g} (atol {o['atol'][run]})"
                    (notes if ok else fails).append(line)
                else:
                    same = np.array_equal(mine.astype(np.int64), ref.astype(np.int64))
                    line = f"c{i} {e}.{o['name']} [{run}] {'equal' if same else 'DIFFERENT'}"
                    if same or run == "bf16":
                        notes.append(line + ("" if same else " (bf16 tokens: reported only)"))
                    else:
                        fails.append(line)
    status = "ok" if not fails else "FAIL"
    print(f"{status:4} {man['case']}")
    for line in fails:
        print("     FAIL", line)
    if verbose:
        for line in notes:
            print("         ", line)
    return not fails


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(REPO / "test" / "data" / "reference"))
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--system", action="store_true", help="use this interpreter, not build/reference-venv")
    a = ap.parse_args()
    data = Path(a.data)
    index = json.loads((data / "index.json").read_text())
    try:
        import jax  # noqa: F401
        have_jax = True
    except ImportError:
        have_jax = False
    ok, skipped = [], 0
    for c in index["cases"]:
        man = json.loads((data / c).read_text())
        if not have_jax and any(call["entry"] == "sample" for call in man["calls"]):
            print(f"skip {man['case']} (no jax)")
            skipped += 1
            continue
        ok.append(replay(data, data / c, a.verbose))
    print(f"{sum(ok)} passed, {len(ok) - sum(ok)} failed" + (f", {skipped} skipped" if skipped else ""))
    sys.exit(0 if all(ok) else 1)


if __name__ == "__main__":
    main()
