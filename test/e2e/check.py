#!/usr/bin/env python3
"""Runs one end-to-end program's calls and compares every result with the
values recorded in its expected JSON (test/e2e/expected/NAME.json, written by
tools/e2e/make_expected.py with numpy, independently of linnet).

    check.py LINNET_RUN ARTIFACT EXPECTED.json WORKDIR [--perturb]

The JSON holds the calls in order (entry, args, optional bind) and, per call,
its results: dtype, shape, flat row-major values, and for a float result a
tolerance {"rel", "abs", "why"}; integers and bools must match exactly. The
calls run in one `linnet-run --calls` process (state is kept between them) and
come back through `--out FILE.safetensors`, read here with the standard library
only. Every recorded result must be present with its dtype and shape, and no
other result may come back.

--perturb checks the checker: it changes one value of every recorded result by
more than its tolerance and passes only if each such comparison fails.

Prints one line per result, then "N passed, M failed"; exits 1 on any failure.
"""
import json
import math
import struct
import subprocess
import sys
from pathlib import Path

SAFETENSORS_DTYPES = {
    "BOOL": ("bool", "?"), "U8": ("u8", "B"), "I8": ("i8", "b"), "U16": ("u16", "H"),
    "I16": ("i16", "h"), "U32": ("u32", "I"), "I32": ("i32", "i"), "U64": ("u64", "Q"),
    "I64": ("i64", "q"), "F16": ("f16", "e"), "BF16": ("bf16", "H"), "F32": ("f32", "f"),
    "F64": ("f64", "d"),
}
FLOATS = {"f16", "bf16", "f32", "f64"}


def read_safetensors(path):
    data = Path(path).read_bytes()
    header_len = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + header_len])
    body = data[8 + header_len:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        dtype, fmt = SAFETENSORS_DTYPES[t["dtype"]]
        start, end = t["data_offsets"]
        raw = body[start:end]
        values = list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))
        if dtype == "bf16":  # the high half of an f32
            values = [struct.unpack("<f", struct.pack("<I", v << 16))[0] for v in values]
        if dtype == "bool":
            values = [int(v) for v in values]
        out[name] = (dtype, list(t["shape"]), values)
    return out


NPY_DESCR = {"bool": ("|b1", "?"), "u8": ("|u1", "B"), "i8": ("|i1", "b"), "u16": ("<u2", "H"),
             "i16": ("<i2", "h"), "u32": ("<u4", "I"), "i32": ("<i4", "i"), "u64": ("<u8", "Q"),
             "i64": ("<i8", "q"), "f16": ("<f2", "e"), "f32": ("<f4", "f"), "f64": ("<f8", "d")}


def write_npy(path, dtype, shape, values):
    """A version 1.0 .npy file of `values` (flat, row-major) with that dtype and shape."""
    descr, fmt = NPY_DESCR[dtype]
    dims = "".join("%d," % d for d in shape) if len(shape) == 1 else ", ".join(str(d) for d in shape)
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    body = struct.pack("<%d%s" % (len(values), fmt), *values)
    Path(path).write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + body)


def mismatches(dtype, got, want, tol):
    """Indices where got differs from want beyond the tolerance."""
    bad = []
    for i, (g, w) in enumerate(zip(got, want)):
        if dtype in FLOATS:
            if math.isnan(g) or abs(g - w) > tol["abs"] + tol["rel"] * abs(w):
                bad.append(i)
        elif g != int(w):
            bad.append(i)
    return bad


def perturbed(dtype, values, tol):
    """values with element 0 moved beyond the tolerance (a bool flipped)."""
    values = list(values)
    w = values[0]
    if dtype == "bool":
        values[0] = 1 - int(w)
    elif dtype in FLOATS:
        values[0] = w + 2 * (tol["abs"] + tol["rel"] * abs(w)) + 1e-2 * max(1.0, abs(w))
    else:
        values[0] = int(w) + 1
    return values


def main():
    args = [a for a in sys.argv[1:] if a != "--perturb"]
    perturb = "--perturb" in sys.argv[1:]
    linnet_run, artifact, expected_path, work = args
    work = Path(work)
    work.mkdir(parents=True, exist_ok=True)
    spec = json.loads(Path(expected_path).read_text())

    calls = []
    for i, call in enumerate(spec["calls"]):
        args = {}
        for name, value in call["args"].items():
            # {"dtype", "shape", "values"}: an argument of that exact dtype,
            # passed as .npy (a nested list takes the entry's dtype).
            if isinstance(value, dict):
                npy = work / ("call%d-%s.npy" % (i, name))
                write_npy(npy, value["dtype"], value["shape"], value["values"])
                value = "@" + str(npy)
            args[name] = value
        c = {"entry": call["entry"], "args": args}
        if call.get("bind"):
            c["bind"] = call["bind"]
        calls.append(c)
    (work / "calls.json").write_text(json.dumps({"calls": calls}))
    out = work / "results.safetensors"
    if out.exists():
        out.unlink()
    subprocess.run([linnet_run, artifact, "--calls", str(work / "calls.json"), "--out", str(out)], check=True)
    results = read_safetensors(out)

    passed = failed = 0
    seen = set()

    def report(ok, label, detail):
        nonlocal passed, failed
        print("%s %s%s" % ("PASS" if ok else "FAIL", label, "" if ok else ": " + detail))
        passed += ok
        failed += not ok

    for i, call in enumerate(spec["calls"]):
        for part in call["results"]:
            name = str(i) if part["part"] is None else "%d.%s" % (i, part["part"])
            label = "%s %s" % (name, call["entry"])
            seen.add(name)
            if name not in results:
                report(False, label, "no result named %s" % name)
                continue
            dtype, shape, got = results[name]
            want = part["values"]
            tol = part.get("tol")
            if dtype in FLOATS and (tol is None or not tol.get("why")):
                report(False, label, "a float result needs a tolerance with a reason")
                continue
            if dtype != part["dtype"] or shape != part["shape"] or len(got) != len(want):
                report(False, label, "got %s%s, expected %s%s" % (dtype, shape, part["dtype"], part["shape"]))
                continue
            if perturb:
                bad = mismatches(dtype, got, perturbed(dtype, want, tol), tol)
                report(bool(bad), label + " (perturbed)", "a wrong expected value was accepted")
                continue
            bad = mismatches(dtype, got, want, tol)
            report(not bad, label, "%d of %d differ, first at %d: got %r, expected %r" % (
                len(bad), len(want), bad[0], got[bad[0]], want[bad[0]]) if bad else "")
    for name in sorted(set(results) - seen):
        report(False, name, "unexpected result")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
