#!/usr/bin/env python3
"""Random tiny checkpoints of the public model hub's models, with the
Hugging Face (transformers, or diffusers) reference outputs `check-hub.sh`
compares against.

    python3 tools/hub/make_hub_checkpoints.py HUB_DIR OUT_DIR [--only NAME,...]

HUB_DIR holds the hub's packages as check-hub.sh reads them (`<model>/`,
fetched by hand, never committed); OUT_DIR gets one `<model>/` per package
this script knows (SPECS: decoder LLMs; MODULE_SPECS: the rest) and finds in
HUB_DIR:

    config.json, model.safetensors  (bf16, random; u8 where the package reads
                          quantized blocks), generation_config.json (decoders)
    calls.json            the entry calls (linnet-run --calls): tokens as lists,
                          float inputs as `<call>.<arg>.npy` beside it
    reference.safetensors HF's outputs of those calls, f32, named as linnet-run
                          --out names them: "0", "1"..., a tuple's parts "1.0", "1.1"
    hub-check.json        what check_hub.py needs: the generics to `--bind` at
                          build (tiny values; `T = f32`), the entries, each
                          output's name, shape and kind ("logits" also gets the
                          top-1 check), and what the tiny config fixes

The checkpoint's architecture is the package's Hugging Face class, its config
the numbers the package fixes in its source (rope theta, norm eps, biases,
tied head, activation, window, fixed image sizes...), tiny widths where the
source leaves them generic, and as many layers as the package's bindings.json
names. Tensor names: the ones the package's bindings.json lists (HF's own),
or, without one, the package's parameter paths (MODULE_SPECS' `names`). The
reference is the f32 run: the bf16 weights upcast, the model in f32, eager
attention. Runs in the reference venv (tools/reference/venv_bootstrap.py,
like make_family_reference.py), seeded; the diffusers models also need
tools/hub/requirements-diffusers.txt, installed on first use into
build/hub-diffusers.
"""

import sys
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reference"))
from venv_bootstrap import enter_venv  # noqa: E402

if __name__ == "__main__":
    enter_venv(__file__)

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import tomllib  # noqa: E402
import zlib  # noqa: E402

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


# Llama-3.1-8B (and its FP8 variant): 32:8 heads, THETA 5e5, llama3 rope
# scaling with the constants rope.linnet fixes (factor 8, 1, 4, original 8192).
LLAMA_3_1 = llama_like(heads=4, kv_heads=1, rope_theta=500000.0, rms_norm_eps=1e-5,
                       rope_scaling={"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                     "high_freq_factor": 4.0,
                                     "original_max_position_embeddings": 8192},
                       max_position_embeddings=131072,   # config only; MaxSeq stays tiny
                       tie_word_embeddings=False, attention_bias=False, mlp_bias=False)

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
    "llama-3.1-8b-instruct": dict(
        hf_class="LlamaForCausalLM", config_class="LlamaConfig", tiny=LLAMA_3_1,
        note="llama.rope::THETA 5e5 + llama3 scaling (8, 1, 4, 8192), eps 1e-5, untied head"),
    # The same in FP8 (RedHatAI's FP8-dynamic layout): every decoder projection's
    # weight F8_E4M3 with one f32 scale per output row (`weight_scale` [Out, 1]);
    # embeddings, norms and the head stay bf16.
    "llama-3.1-8b-instruct-fp8": dict(
        hf_class="LlamaForCausalLM", config_class="LlamaConfig", tiny=LLAMA_3_1,
        extra_generics=dict(Shards=1, PageSize=16),
        fp8=True, name_seed=True,
        note="as llama-3.1-8b-instruct, projections FP8 E4M3 with per-row f32 scales"),
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


FP8_PROJECTIONS = re.compile(r"model\.layers\.\d+\.(self_attn\.[qkvo]_proj|mlp\.(gate|up|down)_proj)\.weight")
FP8_MAX = 448.0   # the largest finite E4M3FN value


def quantize_fp8(path: Path, ref):
    """Rewrites the checkpoint's decoder projections as FP8 E4M3 weights with
    one f32 scale per output row (max |w| / 448), and gives the f32 reference
    model exactly the dequantized weights (E4M3 value x scale, in f32)."""
    import torch
    from safetensors.torch import load_file, save_file
    tensors = load_file(path)
    params = dict(ref.named_parameters())
    for key in sorted(k for k in tensors if FP8_PROJECTIONS.fullmatch(k)):
        w = tensors[key].float()
        scale = (w.abs().amax(dim=1, keepdim=True) / FP8_MAX).clamp(min=2.0 ** -30)
        q = (w / scale).to(torch.float8_e4m3fn)
        tensors[key] = q
        tensors[key[: -len("weight")] + "weight_scale"] = scale.contiguous()
        with torch.no_grad():
            params[key].copy_(q.float() * scale)
    save_file(tensors, path, metadata={"format": "pt"})


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
    if spec.get("fp8"):
        quantize_fp8(ck / "model.safetensors", ref)
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


# ---------------------------------------------------------------------------
# Models that are not decoder LLMs (encoders, vision, ...): MODULE_SPECS.
#
# Each spec gives the Hugging Face class and a tiny config that agrees with
# what the package's source fixes, the root generics to `--bind`, how HF's
# tensor names become the checkpoint's, and the calls: the entry, its
# arguments (int tokens as JSON lists, float inputs as .npy beside calls.json)
# and HF's outputs for them. Names: a package with a bindings.json (every hub
# package has one now) reads the names it lists (HF's own, the published
# checkpoint's), so the tensors keep HF's names, spelled as the published
# checkpoint spells them where that differs from the HF class's state dict
# (`published`: a function of the state-dict name, e.g. BERT's `bert.` prefix
# and LayerNorm gamma/beta), and `drop` (regexes of state-dict names) leaves
# out what the package does not read; its arrays are as long as it lists them
# (`listed`). A package without one reads its own parameter paths, and
# `names` maps HF's names onto them: (regex, replacement) pairs, the first
# that matches the whole name wins, a replacement None drops the tensor (HF
# holds it, the package does not read it); its arrays get `listed`'s tiny
# default. A name no rule matches is an error here, and a package path left
# unbound is linnet's E5103. `names` None: the package needs its bindings.json.
# `kind` of an output: "logits" (class or token scores: check_hub.py also
# compares the top-1 of each last-axis row) or "features" (no top-1).

IMAGE = 32     # tiny images: 32 x 32 (ResNet needs Height % 32 == 0), patch 8


def bert_names(prefix=""):
    """HF BertModel/RobertaModel names -> the hub's bert/roberta/minilm paths."""
    L = prefix + r"encoder\.layer\.(\d+)\."
    return [
        (prefix + r"embeddings\.(word|position|token_type)_embeddings\.weight", r"embeddings.\1_embeddings"),
        (prefix + r"embeddings\.LayerNorm\.(weight|bias)", r"embeddings.norm.\1"),
        (L + r"attention\.self\.(query|key|value)\.(weight|bias)", r"layers.\1.attention.\2.\3"),
        (L + r"attention\.output\.dense\.(weight|bias)", r"layers.\1.attention.out.\2"),
        (L + r"attention\.output\.LayerNorm\.(weight|bias)", r"layers.\1.attention_norm.\2"),
        (L + r"intermediate\.dense\.(weight|bias)", r"layers.\1.up.\2"),
        (L + r"output\.dense\.(weight|bias)", r"layers.\1.down.\2"),
        (L + r"output\.LayerNorm\.(weight|bias)", r"layers.\1.output_norm.\2"),
        (prefix + r"pooler\.dense\.(weight|bias)", r"pooler.dense.\1"),
    ]


