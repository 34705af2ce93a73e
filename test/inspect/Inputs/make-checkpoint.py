#!/usr/bin/env python3
"""Writes a small single-file checkpoint for binding tests.

usage: make-checkpoint.py DIR NAME=DTYPE:D0xD1... [NAME=...]...
Each tensor is zero-filled; DTYPE is a safetensors spelling (F32, BF16, ...).
An empty config.json is written too.
"""
import json
import os
import struct
import sys

SIZES = {"BF16": 2, "F16": 2, "F32": 4, "F64": 8, "I32": 4, "I64": 8}


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    header, offset, chunks = {}, 0, []
    for spec in sys.argv[2:]:
        name, rest = spec.split("=")
        dtype, dims = rest.split(":")
        shape = [int(d) for d in dims.split("x")] if dims else []
        size = SIZES[dtype]
        for d in shape:
            size *= d
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [offset, offset + size]}
        chunks.append(bytes(size))
        offset += size
    blob = json.dumps(header).encode()
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(blob)) + blob + b"".join(chunks))
    with open(os.path.join(out, "config.json"), "w") as f:
        f.write("{}")


if __name__ == "__main__":
    main()
