#!/usr/bin/env python3
"""Random tiny checkpoints of the public model hub's decoder LLMs, with the
Hugging Face reference outputs `check-hub.sh` compares against.

    python3 tools/hub/make_hub_checkpoints.py HUB_DIR OUT_DIR [--only NAME,...]

HUB_DIR holds the hub's packages as check-hub.sh reads them (`<model>/`,
fetched by hand, never committed); OUT_DIR gets one `<model>/` per package
this script knows (SPECS below) and finds in HUB_DIR:

    config.json, generation_config.json, model.safetensors   (bf16, random)
    calls.json            the `[source] entry` call on random tokens (linnet-run --calls)
    reference.safetensors HF's output of that call, f32, named "0" as linnet-run --out names it
    hub-check.json        what check_hub.py needs: the generics to `--bind` at build
                          (tiny values; `T = f32`), the entry, and what the tiny config fixes

The checkpoint's architecture is the package's Hugging Face class, its config
the numbers the package fixes in its source (rope theta, norm eps, biases,
tied head, q/k norm, window...), tiny widths, and as many layers as the
package's bindings.json names. The reference is the f32 run: the bf16 weights
upcast, transformers in f32, eager attention. Runs in the reference venv
(tools/reference/venv_bootstrap.py, like make_family_reference.py), seeded.
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))
from venv_bootstrap import enter_venv  # noqa: E402

if __name__ == "__main__":
    enter_venv(__file__)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import tomllib  # noqa: E402

MAX_SEQ = 64   # Batch/MaxSeq are root generics that size the KV caches; tiny.
VOCAB = 256

# Per hub package: the HF class, the config the package's source fixes, and
# how the package's root generics map onto the tiny config. `generics` maps
# each nest.toml generic to its tiny value ("layers" = as many as bindings.json
# names). Widths: H 64, head dim 16 unless the source fixes otherwise.
def llama_like(H=64, heads=4, kv_heads=2, **config):
    """A tiny Llama-family config (and its generics) with the hub model's
    query/key-value head ratio; `config` adds what the package fixes."""
    base = dict(vocab_size=VOCAB, hidden_size=H, intermediate_size=2 * H,
                num_attention_heads=heads, num_key_value_heads=kv_heads,
                max_position_embeddings=MAX_SEQ, attention_dropout=0.0,
                hidden_act="silu", bos_token_id=1, eos_token_id=2, pad_token_id=2)
    base.update(config)
    generics = dict(Vocab=VOCAB, H=H, Heads=heads, KvHeads=kv_heads, Inner=2 * H,
                    Layers="layers", Batch=1, MaxSeq=MAX_SEQ, T="f32")
    return base, generics


SPECS = {
    # Qwen2.5-0.5B: 14 query heads, 2 key/value heads (7:1) -> 7:1 at head dim 16.
    "qwen2.5-0.5b-instruct": dict(
        hf_class="Qwen2ForCausalLM", config_class="Qwen2Config",
        tiny=llama_like(H=112, heads=7, kv_heads=1, rope_theta=1000000.0, rms_norm_eps=1e-6,
                        tie_word_embeddings=True, use_sliding_window=False),
        note="qwen2.rope::THETA 1e6, RmsNorm eps 1e-6 (lib.linnet), q/k/v biases, tied head"),
    # Qwen3-4B: 32:8 heads, head_dim 128 != H / Heads; tied head.
    "qwen3-4b": dict(
        hf_class="Qwen3ForCausalLM", config_class="Qwen3Config",
        tiny=llama_like(heads=4, kv_heads=1, head_dim=32, rope_theta=1000000.0, rms_norm_eps=1e-6,
                        attention_bias=False, tie_word_embeddings=True, use_sliding_window=False),
        extra_generics=dict(HeadDim=32),
        note="qwen3.rope::THETA 1e6, norm eps 1e-6, q/k norm, HeadDim 32 (H/Heads 16), tied head"),
    "qwen3-8b": dict(
        hf_class="Qwen3ForCausalLM", config_class="Qwen3Config",
        tiny=llama_like(heads=4, kv_heads=1, head_dim=32, rope_theta=1000000.0, rms_norm_eps=1e-6,
                        attention_bias=False, tie_word_embeddings=False, use_sliding_window=False),
        extra_generics=dict(HeadDim=32),
        note="qwen3.rope::THETA 1e6, norm eps 1e-6, q/k norm, HeadDim 32 (H/Heads 16), untied head"),
    # Mistral-7B-v0.3: 32:8 heads, no sliding window (config null), THETA 1e6.
    "mistral-7b-instruct-v0.3": dict(
        hf_class="MistralForCausalLM", config_class="MistralConfig",
        tiny=llama_like(heads=4, kv_heads=1, head_dim=16, rope_theta=1000000.0, rms_norm_eps=1e-5,
                        sliding_window=None, tie_word_embeddings=False),
        note="llama.rope::THETA 1e6, std RmsNorm eps 1e-5, no window, untied head"),
    # SmolLM2-1.7B: 32:32 heads (MHA), THETA 130000, tied head.
    "smollm2-1.7b-instruct": dict(
        hf_class="LlamaForCausalLM", config_class="LlamaConfig",
        tiny=llama_like(heads=4, kv_heads=4, rope_theta=130000.0, rms_norm_eps=1e-5,
                        tie_word_embeddings=True, attention_bias=False, mlp_bias=False),
        note="llama.rope::THETA 130000, std RmsNorm eps 1e-5, MHA, tied head"),
    # TinyLlama-1.1B: 32:4 heads (8:1), THETA 1e4, untied head.
    "tinyllama-1.1b-chat": dict(
        hf_class="LlamaForCausalLM", config_class="LlamaConfig",
        tiny=llama_like(heads=8, kv_heads=1, rope_theta=10000.0, rms_norm_eps=1e-5,
                        tie_word_embeddings=False, attention_bias=False, mlp_bias=False),
        note="llama.rope::THETA 1e4, std RmsNorm eps 1e-5, 8:1 GQA at head dim 8, untied head"),
    # Llama-3.1-8B: 32:8 heads, THETA 5e5, llama3 rope scaling with the
    # constants rope.linnet fixes (factor 8, 1, 4, original 8192).
    "llama-3.1-8b-instruct": dict(
        hf_class="LlamaForCausalLM", config_class="LlamaConfig",
        tiny=llama_like(heads=4, kv_heads=1, rope_theta=500000.0, rms_norm_eps=1e-5,
                        rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                      "high_freq_factor": 4.0,
                                      "original_max_position_embeddings": 8192},
                        max_position_embeddings=131072,   # config only; MaxSeq stays tiny
                        tie_word_embeddings=False, attention_bias=False, mlp_bias=False),
        note="llama.rope::THETA 5e5 + llama3 scaling (8, 1, 4, 8192), eps 1e-5, untied head"),
    "phi-3-mini-4k-instruct": dict(
        hf_class="Phi3ForCausalLM", config_class="Phi3Config",
        config=dict(vocab_size=VOCAB, hidden_size=64, intermediate_size=128,
                    num_attention_heads=4, num_key_value_heads=4,
                    max_position_embeddings=MAX_SEQ, original_max_position_embeddings=MAX_SEQ,
                    rope_theta=10000.0, rms_norm_eps=1e-5, sliding_window=2047,
                    tie_word_embeddings=False, hidden_act="silu",
                    bos_token_id=1, eos_token_id=2, pad_token_id=2),
        generics=dict(Vocab=VOCAB, H=64, Heads=4, Inner=128, Layers="layers", Batch=1,
                      MaxSeq=MAX_SEQ, T="f32"),
        note="Phi-3: fused qkv/gate_up, THETA 1e4, eps 1e-5, window 2047, untied head"),
    "gpt2": dict(
        hf_class="GPT2LMHeadModel", config_class="GPT2Config",
        config=dict(vocab_size=VOCAB, n_embd=64, n_head=4, n_positions=MAX_SEQ,
                    layer_norm_epsilon=1e-5, activation_function="gelu_new",
                    resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0,
                    bos_token_id=1, eos_token_id=2, tie_word_embeddings=True),
        generics=dict(Vocab=VOCAB, MaxPositions=MAX_SEQ, H=64, Heads=4, Layers="layers",
                      Batch=1, MaxSeq=MAX_SEQ, T="f32"),
        strip_prefix="transformer.",   # the hub's bindings.json names openai-community/gpt2's tensors (h.0..., wte.weight)
        note="GPT-2: tanh GELU, LayerNorm eps 1e-5, Conv1D [In, Out] weights, tied head"),
}


def layer_count(bindings_path: Path, default=2):
    """How many layers the package's bindings.json names (`<array>.N.`)."""
    try:
        keys = json.loads(bindings_path.read_text())
    except (OSError, json.JSONDecodeError):
        return default
    idx = [int(m.group(1)) for k in keys for m in [re.match(r"[A-Za-z_]+\.(\d+)\.", k)] if m]
    return max(idx) + 1 if idx else default