def vit_names(prefix, layer_rules):
    """HF ViT/DINOv2 names -> the hub's vit/dinov2 paths (patch embedding,
    class token, positions, `layer_rules` for each encoder layer)."""
    E = prefix + r"embeddings\."
    L = prefix + r"encoder\.layer\.(\d+)\."
    rules = [
        (E + r"patch_embeddings\.projection\.weight", "patch_weight"),
        (E + r"patch_embeddings\.projection\.bias", "patch_bias"),
        (E + r"cls_token", "class_token"),
        (E + r"position_embeddings", "positions"),
        (E + r"mask_token", None),              # DINOv2's masked-image-modeling token
        (L + r"attention\.attention\.(query|key|value)\.(weight|bias)", r"layers.\1.attention.\2.\3"),
        (L + r"attention\.output\.dense\.(weight|bias)", r"layers.\1.attention.out.\2"),
        (prefix + r"layernorm\.(weight|bias)", r"norm.\1"),
    ]
    return rules + [(L + a, r"layers.\1." + b) for a, b in layer_rules]


def siglip_layer_names(tower, to):
    L = tower + r"\.encoder\.layers\.(\d+)\."
    return [
        (L + r"layer_norm([12])\.(weight|bias)", to + r".\1.norm\2.\3"),
        (L + r"self_attn\.q_proj\.(weight|bias)", to + r".\1.attention.query.\2"),
        (L + r"self_attn\.k_proj\.(weight|bias)", to + r".\1.attention.key.\2"),
        (L + r"self_attn\.v_proj\.(weight|bias)", to + r".\1.attention.value.\2"),
        (L + r"self_attn\.out_proj\.(weight|bias)", to + r".\1.attention.out.\2"),
        (L + r"mlp\.fc1\.(weight|bias)", to + r".\1.mlp.up.\2"),
        (L + r"mlp\.fc2\.(weight|bias)", to + r".\1.mlp.down.\2"),
    ]


def resnet18_names():
    """HF ResNet (basic layers, depths 2-2-2-2) -> the hub's resnet-18 paths:
    stage 0 is two plain blocks, stages 1-3 a strided block (with shortcut)
    and a plain one."""
    S = r"resnet\.encoder\.stages\."
    CN = r"(convolution\.weight|normalization\.(?:weight|bias|running_mean|running_var))"

    def cn(path):   # HF's conv + norm pair -> the package's ConvNorm
        return lambda m: path.format(*m.groups()[:-1]) + "." + (
            "convolution.weight" if m.groups()[-1] == "convolution.weight"
            else m.groups()[-1].split(".")[1])
    return [
        (r"resnet\.embedder\.embedder\." + CN, cn("stem")),
        (S + r"0\.layers\.0\.layer\.0\." + CN, cn("stage_0_first.first")),
        (S + r"0\.layers\.0\.layer\.1\." + CN, cn("stage_0_first.second")),
        (S + r"0\.layers\.1\.layer\.0\." + CN, cn("stage_0_second.first")),
        (S + r"0\.layers\.1\.layer\.1\." + CN, cn("stage_0_second.second")),
        (S + r"([123])\.layers\.0\.layer\.0\." + CN, cn("stage_{0}.down.first")),
        (S + r"([123])\.layers\.0\.layer\.1\." + CN, cn("stage_{0}.down.second")),
        (S + r"([123])\.layers\.0\.shortcut\." + CN, cn("stage_{0}.down.shortcut")),
        (S + r"([123])\.layers\.1\.layer\.0\." + CN, cn("stage_{0}.rest.first")),
        (S + r"([123])\.layers\.1\.layer\.1\." + CN, cn("stage_{0}.rest.second")),
        (r"classifier\.1\.(weight|bias)", r"classifier.\1"),
    ]


def tokens(g, B, S, low=0, high=VOCAB):
    import torch
    return torch.randint(low, high, (B, S), generator=g, dtype=torch.int64)


def image(g, B, C=3, H=IMAGE, W=IMAGE):
    import torch
    return torch.randn(B, C, H, W, generator=g, dtype=torch.float32)


def bert_calls(pool_entry):
    """forward (the last hidden state), and the package's pooled entry: BERT's
    pooler (`pool`) or sentence-transformers' mean + L2 norm (`embed`)."""
    def calls(model, g):
        import torch
        t = tokens(g, 2, 8, low=3)      # RoBERTa: no pad id 1, so positions run 2, 3, ...
        types = torch.zeros_like(t) if model.config.type_vocab_size == 1 else \
            torch.randint(0, model.config.type_vocab_size, t.shape, generator=g)
        out = model(input_ids=t, token_type_ids=types)
        args = {"tokens": t, "token_types": types}
        result = [("forward", args, out.last_hidden_state, "features")]
        if pool_entry == "pool":
            result.append(("pool", args, out.pooler_output, "features"))
        elif pool_entry == "embed":
            mean = out.last_hidden_state.mean(dim=1)
            result.append(("embed", args, torch.nn.functional.normalize(mean, dim=-1), "features"))
        return result
    return calls


def bert_config(T, **kw):
    base = dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                intermediate_size=128, max_position_embeddings=MAX_SEQ, type_vocab_size=2,
                layer_norm_eps=1e-12, hidden_act="gelu", hidden_dropout_prob=0.0,
                attention_probs_dropout_prob=0.0, position_embedding_type="absolute")
    base.update(kw)
    return (T.RobertaConfig if kw.get("roberta") else T.BertConfig)(
        **{k: v for k, v in base.items() if k != "roberta"})


def bert_generics(TypeVocab=2, MaxPositions=MAX_SEQ):
    return dict(Vocab=VOCAB, MaxPositions=MaxPositions, TypeVocab=TypeVocab, D=64, Heads=4,
                Inner=128, Layers=listed("layers", 2), T="f32")


def bert_published(prefix, gamma_beta=False):
    """BertModel/RobertaModel state-dict names -> the published checkpoint's:
    under the pretraining model's `bert.`/`roberta.`, and for
    bert-base-uncased, whose checkpoint predates the rename, LayerNorm
    `gamma`/`beta` (transformers renames them on load)."""
    def published(name):
        if gamma_beta:
            name = re.sub(r"LayerNorm\.weight$", "LayerNorm.gamma", name)
            name = re.sub(r"LayerNorm\.bias$", "LayerNorm.beta", name)
        return prefix + name
    return published


def array_lengths(bindings_path: Path):
    """{array: length} for every `<array>.N.` the package's bindings.json names
    (the hub lists each element, and an element past the bound length is
    E5102, so the tiny checkpoint has as many), by the array's name (the
    longest where arrays of one name differ) and by its dotted path
    (`down2_attn0.blocks`)."""
    keys = json.loads(bindings_path.read_text())
    out = {}
    for k in keys:
        for m in re.finditer(r"(?:^|\.)([A-Za-z_]+)\.(\d+)\.", k):
            out[m.group(1)] = max(out.get(m.group(1), 0), int(m.group(2)) + 1)
        parts = k.split(".")
        for i, part in enumerate(parts[1:-1], 1):
            if part.isdigit():
                path = ".".join(parts[:i])
                out[path] = max(out.get(path, 0), int(part) + 1)
    return out


