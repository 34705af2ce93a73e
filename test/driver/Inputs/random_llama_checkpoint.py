#!/usr/bin/env python3
"""Writes a tiny random LlamaForCausalLM checkpoint (bf16, seeded) around a
tokenizer directory, so that `--prompt` can be run through models/llama on
a checkpoint whose only tokenizer is a byte-level BPE tokenizer.json. The
vocabulary is the tokenizer's (model vocab plus added tokens); the weights
are random, so the text generated means nothing: the test is the plumbing.
Standard library only.

usage: random_llama_checkpoint.py TOKENIZER_DIR OUT_DIR
"""
import json
import os
import random
import shutil
import struct
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from phi3_to_llama_layout import write_safetensors  # noqa: E402


def bf16_bytes(values):
    out = bytearray()
    for v in values:
        bits = struct.unpack("<I", struct.pack("<f", v))[0]
        out += struct.pack("<H", (bits + 0x8000) >> 16 & 0xFFFF)  # round half up, fine for test data
    return bytes(out)


def main():
    tokenizer_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    tok = json.load(open(os.path.join(tokenizer_dir, "tokenizer.json"), encoding="utf-8"))
    ids = list(tok["model"]["vocab"].values()) + [a["id"] for a in tok.get("added_tokens", [])]
    vocab = max(ids) + 1
    specials = {a["content"]: a["id"] for a in tok.get("added_tokens", [])}
    config_path = os.path.join(tokenizer_dir, "tokenizer_config.json")
    tconfig = json.load(open(config_path, encoding="utf-8")) if os.path.exists(config_path) else {}
    h, inner, heads, kv, layers = 32, 64, 2, 1, 1
    d = h // heads
    rng = random.Random(7)

    def tensor(shape, scale):
        n = 1
        for s in shape:
            n *= s
        return ("BF16", list(shape), bf16_bytes(rng.gauss(0.0, scale) for _ in range(n)))

    def ones(shape):
        return ("BF16", list(shape), bf16_bytes(1.0 for _ in range(shape[0])))

    tensors = {"model.embed_tokens.weight": tensor([vocab, h], 1.0), "model.norm.weight": ones([h]),
               "lm_head.weight": tensor([vocab, h], 0.3)}
    for i in range(layers):
        p = f"model.layers.{i}."
        tensors[p + "input_layernorm.weight"] = ones([h])
        tensors[p + "post_attention_layernorm.weight"] = ones([h])
        tensors[p + "self_attn.q_proj.weight"] = tensor([heads * d, h], 0.2)
        tensors[p + "self_attn.k_proj.weight"] = tensor([kv * d, h], 0.2)
        tensors[p + "self_attn.v_proj.weight"] = tensor([kv * d, h], 0.2)
        tensors[p + "self_attn.o_proj.weight"] = tensor([h, heads * d], 0.2)
        tensors[p + "mlp.gate_proj.weight"] = tensor([inner, h], 0.2)
        tensors[p + "mlp.up_proj.weight"] = tensor([inner, h], 0.2)
        tensors[p + "mlp.down_proj.weight"] = tensor([h, inner], 0.2)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": h,
              "intermediate_size": inner, "num_attention_heads": heads, "num_key_value_heads": kv,
              "num_hidden_layers": layers, "max_position_embeddings": 128, "vocab_size": vocab,
              "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "tie_word_embeddings": False,
              "bos_token_id": specials.get(tconfig.get("bos_token")), "eos_token_id": specials.get(tconfig.get("eos_token"))}
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    for name in os.listdir(tokenizer_dir):
        if name.startswith("tokenizer"):
            shutil.copy(os.path.join(tokenizer_dir, name), os.path.join(out, name))


if __name__ == "__main__":
    main()
