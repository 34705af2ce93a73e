#!/usr/bin/env python3
"""Rewrites a Phi-3 checkpoint (fused qkv_proj and gate_up_proj) in the layout
of Hugging Face's Mistral/Llama (separate q/k/v and gate/up projections),
with the same numbers: the fused matrices are cut into their row blocks,
which is exactly how Phi3ForCausalLM uses them. The config becomes a
MistralForCausalLM config with the same widths, rope_theta, rms_norm_eps and
sliding_window, so a Llama-family model on the result computes what Phi-3
computes on the original. Tokenizer files are copied. Standard library only.

usage: phi3_to_llama_layout.py PHI3_DIR OUT_DIR
"""
import json
import os
import shutil
import struct
import sys


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        begin, end = spec["data_offsets"]
        tensors[name] = (spec["dtype"], spec["shape"], body[begin:end])
    return tensors


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        dtype, shape, raw = tensors[name]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    blob = json.dumps(header, separators=(",", ":")).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob + b"".join(chunks))


def rows(tensor, start, stop):
    """Rows start..stop of a row-major 2-D tensor."""
    dtype, shape, raw = tensor
    row_bytes = len(raw) // shape[0]
    return dtype, [stop - start] + shape[1:], raw[start * row_bytes:stop * row_bytes]


def main():
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    config = json.load(open(os.path.join(src, "config.json")))
    h = config["hidden_size"]
    inner = config["intermediate_size"]
    heads = config["num_attention_heads"]
    tensors = read_safetensors(os.path.join(src, "model.safetensors"))
    converted = {}
    for name, tensor in tensors.items():
        if name.endswith("self_attn.qkv_proj.weight"):
            base = name[: -len("qkv_proj.weight")]
            for i, part in enumerate(("q_proj", "k_proj", "v_proj")):
                converted[base + part + ".weight"] = rows(tensor, i * h, (i + 1) * h)
        elif name.endswith("mlp.gate_up_proj.weight"):
            base = name[: -len("gate_up_proj.weight")]
            converted[base + "gate_proj.weight"] = rows(tensor, 0, inner)
            converted[base + "up_proj.weight"] = rows(tensor, inner, 2 * inner)
        else:
            converted[name] = tensor
    write_safetensors(os.path.join(out, "model.safetensors"), converted)
    mistral = {
        "architectures": ["MistralForCausalLM"],
        "model_type": "mistral",
        "hidden_act": "silu",
        "head_dim": h // heads,
        "num_key_value_heads": config.get("num_key_value_heads", heads),
    }
    for key in ("bos_token_id", "eos_token_id", "pad_token_id", "hidden_size", "intermediate_size",
                "max_position_embeddings", "num_attention_heads", "num_hidden_layers", "rms_norm_eps",
                "rope_theta", "sliding_window", "tie_word_embeddings", "vocab_size", "torch_dtype", "dtype"):
        if key in config:
            mistral[key] = config[key]
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(mistral, f, indent=2)
    for name in os.listdir(src):
        if name.startswith("tokenizer") or name in ("generation_config.json", "special_tokens_map.json"):
            shutil.copy(os.path.join(src, name), os.path.join(out, name))


if __name__ == "__main__":
    main()