def listed(array, default=None):
    """A generic (MODULE_SPECS' `generics`): the length of `array` (a name or
    a dotted path, see array_lengths) in the package's bindings.json, which
    lists every element; `default` where the package has none (its own
    parameter paths, a tiny count)."""
    def value(lengths):
        if lengths is None:
            if default is None:
                raise SystemExit(f"the package has no bindings.json to count `{array}` in")
            return default
        if array not in lengths:
            raise SystemExit(f"bindings.json names no element of `{array}`")
        return lengths[array]
    return value


def whisper_names():
    """HF Whisper names -> the hub's whisper-tiny paths (whisper-large-v3
    lists the same mapping in its bindings.json)."""
    E, D = r"model\.encoder\.", r"model\.decoder\."
    layer = [(r"(self_attn|encoder_attn)\.([qkv]|out)_proj\.(weight|bias)", r".\2.\3_proj.\4"),
             (r"(self_attn_layer_norm|encoder_attn_layer_norm|final_layer_norm)\.(weight|bias)",
              r".\2.\3"),
             (r"(fc[12])\.(weight|bias)", r".mlp.\2.\3")]
    rules = [(E + r"conv([12])\.(weight|bias)", r"conv\1_\2"),
             (E + r"embed_positions\.weight", "encoder_positions"),
             (E + r"layer_norm\.(weight|bias)", r"encoder_norm.\1"),
             (D + r"embed_tokens\.weight", "token_embedding"),
             (D + r"embed_positions\.weight", "decoder_positions"),
             (D + r"layer_norm\.(weight|bias)", r"decoder_norm.\1"),
             (r"proj_out\.weight", None)]          # tied to the token embedding
    for side, to in ((E, "encoder_layers"), (D, "decoder_layers")):
        rules += [(side + r"layers\.(\d+)\." + a, to + r".\1" + b) for a, b in layer]
    return rules


def whisper_config(T, layers=(2, 2)):
    return T.WhisperConfig(vocab_size=VOCAB, num_mel_bins=8, d_model=64, encoder_layers=layers[0],
                           decoder_layers=layers[1], encoder_attention_heads=4,
                           decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                           max_source_positions=8, max_target_positions=16,
                           activation_function="gelu", dropout=0.0, attention_dropout=0.0,
                           activation_dropout=0.0, scale_embedding=False,
                           tie_word_embeddings=True, pad_token_id=0, bos_token_id=1,
                           eos_token_id=2, decoder_start_token_id=1)


def whisper_calls(stateful):
    """encode (a random mel of the config's 2 x max_source_positions frames),
    decode (tokens against that encoding: the logits), and with `stateful`
    the cached path: listen, prefill (the last row's logits), step."""
    def calls(model, g):
        import torch
        cfg = model.config
        mel = torch.randn(1, cfg.num_mel_bins, 2 * cfg.max_source_positions, generator=g)
        t = tokens(g, 1, 6)
        audio = model.model.encoder(input_features=mel).last_hidden_state
        logits = model(input_features=mel, decoder_input_ids=t).logits
        out = [("encode", {"mel": mel}, audio, "features"),
               ("decode", {"tokens": t, "audio": audio}, logits, "logits")]
        if stateful:
            nxt = tokens(g, 1, 1)
            longer = model(input_features=mel, decoder_input_ids=torch.cat([t, nxt], 1)).logits
            out += [("listen", {"mel": mel}, audio, "features"),
                    ("prefill", {"tokens": t}, logits[:, -1, :], "logits"),
                    ("step", {"token": nxt, "pos": t.shape[1]}, longer[:, -1, :], "logits")]
        return out
    return calls


