#!/usr/bin/env python3
"""Compares tensors that `linnet-run --out` saved, for the equalities between
phi3's own entries (ENTRIES.md, "Equalities the parity suite checks"). Standard
library only (no numpy): a safetensors file is an 8-byte little-endian header
length, a JSON header (dtype, shape, data_offsets per tensor), then raw data.

    compare.py [MODE] LHS RHS [[MODE] LHS RHS]...

The arguments are read left to right; a MODE applies to every pair after it:
  --tol X    floats: pass when every |lhs - rhs| <= X (absolute)
  --exact    every element equal (token ids)
  --differ   at least one element differs (another key must draw otherwise)
A side is one of
  FILE.safetensors:NAME[INDEX]   tensor NAME ("0", "1.0", ...), optionally
                                 indexed NumPy-style: ints and a:b slices
                                 separated by commas, missing axes whole
  argmax:FILE.safetensors:NAME[INDEX]  the argmax over the last axis (the
                                 first maximum on ties, as numpy.argmax)
  json:LITERAL                   a nested list (pinned token ids)
Both sides must have the same shape. Prints one PASS/FAIL line per pair with
the largest difference, then "N passed, M failed"; exits 1 on any failure.
"""
import itertools
import json
import re
import struct
import sys

_FORMATS = {"F32": "f", "F64": "d", "F16": "e", "I32": "i", "I64": "q", "U32": "I", "U8": "B", "BOOL": "?"}
_SIDE = re.compile(r"^(?P<file>.+\.safetensors):(?P<name>[^\[\]]+)(?P<index>\[[^\]]*\])?$")
_files = {}


def load(path):
    """Returns {name: (shape, flat values)} for one safetensors file (cached)."""
    if path not in _files:
        data = open(path, "rb").read()
        header_len = struct.unpack("<Q", data[:8])[0]
        header = json.loads(data[8:8 + header_len])
        body = data[8 + header_len:]
        tensors = {}
        for name, t in header.items():
            if name == "__metadata__":
                continue
            start, end = t["data_offsets"]
            raw = body[start:end]
            if t["dtype"] == "BF16":  # the top half of an f32
                bits = struct.unpack("<%dH" % (len(raw) // 2), raw)
                values = [struct.unpack("<f", struct.pack("<I", b << 16))[0] for b in bits]
            else:
                fmt = _FORMATS[t["dtype"]]
                values = list(struct.unpack("<%d%s" % (len(raw) // struct.calcsize(fmt), fmt), raw))
            tensors[name] = (list(t["shape"]), values)
        _files[path] = tensors
    return _files[path]


def parse_index(text, shape):
    """'[0, 2:5]' -> per-axis lists of indices, and which axes stay."""
    items = [s.strip() for s in text[1:-1].split(",")] if text else []
    if len(items) > len(shape):
        raise ValueError("index %s has more axes than shape %s" % (text, shape))
    picks, kept = [], []
    for axis, extent in enumerate(shape):
        item = items[axis] if axis < len(items) else ":"
        if ":" in item:
            parts = [int(p) if p else None for p in item.split(":")]
            picks.append(list(range(extent))[slice(*parts)])
            kept.append(True)
        else:
            i = int(item)
            if not -extent <= i < extent:
                raise ValueError("index %d out of range for axis %d of extent %d" % (i, axis, extent))
            picks.append([i % extent])
            kept.append(False)
    return picks, kept


def select(shape, values, text):
    picks, kept = parse_index(text, shape)
    strides = [1] * len(shape)
    for axis in range(len(shape) - 2, -1, -1):
        strides[axis] = strides[axis + 1] * shape[axis + 1]
    out = [values[sum(i * s for i, s in zip(pos, strides))] for pos in itertools.product(*picks)]
    return [len(p) for p, k in zip(picks, kept) if k], out


def nested_to_flat(value):
    if not isinstance(value, list):
        return [], [value]
    parts = [nested_to_flat(v) for v in value]
    if any(p[0] != parts[0][0] for p in parts):
        raise ValueError("ragged literal")
    inner = parts[0][0] if parts else []
    return [len(value)] + inner, [x for p in parts for x in p[1]]


def read_side(text):
    if text.startswith("json:"):
        return nested_to_flat(json.loads(text[len("json:"):]))
    argmax = text.startswith("argmax:")
    if argmax:
        text = text[len("argmax:"):]
    m = _SIDE.match(text)
    if not m:
        raise ValueError("cannot read `%s`: expected FILE.safetensors:NAME[INDEX]" % text)
    tensors = load(m.group("file"))
    if m.group("name") not in tensors:
        raise ValueError("%s has no tensor `%s` (it has %s)" % (m.group("file"), m.group("name"), sorted(tensors)))
    shape, values = select(*tensors[m.group("name")], m.group("index"))
    if argmax:
        n = shape[-1]
        rows = [values[i:i + n] for i in range(0, len(values), n)]
        shape, values = shape[:-1], [max(range(n), key=lambda j: (r[j], -j)) for r in rows]
    return shape, values


def preview(values):
    """The values, elided past 16 (a logits row would fill the screen)."""
    return str(values) if len(values) <= 16 else "[%s, ...]" % ", ".join(map(str, values[:16]))


def short(text):
    return text.split("/")[-1]


def main(argv):
    mode, tol = "exact", 0.0
    passed = failed = 0
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--tol":
            mode, tol = "tol", float(args.pop(0))
            continue
        if arg in ("--exact", "--differ"):
            mode = arg[2:]
            continue
        if not args:
            sys.exit("compare.py: `%s` has no right-hand side" % arg)
        lhs_text, rhs_text = arg, args.pop(0)
        label = "%s vs %s" % (short(lhs_text), short(rhs_text))
        (ls, lv), (rs, rv) = read_side(lhs_text), read_side(rhs_text)
        if ls != rs:
            ok, note = False, "shapes differ: %s vs %s" % (ls, rs)
        else:
            diffs = [abs(a - b) for a, b in zip(lv, rv)]
            worst = max(range(len(diffs)), key=diffs.__getitem__) if diffs else None
            ndiff = sum(a != b for a, b in zip(lv, rv))
            if mode == "tol":
                ok = all(d <= tol for d in diffs)  # NaN fails: comparisons with NaN are false
                note = "max |diff| %.3g (tol %g)" % (diffs[worst] if diffs else 0.0, tol)
                if not ok:
                    note += " at flat element %d: %r vs %r" % (worst, lv[worst], rv[worst])
            elif mode == "exact":
                ok = ndiff == 0
                note = "%d elements equal" % len(lv) if ok else "%d of %d differ: %s vs %s" % (ndiff, len(lv), preview(lv), preview(rv))
            else:
                ok = ndiff > 0
                note = "%d of %d differ" % (ndiff, len(lv)) if ok else "all %d equal: %s" % (len(lv), preview(lv))
        print("%s %s %s: %s" % ("PASS" if ok else "FAIL", mode, label, note))
        passed += ok
        failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