def random_state(model, cfg, seed, tied):
    """Random weights in the scales of tools/reference (logits of std ~2, fairly
    sharp attention; norms 1 +- 0.2; biases N(0, 0.2)); bf16."""
    import torch
    g = torch.Generator().manual_seed(seed)
    H = cfg.hidden_size

    def n(shape, std):
        return torch.randn(*shape, generator=g, dtype=torch.float32) * std

    sd = {}
    for name, t in model.state_dict().items():
        shape = tuple(t.shape)
        if name.endswith(".attn.bias") or name.endswith(".masked_bias"):
            continue                                   # GPT-2's causal-mask buffers (not saved)
        if name == "lm_head.weight" and tied:
            continue
        if name.endswith(("embed_tokens.weight", "wte.weight")):
            v = n(shape, 2.0 / math.sqrt(H) if tied else 1.0)
        elif name.endswith("wpe.weight"):
            v = n(shape, 0.5)
        elif name == "lm_head.weight":
            v = n(shape, 2.0 / math.sqrt(H))
        elif len(shape) == 1 and re.search(r"(norm|ln_\d|ln_f)\.weight$", name):
            v = 1.0 + 0.2 * (torch.rand(*shape, generator=g) * 2 - 1)
        elif name.endswith(".bias"):
            v = n(shape, 0.2)
        elif len(shape) == 2:
            # nn.Linear is [out, in]; GPT-2's Conv1D is [in, out].
            fan_in = shape[0] if "c_attn" in name or "c_fc" in name or "c_proj" in name else shape[1]
            gain = 1.0
            if re.search(r"(q_proj|k_proj|qkv_proj|c_attn)\.weight$", name):
                gain = 1.6
            elif re.search(r"(o_proj|down_proj|c_proj)\.weight$", name):
                gain = 2.5 if tied else 0.7
            v = n(shape, gain / math.sqrt(fan_in))
        else:
            raise SystemExit(f"no init rule for {name} {shape}")
        sd[name] = v
    if tied:
        emb = [k for k in sd if k.endswith(("embed_tokens.weight", "wte.weight"))][0]
        sd["lm_head.weight"] = sd[emb]
    return {k: v.to(torch.bfloat16) for k, v in sd.items()}


