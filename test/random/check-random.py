#!/usr/bin/env python3
"""Compares the compiled std.random (Inputs/draws.linnet, built into ARTIFACT)
with the jax.random outputs recorded in test/data/reference/jax_random.json
(jax's default threefry_partitionable mode): keys, bits, categorical draws
and uniform floats exactly (floats by their bits). `normal` goes through
erfinv's log and sqrt, whose f32 implementations differ from XLA's in the
last place (std.random documents it as "up to rounding"): it must agree
within one unit in the last place, and the line says how many are exact. Standard library only (no numpy): results
come back through `linnet-run --calls ... --out FILE.safetensors`, read here.

    check-random.py LINNET_RUN ARTIFACT JAX_RANDOM.json WORKDIR
Prints one line per comparison, then "N passed, M failed"; exits 1 on any failure.
"""
import json
import struct
import subprocess
import sys
from pathlib import Path

linnet_run, artifact, reference, work = sys.argv[1:5]
work = Path(work)
work.mkdir(parents=True, exist_ok=True)
ref = json.load(open(reference))
logits = ref["categorical_logits"]
rows = [logits["values"][i * 10:(i + 1) * 10] for i in range(3)]

# (entry, extra args, what jax recorded under the key, how to flatten it)
checks = [
    ("split4", {}, "split_4"), ("split2", {}, "split_2"), ("fold7", {}, "fold_in_7"),
    ("bits8", {}, "bits_u32_8"), ("bits7", {}, "bits_u32_7"),
    ("uniform8", {}, "uniform_f32_8"), ("normal8", {}, "normal_f32_8"),
    ("categorical", {"logits": rows}, "categorical_3x10"),
    ("categorical_cooled", {"logits": rows}, "categorical_3x10_over_0.8"),
]
calls, expected = [], []
for key in ref["in_force"]["keys"]:
    for entry, extra, name in checks:
        calls.append({"entry": entry, "args": dict({"key": key["key"]}, **extra)})
        expected.append((key["label"], entry, key[name]))
(work / "calls.json").write_text(json.dumps({"calls": calls}))
out = work / "draws.safetensors"
subprocess.run([linnet_run, artifact, "--calls", str(work / "calls.json"), "--out", str(out)], check=True)

data = out.read_bytes()
header_len = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + header_len])
body = data[8 + header_len:]


def tensor(name):
    t = header[name]
    start, end = t["data_offsets"]
    raw = body[start:end]
    fmt = {"I64": "q", "I32": "i", "F32": "I"}[t["dtype"]]  # floats as their bits
    return list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))


def flatten(v):
    if isinstance(v, dict):
        return v["bits"]  # floats: compared by their bits
    out = []
    for x in v:
        out.extend(flatten(x) if isinstance(x, list) else [x])
    return out


passed = failed = 0
for i, (label, entry, want) in enumerate(expected):
    got, want = tensor(str(i)), flatten(want)
    ok = got == want
    note = ""
    if entry == "normal8" and len(got) == len(want):
        # Same sign and exponent, mantissas at most one apart.
        ok = all(abs(g - w) <= 1 and (g >> 31) == (w >> 31) for g, w in zip(got, want))
        note = " (%d of %d bit-exact, the rest 1 ulp)" % (sum(g == w for g, w in zip(got, want)), len(want))
    print("%s %s %s%s%s" % ("PASS" if ok else "FAIL", label, entry, note, "" if ok else ": got %s, jax %s" % (got, want)))
    passed += ok
    failed += not ok
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