def import_diffusers():
    """diffusers, from build/hub-diffusers: installed there on first use from
    tools/hub/requirements-diffusers.txt (--no-deps; the reference venv's torch
    and huggingface-hub serve it), so the reference venv's pinned list stays
    as it is."""
    import hashlib
    import subprocess
    here = Path(__file__).resolve().parent
    requirements = here / "requirements-diffusers.txt"
    target = here.parents[1] / "build" / "hub-diffusers"
    stamp = target / ".linnet-requirements.sha256"
    want = hashlib.sha256(requirements.read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != want:
        print(f"  [diffusers] installing {requirements.name} into {target}", flush=True)
        subprocess.check_call([sys.executable, "-m", "pip", "install", "--disable-pip-version-check",
                               "--no-deps", "--upgrade", "--target", str(target),
                               "-r", str(requirements)])
        stamp.write_text(want + "\n")
    if str(target) not in sys.path:
        sys.path.insert(0, str(target))
    import diffusers
    return diffusers


def diffusers_eager(model):
    """The plain (non-SDPA) attention processor: the eager reference."""
    from diffusers.models.attention_processor import AttnProcessor
    model.set_attn_processor(AttnProcessor())
    return model


def vae_name(name):
    """diffusers AutoencoderKL names -> the hub's sd-vae paths (the package is
    the decoder: the encoder side is dropped)."""
    if re.match(r"(encoder|quant_conv)\.", name):
        return None
    which = ["first", "second", "third"]
    name = re.sub(r"^decoder\.", "", name)
    name = re.sub(r"^mid_block\.resnets\.(\d)\.", lambda m: f"mid_block.{which[int(m[1])]}.", name)
    name = re.sub(r"^up_blocks\.(\d)\.resnets\.(\d)\.",
                  lambda m: f"up_block_{m[1]}.{which[int(m[2])]}.", name)
    name = re.sub(r"^up_blocks\.(\d)\.upsamplers\.0\.conv\.", r"up_block_\1.upsample.", name)
    name = re.sub(r"^mid_block\.attentions\.0\.", "mid_block.attention.", name)
    for a, b in (("group_norm.", "norm."), ("to_q.", "query."), ("to_k.", "key."),
                 ("to_v.", "value."), ("to_out.0.", "proj."), ("conv_shortcut.", "shortcut.")):
        name = name.replace(a, b)
    return re.sub(r"^conv_norm_out\.", "norm_out.", name)


def vae_published(name):
    """diffusers AutoencoderKL names -> sd-vae-ft-mse's published ones: the
    mid-block attention keeps the old diffusers names (query, key, value,
    proj_attn), which diffusers converts on load."""
    for a, b in ((".to_q.", ".query."), (".to_k.", ".key."), (".to_v.", ".value."),
                 (".to_out.0.", ".proj_attn.")):
        if name.startswith("decoder.mid_block.attentions."):
            name = name.replace(a, b)
    return name


def unet_name(name):
    """diffusers UNet2DConditionModel (SDXL layout) names -> the hub's
    sdxl-unet paths: `down_blocks.1.attentions.0` is `down1_attn0`,
    `transformer_blocks.N` is `blocks.N` and so on."""
    name = re.sub(r"^(down|up)_blocks\.(\d)\.resnets\.(\d)\.", r"\1\2_res\3.", name)
    name = re.sub(r"^(down|up)_blocks\.(\d)\.attentions\.(\d)\.", r"\1\2_attn\3.", name)
    name = re.sub(r"^(down|up)_blocks\.(\d)\.(down|up)samplers\.0\.conv\.", r"\1\2_\3sample.", name)
    name = re.sub(r"^mid_block\.resnets\.(\d)\.", r"mid_res\1.", name)
    name = re.sub(r"^mid_block\.attentions\.0\.", "mid_attn.", name)
    name = re.sub(r"^(time|add)_embedding\.linear_([12])\.", r"\1_linear_\2.", name)
    name = re.sub(r"^conv_norm_out\.", "norm_out.", name)
    for a, b in ((".transformer_blocks.", ".blocks."), (".to_out.0.", ".to_out."),
                 (".ff.net.0.proj.", ".ff.proj."), (".ff.net.2.", ".ff.out."),
                 (".conv_shortcut.", ".shortcut.")):
        name = name.replace(a, b)
    return name


def torch_randn(g, *shape):
    import torch
    return torch.randn(*shape, generator=g)


def unet_calls(model, g, mid_h, mid_w):
    """One denoising call: the package takes the time and added (text-time)
    embeddings' inputs precomputed (the sinusoidal projections are the
    caller's), so they are diffusers' own `time_proj` and `add_time_proj`
    of the timestep and time ids the reference gets."""
    import torch
    latent = torch_randn(g, 1, 4, 4 * mid_h, 4 * mid_w)
    t = torch.tensor([501.0])
    text = torch_randn(g, 1, 4, 2048)
    pooled = torch_randn(g, 1, 1280)
    time_ids = torch.tensor([[32.0, 16.0, 0.0, 0.0, 32.0, 16.0]])
    out = model(latent, t, encoder_hidden_states=text,
                added_cond_kwargs={"text_embeds": pooled, "time_ids": time_ids}).sample
    temb = model.time_proj(t).float()
    added = torch.cat([pooled, model.add_time_proj(time_ids.flatten()).reshape(1, -1)], dim=-1)
    return [("forward", {"latent": latent, "timestep_embedding": temb, "text_embedding": text,
                         "added_embedding": added.float()}, out, "features")]


def gpt_oss_name(name):
    """HF GptOss names -> the hub's gpt-oss paths: layer 2p is `pairs.p.sliding`,
    2p + 1 `pairs.p.full`; the experts' MXFP4 blocks, scales and biases are
    `mlp.gate_up_blocks`... (the checkpoint holds them as the published one
    does, see gpt_oss_mxfp4)."""
    m = re.fullmatch(r"model\.layers\.(\d+)\.(.*)", name)
    if m:
        i, rest = int(m[1]), m[2]
        rest = re.sub(r"^mlp\.experts\.(gate_up|down)_proj_(blocks|scales|bias)$", r"mlp.\1_\2", rest)
        return f"pairs.{i // 2}.{('sliding', 'full')[i % 2]}.{rest}"
    return re.sub(r"^model\.", "", name)


def gpt_oss_mxfp4(model, g):
    """Random MXFP4 experts, as the published checkpoint stores them: per
    expert and output row, blocks of 32 FP4 (e2m1) values, two a byte, low
    nibble first ([E, Rows, In / 32, 16] u8), and one e8m0 scale a block
    ([E, Rows, In / 32] u8, biased by 127; here 2^-5..2^-3, weights of std
    ~1/sqrt(In)). The reference model gets them dequantized by transformers'
    own convert_moe_packed_tensors (what it does on load without the MXFP4
    kernels). Returns the tensors that replace the dense experts'."""
    import torch
    from transformers.integrations.mxfp4 import convert_moe_packed_tensors
    extra, dense = {}, []
    for lname, layer in enumerate(model.model.layers):
        ex = layer.mlp.experts
        for proj in ("gate_up_proj", "down_proj"):
            w = getattr(ex, proj)                      # [E, In, Out]
            E, In, Out = w.shape
            blocks = torch.randint(0, 256, (E, Out, In // 32, 16), generator=g, dtype=torch.uint8)
            scales = torch.randint(122, 125, (E, Out, In // 32), generator=g, dtype=torch.uint8)
            deq = convert_moe_packed_tensors(blocks, scales, dtype=torch.float32)
            assert deq.shape == w.shape, (deq.shape, w.shape)
            with torch.no_grad():
                w.copy_(deq)
            base = f"model.layers.{lname}.mlp.experts.{proj}"
            extra[base + "_blocks"] = blocks
            extra[base + "_scales"] = scales
            dense.append(base)
    return extra, dense


def gpt_oss_calls(model, g):
    """forward (all logits), and the cached path: prefill at 0 (the last
    row's logits), decode the next token at S."""
    import torch
    t = tokens(g, 1, 8)
    nxt = tokens(g, 1, 1)
    logits = model(t).logits
    longer = model(torch.cat([t, nxt], 1)).logits
    return [("forward", {"tokens": t}, logits, "logits"),
            ("prefill", {"tokens": t, "pos": 0}, logits[:, -1, :], "logits"),
            ("decode", {"token": nxt, "pos": t.shape[1]}, longer[:, -1, :], "logits")]


def sam_tie(model, g):
    """SAM's prompt encoder reads the image-wide positional matrix through a
    second buffer that transformers ties on load; tie it here, and save it
    once (the package has one `positional_embedding`)."""
    import torch
    with torch.no_grad():
        model.prompt_encoder.shared_embedding.positional_embedding.copy_(
            model.shared_image_embedding.positional_embedding)
    return {}, ["prompt_encoder.shared_embedding.positional_embedding"]


def sam_calls(model, g):
    """encode_image on a random 1024 x 1024 image, then decode_points and
    decode_boxes against that embedding. HF returns the multimask outputs
    (masks 1..3) or the single one (mask 0); the package returns all four,
    so the reference is the two runs concatenated."""
    import torch
    pixels = torch_randn(g, 1, 3, 1024, 1024)
    emb = model.get_image_embeddings(pixel_values=pixels)
    points = torch.rand(1, 2, 3, 2, generator=g) * 1024
    labels = torch.tensor([[[1, 0, -1], [1, 1, 0]]])
    boxes = torch.tensor([[[100.0, 200.0, 600.0, 900.0]]])

    def four(**prompt):
        many = model(image_embeddings=emb, multimask_output=True, **prompt)
        one = model(image_embeddings=emb, multimask_output=False, **prompt)
        return (torch.cat([one.pred_masks, many.pred_masks], 2),
                torch.cat([one.iou_scores, many.iou_scores], 2))
    return [("encode_image", {"pixel_values": pixels}, emb, "features"),
            ("decode_points", {"image_embeddings": emb, "input_points": points,
                               "input_labels": labels},
             four(input_points=points, input_labels=labels), "features"),
            ("decode_boxes", {"image_embeddings": emb, "input_boxes": boxes},
             four(input_boxes=boxes), "features")]


MODULE_SPECS = {
    "bert-base-uncased": dict(
        hf_class="BertModel",
        config=lambda T, b: bert_config(T, num_hidden_layers=b["Layers"]),
        generics=bert_generics(),
        names=bert_names(),
        published=bert_published("bert.", gamma_beta=True),
        calls=bert_calls("pool"),
        note="BERT: post-norm, LayerNorm eps 1e-12, erf GELU, token types, pooler (tanh)"),
    "all-MiniLM-L6-v2": dict(
        hf_class="BertModel",
        config=lambda T, b: bert_config(T, num_hidden_layers=b["Layers"]),
        generics=bert_generics(),
        names=[(r"pooler\..*", None)] + bert_names(),   # sentence-transformers reads no pooler
        drop=[r"pooler\..*"],
        calls=bert_calls("embed"),
        note="BERT (no pooler) + sentence-transformers mean pooling and L2 norm"),
    "roberta-base": dict(
        hf_class="RobertaModel",
        config=lambda T, b: bert_config(T, roberta=True, max_position_embeddings=MAX_SEQ + 2,
                                     type_vocab_size=1, layer_norm_eps=1e-5, pad_token_id=1,
                                     bos_token_id=0, eos_token_id=2,
                                     num_hidden_layers=b["Layers"]),
        generics=bert_generics(TypeVocab=1, MaxPositions=MAX_SEQ + 2),
        names=[(r"pooler\..*", None)] + bert_names(),
        drop=[r"pooler\..*"],                    # roberta-base's checkpoint has no pooler
        published=bert_published("roberta."),
        calls=bert_calls(None),
        note="RoBERTa: positions from 2 (pad id 1, not in the tokens), eps 1e-5, one token type"),
    "vit-base-patch16-224": dict(
        hf_class="ViTForImageClassification",
        config=lambda T, b: T.ViTConfig(image_size=IMAGE, patch_size=8, num_channels=3,
                                     hidden_size=64, num_hidden_layers=b["Layers"],
                                     num_attention_heads=4,
                                     intermediate_size=128, hidden_act="gelu",
                                     layer_norm_eps=1e-12, qkv_bias=True, num_labels=10,
                                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0),
        generics=dict(Height=IMAGE, Width=IMAGE, Channels=3, Patch=8, D=64, Heads=4, Inner=128,
                      Layers=listed("layers", 2), Classes=10, T="f32"),
        names=vit_names(r"vit\.", [(r"layernorm_before\.(weight|bias)", r"norm_before.\2"),
                                   (r"layernorm_after\.(weight|bias)", r"norm_after.\2"),
                                   (r"intermediate\.dense\.(weight|bias)", r"up.\2"),
                                   (r"output\.dense\.(weight|bias)", r"down.\2")])
        + [(r"classifier\.(weight|bias)", r"head.\1")],
        calls=lambda model, g: [("forward", {"image": (x := image(g, 2))},
                                 model(pixel_values=x).logits, "logits")],
        note="ViT: pre-norm, eps 1e-12, erf GELU, class-token head; image 32, patch 8"),
    "dinov2-base": dict(
        hf_class="Dinov2Model",
        config=lambda T, b: T.Dinov2Config(image_size=IMAGE, patch_size=8, num_channels=3,
                                        hidden_size=64, num_hidden_layers=b["Layers"],
                                        num_attention_heads=4, mlp_ratio=2, hidden_act="gelu",
                                        layer_norm_eps=1e-6, layerscale_value=1.0,
                                        use_swiglu_ffn=False, qkv_bias=True,
                                        hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                                        drop_path_rate=0.0),
        generics=dict(Height=IMAGE, Width=IMAGE, Channels=3, Patch=8, D=64, Heads=4, Inner=128,
                      Layers=listed("layers", 2), T="f32"),
        drop=[r"embeddings\.mask_token"],          # masked-image modeling: not in the package
        names=vit_names("", [(r"norm([12])\.(weight|bias)", r"norm\2.\3"),
                             (r"layer_scale([12])\.lambda1", r"layer_scale\2.lambda1"),
                             (r"mlp\.fc1\.(weight|bias)", r"up.\2"),
                             (r"mlp\.fc2\.(weight|bias)", r"down.\2")]),
        calls=lambda model, g: [("forward", {"image": (x := image(g, 2))},
                                 model(pixel_values=x).last_hidden_state, "features")],
        note="DINOv2: layer scale, eps 1e-6, erf GELU, positions at the trained grid (no "
             "interpolation); image 32, patch 8"),
    "siglip-base-patch16-224": dict(
        hf_class="SiglipModel",
        config=lambda T, b: T.SiglipConfig(
            vision_config=dict(image_size=IMAGE, patch_size=8, num_channels=3, hidden_size=64,
                               num_hidden_layers=b["VisionLayers"], num_attention_heads=4,
                               intermediate_size=128,
                               hidden_act="gelu_pytorch_tanh", layer_norm_eps=1e-6),
            text_config=dict(vocab_size=VOCAB, hidden_size=64, num_hidden_layers=b["TextLayers"],
                             num_attention_heads=4, intermediate_size=128,
                             max_position_embeddings=8, hidden_act="gelu_pytorch_tanh",
                             layer_norm_eps=1e-6, projection_size=64)),
        generics=dict(Height=IMAGE, Width=IMAGE, Channels=3, Patch=8, VisionD=64, VisionHeads=4,
                      VisionInner=128, VisionLayers=listed("vision_layers", 2), Vocab=VOCAB,
                      MaxPositions=8, TextD=64, TextHeads=4, TextInner=128,
                      TextLayers=listed("text_layers", 2), T="f32"),
        names=siglip_layer_names(r"vision_model", "vision_layers")
        + siglip_layer_names(r"text_model", "text_layers") + [
            (r"vision_model\.embeddings\.patch_embedding\.weight", "patch_weight"),
            (r"vision_model\.embeddings\.patch_embedding\.bias", "patch_bias"),
            (r"vision_model\.embeddings\.position_embedding\.weight", "vision_positions"),
            (r"vision_model\.post_layernorm\.(weight|bias)", r"vision_post_norm.\1"),
            (r"vision_model\.head\.probe", "vision_head.probe"),
            (r"vision_model\.head\.attention\.in_proj_(weight|bias)", r"vision_head.in_proj_\1"),
            (r"vision_model\.head\.attention\.out_proj\.(weight|bias)", r"vision_head.out.\1"),
            (r"vision_model\.head\.layernorm\.(weight|bias)", r"vision_head.norm.\1"),
            (r"vision_model\.head\.mlp\.fc1\.(weight|bias)", r"vision_head.mlp.up.\1"),
            (r"vision_model\.head\.mlp\.fc2\.(weight|bias)", r"vision_head.mlp.down.\1"),
            (r"text_model\.embeddings\.token_embedding\.weight", "token_embedding"),
            (r"text_model\.embeddings\.position_embedding\.weight", "text_positions"),
            (r"text_model\.final_layer_norm\.(weight|bias)", r"text_final_norm.\1"),
            (r"text_model\.head\.(weight|bias)", r"text_head.\1"),
            (r"logit_(scale|bias)", r"logit_\1"),
        ],
        calls=lambda model, g: (lambda x, t: [
            ("image_features", {"image": x}, model.get_image_features(pixel_values=x), "features"),
            ("text_features", {"tokens": t}, model.get_text_features(input_ids=t), "features"),
            ("similarity", {"image": x, "tokens": t},
             model(pixel_values=x, input_ids=t).logits_per_text, "features"),
        ])(image(g, 2), tokens(g, 3, 8)),
        note="SigLIP: tanh GELU, eps 1e-6, attention-pool head, last-token text head; "
             "image 32, patch 8, text length 8"),
    "resnet-18": dict(
        hf_class="ResNetForImageClassification",
        config=lambda T, b: T.ResNetConfig(num_channels=3, embedding_size=64,
                                        hidden_sizes=[64, 128, 256, 512], depths=[2, 2, 2, 2],
                                        layer_type="basic", hidden_act="relu",
                                        downsample_in_first_stage=False, num_labels=10),
        generics=dict(Height=IMAGE, Width=IMAGE, Classes=10, T="f32"),
        names=resnet18_names() + [(r".*num_batches_tracked", None)],
        drop=[r".*num_batches_tracked"],
        calls=lambda model, g: [("forward", {"image": (x := image(g, 2))},
                                 model(pixel_values=x).logits, "logits")],
        note="ResNet-18 (widths fixed in the source): BatchNorm eps 1e-5, image 32, 10 classes"),
    "resnet-50": dict(
        hf_class="ResNetForImageClassification",
        config=lambda T, b: T.ResNetConfig(num_channels=3, embedding_size=64,
                                        hidden_sizes=[256, 512, 1024, 2048], depths=[3, 4, 6, 3],
                                        layer_type="bottleneck", hidden_act="relu",
                                        downsample_in_first_stage=False,
                                        downsample_in_bottleneck=False, num_labels=10),
        generics=dict(Height=IMAGE, Width=IMAGE, Classes=10, T="f32"),
        names=None,                               # bindings.json: HF's names
        drop=[r".*num_batches_tracked"],
        calls=lambda model, g: [("forward", {"image": (x := image(g, 1))},
                                 model(pixel_values=x).logits, "logits")],
        note="ResNet-50 v1.5 (stride in the 3x3; widths fixed in the source): image 32, "
             "10 classes"),
    "modernbert-base": dict(
        hf_class="ModernBertForMaskedLM",         # the names bindings.json lists (`model.`)
        config=lambda T, b: T.ModernBertConfig(
            vocab_size=VOCAB, hidden_size=64, intermediate_size=64, num_attention_heads=4,
            num_hidden_layers=b["Layers"], max_position_embeddings=MAX_SEQ, norm_eps=1e-5,
            norm_bias=False, attention_bias=False, mlp_bias=False, hidden_activation="gelu",
            global_rope_theta=160000.0, local_rope_theta=10000.0, local_attention=4,
            global_attn_every_n_layers=3, attention_dropout=0.0, embedding_dropout=0.0,
            mlp_dropout=0.0, pad_token_id=0, bos_token_id=1, eos_token_id=2, cls_token_id=1,
            sep_token_id=2, mask_token_id=3, reference_compile=False),
        # Layers: the first layer and Period per cycle, as many cycles as bindings.json lists.
        generics=dict(Vocab=VOCAB, D=64, Heads=4, Inner=64,
                      Layers=lambda n: 1 + 3 * listed("cycles")(n), Window=4, Period=3, T="f32"),
        names=None,
        drop=[r"head\..*", r"decoder\..*"],       # the masked-LM head: not in the package
        calls=lambda model, g: [("forward", {"tokens": (t := tokens(g, 2, 12))},
                                 model.model(input_ids=t).last_hidden_state, "features")],
        note="ModernBERT: bias-free LayerNorm eps 1e-5, GeGLU (erf), rope 160000 global / "
             "10000 local, every 3rd layer global, local window 4 (+-2) over 12 tokens"),
    "whisper-tiny": dict(
        hf_class="WhisperForConditionalGeneration",
        config=lambda T, b: whisper_config(T, (b["EncoderLayers"], b["DecoderLayers"])),
        generics=dict(Mels=8, Frames=16, D=64, Heads=4, Inner=128,
                      EncoderLayers=listed("encoder_layers", 2),
                      DecoderLayers=listed("decoder_layers", 2), Vocab=VOCAB, MaxTokens=16,
                      T="f32"),
        names=whisper_names(),
        drop=[r"proj_out\.weight"],                # tied to the token embedding
        calls=whisper_calls(stateful=False),
        note="Whisper: pre-norm, eps 1e-5, erf GELU, conv stem (stride 1, 2), no k bias, "
             "tied head; 8 mels, 16 frames"),
    "whisper-large-v3": dict(
        hf_class="WhisperForConditionalGeneration",
        config=lambda T, b: whisper_config(T, (b["EncoderLayers"], b["DecoderLayers"])),
        generics=dict(Mels=8, Frames=16, D=64, Heads=4, Inner=128,
                      EncoderLayers=listed("encoder_layers"),
                      DecoderLayers=listed("decoder_layers"),
                      Vocab=VOCAB, MaxTokens=16, Batch=1, T="f32"),
        names=None,
        drop=[r"proj_out\.weight"],
        calls=whisper_calls(stateful=True),
        note="Whisper (large-v3 source: cached decoder): as whisper-tiny, as many layers as "
             "bindings.json names; also listen / prefill / step"),
    "sd-vae-ft-mse": dict(
        library="diffusers", hf_class="AutoencoderKL",
        model=lambda D, b: D.AutoencoderKL(
            in_channels=3, out_channels=3, down_block_types=["DownEncoderBlock2D"] * 4,
            up_block_types=["UpDecoderBlock2D"] * 4, block_out_channels=[128, 256, 512, 512],
            layers_per_block=2, act_fn="silu", latent_channels=4, norm_num_groups=32,
            sample_size=32),
        generics=dict(H=4, W=3, T="f32"),
        names=vae_name,
        drop=[r"(encoder|quant_conv)\..*"],        # the package is the decoder
        published=vae_published,
        calls=lambda model, g: [("decode", {"latent": (z := torch_randn(g, 1, 4, 4, 3))},
                                 model.decode(z).sample, "features")],
        note="SD VAE decoder (widths fixed in the source): GroupNorm 32 eps 1e-6, one-head "
             "mid attention; latent 4 x 3 -> image 32 x 24"),
    "sdxl-base-unet": dict(
        library="diffusers", hf_class="UNet2DConditionModel",
        model=lambda D, b: D.UNet2DConditionModel(
            sample_size=4 * b["MidH"], in_channels=4, out_channels=4,
            down_block_types=("DownBlock2D", "CrossAttnDownBlock2D", "CrossAttnDownBlock2D"),
            up_block_types=("CrossAttnUpBlock2D", "CrossAttnUpBlock2D", "UpBlock2D"),
            block_out_channels=(320, 640, 1280), layers_per_block=2,
            transformer_layers_per_block=(1, b["Depth1"], b["Depth2"]),
            attention_head_dim=(5, 10, 20), cross_attention_dim=2048, use_linear_projection=True,
            addition_embed_type="text_time", addition_time_embed_dim=256,
            projection_class_embeddings_input_dim=2816, norm_num_groups=32, norm_eps=1e-5,
            act_fn="silu", flip_sin_to_cos=True, freq_shift=0),
        # Depth1/Depth2 (transformer blocks per attention at 640/1280) are SDXL's 2 and 10,
        # which bindings.json lists: so the tiny checkpoint is SDXL's whole UNet (2.6 B
        # parameters, 5.1 GB in bf16) at a tiny latent; 2 and 1 without a bindings.json.
        generics=dict(MidH=2, MidW=1, Depth1=listed("down1_attn0.blocks", 2),
                      Depth2=listed("down2_attn0.blocks", 1), T="f32"),
        names=unet_name,
        calls=lambda model, g: unet_calls(model, g, 2, 1),
        note=lambda b: "SDXL UNet (widths fixed in the source): text-time conditioning, GEGLU, "
             f"linear projections; Depth1 {b['Depth1']}, Depth2 {b['Depth2']} (SDXL: 2, 10); "
             "latent 8 x 4, 4 text tokens"),
    "gpt-oss-20b": dict(
        hf_class="GptOssForCausalLM",
        config=lambda T, b: T.GptOssConfig(
            vocab_size=VOCAB, hidden_size=64, intermediate_size=64, head_dim=16,
            num_attention_heads=8, num_key_value_heads=1, num_hidden_layers=b["Layers"],
            num_local_experts=4, num_experts_per_tok=2, sliding_window=4,
            layer_types=["sliding_attention", "full_attention"] * (b["Layers"] // 2),
            rope_theta=150000.0,
            rope_scaling={"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                          "beta_slow": 1.0, "original_max_position_embeddings": 4096,
                          "truncate": False},
            max_position_embeddings=131072,       # config only; MaxSeq stays tiny
            rms_norm_eps=1e-5, swiglu_limit=7.0, attention_bias=True, attention_dropout=0.0,
            tie_word_embeddings=False, router_aux_loss_coef=0.0, output_router_logits=False,
            pad_token_id=0, bos_token_id=1, eos_token_id=2),
        generics=dict(Vocab=VOCAB, H=64, Heads=8, KvHeads=1, HeadDim=16, Inner=64, Experts=4,
                      TopK=2, Layers=lambda n: 2 * listed("pairs", 2)(n), Window=4, Batch=1,
                      MaxSeq=MAX_SEQ, T="f32"),
        names=gpt_oss_name,
        post_init=gpt_oss_mxfp4,
        calls=gpt_oss_calls,
        note="gpt-oss: MXFP4 experts (u8 blocks + e8m0 scales, as published; the reference "
             "dequantizes them with transformers' convert_moe_packed_tensors), sinks, yarn rope "
             "(theta 150000, factor 32, 32/1, 4096, no truncation), window 4 on even layers, "
             "8:1 GQA, 4 experts top-2, swiglu limit 7"),
    "sam-vit-base": dict(
        hf_class="SamModel",
        config=lambda T, b: T.SamConfig(
            vision_config=dict(hidden_size=b["D"], output_channels=b["Hd"], num_hidden_layers=12,
                               num_attention_heads=b["VisionHeads"], mlp_dim=b["VisionInner"],
                               image_size=1024, patch_size=16, window_size=14,
                               global_attn_indexes=[2, 5, 8, 11], use_rel_pos=True,
                               layer_norm_eps=1e-6, hidden_act="gelu", qkv_bias=True,
                               num_pos_feats=b["Hd"] // 2),
            prompt_encoder_config=dict(hidden_size=b["Hd"], image_size=1024, patch_size=16,
                                       mask_input_channels=16, num_point_embeddings=4,
                                       layer_norm_eps=1e-6, hidden_act="gelu"),
            mask_decoder_config=dict(hidden_size=b["Hd"], hidden_act="relu",
                                     mlp_dim=b["MaskInner"], num_hidden_layers=2,
                                     num_attention_heads=b["MaskHeads"],
                                     attention_downsample_rate=2, num_multimask_outputs=3,
                                     iou_head_depth=3, iou_head_hidden_dim=b["Hd"],
                                     layer_norm_eps=1e-6)),
        # The source fixes the image (1024), the patch (16), the window (14), 12 vision layers
        # with global attention at 2, 5, 8, 11, and 2 two-way layers: only widths are tiny.
        generics=dict(D=32, VisionHeads=2, VisionInner=64, Hd=32, MaskHeads=2, MaskInner=64,
                      T="f32"),
        names=None,
        drop=[r"prompt_encoder\.mask_embed\..*"],   # mask prompts: not in the package
        post_init=sam_tie,
        calls=sam_calls,
        note="SAM: 1024 image, windowed (14) + global (2, 5, 8, 11) vision layers with relative "
             "positions, eps 1e-6; points (with the padding point) and boxes; all four masks"),
}


def rename(name, rules):
    """The checkpoint name of HF tensor `name` by `rules`, None to drop it;
    raises when no rule matches."""
    if callable(rules):
        return rules(name)
    for pattern, repl in rules:
        m = re.fullmatch(pattern, name)
        if m:
            if repl is None:
                return None
            return repl(m) if callable(repl) else m.expand(repl)
    raise SystemExit(f"no checkpoint name for HF tensor `{name}`")


def random_module_state(model, seed):
    """Random weights by the kind of module that owns each tensor: norms
    1 +- 0.2 with biases N(0, 0.1), running statistics mean N(0, 0.2) and
    variance U(0.5, 1.5); linear, convolution and attention projections
    N(0, 1/fan_in); embeddings N(0, 1); anything else (class tokens,
    positions, layer scales, probes, logit scale) N(0, 0.5) for a tensor and
    U(0.5, 1.5) for a layer scale. Rounded to bf16."""
    import torch
    g = torch.Generator().manual_seed(seed)
    owner = {}
    for mname, mod in model.named_modules():
        for pname, _ in list(mod.named_parameters(recurse=False)) + list(mod.named_buffers(recurse=False)):
            owner[f"{mname}.{pname}" if mname else pname] = (mod, pname)

    def n(shape, std):
        return torch.randn(*shape, generator=g) * std

    def u(shape, lo, hi):
        return lo + (hi - lo) * torch.rand(*shape, generator=g)

    sd = {}
    for name, t in model.state_dict().items():
        shape = tuple(t.shape)
        mod, pname = owner.get(name, (None, name.rsplit(".", 1)[-1]))
        kind = type(mod).__name__ if mod is not None else ""
        if not t.is_floating_point():
            sd[name] = t
            continue
        if "Norm" in kind or isinstance(mod, (torch.nn.LayerNorm, torch.nn.GroupNorm)):
            v = {"weight": lambda: u(shape, 0.8, 1.2), "bias": lambda: n(shape, 0.1),
                 "running_mean": lambda: n(shape, 0.2),
                 "running_var": lambda: u(shape, 0.5, 1.5)}[pname]()
        elif isinstance(mod, (torch.nn.Linear, torch.nn.Conv1d, torch.nn.Conv2d,
                              torch.nn.MultiheadAttention)) and pname.endswith("weight") or \
                pname == "in_proj_weight":
            fan_in = math.prod(shape[1:])
            v = n(shape, 1.0 / math.sqrt(fan_in))
        elif pname.endswith("bias") and len(shape) == 1 and kind != "":
            v = n(shape, 0.1)
        elif isinstance(mod, torch.nn.Embedding):
            v = n(shape, 1.0)
        elif pname == "lambda1":
            v = u(shape, 0.5, 1.5)
        elif pname == "logit_scale":
            v = torch.full(shape, 1.0)
        elif pname == "logit_bias":
            v = torch.full(shape, -1.0)
        else:
            v = n(shape, 0.5)
        sd[name] = v.to(torch.bfloat16)   # one at a time: no second f32 copy of the model
    return sd


def load_in_parts(model, sd, part_bytes=1 << 29):
    """model.load_state_dict of `sd` upcast to f32, some 512 MB at a time, so
    that a model of full-width layers (SDXL's UNet: 2.6 B parameters) is not
    held twice in f32."""
    assert set(sd) == set(model.state_dict()), "the random state is the model's"
    part, size = {}, 0
    for i, (k, v) in enumerate(sd.items()):
        part[k] = v.float() if v.is_floating_point() else v
        size += part[k].numel() * 4
        if size >= part_bytes or i == len(sd) - 1:
            _, unexpected = model.load_state_dict(part, strict=False)
            assert not unexpected, unexpected
            part, size = {}, 0


def make_module(name, spec, pkg: Path, out: Path, seed):
    import numpy as np
    import torch
    import transformers
    from safetensors.torch import save_file

    # Generics: a value, or a function of the array lengths bindings.json
    # lists (None without one: see `listed`).
    has_bindings = (pkg / "bindings.json").exists()
    lengths = array_lengths(pkg / "bindings.json") if has_bindings else None
    binds = {k: (v(lengths) if callable(v) else v) for k, v in spec["generics"].items()}
    # Names: with a bindings.json, the ones it lists (HF's, as the published
    # checkpoint spells them: `published`); without one, `names`.
    names = None if has_bindings else spec.get("names")
    if names is None and not has_bindings:
        raise SystemExit(f"{name}: the package has no bindings.json, and the spec no `names`")
    published = spec.get("published") or (lambda k: k)
    torch.manual_seed(seed)
    if spec.get("library") == "diffusers":
        model = diffusers_eager(spec["model"](import_diffusers(), binds))
        cfg = None
    else:
        cfg = spec["config"](transformers, binds)
        cfg.architectures = [spec["hf_class"]]
        cls = getattr(transformers, spec["hf_class"])
        model = cls._from_config(cfg, attn_implementation="eager")
    sd = random_module_state(model, seed)
    load_in_parts(model, sd)
    del sd
    model = model.float().eval()
    extra, dense = {}, []
    if spec.get("post_init"):     # tensors stored otherwise than HF's module holds them
        extra, dense = spec["post_init"](model, torch.Generator().manual_seed(seed + 2))

    # The checkpoint: bf16 tensors (and post_init's as they are) under the
    # names the package reads.
    tensors = {}
    state = {k: v for k, v in model.state_dict().items() if k not in dense}
    for k, v in list(state.items()) + list(extra.items()):
        if any(re.fullmatch(p, k) for p in spec.get("drop", [])):
            continue
        to = rename(k, names) if names is not None else published(k)
        if to is not None:
            if to in tensors:
                raise SystemExit(f"{name}: two HF tensors named `{to}`")
            tensors[to] = (v.detach().to(torch.bfloat16) if k not in extra else v).contiguous()
    del state
    if names is None:   # bindings.json's names: each must exist
        bound = set(json.loads((pkg / "bindings.json").read_text()).values())
        absent = sorted(bound - set(tensors))
        if absent:
            raise SystemExit(f"{name}: bindings.json names tensors HF does not hold: {absent[:5]}")
        unbound = sorted(set(tensors) - bound)
        if unbound:   # fine only where the package has a parameter of that very name
            print(f"  note: {len(unbound)} tensors bindings.json does not name, e.g. {unbound[:3]}",
                  flush=True)
    ck = out / name
    if ck.exists():
        shutil.rmtree(ck)
    ck.mkdir(parents=True)
    if cfg is not None:
        cfg.save_pretrained(ck)
    else:
        model.save_config(ck)

    # The reference: bf16 weights (upcast: the model above holds them in f32),
    # HF in f32, eager attention. Then the checkpoint, the f32 model freed
    # first (save_file copies every tensor once more).
    g = torch.Generator().manual_seed(seed + 1)
    with torch.no_grad():
        calls = spec["calls"](model, g)
    del model
    gc.collect()
    save_file(tensors, ck / "model.safetensors", metadata={"format": "pt"})
    n_tensors = len(tensors)
    del tensors
    refs, outputs, jcalls = {}, [], []
    for i, (entry, args, result, kind) in enumerate(calls):
        jargs = {}
        for arg, value in args.items():
            if isinstance(value, (int, float)):       # a scalar (`pos`)
                jargs[arg] = value
            elif value.is_floating_point():
                f = f"{i}.{arg}.npy"
                np.save(ck / f, value.float().numpy())
                jargs[arg] = "@" + f
            else:
                jargs[arg] = value.to(torch.int32).tolist()
        jcalls.append({"entry": entry, "args": jargs})
        parts = result if isinstance(result, (tuple, list)) else [result]
        for j, part in enumerate(parts):
            key = f"{i}" if len(parts) == 1 and not isinstance(result, (tuple, list)) else f"{i}.{j}"
            refs[key] = part.detach().float().contiguous().clone()
            outputs.append({"name": key, "entry": entry, "shape": list(part.shape), "kind": kind})
    save_file(refs, ck / "reference.safetensors")
    (ck / "calls.json").write_text(json.dumps({"calls": jcalls}) + "\n")
    meta = {"model": name, "hf_class": spec["hf_class"], "entry": calls[0][0],
            "entries": sorted({c[0] for c in calls}), "bind": binds,
            "note": spec["note"](binds) if callable(spec["note"]) else spec["note"],
            "outputs": outputs,
            "reference": "reference.safetensors", "calls": "calls.json",
            "transformers": transformers.__version__, "torch": torch.__version__}
    if spec.get("library") == "diffusers":
        meta["diffusers"] = import_diffusers().__version__
    (ck / "hub-check.json").write_text(json.dumps(meta, indent=1) + "\n")
    peaks = ", ".join(f"{o['entry']} {o['shape']} max|ref| {refs[o['name']].abs().max().item():.3g}"
                      for o in outputs)
    print(f"  {name}: {spec['hf_class']}, {n_tensors} tensors; {peaks}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("hub")
    ap.add_argument("out")
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()
    hub, out = Path(args.hub), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    only = {s for s in args.only.split(",") if s}
    unknown = only - set(SPECS) - set(MODULE_SPECS)
    if unknown:
        raise SystemExit(f"no spec for {sorted(unknown)}")
    # The first decoders keep their seeds (3000 + their index among them);
    # every later model's seed follows from its name (`name_seed`), so that
    # adding a model reseeds no other.
    def name_seed(name):
        return 4000 + zlib.crc32(name.encode()) % 100000
    first = sorted(n for n, spec in SPECS.items() if not spec.get("name_seed"))
    todo = [(name, spec, make_one, name_seed(name) if spec.get("name_seed") else 3000 + first.index(name))
            for name, spec in sorted(SPECS.items())]
    todo += [(name, spec, make_module, name_seed(name))
             for name, spec in sorted(MODULE_SPECS.items())]
    for name, spec, make, seed in todo:
        if only and name not in only:
            continue
        if not (hub / name).is_dir():
            print(f"  {name}: not in {hub}, skipped", flush=True)
            continue
        make(name, spec, hub / name, out, seed=seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