def make_one(name, spec, pkg: Path, out: Path, seed):
    import torch
    import transformers
    from safetensors.torch import load_file, save_file

    nest = tomllib.loads((pkg / "nest.toml").read_text()) if (pkg / "nest.toml").exists() else {}
    layers = layer_count(pkg / "bindings.json")
    if "tiny" in spec:
        config, generics = spec["tiny"]
        generics = dict(generics, **spec.get("extra_generics", {}))
    else:
        config, generics = spec["config"], spec["generics"]
    cfg_kw = dict(config)
    cfg_kw["n_layer" if spec["hf_class"] == "GPT2LMHeadModel" else "num_hidden_layers"] = layers
    cfg_kw["architectures"] = [spec["hf_class"]]
    cfg = getattr(transformers, spec["config_class"])(**cfg_kw)
    tied = bool(getattr(cfg, "tie_word_embeddings", False))
    torch.manual_seed(seed)
    model = getattr(transformers, spec["hf_class"])(cfg)
    sd = random_state(model, cfg, seed, tied)
    missing, unexpected = model.load_state_dict({k: v.float() for k, v in sd.items()}, strict=False)
    missing = [k for k in missing if not k.endswith((".attn.bias", ".masked_bias"))]
    assert not missing and not unexpected, (missing, unexpected)
    model = model.to(torch.bfloat16).eval()

    ck = out / name
    if ck.exists():
        shutil.rmtree(ck)
    model.save_pretrained(ck, safe_serialization=True, max_shard_size="10GB")
    prefix = spec.get("strip_prefix")
    if prefix:   # save under the names the published checkpoint uses
        f = ck / "model.safetensors"
        tensors = load_file(f)
        save_file({k[len(prefix):] if k.startswith(prefix) else k: v for k, v in tensors.items()
                   if not k.endswith((".attn.bias", ".masked_bias"))}, f, metadata={"format": "pt"})

    # The reference: bf16 weights upcast, HF in f32, eager attention.
    ref = getattr(transformers, spec["hf_class"]).from_pretrained(
        ck, dtype=torch.float32, attn_implementation="eager").eval()
    check = nest.get("check") or {}
    B, S = int(check.get("B", 1)), int(check.get("S", 8))
    entry = (nest.get("source") or {}).get("entry", "forward")
    g = torch.Generator().manual_seed(seed + 1)
    tokens = torch.randint(0, VOCAB, (B, S), generator=g, dtype=torch.int64)
    with torch.no_grad():
        logits = ref(tokens).logits.float()
    if entry == "next_token":
        out_t = logits[:, -1, :].contiguous()
    elif entry == "forward":
        out_t = logits.contiguous()
    else:
        raise SystemExit(f"{name}: no reference for entry `{entry}`")
    save_file({"0": out_t}, ck / "reference.safetensors")
    (ck / "calls.json").write_text(json.dumps(
        {"calls": [{"entry": entry, "args": {"tokens": tokens.to(torch.int32).tolist()}}]}) + "\n")
    binds = {k: (layers if v == "layers" else v) for k, v in generics.items()}
    unknown = set(nest.get("generics") or {}) - set(binds)
    if unknown:
        print(f"  note: nest.toml generics not in the spec: {sorted(unknown)}", flush=True)
    meta = {"model": name, "hf_class": spec["hf_class"], "entry": entry, "dims": {"B": B, "S": S},
            "bind": binds, "layers": layers, "note": spec["note"],
            "outputs": [{"name": "0", "shape": list(out_t.shape), "kind": "logits"}],
            "reference": "reference.safetensors", "calls": "calls.json",
            "transformers": transformers.__version__, "torch": torch.__version__}
    (ck / "hub-check.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(f"  {name}: {spec['hf_class']}, {layers} layers, {entry} {list(out_t.shape)}, "
          f"max|ref| {out_t.abs().max().item():.3g}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hub")
    ap.add_argument("out")
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()
    hub, out = Path(args.hub), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}
    for i, (name, spec) in enumerate(sorted(SPECS.items())):
        if only and name not in only:
            continue
        if not (hub / name).is_dir():
            print(f"  {name}: not in {hub}, skipped", flush=True)
            continue
        make_one(name, spec, hub / name, out, seed=3000 + i)
    return 0


if __name__ == "__main__":
    sys.exit(main())
