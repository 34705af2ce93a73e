#!/usr/bin/env python3
"""Writes a header-only Phi-3-mini-4k-instruct checkpoint into DIR.

The config.json has Phi-3-mini-4k-instruct's values; the two shards carry real
safetensors headers with the model's tensor names, dtypes and shapes, and a
data region that is a sparse hole (no 7.6 GB on disk). Enough for binding,
which reads headers only.

usage: make-phi3-mini-headers.py DIR [--drop NAME] [--reshape NAME=D0,D1] [--dtype NAME=F32] [--extra NAME]
"""
import json
import os
import struct
import sys

VOCAB, HIDDEN, INNER, LAYERS, HEADS = 32064, 3072, 8192, 32, 32

CONFIG = {
    "architectures": ["Phi3ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 1,
    "eos_token_id": 32000,
    "hidden_act": "silu",
    "hidden_size": HIDDEN,
    "initializer_range": 0.02,
    "intermediate_size": INNER,
    "max_position_embeddings": 4096,
    "model_type": "phi3",
    "num_attention_heads": HEADS,
    "num_hidden_layers": LAYERS,
    "num_key_value_heads": HEADS,
    "original_max_position_embeddings": 4096,
    "pad_token_id": 32000,
    "resid_pdrop": 0.0,
    "rms_norm_eps": 1e-05,
    "rope_scaling": None,
    "rope_theta": 10000.0,
    "sliding_window": 2047,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "use_cache": True,
    "vocab_size": VOCAB,
}

SIZES = {"BF16": 2, "F16": 2, "F32": 4}


def tensors():
    out = [("model.embed_tokens.weight", [VOCAB, HIDDEN])]
    for i in range(LAYERS):
        p = f"model.layers.{i}."
        out += [
            (p + "input_layernorm.weight", [HIDDEN]),
            (p + "mlp.down_proj.weight", [HIDDEN, INNER]),
            (p + "mlp.gate_up_proj.weight", [2 * INNER, HIDDEN]),
            (p + "post_attention_layernorm.weight", [HIDDEN]),
            (p + "self_attn.o_proj.weight", [HIDDEN, HIDDEN]),
            (p + "self_attn.qkv_proj.weight", [3 * HIDDEN, HIDDEN]),
        ]
    out += [("model.norm.weight", [HIDDEN]), ("lm_head.weight", [VOCAB, HIDDEN])]
    return out


def write_shard(path, entries):
    header, offset = {}, 0
    for name, shape, dtype in entries:
        size = SIZES[dtype]
        for d in shape:
            size *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        f.truncate(8 + len(blob) + offset)  # the data region stays a hole


def main():
    out = sys.argv[1]
    drop, reshape, dtypes, extra = set(), {}, {}, []
    args = sys.argv[2:]
    while args:
        flag, value = args[0], args[1]
        args = args[2:]
        if flag == "--drop":
            drop.add(value)
        elif flag == "--reshape":
            name, dims = value.split("=")
            reshape[name] = [int(d) for d in dims.split(",")]
        elif flag == "--dtype":
            name, dtype = value.split("=")
            dtypes[name] = dtype
        elif flag == "--extra":
            extra.append((value, [4]))
    os.makedirs(out, exist_ok=True)
    entries = [(n, reshape.get(n, s), dtypes.get(n, "BF16")) for n, s in tensors() + extra if n not in drop]
    half = len(entries) // 2
    shards = {"model-00001-of-00002.safetensors": entries[:half],
              "model-00002-of-00002.safetensors": entries[half:]}
    weight_map = {}
    for shard, part in shards.items():
        write_shard(os.path.join(out, shard), part)
        weight_map.update({name: shard for name, _, _ in part})
    with open(os.path.join(out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": 0}, "weight_map": weight_map}, f, indent=2)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=2)


if __name__ == "__main__":
    main()
