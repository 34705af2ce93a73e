#!/usr/bin/env python3
"""Writes a damaged copy of a .lnpkg for test/runtime/damaged-artifact.test.

    damage_artifact.py flip IN OUT    one bit of the ELF program headers flipped
    damage_artifact.py abort IN OUT   the first entry's symbol renamed `abort`, with a
                                      valid checksum (docs/abi.md's container)
    damage_artifact.py cut IN OUT     the ELF cut to half its length, with valid lengths
                                      and checksum (the dynamic loader faulted on it)
    damage_artifact.py datasym IN OUT `prefill`'s symbol (else the first entry's) renamed to
                                      the object's own data symbol `linnet_allocation_limit`
                                      (a call faults)
"""
import json
import struct
import sys


def fnv1a64(data):
    h = 0xcbf29ce484222325
    for b in data:
        h = ((h ^ b) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


mode, src, dst = sys.argv[1:4]
data = open(src, "rb").read()
assert data[:8] == b"LNPKG\0\0\2", "not a version-2 artifact"
m = struct.unpack("<Q", data[8:16])[0]
manifest = data[16:16 + m]
so_len = struct.unpack("<Q", data[16 + m:24 + m])[0]
so = data[24 + m:24 + m + so_len]
if mode == "flip":
    out = bytearray(data)
    out[24 + m + 0x40 + 0x10] ^= 0x40  # in the first program header
    open(dst, "wb").write(out)
elif mode == "abort":
    doc = json.loads(manifest)
    doc["entries"][0]["symbol"] = "abort"
    text = json.dumps(doc).encode()
    body = data[:8] + struct.pack("<Q", len(text)) + text + struct.pack("<Q", len(so)) + so
    open(dst, "wb").write(body + struct.pack("<Q", fnv1a64(body)))
elif mode == "datasym":
    doc = json.loads(manifest)
    named = [e for e in doc["entries"] if e["name"] == "prefill"] or doc["entries"][:1]
    named[0]["symbol"] = "linnet_allocation_limit"
    text = json.dumps(doc).encode()
    body = data[:8] + struct.pack("<Q", len(text)) + text + struct.pack("<Q", len(so)) + so
    open(dst, "wb").write(body + struct.pack("<Q", fnv1a64(body)))
elif mode == "cut":
    half = so[:len(so) // 2]
    body = data[:8] + struct.pack("<Q", m) + manifest + struct.pack("<Q", len(half)) + half
    open(dst, "wb").write(body + struct.pack("<Q", fnv1a64(body)))
else:
    sys.exit("mode: flip, abort, cut or datasym")
