#!/usr/bin/env python3
"""Writes test/e2e/expected/NAME.json for each end-to-end program in test/e2e/:
the calls to run (entry, arguments, binds) and every result's expected dtype,
shape and values, with a tolerance and its reason for float results.

Every expected value is computed here with numpy from the language's
semantics (spec and docs/dialect.md), written by hand per program: nothing
here runs linnet. Inputs come from a seeded generator, so a rerun writes the
same files. Needs numpy, installed only into a venv under build/:

    python3 -m venv build/e2e-venv && build/e2e-venv/bin/pip install numpy
    build/e2e-venv/bin/python tools/e2e/make_expected.py [NAME...]

The JSON files are committed; test/e2e/check.py reads them with the standard
library only.
"""
import json
import sys
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[2] / "test" / "e2e" / "expected"

# Tolerances. Integers and bools are always compared exactly (check.py).
EXACT = {"rel": 0.0, "abs": 0.0, "why": "exact: every intermediate is representable, no rounding"}
EXACT_DYADIC = {"rel": 0.0, "abs": 0.0,
                "why": "exact: inputs are small multiples of 1/4, so every sum in any order is exact in f32"}
PRODUCTS_OF_QUARTERS = {"rel": 0.0, "abs": 0.0,
                        "why": "exact: products of multiples of 1/4 are multiples of 1/16, and their small sums are exact in f32"}
REORDERED = {"rel": 1e-6, "abs": 1e-6,
             "why": "f32 sums may be reassociated by the compiler: a few ulp of the result"}
TRANSCENDENTAL = {"rel": 2e-6, "abs": 1e-7,
                  "why": "f32 transcendental functions: libm/polynomial results within a couple of ulp"}


def f32(x):
    return np.asarray(x, dtype=np.float32)


def bf16_round(x):
    """f32 -> bf16 (round to nearest even) -> f32, as numpy floats."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def typed(x, dtype):
    """An argument of exactly `dtype` (check.py passes it as .npy); a plain
    value is a nested list, which takes the entry's (or first variant's) dtype."""
    a = np.asarray(x)
    return {"dtype": dtype, "shape": list(a.shape), "values": a.reshape(-1).tolist()}


def tolist(x):
    if isinstance(x, dict):
        return x
    a = np.asarray(x)
    if a.dtype == np.bool_:
        return a.tolist()
    return a.tolist()


def result(value, dtype, tol=None, part=None):
    a = np.asarray(value)
    r = {"part": part, "dtype": dtype, "shape": list(a.shape)}
    flat = a.reshape(-1)
    if dtype == "bool":
        r["values"] = [int(v) for v in flat]
    elif dtype in ("f16", "bf16", "f32", "f64"):
        assert tol is not None, "a float result needs a tolerance"
        r["values"] = [float(v) for v in flat]
        r["tol"] = tol
    else:
        r["values"] = [int(v) for v in flat]
    return r


def call(entry, args, *results, bind=None):
    c = {"entry": entry, "args": {k: tolist(v) for k, v in args.items()}}
    if bind:
        c["bind"] = bind
    c["results"] = list(results)
    return c


def dyadic(rng, shape, lo=-8, hi=8):
    """f32 multiples of 1/4 in [lo/4, hi/4]."""
    return f32(rng.integers(lo, hi + 1, size=shape) / 4.0)


PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


@program
def reductions(rng):
    x = dyadic(rng, (3, 4))
    xi = rng.integers(-3, 4, size=(3, 4)).astype(np.int32)
    xl = rng.integers(-1000, 1000, size=(3, 4)).astype(np.int64)
    b = rng.integers(0, 2, size=(3, 4)).astype(bool)
    b[0, :] = True   # one all-true row, one all-false row
    b[1, :] = False
    sq = rng.integers(-9, 10, size=(4, 4)).astype(np.int32)
    a = dyadic(rng, (5, 3))
    w = dyadic(rng, (3, 2))
    # bf16 data whose f32 sum differs from a bf16 running sum: 64 values near 1
    # plus small ones, all exactly representable in bf16.
    hb = bf16_round(f32(1.0 + rng.integers(0, 128, size=(2, 64)) / 128.0))
    x3 = dyadic(rng, (2, 3, 4))
    x35 = f32(rng.standard_normal((3, 5)))
    x235 = f32(rng.standard_normal((2, 3, 5)))
    c = dyadic(rng, (2, 4))
    return [
        call("sum_rows", {"x": x}, result(x.sum(axis=1), "f32", EXACT_DYADIC)),
        call("prod_cols", {"x": xi}, result(np.prod(xi, axis=0), "i32")),
        call("max_rows", {"x": x}, result(x.max(axis=1), "f32", EXACT)),
        call("min_cols", {"x": xl}, result(xl.min(axis=0), "i64")),
        call("any_rows", {"x": b}, result(b.any(axis=1), "bool")),
        call("all_rows", {"x": b}, result(b.all(axis=1), "bool")),
        call("total", {"x": x}, result(x.sum(), "f32", EXACT_DYADIC)),
        call("trace", {"x": sq}, result(np.trace(sq), "i32")),
        call("matmul", {"a": a, "b": w}, result(a.astype(np.float64) @ w, "f32", EXACT_DYADIC)),
        call("accumulate", {"x": hb}, result(hb.astype(np.float64).sum(axis=1), "f32",
             {"rel": 0.0, "abs": 0.0, "why": "exact: 64 bf16 values in [1, 2) with 8-bit mantissas sum exactly in f32 "
              "(a bf16 accumulator would lose the low bits)"})),
        call("nested_same", {"x": x3}, result(x3.sum(axis=(1, 2)), "f32", EXACT_DYADIC)),
        call("nested_mixed", {"x": x3}, result(x3.max(axis=2).sum(axis=1), "f32", EXACT_DYADIC)),
        call("centered", {"x": c}, result(c - c.max(axis=1, keepdims=True), "f32", EXACT_DYADIC)),
        call("pack_rank1", {"x": x35}, result(x35.astype(np.float64).sum(axis=-1), "f32", REORDERED)),
        call("pack_rank2", {"x": x235}, result(x235.astype(np.float64).sum(axis=-1), "f32", REORDERED)),
    ]



@program
def gathers(rng):
    table = dyadic(rng, (6, 3))
    ids = np.array([5, 0, 3, 3, 1, 2, 4], dtype=np.int32)
    logits = dyadic(rng, (4, 5))
    labels = np.array([4, 0, 2, 1], dtype=np.int64)
    x = rng.integers(-50, 50, size=5).astype(np.int32)
    p = np.array([3, 0, 4, 1, 2], dtype=np.int32)
    m = rng.integers(-9, 10, size=(4, 3)).astype(np.int32)
    picked = logits[np.arange(4), labels]
    return [
        call("lookup", {"ids": ids, "table": table}, result(table[ids], "f32", EXACT)),
        call("pick", {"logits": logits, "labels": labels}, result(picked, "f32", EXACT)),
        call("picked_total", {"logits": logits, "labels": labels}, result(picked.sum(), "f32", EXACT_DYADIC)),
        call("twice", {"x": x, "p": p}, result(x[p[p]], "i32")),
        call("row", {"x": m, "i": 2}, result(m[2, :], "i32")),
        call("row", {"x": m, "i": 0}, result(m[0, :], "i32")),
    ]


@program
def gathers_out_of_range(rng):
    table = dyadic(rng, (6, 3))
    ids = np.array([-3, 0, 5, 6, 100, 2147483647, -2147483648], dtype=np.int32)
    big = np.array([4000000000, 1, 2147483648, 6], dtype=np.uint32)
    wide = dyadic(rng, (3, 4))
    far = np.array([-1, 3, 4, 9_000_000_000, 2], dtype=np.int64)
    m = rng.integers(-9, 10, size=(2, 5)).astype(np.int32)
    empty_ids = np.array([0, 2], dtype=np.int64)
    huge = np.array([2**63, 2**64 - 1, 3, 2**63 - 1, 9], dtype=np.uint64)
    return [
        call("lookup", {"ids": ids, "table": table}, result(table[np.clip(ids, 0, 5)], "f32", EXACT)),
        call("lookup_u32", {"ids": big, "table": table},
             result(table[np.clip(big.astype(np.int64), 0, 5)], "f32", EXACT)),
        call("lookup_u64", {"ids": huge, "table": table},
             result(table[np.minimum(huge, np.uint64(5)).astype(np.int64)], "f32", EXACT)),
        call("row_u64", {"k": int(2**63 + 5), "table": table}, result(table[5], "f32", EXACT)),
        call("row_u64", {"k": 2, "table": table}, result(table[2], "f32", EXACT)),
        call("columns", {"ids": far, "table": wide}, result(wide[:, np.clip(far, 0, 3)], "f32", EXACT)),
        call("columns", {"ids": empty_ids, "table": np.zeros((3, 0), np.float32)},
             result(np.zeros((3, 2), np.float32), "f32", EXACT)),
        call("columns_bf16", {"ids": far, "table": wide}, result(wide[:, np.clip(far, 0, 3)], "bf16", EXACT)),
        call("columns_bf16", {"ids": empty_ids, "table": np.zeros((3, 0), np.float32)},
             result(np.zeros((3, 2), np.float32), "bf16", EXACT)),
        call("column", {"x": m, "i": -1}, result(m[:, 0], "i32")),
        call("column", {"x": m, "i": 7}, result(m[:, 4], "i32")),
        call("column", {"x": m, "i": 3}, result(m[:, 3], "i32")),
        call("column", {"x": np.zeros((2, 0), np.int32), "i": 0}, result(np.zeros(2, np.int32), "i32")),
    ]


@program
def notation_if(rng):
    x = dyadic(rng, (5,))
    xi = np.array([7, -8, 9, 10, -11, 0], dtype=np.int32)
    d = np.array([2, 0, -3, 0, 4, 0], dtype=np.int32)
    quotient = np.where(d != 0, np.trunc(xi / np.where(d != 0, d, 1)), xi).astype(np.int32)
    m = dyadic(rng, (3, 4))
    ids = np.array([3, 0, 2, 1], dtype=np.int32)
    limit = np.float32(0.5)
    clipped = np.where(m < limit, m[:, ids], limit).sum(axis=1)
    return [
        call("magnitude", {"x": x}, result(np.abs(x), "f32", EXACT)),
        call("guarded_div", {"x": xi, "d": d}, result(quotient, "i32")),
        call("clipped_total", {"x": m, "ids": ids, "limit": float(limit)}, result(clipped, "f32", EXACT_DYADIC)),
        call("signs", {"x": x}, result(np.where(x < 0, -1, 1).astype(np.int64), "i64")),
        call("halves", {"x": x}, result(np.where(x < 0, -0.5, 1.5), "f64", EXACT)),
        call("sides", {"x": x}, result(np.where(x < 0, -1, 1).astype(np.int64), "i64")),
        call("above", {"x": x, "o": 0.25}, result(np.where(x > 0.25, 1.0, 0.0), "f64", EXACT)),
        call("above", {"x": x}, result(np.full(5, 0.5), "f64", EXACT)),
    ]


def f16(x):
    return np.asarray(x, dtype=np.float32).astype(np.float16).astype(np.float32)


def trunc_sat(x, lo, hi):
    """float -> int: truncate toward zero, saturate, NaN -> 0."""
    x = np.asarray(x, dtype=np.float64)
    return np.clip(np.nan_to_num(np.trunc(x)), lo, hi).astype(np.int64)


@program
def casts(rng):
    one = 1.0
    ulp = 2.0 ** -7   # bf16 spacing in [1, 2)
    # Ties go to even: 1 + ulp/2 -> 1, 1 + 3ulp/2 -> 1 + 2ulp; just above a tie rounds up.
    to_bf16 = f32([one + ulp / 2, one + 3 * ulp / 2, one + ulp / 2 + 2.0 ** -20, -(one + ulp / 2),
                   3.14159265, -1e-3, 65504.0, 1.0e30])
    to_f16 = f32([0.1, -2.5, 1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, 1000.7, -3e-5])
    bf = bf16_round(f32([0.15625, -2.75, 1.5e10, 7.0]))
    h = f16([0.1, 1.0 + 2.0 ** -10, -300.25, 1.0 + 3 * 2.0 ** -10])
    to_i = f32([2.9, -2.9, 0.5, -0.5, 7.0, -7.0, 123456.78, -0.0])
    big = f32([3.0e9, -3.0e9, 2147483520.0, -2147483648.0])
    to_u8 = f32([0.0, 1.9, 200.5, 255.0])
    i_u8 = np.array([0, 255, 256, -1, 300], dtype=np.int32)
    i64 = np.array([1, -1, 2 ** 32 + 5, 2 ** 31], dtype=np.int64)
    u8 = np.array([0, 1, 128, 255], dtype=np.uint8)
    i32 = np.array([0, -7, 16777217, 2 ** 31 - 1], dtype=np.int32)
    b = np.array([True, False, True, False])
    fb = f32([0.0, -0.0, 0.5, -2.0, 1e-30])
    ib = np.array([0, 1, -1, 2, 256], dtype=np.int32)
    return [
        call("to_bf16", {"x": to_bf16}, result(bf16_round(to_bf16), "bf16",
             {"rel": 0.0, "abs": 0.0, "why": "exact: rounding f32 to bf16 is correctly rounded (nearest even)"})),
        call("to_f16", {"x": to_f16}, result(f16(to_f16), "f16",
             {"rel": 0.0, "abs": 0.0, "why": "exact: rounding f32 to f16 is correctly rounded (nearest even)"})),
        call("bf16_to_f32", {"x": bf}, result(bf, "f32", EXACT)),
        call("f16_to_bf16", {"x": h}, result(bf16_round(h), "bf16",
             {"rel": 0.0, "abs": 0.0, "why": "exact: f16 -> bf16 rounds once, to nearest even"})),
        call("to_i32", {"x": to_i}, result(trunc_sat(to_i, -2 ** 31, 2 ** 31 - 1), "i32")),
        call("saturate_i32", {"x": big}, result(trunc_sat(big, -2 ** 31, 2 ** 31 - 1), "i32")),
        call("f32_to_u8", {"x": to_u8}, result(trunc_sat(to_u8, 0, 255), "u8")),
        call("i32_to_u8", {"x": i_u8}, result(i_u8.astype(np.uint8), "u8")),
        call("i64_to_i32", {"x": i64}, result(i64.astype(np.int32), "i32")),
        call("u8_to_i64", {"x": u8}, result(u8.astype(np.int64), "i64")),
        call("i32_to_f32", {"x": i32}, result(i32.astype(np.float32), "f32",
             {"rel": 0.0, "abs": 0.0, "why": "exact: int -> f32 rounds to nearest even (16777217 -> 16777216)"})),
        call("bool_to_f32", {"x": b}, result(b.astype(np.float32), "f32", EXACT)),
        call("bool_to_i32", {"x": b}, result(b.astype(np.int32), "i32")),
        call("f32_to_bool", {"x": fb}, result(fb != 0, "bool")),
        call("i32_to_bool", {"x": ib}, result(ib != 0, "bool")),
    ]


@program
def shape_ops(rng):
    x = np.arange(12, dtype=np.int32).reshape(2, 6) * 7 - 30
    x3 = rng.integers(-99, 100, size=(2, 3, 4)).astype(np.int32)
    col = dyadic(rng, (3, 1))
    a = rng.integers(-9, 10, size=(2, 3)).astype(np.int32)
    b1 = rng.integers(-9, 10, size=(1, 3)).astype(np.int32)
    b2 = rng.integers(-9, 10, size=(2, 2)).astype(np.int32)
    c1 = rng.integers(-9, 10, size=(2, 1)).astype(np.int32)
    ci = rng.integers(-9, 10, size=(3, 4)).astype(np.int32)
    cf = dyadic(rng, (3, 4))
    many = rng.integers(-99, 100, size=(3, 2)).astype(np.int32)
    return [
        call("reshaped", {"x": x}, result(x.reshape(3, 2, 2), "i32")),
        call("permuted", {"x": x3}, result(np.transpose(x3, (2, 0, 1)), "i32")),
        call("broadcast", {"x": col}, result(np.broadcast_to(col, (2, 3, 4)), "f32", EXACT)),
        call("concat_rows", {"a": a, "b": b1}, result(np.concatenate([a, b1], axis=0), "i32")),
        call("concat_last", {"a": a, "b": b2, "c": c1}, result(np.concatenate([a, b2, c1], axis=-1), "i32")),
        call("positions", {"x": f32(np.zeros(6))}, result(np.arange(6, dtype=np.int64), "i64")),
        call("positions_i32", {"x": f32(np.zeros(5))}, result(np.arange(5, dtype=np.int32) * 3, "i32")),
        call("filled", {}, result(np.full((2, 3), 1.5, dtype=np.float32), "f32", EXACT)),
        call("filled_from", {"v": -17}, result(np.full(4, -17, dtype=np.int32), "i32")),
        call("cumsum_rows", {"x": ci}, result(np.cumsum(ci, axis=1), "i32")),
        call("cumsum_cols", {"x": cf}, result(np.cumsum(cf, axis=0), "f32", EXACT_DYADIC)),
        call("concat_many", {"x": many}, result(np.concatenate([many + i for i in range(35)], axis=0), "i32")),
    ]


@program
def elementwise(rng):
    x = f32([-2.5, -1.0, -0.125, 0.0, 0.75, 3.0])
    pos = f32([1e-3, 0.25, 1.0, 2.0, 10.0, 12345.0])
    ang = f32([-3.0, -0.5, 0.0, 0.1, 1.5707964, 6.0])
    xi = np.array([-2147483647, -5, -1, 0, 1, 42], dtype=np.int32)
    a = dyadic(rng, (6,))
    b = dyadic(rng, (6,))
    al = rng.integers(-100, 100, size=6).astype(np.int64)
    si = np.array([1, -1, -16, 12345, -2147483648, 7], dtype=np.int32)
    sn = np.array([0, 1, 2, 3, 4, 31], dtype=np.int32)
    su = np.array([0, 1, 7, 64, 200, 255], dtype=np.uint8)
    c = np.array([True, False, False, True, True, False])
    xs = rng.integers(-5, 6, size=6).astype(np.int32)
    d = np.float64
    tr = TRANSCENDENTAL
    return [
        call("exps", {"x": x}, result(np.exp(x.astype(d)), "f32", tr)),
        call("logs", {"x": pos}, result(np.log(pos.astype(d)), "f32", tr)),
        call("sqrts", {"x": pos}, result(np.sqrt(pos.astype(d)), "f32",
             {"rel": 1e-7, "abs": 0.0, "why": "f32 sqrt is correctly rounded: half an ulp of the f64 value"})),
        call("rsqrts", {"x": pos}, result(1.0 / np.sqrt(pos.astype(d)), "f32", tr)),
        call("sines", {"x": ang}, result(np.sin(ang.astype(d)), "f32", tr)),
        call("cosines", {"x": ang}, result(np.cos(ang.astype(d)), "f32", tr)),
        call("tanhs", {"x": x}, result(np.tanh(x.astype(d)), "f32", tr)),
        call("abs_f32", {"x": x}, result(np.abs(x), "f32", EXACT)),
        call("abs_i32", {"x": xi}, result(np.abs(xi), "i32")),
        call("minmax", {"a": a, "b": b}, result(np.minimum(a, b), "f32", EXACT, part=0),
             result(np.maximum(a, b), "f32", EXACT, part=1)),
        call("minmax_i64", {"a": al, "b": 7}, result(np.minimum(al, 7), "i64", part=0),
             result(np.maximum(al, 7), "i64", part=1)),
        call("shifts_i32", {"x": si, "n": sn},
             result((si.astype(np.int64) << sn).astype(np.uint64).astype(np.uint32).view(np.int32), "i32", part=0),
             result(si >> sn, "i32", part=1)),   # numpy >> on signed ints is arithmetic
        call("shifts_u8", {"x": su}, result((su.astype(np.int64) << 2) & 0xFF, "u8", part=0),
             result(su >> 3, "u8", part=1)),     # logical on unsigned
        call("chosen", {"c": c, "a": a, "b": b}, result(np.where(c, a, b), "f32", EXACT)),
        call("chosen_scalar", {"x": xs}, result(np.where(xs > 0, xs, 0), "i32")),
    ]


def trunc_div(a, b):
    """Integer division truncating toward zero, wrapping in a's dtype."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    q = np.abs(a64) // np.abs(b64) * np.sign(a64) * np.sign(b64)
    return q, a64 - q * b64


def wrap(x, dtype):
    return np.asarray(x, dtype=np.int64).astype(np.uint64).astype(np.dtype(dtype).str.replace("i", "u")).view(dtype)


@program
def operators(rng):
    a = np.array([7, -7, 7, -7, 2147483647, -2147483648, 0, 100], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 1, 3, 5, -7], dtype=np.int32)
    q, r = trunc_div(a, b)
    al = np.array([9, -9, 9, -9, -(2 ** 40) - 3, 1], dtype=np.int64)
    bl = np.array([4, 4, -4, -4, 1000, -1], dtype=np.int64)
    ql, rl = trunc_div(al, bl)
    au = np.array([200, 10, 3, 255, 17, 0], dtype=np.uint8)
    bu = np.array([100, 20, 200, 2, 5, 9], dtype=np.uint8)
    af = f32([7.5, -7.5, 7.5, -7.5, 1.0, 0.0])
    bf = f32([2.0, 2.0, -2.0, -2.0, 4.0, 3.0])
    ci = np.array([1, 5, -3, 4, 0, -8], dtype=np.int32)
    cj = np.array([1, 2, -3, 9, -1, -7], dtype=np.int32)
    fa = dyadic(rng, (2, 3))
    fb = dyadic(rng, (3,))
    p = np.array([True, True, False, False])
    qb = np.array([True, False, True, False])
    ba = np.array([12, -1, 0x0F0F, 5], dtype=np.int32)
    bb = np.array([10, 255, 0x00FF, -6], dtype=np.int32)
    a64 = a.astype(np.int64)
    b64 = b.astype(np.int64)
    ex = {"rel": 0.0, "abs": 0.0, "why": "exact: dividends and divisors are small dyadic numbers"}
    logic = []
    for pv, qv in [(True, False), (False, False), (True, True)]:
        logic.append(call("logic", {"p": pv, "q": qv}, result(pv and qv, "bool", part=0),
                          result(pv or qv, "bool", part=1), result(not pv, "bool", part=2)))
    return [
        call("arith_i32", {"a": a, "b": b},
             result(wrap(a64 + b64, np.int32), "i32", part=0), result(wrap(a64 - b64, np.int32), "i32", part=1),
             result(wrap(a64 * b64, np.int32), "i32", part=2), result(wrap(q, np.int32), "i32", part=3),
             result(wrap(r, np.int32), "i32", part=4)),
        call("arith_i64", {"a": al, "b": bl}, result(ql, "i64", part=0), result(rl, "i64", part=1)),
        call("arith_u8", {"a": au, "b": bu},
             result((au.astype(np.int64) + bu) % 256, "u8", part=0), result((au.astype(np.int64) - bu) % 256, "u8", part=1),
             result((au.astype(np.int64) * bu) % 256, "u8", part=2), result(au // bu, "u8", part=3),
             result(au % bu, "u8", part=4)),
        call("arith_f32", {"a": af, "b": bf}, result(af / bf, "f32", ex, part=0),
             result(np.fmod(af, bf), "f32", ex, part=1), result(-af * 2.0 + 1.0, "f32", ex, part=2)),
        call("negate", {"a": a[:4]}, result(-a[:4], "i32")),
        call("compare", {"a": ci, "b": cj}, result(ci == cj, "bool", part=0), result(ci != cj, "bool", part=1),
             result(ci < cj, "bool", part=2), result(ci <= cj, "bool", part=3), result(ci > cj, "bool", part=4),
             result(ci >= cj, "bool", part=5)),
        call("compare_f32", {"a": fa, "b": fb}, result(fa < fb, "bool")),
        call("bool_ops", {"p": p, "q": qb}, result(p & qb, "bool", part=0), result(p | qb, "bool", part=1),
             result(p ^ qb, "bool", part=2), result(~p, "bool", part=3)),
        call("bit_ops", {"a": ba, "b": bb}, result(ba & bb, "i32", part=0), result(ba | bb, "i32", part=1),
             result(ba ^ bb, "i32", part=2)),
    ] + logic


@program
def unsigned_u32(rng):
    a = np.array([4000000000, 7, 3000000000, 1], dtype=np.uint32)
    b = np.array([3, 2, 4000000000, 1], dtype=np.uint32)
    return [call("arith_u32", {"a": a, "b": b}, result(a // b, "u32", part=0), result(a % b, "u32", part=1))]


@program
def slicing(rng):
    v = np.arange(10, dtype=np.int32) * 11 - 40
    m = rng.integers(-99, 100, size=(3, 7)).astype(np.int32)
    t = rng.integers(-99, 100, size=(2, 3, 4)).astype(np.int32)
    rows = dyadic(rng, (4, 3))
    x52 = dyadic(rng, (5, 2))
    i52 = rng.integers(-99, 100, size=(5, 2)).astype(np.int32)
    v6 = rng.integers(-99, 100, size=6).astype(np.int32)
    big = rng.integers(-99, 100, size=(4, 6, 5)).astype(np.int32)
    return [
        call("ranged", {"x": v}, result(v[3:7], "i32")),
        call("stepped", {"x": v}, result(v[1:8:3], "i32")),
        call("every_other", {"x": m}, result(m[:, ::2], "i32")),
        call("ellipsis", {"x": t}, result(t[..., 1], "i32")),
        call("ellipsis_front", {"x": t}, result(t[1, ...], "i32")),
        call("last", {"x": rows}, result(rows[-1, :], "f32", EXACT)),
        call("at", {"x": x52, "i": 3}, result(x52[3], "f32", EXACT)),
        call("element", {"x": i52, "i": 4, "j": 1}, result(i52[4, 1], "i32")),
        call("head", {"x": v6}, result(v6[1:], "i32")),
        call("mixed", {"x": big}, result(big[1:4:2, 2, 0:5:2], "i32")),
    ]


@program
def static_for(rng):
    x = dyadic(rng, (4,))
    acc = x.astype(np.float64)
    for i in range(4):
        acc = acc * 0.5 + i
    calls = [call("weighted", {"x": x}, result(acc, "f32", EXACT_DYADIC))]
    for steps in (1, 4, 7):
        calls.append(call("placed", {"x": 3}, result(np.array([3 + i * i for i in range(steps)]), "i32"),
                          bind={"Steps": steps}))
    for n in (1, 2, 5):   # 1..N runs N - 1 times; none for N = 1
        y = dyadic(rng, (n,))
        acc = y.astype(np.float64)
        for i in range(1, n):
            acc = acc * 0.5 + i
        calls.append(call("from_one", {"x": y}, result(acc, "f32", EXACT_DYADIC)))
    return calls


@program
def static_for_blocks(rng):
    x = dyadic(rng, (4,))
    y = x.astype(np.float64)
    for _ in range(3):   # three Affine layers, then - 0.25 after each
        y = y * 2.0 + 1.0 - 0.25
    acc = x.astype(np.float64)
    for _ in range(3):
        for _ in range(2):
            acc = acc + (acc * 2.0 + 1.0) * 0.5
    return [call("stacked", {"x": x}, result(y, "f32", EXACT_DYADIC)),
            call("inner_loop_locals", {"x": x}, result(acc, "f32", EXACT_DYADIC))]


@program
def loops(rng):
    calls = []
    for x in [1, 2, 37, 1000, -5]:
        v, steps = x, 0
        while v > 1:
            v = int(v / 2)   # truncating division; v > 1 here
            steps += 1
        calls.append(call("halvings", {"x": x}, result(v, "i32", part=0), result(steps, "i64", part=1)))
    x = dyadic(rng, (3,))
    acc = x.astype(np.float64)
    for i in range(5):
        acc = acc * 0.5 + i
    calls.append(call("counted", {"x": x}, result(acc, "f32", EXACT_DYADIC)))
    a, b = x, x * 0.0
    for i in range(4):
        a, b = a + b, a
    calls.append(call("fibs", {"x": x}, result(a, "f32", EXACT_DYADIC, part=0), result(b, "f32", EXACT_DYADIC, part=1)))
    for n in [0, 3]:
        acc = x.astype(np.float64)
        for i in range(n):
            step = acc * 0.5
            step = step + i
            acc = acc + step
        calls.append(call("iteration_local", {"x": x}, result(acc, "f32", EXACT_DYADIC), bind={"N": n}))
    return calls


@program
def loops_in_notation(rng):
    def collatz_steps(v):
        steps = 0
        while v > 1:
            v = v // 2 if v % 2 == 0 else 3 * v + 1
            steps += 1
        return steps
    x3 = dyadic(rng, (3,))
    calls = [call("with_while", {"x": x3}, result(x3 * 8.0, "f32", EXACT_DYADIC))]
    for length, n in [(5, 3), (1, -2), (0, 7)]:
        x = dyadic(rng, (length,))
        acc = x.astype(np.float64)
        for i in range(4):
            acc = acc + float(i) * float(n)
        calls.append(call("with_for", {"x": x, "n": n}, result(acc, "f32", EXACT_DYADIC), bind={"N": length}))
    xs = np.array([27, 1, 6, 0, -4], dtype=np.int32)
    calls.append(call("steps", {"x": xs}, result(np.array([collatz_steps(int(v)) for v in xs], dtype=np.int32), "i32")))
    x23 = dyadic(rng, (2, 3))
    calls.append(call("reduced", {"x": x23}, result((x23 * 8.0).sum(axis=1), "f32", EXACT_DYADIC)))
    products = PRODUCTS_OF_QUARTERS
    for n, k in [(3, 4), (2, 0)]:
        x, w = dyadic(rng, (n,)), dyadic(rng, (k,))
        calls.append(call("dot", {"x": x, "w": w}, result(x * w.sum(), "f32", products), bind={"N": n, "K": k}))
    x4 = dyadic(rng, (4,))
    calls.append(call("fibs", {"x": x4}, result(x4 * 8.0, "f32", EXACT)))   # (v, 0) -> ... -> (8v, 5v)
    return calls


@program
def scans_in_loops(rng):
    x = dyadic(rng, (3,))
    c = 0.0
    for _ in range(2):
        out = []
        for _ in range(4):
            c += x[0]
            out.append(c)
    calls = [call("in_while", {"x": x}, result(f32(out), "f32", EXACT_DYADIC))]
    c = 0.0
    for n in range(3):
        out = []
        for _ in range(4):
            c += x[n]
            out.append(c)
    calls.append(call("in_for", {"x": x}, result(f32(out), "f32", EXACT_DYADIC, part=0),
                      result(f32(c), "f32", EXACT_DYADIC, part=1)))
    c, table = 0.0, []
    for i in range(3):
        row = []
        for _ in range(4):
            c += x[i]
            row.append(c)
        table.append(row)
    calls.append(call("in_scan", {"x": x}, result(f32(table), "f32", EXACT_DYADIC, part=0),
                      result(f32(c), "f32", EXACT_DYADIC, part=1)))
    return calls


@program
def tensors_in_notation(rng):
    products = PRODUCTS_OF_QUARTERS
    calls = []
    for n, k in [(3, 4), (2, 1), (0, 3), (2, 0)]:
        x = dyadic(rng, (n,))
        calls.append(call("ramp_sums", {"x": x}, result(x * k + k * (k - 1) / 2.0, "f32", EXACT_DYADIC),
                          bind={"N": n, "K": k}))
    x, w = dyadic(rng, (3,)), dyadic(rng, (4,))
    calls.append(call("scaled_lasts", {"x": x, "w": w}, result(x * w[-1], "f32", products)))
    for n, k in [(3, 4), (1, 2)]:
        x, w = dyadic(rng, (n,)), dyadic(rng, (k,))
        calls.append(call("scaled_peaks", {"x": x, "w": w},
                          result(np.array([(w * v).max() for v in x]), "f32", products), bind={"N": n, "K": k}))
    x, c = dyadic(rng, (2, 3)), dyadic(rng, (4,))
    calls.append(call("polynomials", {"x": x, "c": c}, result(x * c.sum(), "f32", products)))
    x = dyadic(rng, (2, 2))
    t = x.sum(axis=1)
    calls.append(call("shapes", {"x": x}, result(2.0 * t + 3.0 + 0.5 * t, "f32", EXACT_DYADIC)))
    xs = np.array([3, -2, 0, 7], dtype=np.int32)
    calls.append(call("peaks", {"x": xs},
                      result(np.array([np.cumsum(np.arange(5, dtype=np.int32) * v).max() for v in xs],
                                      dtype=np.int32), "i32")))
    x = f32([1.5, -0.5, 0.0, 2.25, -3.0])
    calls.append(call("choices", {"x": x},
                      result(np.where(x > 0, 3.0 * x + 3.0, 0.75), "f32", EXACT_DYADIC)))
    x = dyadic(rng, (3,))
    calls.append(call("carried", {"x": x}, result(12.0 * x, "f32", EXACT_DYADIC, part=0),
                      result(2.0 * x * x, "f32", products, part=1)))
    xb = f32([1.5, -2.0, 0.25])   # exact in bf16, and so are their products by 0..3
    calls.append(call("narrow", {"x": xb},
                      result(np.array([(v * np.arange(4, dtype=np.float32)).max() for v in xb]), "bf16",
                             {"rel": 0.0, "abs": 0.0, "why": "exact: small multiples of 1/4 are bf16 values"})))
    x64 = rng.standard_normal(5)
    calls.append(call("exp_peaks", {"x": x64}, result(np.exp(x64), "f64", {"rel": 1e-15, "abs": 0.0,
                      "why": "libm's f64 exp against numpy's: within an ulp"}), bind={"N": 5}))
    x = dyadic(rng, (2, 3))
    calls.append(call("reduced", {"x": x}, result((4.0 * x + 6.0).sum(axis=1), "f32", EXACT_DYADIC)))
    return calls


@program
def reductions_per_element(rng):
    products = PRODUCTS_OF_QUARTERS
    calls = []
    for n, k in [(3, 4), (2, 0), (0, 3)]:
        x, w = dyadic(rng, (n,)), dyadic(rng, (k,))
        calls.append(call("scaled", {"x": x, "w": w}, result(x * w.sum(), "f32", products), bind={"N": n, "K": k}))
    x, m = dyadic(rng, (3,)), dyadic(rng, (2, 4))
    calls.append(call("clipped", {"x": x, "m": m},
                      result(np.array([np.minimum(m, v).max() for v in x]), "f32", EXACT)))
    x, m = dyadic(rng, (3,)), dyadic(rng, (2, 3))
    calls.append(call("peaks", {"x": x, "m": m},
                      result(np.array([(m * v).max(axis=1).sum() for v in x]), "f32", products)))
    xs = rng.integers(-5, 6, size=5).astype(np.int32)
    for n in (4, 0):
        x = rng.integers(-6, 7, size=n).astype(np.int32)
        calls.append(call("below", {"x": x, "xs": xs},
                          result(np.array([(xs < v).sum() for v in x], dtype=np.int32), "i32"), bind={"N": n}))
    xs3 = np.array([2, -1, 2], dtype=np.int32)
    x4 = np.array([2, 0, -1, 5], dtype=np.int32)
    calls.append(call("found", {"x": x4, "xs": xs3}, result(np.array([(xs3 == v).any() for v in x4]), "bool")))
    x, w = dyadic(rng, (3,)), dyadic(rng, (2,))
    calls.append(call("local", {"x": x, "w": w}, result(x * 2.0 * w.sum(), "f32", products)))
    w_pos = f32([1.0, 0.5])
    calls.append(call("hoisted", {"x": x, "w": w_pos}, result(x / w_pos.sum(), "f32", REORDERED)))
    acc = x.astype(np.float64)
    for _ in range(2):
        acc = acc + w.sum() * acc
    calls.append(call("in_loop", {"x": x, "w": w}, result(acc, "f32", products)))
    xb, wb = dyadic(rng, (2,)), dyadic(rng, (3,))
    prods = bf16_round(xb[:, None] * wb[None, :])
    calls.append(call("wide", {"x": xb, "w": wb},
                      result(prods.sum(axis=1), "f32", products)))
    return calls


@program
def notation_whole_tensors(rng):
    calls = []
    for n, k in [(3, 4), (2, 1)]:
        x, w = dyadic(rng, (n,)), dyadic(rng, (k,))
        e = np.exp(w.astype(np.float64) - w.max())
        calls.append(call("weighted", {"x": x, "w": w}, result(x * (e / e.sum()).sum(), "f32", REORDERED),
                          bind={"N": n, "K": k}))
    x, w = dyadic(rng, (3,)), dyadic(rng, (2,))
    calls.append(call("shift", {"x": x, "w": w}, result(x + 2.0 * w[0], "f32", EXACT_DYADIC)))
    calls.append(call("ramp", {"x": x, "w": w}, result(x * (2.0 * w[1]), "f32", EXACT_DYADIC)))
    calls.append(call("peak", {"x": x, "w": w}, result(x + 2.0 * w.max(), "f32", EXACT_DYADIC)))
    x4 = f32([-3.0, 0.25, 1.5, 9.0])
    calls.append(call("clamped", {"x": x4, "w": w}, result(np.clip(x4, w[0] - 1.0, w[0] + 1.0), "f32", EXACT_DYADIC)))
    return calls


@program
def block_method_views(rng):
    xs = dyadic(rng, (3,))
    x24 = dyadic(rng, (2, 4))
    x42 = dyadic(rng, (4, 2))
    calls = []
    for i in (2, 1):
        calls.append(call("element", {"xs": xs, "i": i}, result(xs[i] * 2.0, "f32", EXACT, part=0),
                          result(xs[2] * 2.0, "f32", EXACT, part=1)))
    calls.append(call("scanned", {"xs": xs}, result(xs * 2.0, "f32", EXACT)))
    calls.append(call("columns", {"x": x24}, result(x24[:, 2:4] + 1.0, "f32", EXACT_DYADIC)))
    calls.append(call("strided", {"x": x24}, result(x24[:, 1::2] + 0.5, "f32", EXACT_DYADIC)))
    calls.append(call("rows", {"x": x42}, result(x42[2:4, :] + 0.5, "f32", EXACT_DYADIC)))
    calls.append(call("loop_result", {"x": x24}, result(x24[:, 2:4] + 0.5, "f32", EXACT_DYADIC)))
    x322 = dyadic(rng, (3, 2, 2))
    for i in (2, 1):
        calls.append(call("loop_result_row", {"xs": x322, "i": i}, result(x322[i] + 0.5, "f32", EXACT_DYADIC)))
    for c in (True, False):
        calls.append(call("chosen_view", {"x": x24, "c": c},
                          result((x24[:, 0:2] if c else x24[:, 2:4]) + 0.5, "f32", EXACT_DYADIC)))
    return calls


@program
def struct_results(rng):
    x = float(dyadic(rng, ()))
    calls = []
    for c in (True, False):
        calls.append(call("chosen", {"x": x, "c": c}, result(x, "f32", EXACT, part=0), result(c, "bool", part=1),
                          result(x * 2.0 if c else 0.0, "f32", EXACT_DYADIC, part=2)))
    calls.append(call("known", {"x": x}, result(x, "f32", EXACT, part=0), result(True, "bool", part=1),
                      result(x + 1.0, "f32", EXACT_DYADIC, part=2)))
    calls.append(call("absent_in_tuple", {"x": x}, result(x, "f32", EXACT, part=0), result(False, "bool", part=1),
                      result(0.0, "f32", EXACT, part=2), result(x, "f32", EXACT, part=3)))
    calls.append(call("tagged", {"x": x}, result(x, "f32", EXACT, part=0), result(1, "i32", part=1)))
    return calls


@program
def narrow_float_rounding(rng):
    rounded = {"rel": 0.0, "abs": 0.0,
               "why": "exact: each operation's f32 result (exact for these inputs) rounded once to the narrow dtype"}
    a = f32([1.0, 3.0, 0.5, -2.0])
    b = f32([256.0, 512.0, 1024.0, 0.25])
    s = bf16_round(a + b)
    calls = [call("chain_bf16", {"a": a, "b": b}, result(bf16_round(s - b), "bf16", rounded))]
    h = np.array([60000.0, 2048.0, 1.5], dtype=np.float16)
    with np.errstate(over="ignore"):
        twice = (h + h).astype(np.float16)
    calls.append(call("chain_f16", {"a": h}, result((twice - h).astype(np.float16), "f16", rounded, part=0),
                      result((h + np.float16(1.0)).astype(np.float16) == h, "bool", part=1)))
    calls.append(call("scalar_bf16", {"a": 1.0, "b": 256.0},
                      result(bf16_round(bf16_round(f32(257.0)) - 256.0), "bf16", rounded)))
    x = f32(256.0)
    for _ in range(3):
        x = bf16_round(bf16_round(x + 1.0) + 1.0)
    calls.append(call("counter", {"start": 256.0, "n": 3}, result(x, "bf16", rounded)))
    return calls


@program
def scans(rng):
    x = dyadic(rng, (3,))
    xi = rng.integers(-9, 10, size=2).astype(np.int32)
    return [
        call("scan", {"x": x}, result(np.stack([x * i for i in range(4)]), "f32", EXACT_DYADIC)),
        call("scan_pairs", {"x": xi}, result(np.stack([xi * i for i in range(1, 4)]), "i32", part=0),
             result(np.array([i * i for i in range(1, 4)], dtype=np.int64), "i64", part=1)),
    ]


@program
def conditionals(rng):
    a = dyadic(rng, (3,))
    b5 = dyadic(rng, (5,))
    x = dyadic(rng, (3,))
    bias = dyadic(rng, (3,))
    return [
        call("static_if", {"a": a, "b": b5}, result(a, "f32", EXACT, part=0),
             result(b5 * 10.0, "f32", EXACT_DYADIC, part=1)),
        call("data_if", {"x": x, "flag": 0.5}, result(x + 1.0, "f32", EXACT_DYADIC)),
        call("data_if", {"x": x, "flag": -0.5}, result(x - 1.0, "f32", EXACT_DYADIC)),
        call("data_if", {"x": x, "flag": 0.0}, result(x - 1.0, "f32", EXACT_DYADIC)),
        call("optionals", {"x": x, "b": bias}, result(x + bias, "f32", EXACT_DYADIC, part=0),
             result(x - 100.0, "f32", EXACT_DYADIC, part=1)),
    ]


@program
def data_if(rng):
    x = dyadic(rng, (3,))
    y = dyadic(rng, (3,))
    calls = []
    for c in [True, False]:
        a, b = (x, y) if c else (y, x)
        calls.append(call("swap", {"x": x, "y": y, "c": c}, result(a - b * 2.0, "f32", EXACT_DYADIC)))
    for c in [0.5, -0.5]:
        lo, hi = (x - 1.0, x + 1.0) if c > 0 else (x * 2.0, x)
        calls.append(call("spans", {"x": x, "c": c}, result(lo, "f32", EXACT_DYADIC, part=0),
                          result(hi, "f32", EXACT_DYADIC, part=1)))
    for c in [True, False]:
        bias = y if c else x * 3.0
        calls.append(call("optional", {"x": x, "y": y, "c": c}, result((x + bias) * 2.0, "f32", EXACT_DYADIC)))
    hits, last = 0, np.zeros(3)
    for c, v in [(True, x), (False, y), (True, y), (False, x)]:
        if c:
            hits += 1
            last = v
            out = v * 2.0
        else:
            last = last * 0.5
            out = v
        calls.append(call("record", {"x": v, "c": c}, result(out, "f32", EXACT_DYADIC, part=0),
                          result([hits], "i32", part=1)))
    calls.append(call("read", {}, result([hits], "i32", part=0), result(last, "f32", EXACT_DYADIC, part=1)))
    return calls


@program
def optional_if(rng):
    x = dyadic(rng, (3,))
    y = dyadic(rng, (3,))
    calls = []
    for c in [True, False]:
        out = x * 2.0 + y if c else y - 1.0
        calls.append(call("pick", {"x": x, "y": y, "c": c}, result(out, "f32", EXACT_DYADIC)))
    for c in [0.5, -0.5]:
        present = not c > 0.0
        calls.append(call("fallback", {"x": x, "y": y, "c": c},
                          result(x if present else y, "f32", EXACT, part=0), result(present, "bool", part=1)))
    for c in [True, False]:
        out = (x + y) * 2.0 if c else x * 3.0
        calls.append(call("paired", {"x": x, "y": y, "c": c}, result(out, "f32", EXACT_DYADIC)))
    for a, b in [(True, True), (True, False), (False, True)]:
        out = (x if b else x + y) if a else y * 4.0
        calls.append(call("nested", {"x": x, "y": y, "a": a, "b": b}, result(out, "f32", EXACT_DYADIC)))
    for n, c in [(4, True), (4, False), (2, True), (1, False)]:
        v = dyadic(rng, (n,))
        out = (v + 1.0) * (v + 1.0) if c else v * 0.5
        calls.append(call("sized", {"x": v, "c": c},
                          result(out, "f32", {"rel": 0.0, "abs": 0.0,
                                              "why": "exact: squares and halves of small multiples of 1/4"})))
    for n in [0, 1, 3, 4]:
        o, hits = (x if n > 0 else None), 0
        for i in range(1, n + 1):
            o = x * float(i) if i % 2 == 1 else None
            hits += o is not None
        calls.append(call("alternating", {"x": x, "n": np.int32(n)},
                          result(o if o is not None else x - 4.0, "f32", EXACT_DYADIC, part=0),
                          result(hits, "i32", part=1)))
    for n in [0, 1, 3, 6]:
        o = x.astype(np.float64)
        for _ in range(n):
            if o is not None:
                o = None if o[0] > 2.0 else o + 1.0
        calls.append(call("fading", {"x": x, "n": np.int32(n)},
                          result(o if o is not None else x * 2.0, "f32", EXACT_DYADIC, part=0),
                          result(o is not None, "bool", part=1)))
        calls.append(call("fading_box", {"x": x, "n": np.int32(n)},
                          result(o if o is not None else x * 2.0, "f32", EXACT_DYADIC)))
    phases = {"Rise": (0, 1.0), "Fall": (1, 3.0), "Hold": (2, 2.0)}
    for xs in ([0.5, -0.25, 0.75], [-0.5, 1.5, 0.25], [0.25, -1.5, 0.5], [2.0, -2.0, 0.0], [-2.0, 2.0, 0.5]):
        v = np.array(xs, dtype=np.float32)
        for n in [0, 3]:
            phase = "Rise"
            for i in range(n):
                phase = "Hold" if v[i] > 1.0 else (None if v[i] < -1.0 else phase)
            y = v * phases[phase][1] if phase else -v
            calls.append(call("fading_phase", {"x": v, "n": np.int32(n)}, result(y, "f32", EXACT_DYADIC, part=0),
                              result(phase is not None, "bool", part=1),
                              result(phases[phase][0] if phase else 0, "i32", part=2)))
    # An optional result: its presence, then its payload (zeros when absent).
    for c in [True, False]:
        calls.append(call("returned", {"x": x, "c": c}, result(c, "bool", part=0),
                          result(x * 2.0 if c else np.zeros(3), "f32", EXACT_DYADIC, part=1)))
    calls.append(call("returned_nothing", {"x": x}, result(False, "bool", part=0),
                      result(np.zeros(3), "f32", EXACT, part=1), result(False, "bool", part=2),
                      result(0, "i32", part=3), result(True, "bool", part=4),
                      result(x, "f32", EXACT, part=5)))
    calls.append(call("returned_known", {"x": x}, result(True, "bool", part=0),
                      result(x - 1.0, "f32", EXACT_DYADIC, part=1), result(False, "bool", part=2),
                      result(np.zeros(3), "f32", EXACT, part=3)))
    v = dyadic(rng, (5,))
    v[1], v[3], v[4] = 1.25, 0.75, -0.5  # above 0.5: 1.25 then 0.75; above 1: 1.25 only
    for t in [0.5, 1.0, 3.0]:
        above = [e for e in v if e > t]
        found = above[-1] if above else np.float32(t - 100.0)
        calls.append(call("last_above", {"x": v, "t": t}, result(found, "f32", EXACT, part=0),
                          result(bool(above), "bool", part=1)))
    a = dyadic(rng, (2, 3))
    w = dyadic(rng, (4, 3))
    b = dyadic(rng, (4,))
    for c in [True, False]:
        calls.append(call("in_struct", {"x": x, "c": c}, result(x + x * 2.0 if c else x + 1.0, "f32", EXACT_DYADIC)))
        calls.append(call("tuple_payload", {"x": x, "y": y, "c": c}, result(x - y if c else x, "f32", EXACT_DYADIC)))
        calls.append(call("literal_payload", {"x": x, "c": c}, result(x * 3.0 if c else -x, "f32", EXACT_DYADIC)))
        out = a.astype(np.float64) @ w.T.astype(np.float64) + (b if c else 0.0)
        calls.append(call("with_bias", {"x": a, "w": w, "b": b, "c": c}, result(out, "f32", EXACT_DYADIC)))
        calls.append(call("rebound", {"x": x, "c": c}, result(x * 3.0 if c else x, "f32", EXACT_DYADIC)))
    for n in [0, 1, 5]:
        best = None
        for i in range(n):
            if i % 3 == 0:
                best = (x * float(i), i)
        calls.append(call("counted", {"x": x}, result(best[0] + best[1] if best else x, "f32", EXACT_DYADIC),
                          bind={"N": n}))
    return calls


@program
def enums(rng):
    x = dyadic(rng, (3,))
    return [
        call("passed", {"x": x}, result(x * 2.0, "f32", EXACT, part=0), result(x, "f32", EXACT, part=1)),
        call("constant", {"x": x}, result(-x, "f32", EXACT)),
        call("local", {"x": x}, result(-x, "f32", EXACT)),
        call("compared", {"x": x}, result(-x, "f32", EXACT, part=0), result(x * 2.0, "f32", EXACT, part=1)),
    ]


@program
def enums_at_run_time(rng):
    x = dyadic(rng, (4,))
    modes = ["Double", "Negate", "Keep"]
    def apply(v, mode):
        return {"Double": v * 2.0, "Negate": -v, "Keep": v}[mode]
    calls = []
    for c, d in [(True, True), (False, True), (False, False)]:
        m = "Double" if c else ("Negate" if d else "Keep")
        calls.append(call("pick", {"x": x, "c": c, "d": d}, result(apply(x, m), "f32", EXACT)))
    for c in [True, False]:
        for d in [True, False]:
            m = "Double" if c else "Keep"
            n = "Double" if d else "Negate"
            a = x if m == "Keep" else x + 1.0
            b = x * 3.0 if m != n else x
            calls.append(call("compare", {"x": x, "c": c, "d": d}, result(a, "f32", EXACT_DYADIC, part=0),
                              result(b, "f32", EXACT_DYADIC, part=1)))
    for c in [True, False]:
        out = -x if c else apply(x * 5.0, "Keep")
        calls.append(call("catch_all", {"x": x, "c": c}, result(out, "f32", EXACT_DYADIC)))
    for n in [0, 1, 2, 4, 7, -3]:
        m, y = "Keep", x.astype(np.float64)
        for _ in range(max(n, 0)):
            m = modes[(modes.index(m) + 1) % 3]
            y = apply(y, m) + 1.0
        calls.append(call("cycle", {"x": x, "n": np.int32(n)}, result(y, "f32", EXACT_DYADIC)))
    # An enum argument by name, qualified or not, or by its index.
    for mode in ["Double", "Mode.Negate", 2]:
        m = modes[mode] if isinstance(mode, int) else mode.split(".")[-1]
        calls.append(call("given", {"x": x, "mode": mode}, result(apply(x, m), "f32", EXACT)))
    for i, m in enumerate(modes):
        calls.append(call("advanced", {"mode": m}, result((i + 1) % 3, "i32", part=0), result(1, "i32", part=1)))
    return calls


@program
def structures(rng):
    x = dyadic(rng, (2, 3))
    a = rng.integers(-9, 10, size=3).astype(np.int32)
    b = rng.integers(-9, 10, size=3).astype(np.int32)
    y = x * x - x
    return [
        call("fields", {"x": x}, result(x.max(axis=1) * x.sum(), "f32", EXACT_DYADIC)),
        # swap(a, b) = (b, a); swap again = (a, b); t = p - q = b - a
        call("tuples", {"a": a, "b": b}, result(a * 10 + b, "i32", part=0), result(b - a, "i32", part=1)),
        call("vars", {"x": a}, result(((a * a - a) + 1) * 2, "i32")),
    ]


@program
def struct_result(rng):
    x = dyadic(rng, (2, 3))
    return [call("whole", {"x": x}, result(x.sum(), "f32", EXACT_DYADIC, part=0),
                 result(x.max(axis=1), "f32", EXACT, part=1))]


@program
def state(rng):
    xs = [dyadic(rng, (3,)) for _ in range(3)]
    total = np.zeros(3)
    calls = []
    count = 0
    ticks = 0
    for k, x in enumerate(xs):
        total = total + x
        count += 1
        calls.append(call("add", {"x": x}, result(total, "f32", EXACT_DYADIC)))
        if k == 1:
            ticks += 1
            calls.append(call("tick", {}, result([ticks], "i64")))
            ticks += 1
            calls.append(call("tick", {}, result([ticks], "i64")))
    calls.append(call("read", {}, result(total, "f32", EXACT_DYADIC, part=0),
                      result([count], "i32", part=1), result([ticks], "i64", part=2)))
    calls.append(call("reset", {}, result(np.zeros(3), "f32", EXACT)))
    calls.append(call("add", {"x": xs[0]}, result(xs[0], "f32", EXACT)))
    return calls



@program
def state_loop_starts(rng):
    def v2():
        return dyadic(rng, (2,))
    calls = []
    a = np.zeros(2, np.float32)
    w = [np.zeros(2, np.float32), np.zeros(2, np.float32)]
    for c in (True, False):
        x = v2()
        a = a + x if c else a
        a = a + 3
        calls.append(call("guarded_while", {"x": x, "c": c}, result(a, "f32", EXACT)))
    for c in (True, False):
        x = v2()
        a = a - x if c else a
        a = a * 0.25
        calls.append(call("guarded_for", {"x": x, "c": c}, result(a, "f32", EXACT)))
    for entry, c in (("chosen_while", True), ("chosen_while", False), ("chosen_for", False), ("chosen_for", True)):
        x = v2()
        k = 0 if c else 1
        w[k] = w[k] + x
        r = w[k]
        for _ in range(2):
            w[k] = w[k] + r
            r = w[k]
        calls.append(call(entry, {"x": x, "c": c}, result(r, "f32", EXACT)))
    for c in (True, False):
        x = v2()
        w[1] = (w[1] + x if c else w[1]) * 0.25
        calls.append(call("in_method", {"x": x, "c": c}, result(w[1], "f32", EXACT)))
    calls.append(call("read", {}, result(a, "f32", EXACT, part=0), result(w[0], "f32", EXACT, part=1),
                      result(w[1], "f32", EXACT, part=2)))
    return calls


@program
def method_results_are_arguments(rng):
    def v2():
        return dyadic(rng, (2,))
    calls = []
    h = [np.zeros(2, np.float32), np.zeros(2, np.float32)]
    s = np.zeros(2, np.float32)
    s2 = np.zeros(2, np.float32)
    for c in (True, False):
        x = v2()
        if c:
            h[1] = x
        calls.append(call("kept_in_if", {"x": x, "c": c}, result(x, "f32", EXACT)))
    for c in (False, True):
        x = v2()
        h[0 if c else 1] = x * 2
        calls.append(call("kept_by_chosen", {"x": x, "c": c}, result(x * 2, "f32", EXACT)))
    for c in (True, False, True):
        x = v2()
        s2 = x * 2 if c else x
        for _ in range(3):
            s2 = s2 + s
        s = s + 1
        calls.append(call("identity_then_loop", {"x": x, "c": c}, result(s2 if c else x, "f32", EXACT)))
    calls.append(call("read", {}, result(h[0], "f32", EXACT, part=0), result(h[1], "f32", EXACT, part=1),
                      result(s, "f32", EXACT, part=2), result(s2, "f32", EXACT, part=3)))
    x = v2()
    calls.append(call("kept_in_while", {"x": x}, result(x * 4, "f32", EXACT)))
    calls.append(call("read_scanner", {}, result(x * 4, "f32", EXACT)))
    xs = [v2() for _ in range(6)]
    calls.append(call("keep_if", {"x": xs[0], "c": True}, result(xs[0], "f32", EXACT)))
    calls.append(call("keep_if", {"x": xs[1], "c": False}, result(xs[1], "f32", EXACT)))
    calls.append(call("into_same_state", {"x": xs[2], "c": True}, result(xs[2], "f32", EXACT)))
    calls.append(call("into_same_state", {"x": xs[3], "c": False}, result(xs[3], "f32", EXACT)))
    calls.append(call("other_chosen", {"x": xs[4], "c": True}, result(xs[4], "f32", EXACT)))
    calls.append(call("other_chosen", {"x": xs[5], "c": False}, result(xs[5], "f32", EXACT)))
    calls.append(call("read_choosers", {}, result(xs[4], "f32", EXACT, part=0), result(xs[5], "f32", EXACT, part=1),
                      result(xs[0], "f32", EXACT, part=2)))
    return calls


@program
def state_nested_choices(rng):
    calls = []
    s = np.zeros(2, np.float32)
    t = np.zeros(2, np.float32)
    for c, d in ((True, True), (False, True), (False, False), (True, False)):
        x = dyadic(rng, (2,))
        s = x if c else (s if d else x)
        calls.append(call("two", {"x": x, "c": c, "d": d}, result(x, "f32", EXACT)))
        calls.append(call("read", {}, result(s, "f32", EXACT, part=0), result(t, "f32", EXACT, part=1)))
    for c, d in ((False, False), (True, True), (True, False), (False, True), (True, False)):
        x = dyadic(rng, (2,))
        t = t if c else x
        calls.append(call("three", {"x": x, "c": c, "d": d}, result(x, "f32", EXACT)))
        calls.append(call("read", {}, result(s, "f32", EXACT, part=0), result(t, "f32", EXACT, part=1)))
    ha = np.zeros(2, np.float32)
    hc = [np.zeros(2, np.float32), np.zeros(2, np.float32)]
    for c in (True, False):
        x = dyadic(rng, (2,))
        ha = -x if c else -(x * 2)
        calls.append(call("loop_then_if", {"x": x, "c": c}, result(x, "f32", EXACT)))
        calls.append(call("read_cells", {}, result(ha, "f32", EXACT, part=0), result(hc[0], "f32", EXACT, part=1),
                          result(hc[1], "f32", EXACT, part=2)))
    for c in (False, True):
        x = dyadic(rng, (2,))
        hc[0] = -x
        hc[0 if c else 1] = -(x + x)
        calls.append(call("while_then_chosen", {"x": x, "c": c}, result(x, "f32", EXACT)))
        calls.append(call("read_cells", {}, result(ha, "f32", EXACT, part=0), result(hc[0], "f32", EXACT, part=1),
                          result(hc[1], "f32", EXACT, part=2)))
    return calls


@program
def state_choices_of_other_states(rng):
    def v2():
        return dyadic(rng, (2,))
    calls = []
    s = np.zeros(2, np.float32)
    t = np.zeros(2, np.float32)
    h = [np.zeros(2, np.float32), np.zeros(2, np.float32)]

    def read():
        return call("read", {}, result(s, "f32", EXACT, part=0), result(t, "f32", EXACT, part=1),
                    result(h[0], "f32", EXACT, part=2), result(h[1], "f32", EXACT, part=3))
    x = v2()
    t = x
    calls.append(call("set_t", {"x": x}, result(x, "f32", EXACT)))
    for c, d in ((False, True), (False, False), (True, False)):
        x = v2()
        s = (t if d else x + x) if not c else x
        calls.append(call("after_scan", {"x": x, "c": c, "d": d}, result(x, "f32", EXACT)))
        calls.append(read())
    for c in (True, False):
        x = v2()
        t = x
        s = t if c else x * 0.5
        t = x * 3
        calls.append(call("state_or_method_then_scan", {"x": x, "c": c}, result(x, "f32", EXACT)))
        calls.append(read())
    for c, n in ((True, 2), (False, 1), (False, 0), (True, 1)):
        x = v2()
        for _ in range(n):
            s = h[1]
            h[0 if c else 1] = x + 1
        calls.append(call("chosen_scan_writer", {"x": x, "c": c, "n": n}, result(x, "f32", EXACT)))
        calls.append(read())
    return calls


@program
def state_copies(rng):
    def v2():
        return dyadic(rng, (2,))
    calls = []
    acc = np.zeros(2, np.float32)
    for entry in ("step", "step", "step_scaled"):
        x = v2()
        calls.append(call(entry, {"x": x}, result(acc, "f32", EXACT_DYADIC)))
        acc = acc + x
    x = v2()
    calls.append(call("step_both", {"x": x}, result(acc, "f32", EXACT_DYADIC, part=0),
                      result(acc + x, "f32", EXACT_DYADIC, part=1)))
    acc = acc + x
    a = np.zeros(2, np.float32)
    b = np.zeros(2, np.float32)
    for _ in range(2):
        x = v2()
        a, b = b + x, a
        calls.append(call("swap", {"x": x}, result(a, "f32", EXACT_DYADIC, part=0),
                          result(b, "f32", EXACT_DYADIC, part=1)))
    a, b = b, a
    calls.append(call("exchange", {}, result(a, "f32", EXACT, part=0), result(b, "f32", EXACT, part=1)))
    mem = np.zeros(2, np.float32)
    for _ in range(2):
        x = v2()
        calls.append(call("child", {"x": x}, result(mem, "f32", EXACT_DYADIC)))
        mem = mem + x
    kv = np.zeros((1, 1, 3, 2), np.float32)
    for _ in range(2):
        v = dyadic(rng, (1, 1, 1, 2))
        w = dyadic(rng, (1, 1, 1, 2))
        row = kv[0, 0, 2, :].copy()
        kv[:, :, 0:1, :] = v
        mid = kv.copy()
        kv[:, :, 2:3, :] = w
        calls.append(call("put", {"v": v, "w": w}, result(mid, "f32", EXACT, part=0),
                          result(row, "f32", EXACT, part=1)))
    calls.append(call("read", {}, result(acc, "f32", EXACT_DYADIC, part=0), result(a, "f32", EXACT, part=1),
                      result(b, "f32", EXACT, part=2), result(kv, "f32", EXACT, part=3),
                      result(mem, "f32", EXACT_DYADIC, part=4)))
    return calls


@program
def state_control(rng):
    def v2():
        return dyadic(rng, (2,))
    calls = []
    acc = np.zeros(2, np.float32)
    m = np.zeros(2, np.float32)
    for c in (True, False, True):
        x = v2()
        acc = acc + x if c else acc - x
        m = m + 1
        calls.append(call("step", {"x": x, "c": c}, result(x, "f32", EXACT)))
    total = np.zeros(2, np.float32)
    count = 0
    for n, flag in ((3, True), (2, False), (0, True)):
        x = v2()
        last = 0
        for _ in range(n):
            count += 1
            last = count
            total = total + x if flag else total - x
        calls.append(call("run", {"x": x, "n": n, "flag": flag}, result(last, "i32", part=0),
                          result(total, "f32", EXACT_DYADIC, part=1)))
    h = [np.zeros(2, np.float32) for _ in range(2)]

    def plain(x):
        y = x
        for layer in range(2):
            v = y
            for _ in range(3):
                v = v * 0.5 + y
            h[layer] = h[layer] + v
            y = h[layer]
        return y
    for _ in range(2):
        x = v2()
        calls.append(call("plain", {"x": x}, result(plain(x), "f32", EXACT)))
    for n in (2, 0):
        x = v2()
        y = x
        for layer in range(2):
            v = y
            for _ in range(n):
                v = v + h[layer]
            h[layer] = h[layer] + 1
            y = v
        calls.append(call("looped", {"x": x, "n": n}, result(y, "f32", EXACT)))
    x = v2()
    y = x
    for layer in range(2):
        ys = [y * i + h[layer] for i in range(3)]
        h[layer] = h[layer] + ys[2]
        y = ys[1]
    calls.append(call("scanned", {"x": x}, result(y, "f32", EXACT)))
    for g in (True, False):
        x = v2()
        calls.append(call("gated", {"x": x, "g": g}, result(x * 4 if g else x, "f32", EXACT)))
    # The layers' state after the loops, seen through one more call.
    x = v2()
    calls.append(call("plain", {"x": x}, result(plain(x), "f32", EXACT)))
    calls.append(call("read", {}, result(acc, "f32", EXACT_DYADIC, part=0), result(np.zeros(2), "f32", EXACT, part=1),
                      result(0, "i64", part=2), result(np.zeros(2, np.int64), "i64", part=3),
                      result(m, "f32", EXACT, part=4), result(total, "f32", EXACT_DYADIC, part=5),
                      result(count, "i32", part=6)))
    return calls


@program
def generics(rng):
    x4 = dyadic(rng, (4,))
    x5 = rng.integers(-99, 100, size=5).astype(np.int32)
    x3 = rng.integers(-99, 100, size=3).astype(np.int64)
    s8 = dyadic(rng, (3, 8))
    x2 = dyadic(rng, (2,))
    return [
        call("explicit", {"x": x4}, result(x4 * 3.0, "f32", EXACT_DYADIC)),
        call("inferred", {"x": x5, "k": -4}, result(x5 * -4, "i32")),
        call("tiled", {"x": x3}, result(np.broadcast_to(x3, (2, 3)), "i64")),
        call("split_heads", {"x": s8}, result(s8.reshape(3, 2, 4), "f32", EXACT, part=0),
             result(8 // 2, "i64", part=1)),
        call("ramp", {}, result(np.arange(3, dtype=np.int64) * 3, "i64"), bind={"Steps": 3}),
        call("ramp", {}, result(np.arange(5, dtype=np.int64) * 5, "i64"), bind={"Steps": 5}),
        call("repeated", {"x": x2}, result(np.broadcast_to(x2, (4, 2)), "f32", EXACT), bind={"Steps": 4}),
        call("defaulted", {}, result(np.arange(4), "i64", part=0), result(np.arange(9), "i64", part=1)),
        call("defaulted", {}, result(np.arange(2), "i64", part=0), result(np.arange(5), "i64", part=1),
             bind={"Steps": 2}),
        call("defaulted", {}, result(np.arange(3), "i64", part=0), result(np.arange(1), "i64", part=1),
             bind={"Steps": 3, "Twice": 1}),
        call("defaults_taken", {"x": x4[:3]}, result((x4[:3] * 0.5 - 3.0) * 2.0, "f32", EXACT_DYADIC)),
        call("defaults_taken", {"x": x4[:3], "k": np.float32(2.0), "twice": False},
             result(x4[:3] * 2.0 - 3.0, "f32", EXACT_DYADIC)),
        call("defaults_taken", {"x": x4[:3], "n": np.int32(4)}, result((x4[:3] * 0.5 + 4.0) * 2.0, "f32", EXACT_DYADIC)),
        call("defaults_in_variants", {"x": typed(x4[:3], "f32")}, result(x4[:3] * 0.5 * 2.0, "f32", EXACT_DYADIC)),
        call("defaults_in_variants", {"x": typed(x4[:3], "f64"), "scale": "Once"}, result(x4[:3] * 0.5, "f64", EXACT_DYADIC)),
        call("defaults_in_variants", {"x": typed(x4[:3], "f64"), "k": np.float32(4.0)},
             result(x4[:3] * 4.0 * 2.0, "f64", EXACT_DYADIC)),
        call("defaults_computed", {"x": x4}, result(x4 * 8 + f32(np.e) + f32(0.25), "f32", REORDERED)),
        call("defaults_computed", {"x": x4, "k": np.int64(-1), "bias": x4},
             result(x4 * -1 + f32(np.e) + x4, "f32", REORDERED)),
        call("defaults_computed", {"x": x4[:2], "e": np.float64(0.5)}, result(x4[:2] * 4 + 0.5 + 0.25, "f32", EXACT_DYADIC)),
        call("optional_defaults", {"x": x4[:3]}, result(x4[:3] * 3 + 1000, "f32", EXACT_DYADIC)),
        call("optional_defaults", {"x": x4[:3], "o": None}, result(x4[:3] + 1000, "f32", EXACT_DYADIC)),
        call("optional_defaults", {"x": x4[:3], "o": np.float32(-2.0), "q": np.float32(0.5)},
             result(x4[:3] * -2 + 0.5, "f32", EXACT_DYADIC)),
        call("optional_defaults", {"x": x4[:3], "q": None}, result(x4[:3] * 3 + 1000, "f32", EXACT_DYADIC)),
        call("absent_dim", {"x": x4}, result(x4, "f32", EXACT)),
        call("absent_dim", {"x": x4[:2], "b": np.stack([x4[:2], x4[2:]])},
             result(x4[:2] + x4[:2] + x4[2:], "f32", EXACT_DYADIC)),
        call("packed_default", {}, result(np.full((3, 3), 2, dtype=np.int64), "i64")),
        call("packed_default", {}, result(np.full((5, 3), 4, dtype=np.int64), "i64"), bind={"N": 4}),
        call("packed_default", {}, result(np.full((3, 1), 2, dtype=np.int64), "i64"), bind={"S_1": 1}),
    ]


@program
def module_entries(rng):
    n, v = 5, 7
    x = dyadic(rng, (n,))
    logits = f32(rng.standard_normal((n, v)))
    targets = rng.integers(0, v, size=n).astype(np.int64)
    weights = f32([0.25, 0.0, 1.0, 0.5, 0.25])
    z = logits.astype(np.float64)
    log_probs = z - z.max(axis=1, keepdims=True)
    log_probs = log_probs - np.log(np.exp(log_probs).sum(axis=1, keepdims=True))
    picked = log_probs[np.arange(n), targets]
    loss = -(weights.astype(np.float64) * 0.5 * picked).sum()
    return [
        call("scaled", {"x": x, "k": -1.5}, result(x * f32(-1.5), "f32", EXACT_DYADIC)),
        call("loss", {"logits": logits, "targets": targets, "weights": weights},
             result(np.float32(loss), "f32", TRANSCENDENTAL)),
        call("ramp", {}, result(np.arange(6, dtype=np.int64) * 2, "i64"), bind={"Steps": 6}),
    ]


@program
def notation_spec_examples(rng):
    a, b = dyadic(rng, (3, 4)), dyadic(rng, (4, 2))
    ba, bb = dyadic(rng, (3, 2, 3, 4)), dyadic(rng, (3, 2, 4, 5))
    u, v = dyadic(rng, (3,)), dyadic(rng, (2,))
    x = dyadic(rng, (2, 3))
    sq = dyadic(rng, (4, 4))
    q, k = bf16_round(dyadic(rng, (1, 2, 3, 4))), bf16_round(dyadic(rng, (1, 2, 5, 4)))
    return [
        call("matmul", {"a": a, "b": b}, result(a @ b, "f32", EXACT_DYADIC)),
        call("batched", {"a": ba, "b": bb}, result(ba @ bb, "f32", EXACT_DYADIC)),
        call("outer", {"a": u, "b": v}, result(np.outer(u, v), "f32", EXACT_DYADIC)),
        call("transpose", {"x": x}, result(x.T, "f32", EXACT)),
        call("trace", {"a": sq}, result(np.float32(np.trace(sq)), "f32", EXACT_DYADIC)),
        call("score", {"query": q, "key": k}, result(q @ np.swapaxes(k, -1, -2), "f32", EXACT_DYADIC)),
    ]


@program
def shift_constants(rng):
    x = np.array([1, -1, 123456789012, -98765, 0, 4294967296], dtype=np.int64)
    mask = np.array([True, False, True, True, False, False])
    low = x & 4294967295
    rotated = (low << 13) | (low >> (32 - 13))
    flipped = rotated ^ x
    keep = (mask & (x > 0)) | (mask ^ (x < 0))
    mixed = np.where(keep, flipped, x) + (6 & 3) + (1 << 4)
    small = np.array([1, -100, 120], dtype=np.int8)
    narrow = (small.astype(np.int64) + (256 >> 4) - (3 << 2)).astype(np.int8)
    return [
        call("mix", {"x": x, "mask": mask}, result(mixed, "i64")),
        call("narrow", {"x": small}, result(narrow, "i8")),
        call("runtime", {"k": 3}, result(np.int64((1 << 3) + (1024 >> 3)), "i64")),
    ]


@program
def constant_results(rng):
    x3 = dyadic(rng, (3,))
    x2 = dyadic(rng, (2,))
    return [
        call("literal_pair", {"x": 2.5}, result(np.float32(2.5), "f32", EXACT, part=0),
             result(np.int64(4), "i64", part=1)),
        call("dims", {"x": x3}, result(x3, "f32", EXACT, part=0), result(np.int64(7), "i64", part=1),
             result(np.float64(1.5), "f64", EXACT, part=2)),
        call("nested", {"x": -1.25}, result(np.float32(-1.25), "f32", EXACT, part=0),
             result(np.int32(3), "i32", part=1), result(np.uint8(200), "u8", part=2),
             result(np.bool_(True), "bool", part=3)),
        call("made", {"x": x2}, result(np.int32(7), "i32", part=0), result(x2, "f32", EXACT, part=1)),
        call("tagged", {"x": 1.0}, result(np.int16(-3), "i16", part=0), result(np.float32(0.5), "f32", EXACT, part=1)),
    ]


def np_log_softmax(z):
    z = np.asarray(z, dtype=np.float64)
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


@program
def entry_variants(rng):
    n, v = 4, 6
    logits = f32(rng.standard_normal((n, v)))
    targets = rng.integers(0, v, size=n).astype(np.int64)
    weights = f32([0.5, 0.25, 0.0, 1.0])
    def ce(z):
        lp = np_log_softmax(z)
        return np.float32(-(weights.astype(np.float64) * lp[np.arange(n), targets]).sum())
    logits64 = rng.standard_normal((n, v))
    z1 = f32(rng.standard_normal((5,)))
    z3 = f32(rng.standard_normal((2, 3, 4)))
    z3_64 = rng.standard_normal((2, 2, 3))
    a0, b0 = dyadic(rng, (2, 3)), dyadic(rng, (3, 2))
    a1, b1 = dyadic(rng, (3, 2, 3)), dyadic(rng, (3, 3, 2))
    a2, b2 = dyadic(rng, (2, 2, 2, 3)), dyadic(rng, (2, 2, 3, 4))
    x1 = dyadic(rng, (5,))
    xi = rng.integers(-1000, 1000, size=(2, 3, 4)).astype(np.int32)
    xu = rng.integers(0, 256, size=(3, 5)).astype(np.uint8)
    return [
        call("loss", {"logits": logits, "targets": targets, "weights": weights}, result(ce(logits), "f32", TRANSCENDENTAL)),
        call("loss", {"logits": typed(logits64, "f64"), "targets": targets, "weights": weights},
             result(ce(logits64), "f32", TRANSCENDENTAL)),
        call("normalized", {"logits": z1}, result(f32(np_log_softmax(z1)), "f32", TRANSCENDENTAL)),
        call("normalized", {"logits": z3}, result(f32(np_log_softmax(z3)), "f32", TRANSCENDENTAL)),
        call("normalized", {"logits": typed(z3_64, "f64")}, result(f32(np_log_softmax(z3_64)), "f32", TRANSCENDENTAL)),
        call("bmm", {"a": a0, "b": b0}, result(a0 @ b0, "f32", EXACT_DYADIC)),
        call("bmm", {"a": a1, "b": b1}, result(a1 @ b1, "f32", EXACT_DYADIC)),
        call("bmm", {"a": a2, "b": b2}, result(a2 @ b2, "f32", EXACT_DYADIC)),
        call("row_sums", {"x": x1}, result(np.float32(x1.sum()), "f32", EXACT_DYADIC)),
        call("row_sums", {"x": typed(xi, "i32")}, result(xi.sum(axis=-1, dtype=np.int32), "i32")),
        call("row_sums", {"x": typed(xu, "u8")}, result(xu.sum(axis=-1, dtype=np.uint8), "u8")),
        # An f16 file runs the f16 variant, though it could be read as bf16.
        call("row_sums", {"x": typed(np.float16([[1.001, 2.5], [0.125, -3.0]]), "f16")},
             result(np.float16([3.5, -2.875]), "f16", EXACT_DYADIC)),
        call("biased", {"x": x1}, result(x1 * 2, "f32", EXACT_DYADIC)),
        call("biased", {"x": x1, "bias": x1 * 0.5}, result(x1 + x1 * 0.5, "f32", EXACT_DYADIC)),
        call("scaled_pair", {"p.0": x1[:2], "p.1.0": 1.5, "p.1.1": -3},
             result(x1[:2] * f32(1.5) - 3, "f32", EXACT_DYADIC)),
        call("with_opts", {"x": x1[:2], "o.scale": -2.0, "o.shift": x1[2:4]},
             result(x1[:2] * f32(-2.0) + x1[2:4], "f32", EXACT_DYADIC)),
        call("any_mask", {"x": x1[:2]}, result(x1[:2], "f32", EXACT)),
        call("any_mask", {"x": x1[:2], "g": x1[1:4].reshape(1, 3)}, result(x1[:2] + 1, "f32", EXACT)),
        call("any_mask", {"x": x1[:2], "g": 5.0}, result(x1[:2] + 1, "f32", EXACT)),
        call("shift_by", {"x": x1[:2]}, result(x1[:2], "f32", EXACT)),
        call("shift_by", {"x": x1[:2], "g": typed(x1[2:4].astype(np.float16), "f16")}, result(x1[:2] + x1[2:4], "f32", EXACT_DYADIC)),
        call("shift_by", {"x": x1[:2], "g": typed(x1[2:4].astype(np.float64), "f64")},
             result(x1[:2] + x1[2:4], "f32", EXACT_DYADIC)),
    ]


@program
def reshape_dynamic(rng):
    x = dyadic(rng, (2, 3))
    y = dyadic(rng, (4, 5))
    z = rng.integers(-50, 50, size=(2, 3, 4)).astype(np.int32)
    return [
        call("swapped", {"x": x}, result(x.reshape(3, 2), "f32", EXACT)),
        call("read_again", {"x": y}, result(y.reshape(5, 4) + 1, "f32", EXACT_DYADIC)),
        call("reversed", {"x": z}, result(z.reshape(4, 3, 2), "i32")),
    ]


def cache_span(cache, value, at, rows=None, value_rows=None):
    """The bodies of std.nn.cache, read literally: position s of a written row
    takes value position s - at when that lies in 0..N."""
    out = cache.copy()
    S, N = cache.shape[2], value.shape[2]
    rows = range(cache.shape[0]) if rows is None else rows
    for i, b in enumerate(rows):
        if not 0 <= b < cache.shape[0]:
            continue
        src = b if value_rows is None else value_rows[i]
        for s in range(S):
            if 0 <= s - at < N:
                out[b, :, s, :] = value[src, :, s - at, :]
    return out


@program
def cache_writes(rng):
    def ints(shape):
        return rng.integers(-99, 100, size=shape).astype(np.int32)
    calls = []
    cache = ints((3, 2, 6, 2))
    one = ints((3, 2, 1, 2))
    for at in [2, 0, 5, -1, 6]:
        calls.append(call("at", {"cache": cache, "value": one, "at": at}, result(cache_span(cache, one, at), "i32")))
    four = ints((3, 2, 4, 2))
    for at in [1, 4, -2, -3, -4, 6]:
        calls.append(call("span", {"cache": cache, "value": four, "at": at},
                          result(cache_span(cache, four, at), "i32")))
    for at in [[0, 5, 3], [-1, 6, 2]]:
        want = cache.copy()
        for b in range(3):
            want = cache_span(want, one, at[b], rows=[b], value_rows=[b])
        calls.append(call("rows", {"cache": cache, "value": one, "at": np.array(at, dtype=np.int32)},
                          result(want, "i32")))
    single = ints((1, 2, 4, 2))
    for slot, at in [(1, 3), (3, 0), (-1, 0), (0, -2)]:
        calls.append(call("slot", {"cache": cache, "value": single, "slot": slot, "at": at},
                          result(cache_span(cache, single, at, rows=[slot], value_rows=[0]), "i32")))
    prompts = ints((4, 2, 3, 2))
    for slots, at in [([2, 0, 2, 1], 1), ([5, -1, 0, 0], 4)]:
        # Row b takes the largest m naming it (the body's max over m).
        writer = {b: max(m for m in range(4) if slots[m] == b) for b in range(3) if b in slots}
        want = cache_span(cache, prompts, at, rows=list(writer), value_rows=list(writer.values()))
        calls.append(call("slots", {"cache": cache, "value": prompts, "slots": np.array(slots, dtype=np.int32),
                                    "at": at}, result(want, "i32")))
    state = np.zeros((3, 2, 6, 2), dtype=np.int32)
    for at in [0, 2, 5, -1]:
        value = ints((3, 2, 2, 2))
        state = cache_span(state, value, at)
        calls.append(call("put", {"value": value, "at": at}, result(2 * state, "i32")))
    return calls


def np_conv2d(x, w, stride, pad, bias=None):
    """Cross-correlation of NCHW x with [Cout, Cin, K, K] w, zero padding."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    k = w.shape[2]
    oh = (xp.shape[2] - k) // stride + 1
    ow = (xp.shape[3] - k) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            out[:, :, i, j] = np.einsum("bcuv,ocuv->bo", window, w.astype(np.float64))
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    return f32(out)


def np_group_norm(x, weight, bias, groups, eps):
    b, c = x.shape[:2]
    g = x.astype(np.float64).reshape(b, groups, -1)
    mean = g.mean(axis=2, keepdims=True)
    var = ((g - mean) ** 2).mean(axis=2, keepdims=True)
    normed = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return normed * weight.astype(np.float64).reshape(shape) + bias.astype(np.float64).reshape(shape)


@program
def stdlib_group_norm(rng):
    x = f32(rng.standard_normal((2, 6, 3, 4)) * 3 + 1)
    w = f32(rng.standard_normal(6))
    b = f32(rng.standard_normal(6))
    xb = bf16_round(f32(rng.standard_normal((1, 4, 3, 5))))
    wb = bf16_round(f32(rng.standard_normal(4)))
    bb = bf16_round(f32(rng.standard_normal(4)))
    return [
        call("three_groups", {"x": x, "weight": w, "bias": b}, result(np_group_norm(x, w, b, 3, 1e-6), "f32",
             {"rel": 1e-5, "abs": 1e-5, "why": "f32 sums over 24 values and rsqrt: a few ulp of the result"})),
        call("one_group_bf16", {"x": xb, "weight": wb, "bias": bb},
             result(bf16_round(f32(np_group_norm(xb, wb, bb, 1, 1e-5))), "bf16",
                    {"rel": 2 ** -7, "abs": 2 ** -7,
                     "why": "f32 statistics rounded once to bf16: a value near a rounding boundary may round "
                            "the other way (one bf16 ulp, 2^-8 relative)"})),
    ]


@program
def vector_tails(rng):
    xb = bf16_round(f32(rng.standard_normal(37)))
    w = dyadic(rng, (8, 64))
    x = dyadic(rng, (3, 64))
    xr = dyadic(rng, (5, 64))
    rm = f32(rng.standard_normal((3, 40)))
    xm = bf16_round(f32(rng.standard_normal((2, 803))))
    return [
        call("square_bf16", {"x": xb}, result(bf16_round(xb * xb), "bf16",
             {"rel": 0.0, "abs": 0.0, "why": "exact: a bf16 product is exact in f32, then rounded once"})),
        call("matvec", {"w": w, "x": x}, result(x.astype(np.float64) @ w.T, "f32", EXACT_DYADIC)),
        call("matvec_rows", {"w": w, "x": xr}, result(xr.astype(np.float64) @ w.T, "f32", EXACT_DYADIC)),
        call("row_max", {"x": rm}, result(rm.max(axis=1), "f32", EXACT)),
        call("row_max_bf16", {"x": xm}, result(xm.max(axis=1), "bf16", EXACT)),
        call("argmax_bf16", {"x": xm}, result(xm.argmax(axis=1), "i32")),
    ]


@program
def stdlib_conv(rng):
    x = dyadic(rng, (1, 2, 3, 4))
    calls = [call("padded", {"x": x}, result(np.pad(x, ((0, 0), (0, 0), (2, 2), (2, 2))), "f32", EXACT))]
    x = dyadic(rng, (2, 3, 7, 6))
    w = dyadic(rng, (4, 3, 3, 3))
    b = dyadic(rng, (4,))
    calls.append(call("strided", {"x": x, "w": w, "b": b}, result(np_conv2d(x, w, 2, 1, b), "f32", EXACT_DYADIC)))
    x = dyadic(rng, (1, 2, 5, 5))
    w = dyadic(rng, (3, 2, 2, 2))
    calls.append(call("plain", {"x": x, "w": w}, result(np_conv2d(x, w, 1, 0), "f32", EXACT_DYADIC)))
    for b_, length in ((2, 17), (1, 20)):
        x = dyadic(rng, (b_, 3, length))
        w = dyadic(rng, (5, 3, 4))
        b = dyadic(rng, (5,))
        calls.append(call("signal", {"x": x, "w": w, "b": b},
                          result(np_conv1d(x, w, 3, 2, b), "f32", EXACT_DYADIC)))
    x = dyadic(rng, (2, 17, 19))
    w = dyadic(rng, (6, 17, 3))
    calls.append(call("signal_plain", {"x": x, "w": w}, result(np_conv1d(x, w, 1, 0), "f32", EXACT_DYADIC)))
    # bf16: inputs multiples of 1/4 below 2 (exact in bf16), the exact f32 sums
    # rounded to bf16 once.
    x = dyadic(rng, (1, 3, 23))
    w = dyadic(rng, (5, 3, 4))
    b = dyadic(rng, (5,))
    calls.append(call("signal_bf16", {"x": x, "w": w, "b": b},
                      result(bf16_round(np_conv1d(x, w, 3, 2, b)), "bf16",
                             {"rel": 0.0, "abs": 0.0,
                              "why": "exact: the f32 sums of dyadic values are exact, then rounded to bf16 once"})))
    for b_, h, w_ in ((2, 7, 9), (1, 18, 5)):
        x = dyadic(rng, (b_, 3, h, w_))
        w = dyadic(rng, (4, 3, 3, 2))
        b = dyadic(rng, (4,))
        calls.append(call("rect", {"x": x, "w": w, "b": b},
                          result(np_conv2d_rect(x, w, (2, 1), (1, 0), b), "f32", EXACT_DYADIC)))
    x = dyadic(rng, (2, 2, 3, 11))
    w = dyadic(rng, (3, 2, 1, 5))
    calls.append(call("rect_wide", {"x": x, "w": w},
                      result(np_conv2d_rect(x, w, (1, 3), (0, 2)), "f32", EXACT_DYADIC)))
    return calls


def np_conv2d_rect(x, w, strides, pads, bias=None):
    """Cross-correlation of NCHW x with [Cout, Cin, KH, KW] w, (sh, sw) strides,
    (ph, pw) zeros on both sides of each axis."""
    (sh, sw), (ph, pw) = strides, pads
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    kh, kw = w.shape[2:]
    oh = (xp.shape[2] - kh) // sh + 1
    ow = (xp.shape[3] - kw) // sw + 1
    out = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = xp[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
            out[:, :, i, j] = np.einsum("bcuv,ocuv->bo", window, w.astype(np.float64))
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    return f32(out)


def np_conv1d(x, w, stride, pad, bias=None):
    """Cross-correlation of NCL x with [Cout, Cin, K] w, zero padding."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad)))
    k = w.shape[2]
    ol = (xp.shape[2] - k) // stride + 1
    out = np.zeros((x.shape[0], w.shape[0], ol))
    for i in range(ol):
        out[:, :, i] = np.einsum("bcu,ocu->bo", xp[:, :, i * stride:i * stride + k], w.astype(np.float64))
    if bias is not None:
        out += bias.reshape(1, -1, 1)
    return f32(out)


def np_max_pool2d(x, k, stride, pad):
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    oh = (xp.shape[2] - k) // stride + 1
    ow = (xp.shape[3] - k) // stride + 1
    out = np.zeros(x.shape[:2] + (oh, ow), dtype=np.float32)
    for i in range(oh):
        for j in range(ow):
            out[:, :, i, j] = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k].max(axis=(2, 3))
    return out


@program
def stdlib_pool(rng):
    # Negative inputs only, so a padded maximum would show if padding won.
    x = dyadic(rng, (2, 3, 7, 7), lo=-40, hi=-1)
    calls = [call("padded", {"x": x}, result(np_max_pool2d(x, 3, 2, 1), "f32", EXACT))]
    x = dyadic(rng, (1, 2, 5, 6))
    calls.append(call("unpadded", {"x": x}, result(np_max_pool2d(x, 2, 2, 0), "f32", EXACT)))
    x = dyadic(rng, (2, 3, 4, 4))
    calls.append(call("average", {"x": x}, result(f32(x.astype(np.float64).mean(axis=(2, 3))), "f32", EXACT_DYADIC)))
    return calls


@program
def stdlib_resize(rng):
    x = dyadic(rng, (1, 2, 2, 3))
    want = x.repeat(3, axis=2).repeat(3, axis=3)
    return [call("triple", {"x": x}, result(want, "f32", EXACT))]


def np_unpack_int4(packed):
    b = packed.astype(np.int32) & 0xFF
    low = b & 15
    high = b >> 4
    low = np.where(low >= 8, low - 16, low)
    high = np.where(high >= 8, high - 16, high)
    return np.stack([low, high], axis=-1).reshape(packed.shape[0], -1).astype(np.int8)


def np_unpack_uint4(packed):
    b = packed.astype(np.int32) & 0xFF
    return np.stack([b & 15, b >> 4], axis=-1).reshape(*packed.shape[:-1], -1).astype(np.uint8)


def np_dequantize_int4_groups(packed, scale, zero):
    out, groups, half = packed.shape
    q = np_unpack_uint4(packed).astype(np.float64)  # [Out, Groups, 2 * Half]
    w = (q - zero[..., None].astype(np.float64)) * scale[..., None].astype(np.float64)
    return w.reshape(out, groups * 2 * half)


def np_decode_fp8(bits):
    """FP8 E4M3 ("fn") bytes -> float64: bias 7, subnormals, no infinities,
    S.1111.111 NaN."""
    b = bits.astype(np.int64)
    sign = np.where(b >> 7 == 1, -1.0, 1.0)
    exponent = (b >> 3) & 15
    mantissa = (b & 7).astype(np.float64)
    normal = np.ldexp(1.0 + mantissa / 8.0, (exponent - 7).astype(np.int32))
    subnormal = np.ldexp(mantissa / 8.0, -6)
    v = sign * np.where(exponent == 0, subnormal, normal)
    v = np.where((b & 0x7F) == 0x7F, np.nan, v)
    known = {0x00: 0.0, 0x01: 2.0 ** -9, 0x07: 7 * 2.0 ** -9, 0x08: 2.0 ** -6, 0x38: 1.0,
             0x40: 2.0, 0x7E: 448.0, 0xFE: -448.0, 0xB8: -1.0, 0x33: 0.6875}
    for byte, value in known.items():
        got = v[b == byte]
        assert got.size == 0 or (got == value).all(), (byte, got, value)
    return v


def np_dequantize_mxfp4(blocks, scales):
    """MXFP4 -> float64: E2M1 nibbles (even element low) times 2^(scale - 127)."""
    b = blocks.astype(np.int64)
    nibbles = np.stack([b & 15, b >> 4], axis=-1).reshape(*blocks.shape[:-1], 32)
    sign = np.where(nibbles >= 8, -1.0, 1.0)
    exponent = (nibbles >> 1) & 3
    mantissa = (nibbles & 1).astype(np.float64)
    magnitude = np.where(exponent == 0, mantissa * 0.5,
                         np.ldexp(1.0 + mantissa / 2.0, (exponent - 1).astype(np.int32)))
    e2m1 = sign * magnitude
    assert sorted(set(np.abs(e2m1).reshape(-1).tolist())) <= [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]
    values = e2m1 * np.ldexp(1.0, scales.astype(np.int32) - 127)[..., None]
    return values.reshape(*blocks.shape[:-2], -1)


@program
def stdlib_quant(rng):
    every = np.arange(-128, 128, dtype=np.int32).astype(np.int8).reshape(16, 16)
    calls = [call("unpack", {"packed": every}, result(np_unpack_int4(every), "i8"))]
    q = rng.integers(-128, 128, size=(2, 3, 5)).astype(np.int8)
    scale = dyadic(rng, (2, 3))
    calls.append(call("int8", {"q": q, "scale": scale},
                      result(f32(q.astype(np.float64) * scale[..., None]), "f32", EXACT)))
    packed = rng.integers(-128, 128, size=(3, 4)).astype(np.int8)
    scale = dyadic(rng, (3,))
    calls.append(call("int4", {"packed": packed, "scale": scale},
                      result(f32(np_unpack_int4(packed).astype(np.float64) * scale[:, None]), "f32", EXACT)))
    every_u8 = np.arange(256, dtype=np.int32).astype(np.uint8).reshape(16, 16)
    calls.append(call("unpack_unsigned", {"packed": every_u8}, result(np_unpack_uint4(every_u8), "u8")))
    # Group-wise 4-bit: 3 outputs, 2 groups of 8 inputs.
    packed = rng.integers(0, 256, size=(3, 2, 4)).astype(np.uint8)
    scale = dyadic(rng, (3, 2))
    zero = rng.integers(0, 16, size=(3, 2)).astype(np.uint8)
    w = np_dequantize_int4_groups(packed, scale, zero)
    calls.append(call("groups", {"packed": packed, "scale": scale, "zero": zero}, result(f32(w), "f32", EXACT)))
    x = dyadic(rng, (2, 16))
    bias = dyadic(rng, (3,))
    calls.append(call("group_linear", {"x": x, "packed": packed, "scale": scale, "zero": zero, "bias": bias},
                      result(f32(x.astype(np.float64) @ w.T + bias), "f32", EXACT_DYADIC)))
    order = rng.permutation(16).astype(np.int32)
    calls.append(call("ordered_linear", {"x": x, "order": order, "packed": packed, "scale": scale, "zero": zero},
                      result(f32(x.astype(np.float64)[:, order] @ w.T), "f32", EXACT_DYADIC)))
    # FP8 E4M3: every byte value, NaN (0x7F, 0xFF) reported apart.
    every_u8 = np.arange(256, dtype=np.int32).astype(np.uint8).reshape(16, 16)
    values = np_decode_fp8(every_u8)
    nan = np.isnan(values)
    calls.append(call("fp8", {"bits": every_u8},
                      result(f32(np.where(nan, 0.0, values)), "f32", EXACT, part=0), result(nan, "bool", part=1)))
    q = rng.integers(0, 256, size=(2, 3, 5)).astype(np.uint8)
    q[(q & 0x7F) == 0x7F] = 0x38  # not NaN
    scale = dyadic(rng, (2, 3, 1))
    calls.append(call("fp8_rows", {"q": q, "scale": scale},
                      result(f32(np_decode_fp8(q) * scale), "f32", EXACT)))
    # Exponents 5..9 keep every product and sum exact in f32.
    weight = (rng.integers(0, 2, size=(4, 6)) << 7 | rng.integers(5, 10, size=(4, 6)) << 3
              | rng.integers(0, 8, size=(4, 6))).astype(np.uint8)
    scale = dyadic(rng, (4, 1))
    x = dyadic(rng, (2, 6))
    bias = dyadic(rng, (4,))
    want = x.astype(np.float64) @ (np_decode_fp8(weight) * scale).T + bias
    calls.append(call("fp8_linear", {"x": x, "weight": weight, "scale": scale, "bias": bias},
                      result(f32(want), "f32", EXACT_DYADIC)))
    # MXFP4: bytes covering every nibble in both halves; scale bytes from 2^-126 (the
    # smallest normal f32 power) to 2^120, both ends included.
    blocks = np.arange(192, dtype=np.int64).reshape(2, 3, 2, 16)
    blocks = ((blocks * 37 + 11) % 256).astype(np.uint8)
    blocks.reshape(-1)[:64] = np.arange(64, dtype=np.uint8) * 4 + np.arange(64, dtype=np.uint8) % 4
    blocks.reshape(-1)[64:128] = np.arange(192, 256, dtype=np.uint8)
    scales = np.array([1, 30, 100, 127, 128, 140, 200, 247, 90, 126, 129, 160], dtype=np.uint8).reshape(2, 3, 2)
    calls.append(call("mxfp4", {"blocks": blocks, "scales": scales},
                      result(f32(np_dequantize_mxfp4(blocks, scales)), "f32", EXACT)))
    return calls


@program
def stdlib_moe(rng):
    x = dyadic(rng, (3, 2, 4))
    w = dyadic(rng, (5, 3, 4))
    chosen = np.array([[4, 0], [2, 2], [1, 3]], dtype=np.int64)
    want = np.einsum("rki,rkoi->rko", x.astype(np.float64), w[chosen].astype(np.float64))
    calls = [call("experts", {"x": x, "w": w, "chosen": chosen}, result(f32(want), "f32", EXACT_DYADIC))]
    row = dyadic(rng, (3, 4))
    want = np.einsum("ri,rkoi->rko", row.astype(np.float64), w[chosen].astype(np.float64))
    calls.append(call("shared", {"x": row, "w": w, "chosen": chosen}, result(f32(want), "f32", EXACT_DYADIC)))
    weights = dyadic(rng, (3, 2))
    want = np.einsum("rk,rki,rkoi->ro", weights.astype(np.float64), x.astype(np.float64),
                     w[chosen].astype(np.float64))
    calls.append(call("combined", {"x": x, "w": w, "chosen": chosen, "weights": weights},
                      result(f32(want), "f32", EXACT_DYADIC)))
    return calls


@program
def stdlib_mxfp4_experts(rng):
    # 5 experts of 19 outputs by 96 inputs (3 blocks of 32). Scale bytes 123..129
    # keep every weight a multiple of 2^-5 below 25 in magnitude, so with inputs
    # that are multiples of 1/4 (and weights of the mix too) every product and
    # sum is exact in f32 in any order.
    blocks = rng.integers(0, 256, size=(5, 19, 3, 16)).astype(np.uint8)
    scales = rng.integers(123, 130, size=(5, 19, 3)).astype(np.uint8)
    w = np_dequantize_mxfp4(blocks, scales)  # [5, 19, 96], float64
    calls = []
    for rows in (3, 5):
        experts = np.stack([rng.permutation(5)[:3] for _ in range(rows)]).astype(np.int64)
        taken = w[experts]  # [R, 3, 19, 96]
        x = dyadic(rng, (rows, 3, 96))
        one = dyadic(rng, (rows, 1, 96))
        row = dyadic(rng, (rows, 96))
        weights = dyadic(rng, (rows, 3), lo=-4, hi=4)
        each = np.einsum("rki,rkoi->rko", x.astype(np.float64), taken)
        common = {"blocks": blocks, "scales": scales, "experts": experts}
        calls.append(call("each", dict(x=x, **common), result(f32(each), "f32", EXACT_DYADIC)))
        calls.append(call("shared", dict(x=one, **common), result(
            f32(np.einsum("ri,rkoi->rko", one[:, 0].astype(np.float64), taken)), "f32", EXACT_DYADIC)))
        calls.append(call("routed", dict(x=row, **common), result(
            f32(np.einsum("ri,rkoi->rko", row.astype(np.float64), taken)), "f32", EXACT_DYADIC)))
        mixed = np.einsum("rk,rko->ro", weights.astype(np.float64), each)
        calls.append(call("combined", dict(x=x, weights=weights, **common), result(f32(mixed), "f32", EXACT_DYADIC)))
        # The same values are exact in bf16 (multiples of 1/4 below 2); the exact
        # f32 results are rounded to bf16 once.
        once = {"rel": 0.0, "abs": 0.0,
                "why": "exact: the f32 sums are exact (see above) and rounded to bf16 once, as numpy rounds them"}
        calls.append(call("each_bf16", dict(x=x, **common), result(bf16_round(f32(each)), "bf16", once)))
        calls.append(call("combined_bf16", dict(x=x, weights=weights, **common),
                          result(bf16_round(f32(mixed)), "bf16", once)))
    return calls


@program
def stdlib_write_tokens(rng):
    def ints(shape):
        return rng.integers(-99, 100, size=shape).astype(np.int32)
    cache = ints((3, 2, 6, 2))
    value = ints((1, 2, 5, 2))
    calls = []
    # Packed prompts of two rows, then a decode step of a third; out-of-range
    # rows and positions write nothing; a repeated (row, position) is taken
    # by the later token.
    for rows, positions in [([0, 0, 0, 2, 1], [0, 1, 2, 0, 5]),
                            ([1, 3, -1, 2, 1], [4, 0, 1, 6, 4]),
                            ([2, 2, 0, 0, 1], [-1, 3, 5, 5, 0])]:
        want = cache.copy()
        for p in range(5):
            if 0 <= rows[p] < 3 and 0 <= positions[p] < 6:
                want[rows[p], :, positions[p], :] = value[0, :, p, :]
        calls.append(call("tokens", {"cache": cache, "value": value, "rows": np.array(rows, dtype=np.int32),
                                     "positions": np.array(positions, dtype=np.int32)}, result(want, "i32")))
    return calls


@program
def stdlib_masked_attention(rng):
    # The ops' own semantics (std.nn.attention): f32 scores times the scale,
    # masked scores replaced by -1e30, softmax with its row maximum
    # subtracted, probabilities mixed with the values. Computed in float64.
    K = 10
    scale = np.float64(np.float32(0.35))

    def normal(shape):
        return f32(rng.standard_normal(shape))

    def mix(q, k, v, mask, sinks=None):
        # q [B, Hk, G, Q, D], k/v [B, Hk, K, D], mask broadcast to [B, Hk, G, Q, K]
        s = np.einsum("bjgqd,bjkd->bjgqk", q.astype(np.float64), k.astype(np.float64)) * scale
        s = np.where(mask, s, -1e30)
        top = s.max(axis=-1, keepdims=True)
        if sinks is not None:
            top = np.maximum(top, sinks)
        e = np.exp(s - top)
        total = e.sum(axis=-1, keepdims=True)
        if sinks is not None:
            total = total + np.exp(sinks - top)
        return np.einsum("bjgqk,bjkd->bjgqd", e / total, v.astype(np.float64))

    def tail(k, v, past):
        # Large finite keys and values past the last visible key: read, they
        # would only be multiplied by zero probabilities.
        k[:, :, past:, :] = 1e4
        v[:, :, past:, :] = -3e4
        return k, v

    tol = {"rel": 1e-5, "abs": 1e-6, "why": "f32 exp, division and sums in another order: a few ulp"}
    calls = []
    # shared: one [Q, K] mask for every row and head.
    causal = np.arange(K)[None, :] <= np.arange(4)[:, None] + 2          # bound 6
    blind = causal.copy()
    blind[1, :] = False                                                   # a query sees nothing: all K
    holes = np.zeros((4, K), dtype=bool)
    holes[:, [0, 3, 4]] = True
    holes[2, 7] = True                                                    # bound 8, with holes
    for mask, past in ((causal, 6), (blind, 6), (np.zeros((4, K), dtype=bool), K), (holes, 8)):
        q, k, v = normal((2, 3, 4, 8)), normal((2, 3, K, 8)), normal((2, 3, K, 8))
        k, v = tail(k, v, past)
        want = mix(q[:, :, None], k, v, mask[None, None, None])[:, :, 0]
        calls.append(call("shared", {"query": q, "key": k, "value": v, "mask": mask}, result(f32(want), "f32", tol)))
    # rows: a position per row (decode_rows).
    for positions, past in (([2, 5], 6), ([0, 0], 1), ([9, 3], K)):
        mask = (np.arange(K)[None, :] <= np.array(positions)[:, None])[:, None, :]
        q, k, v = normal((2, 3, 1, 8)), normal((2, 3, K, 8)), normal((2, 3, K, 8))
        k, v = tail(k, v, past)
        want = mix(q[:, :, None], k, v, mask[:, None, None])[:, :, 0]
        calls.append(call("rows", {"query": q, "key": k, "value": v, "mask": mask}, result(f32(want), "f32", tol)))
    # grouped: 4 query heads over 2 key heads, 2 queries per row.
    for positions, past in (([[1, 2], [4, 3]], 5), ([[1, 2], [-1, 3]], K)):
        mask = np.arange(K)[None, None, :] <= np.array(positions)[:, :, None]
        q, k, v = normal((2, 4, 2, 8)), normal((2, 2, K, 8)), normal((2, 2, K, 8))
        k, v = tail(k, v, past)
        want = mix(q.reshape(2, 2, 2, 2, 8), k, v, mask[:, None, None]).reshape(2, 4, 2, 8)
        calls.append(call("grouped", {"query": q, "key": k, "value": v, "mask": mask}, result(f32(want), "f32", tol)))
    # sinks: each query head's sink logit joins its softmax.
    for positions, past in (([3, 1], 4), ([-1, 6], K)):
        mask = (np.arange(K)[None, :] <= np.array(positions)[:, None])[:, None, :]
        q, k, v = normal((2, 4, 1, 8)), normal((2, 2, K, 8)), normal((2, 2, K, 8))
        k, v = tail(k, v, past)
        sinks = normal((4,))
        s = sinks.astype(np.float64).reshape(1, 2, 2, 1, 1)
        want = mix(q.reshape(2, 2, 2, 1, 8), k, v, mask[:, None, None], sinks=s).reshape(2, 4, 1, 8)
        calls.append(call("sinks", {"query": q, "key": k, "value": v, "sinks": sinks, "mask": mask},
                          result(f32(want), "f32", tol)))
    return calls


@program
def attention_query_tiles(rng):
    # std.nn.attention's semantics as in stdlib_masked_attention, computed in
    # float64, at sizes that take several query tiles of at most 2^20 scores.
    scale = np.float64(np.float32(0.35))

    def mix(q, k, v, mask):
        # q [B, Hk, G, Q, D], k/v [B, Hk, K, D], mask broadcast to [B, Hk, G, Q, K]
        s = np.einsum("bjgqd,bjkd->bjgqk", q.astype(np.float64), k.astype(np.float64)) * scale
        s = np.where(mask, s, -1e30)
        e = np.exp(s - s.max(axis=-1, keepdims=True))
        return np.einsum("bjgqk,bjkd->bjgqd", e / e.sum(axis=-1, keepdims=True), v.astype(np.float64))

    tol = {"rel": 1e-5, "abs": 1e-6, "why": "f32 exp, division and sums in another order: a few ulp"}
    calls = []
    # shared: 2 heads, K' = 1400 for the whole call: tiles of 352 rows
    # (2^20 / 2800, in rows of 32), the last taking 596.
    Q, K = 1300, 1400
    shift, blind = 100, 500
    q, k, v = (dyadic(rng, s) for s in ((1, 2, Q, 1), (1, 2, K, 1), (1, 2, K, 1)))
    mask = np.arange(K)[None, :] <= np.arange(Q)[:, None] + shift
    mask[blind, :] = False
    want = mix(q[:, :, None], k, v, mask[None, None, None])[:, :, 0]
    calls.append(call("shared", {"query": q, "key": k, "value": v, "shift": np.int64(shift),
                                 "blind": np.int64(blind)}, result(f32(want), "f32", tol)))
    # rows: 2 x 2 heads over K' = 1000: tiles of 256 rows, the last taking 388.
    Q, K = 900, 1000
    starts = np.array([100, 3], dtype=np.int64)
    q, k, v = (dyadic(rng, s) for s in ((2, 2, Q, 1), (2, 1, K, 1), (2, 1, K, 1)))
    mask = np.arange(K)[None, None, :] <= np.arange(Q)[None, :, None] + starts[:, None, None]
    want = mix(q.reshape(2, 1, 2, Q, 1), k, v, mask[:, None, None]).reshape(2, 2, Q, 1)
    calls.append(call("rows", {"query": q, "key": k, "value": v, "starts": starts}, result(f32(want), "f32", tol)))
    # unmasked: 2 query heads over 1 key head, K = 1000: tiles of 512 rows
    # (2^20 / 2000), the last taking 588.
    Q, K = 1100, 1000
    q, k, v = (dyadic(rng, s) for s in ((1, 2, Q, 1), (1, 1, K, 1), (1, 1, K, 1)))
    want = mix(q.reshape(1, 1, 2, Q, 1), k, v, np.ones((Q, K), dtype=bool)).reshape(1, 2, Q, 1)
    calls.append(call("unmasked", {"query": q, "key": k, "value": v}, result(f32(want), "f32", tol)))
    return calls


@program
def typed_constants(rng):
    x = rng.integers(-10, 11, size=(4, 3)).astype(np.int32)
    xf = x.astype(np.float32)
    return [
        call("above", {"x": x}, result(x > 4, "bool")),
        call("scaled_rows", {"x": x}, result((xf * np.float32(0.5) + np.float32(0.25)).sum(axis=1), "f32", EXACT)),
        call("outside", {"x": x}, result((x + 5).astype(np.float32) * np.float32(0.5), "f32", EXACT)),
    ]


@program
def stdlib_page_slots(rng):
    # 4 rows of 3 pages of 4 positions each, over a pool of 12 pages.
    table = rng.permutation(12).astype(np.int32).reshape(4, 3)
    calls = []
    for positions in [[0, 5, 11, 7], [3, 4, 8, 1], [-1, 12, 6, 13]]:
        want = []
        for r, at in enumerate(positions):
            inside = 0 <= at < 12
            want.append(table[r, at // 4] * 4 + at % 4 if inside else -1)
        calls.append(call("slots", {"table": table, "positions": np.array(positions, dtype=np.int32)},
                          result(np.array(want, dtype=np.int32), "i32")))
    # Rows and pages as entry generics: 3 rows and then 6 rows of 7 pages of 5
    # positions (35 a row) over a pool of 64 pages.
    for rows in (3, 6):
        table = rng.permutation(64)[:rows * 7].astype(np.int32).reshape(rows, 7)
        positions = rng.integers(-3, 39, size=rows).astype(np.int32)
        positions[0] = 34  # the last position of the last page
        want = [table[r, p // 5] * 5 + p % 5 if 0 <= p < 35 else -1 for r, p in enumerate(positions)]
        calls.append(call("dynamic", {"table": table, "positions": positions},
                          result(np.array(want, dtype=np.int32), "i32")))
    # No pages: every position is outside the table.
    positions = np.array([0, 3, -1, 100], dtype=np.int32)
    calls.append(call("no_pages", {"positions": positions}, result(np.full(4, -1, dtype=np.int32), "i32")))
    positions = np.array([0, 1, 2, -5, 7], dtype=np.int32)
    calls.append(call("no_pages_dynamic", {"positions": positions}, result(np.full(5, -1, dtype=np.int32), "i32")))
    return calls

@program
def packed_products(rng):
    def product(x, w):
        return x.astype(np.float64) @ w.astype(np.float64).T
    calls = []
    w = dyadic(rng, (64, 96))
    for m in (45, 5, 32):
        x = dyadic(rng, (m, 96))
        calls.append(call("tokens", {"w": w, "x": x}, result(product(x, w), "f32", EXACT_DYADIC)))
    w = dyadic(rng, (32, 64))
    x = dyadic(rng, (2, 19, 64))
    calls.append(call("batched", {"w": w, "x": x}, result(product(x, w), "f32", EXACT_DYADIC)))
    w = dyadic(rng, (96, 32))
    x = dyadic(rng, (40, 32))
    calls.append(call("fixed", {"w": w, "x": x}, result(product(x, w), "f32", EXACT_DYADIC)))
    w = dyadic(rng, (128, 64))
    x = dyadic(rng, (50, 64))
    calls.append(call("sliced", {"w": w, "x": x}, result(product(x, w[32:96]), "f32", EXACT_DYADIC)))
    w = dyadic(rng, (48, 64))
    x = dyadic(rng, (37, 64))
    calls.append(call("odd_rows", {"w": w, "x": x}, result(product(x, w), "f32", EXACT_DYADIC)))
    for queries, keys in ((40, 45), (33, 7), (36, 64), (3, 50)):
        q = dyadic(rng, (2, queries, 64))
        k = dyadic(rng, (2, keys, 64))
        want = np.einsum("hid,hjd->hij", q.astype(np.float64), k.astype(np.float64))
        calls.append(call("heads", {"q": q, "k": k}, result(want, "f32", EXACT_DYADIC)))
    w = dyadic(rng, (64, 64))
    b = dyadic(rng, (64,))
    x = dyadic(rng, (33, 64))
    calls.append(call("biased", {"w": w, "b": b, "x": x},
                      result(bf16_round(product(x, w) + b), "bf16",
                             {"rel": 0.0, "abs": 0.0, "why": "exact: the f32 sum is exact, then rounded to bf16 once"})))
    return calls


@program
def outer_products(rng):
    calls = []
    for queries, keys in ((25, 40), (4, 1), (13, 3)):
        p = dyadic(rng, (2, queries, keys))
        v = dyadic(rng, (2, keys, 96))
        want = np.einsum("hqk,hkd->hqd", p.astype(np.float64), v.astype(np.float64))
        calls.append(call("mix", {"p": p, "v": v}, result(want, "f32", EXACT_DYADIC)))
    p = dyadic(rng, (2, 2, 17, 9))
    v = dyadic(rng, (2, 9, 32))
    want = np.einsum("hgqk,hkd->hgqd", p.astype(np.float64), v.astype(np.float64))
    calls.append(call("grouped", {"p": p, "v": v}, result(want, "f32", EXACT_DYADIC)))
    for m in (29, 1):
        a = dyadic(rng, (m, 24))
        b = dyadic(rng, (24, 40))
        calls.append(call("rows40", {"a": a, "b": b}, result(a.astype(np.float64) @ b, "f32", EXACT_DYADIC)))
    for n in (21, 64):
        a = dyadic(rng, (7, 16))
        b = dyadic(rng, (16, n))
        calls.append(call("dynamic_rows", {"a": a, "b": b}, result(a.astype(np.float64) @ b, "f32", EXACT_DYADIC)))
    x = dyadic(rng, (64,))
    w = dyadic(rng, (64, 48))
    calls.append(call("vector_matrix", {"x": x, "w": w}, result(x.astype(np.float64) @ w, "f32", EXACT_DYADIC)))
    return calls


def total_divmod(a, b, dtype):
    """Integer / and % as docs/dialect.md defines them (XLA's total division):
    truncation toward zero, x / 0 = -1 (signed) or all ones (unsigned), x % 0 = x,
    signed MIN / -1 = MIN and MIN % -1 = 0. Python integers, so nothing wraps."""
    info = np.iinfo(dtype)
    q, r = [], []
    for x, y in zip(np.asarray(a).tolist(), np.asarray(b).tolist()):
        if y == 0:
            q.append(-1 if info.min < 0 else int(info.max))
            r.append(x)
        elif x == info.min and y == -1:
            q.append(int(info.min))
            r.append(0)
        else:
            t = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            q.append(t)
            r.append(x - t * y)
    return np.array(q, dtype=dtype), np.array(r, dtype=dtype)


@program
def integer_division(rng):
    calls = []
    for name in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]:
        dtype = np.dtype({"i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
                          "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}[name])
        info = np.iinfo(dtype)
        lo, hi = int(info.min), int(info.max)
        if name == "u64":
            hi = 2 ** 63 - 1  # linnet-run reads u64 arguments up to 2^63 - 1 only
        if lo < 0:
            # The trapping cases in the vector body and in the masked tail
            # (elements 16..19).
            a = [lo, lo, lo, lo, hi, hi, -7, 7, -7, 7, 0, 0, 5, -5, lo + 1, hi, lo, 9, lo, 13]
            b = [-1, 0, 1, lo, -1, 0, 2, -2, -2, 2, 0, -1, 0, 0, -1, lo, 3, -1, -1, 0]
            short = ([lo, 5, lo], [-1, 0, 0])
        else:
            a = [hi, hi, 0, 5, 200, 7, hi, 1, 0, 3, 255, 17, hi - 1, 100, 2, hi, 12, 9, hi, 13]
            b = [0, 1, 0, 0, hi, 2, 3, hi, 7, 3, 16, 5, hi, 0, 2, 2, 5, 0, hi, 0]
            short = ([hi, 5, 0], [0, 0, 7])
        for n, (x, y) in [(20, (a, b)), (3, short)]:
            x = np.array(x, dtype=dtype)
            y = np.array(y, dtype=dtype)
            q, r = total_divmod(x, y, dtype)
            calls.append(call("div_%s_%d" % (name, n), {"a": x, "b": y},
                              result(q, name, part=0), result(r, name, part=1)))
    i32, i64, u16, u64 = np.int32, np.int64, np.uint16, np.uint64
    a = rng.integers(2 ** 62, 2 ** 63, size=20, dtype=np.uint64)
    b = rng.integers(0, 2 ** 63, size=20, dtype=np.uint64)
    b[[0, 5, 17]] = 0
    b[[1, 18]] = [3, 2 ** 63 - 1]
    q, r = total_divmod(a + a, b, u64)
    calls.append(call("div_u64_doubled", {"a": a, "b": b}, result(q, "u64", part=0), result(r, "u64", part=1)))
    m32, m64 = int(np.iinfo(i32).min), int(np.iinfo(i64).min)
    for a, b in [(m32, -1), (7, 0), (-7, 2)]:
        q, r = total_divmod([a], [b], i32)
        calls.append(call("scalar_i32", {"a": a, "b": b}, result(q[0], "i32", part=0), result(r[0], "i32", part=1)))
    for a, b in [(2 ** 63 - 1, 0), (2 ** 63 - 1, 10)]:
        q, r = total_divmod([a], [b], u64)
        calls.append(call("scalar_u64", {"a": a, "b": b}, result(q[0], "u64", part=0), result(r[0], "u64", part=1)))
    a = np.concatenate([[m32, m32 + 1, -1, 0, 1, 2 ** 31 - 1], rng.integers(-1000, 1000, size=14)]).astype(i32)
    for d in [0, -1, 3]:
        q, r = total_divmod(a, np.full(20, d), i32)
        calls.append(call("by_scalar_i32", {"a": a, "d": d}, result(q, "i32", part=0), result(r, "i32", part=1)))
    al = np.array([m64, m64, 5, -5, 0, 2 ** 63 - 1] + rng.integers(-10 ** 12, 10 ** 12, size=12).tolist() + [m64, 11],
                  dtype=i64)
    bl = np.array([-1, 0, 0, 2, 0, -1] + rng.integers(-50, 50, size=12).tolist() + [-1, 0], dtype=i64)
    q, r = total_divmod(al, bl, i64)
    calls.append(call("notation_i64", {"a": al, "b": bl}, result(q, "i64", part=0), result(r, "i64", part=1)))
    au = rng.integers(0, 2 ** 16, size=20).astype(u16)
    bu = rng.integers(0, 40, size=20).astype(u16)
    bu[[0, 17, 19]] = 0
    q, r = total_divmod(au, bu, u16)
    calls.append(call("notation_u16", {"a": au, "b": bu}, result((q.astype(np.int64) + r) % 2 ** 16, "u16")))
    q, r = total_divmod(a, np.full(20, -1), i32)
    calls.append(call("by_minus_one_i32", {"a": a}, result(q, "i32", part=0), result(r, "i32", part=1)))
    q, r = total_divmod(a, np.full(20, 7), i32)
    calls.append(call("by_seven_i32", {"a": a}, result(q, "i32", part=0), result(r, "i32", part=1)))
    return calls


def round_float(x, bits, min_exp, max_value):
    """The float64 x rounded once to nearest even into a binary format with
    `bits` significand bits, least subnormal 2^min_exp and largest finite
    `max_value` (inf beyond), computed exactly with fractions."""
    from fractions import Fraction
    import math
    x = float(x)
    if x == 0 or math.isinf(x) or math.isnan(x):
        return x
    e = math.frexp(abs(x))[1]                  # 2^(e-1) <= |x| < 2^e
    quantum = max(e - bits, min_exp)
    n = round(Fraction(abs(x)) / Fraction(2) ** quantum)   # half to even
    v = float(n * Fraction(2) ** quantum)
    top = float(Fraction(max_value) + Fraction(2) ** (math.frexp(max_value)[1] - bits - 1))
    if v > max_value or (v >= top):
        v = math.inf
    return math.copysign(v, x)


def f16_once(x):
    return np.array([round_float(v, 11, -24, 65504.0) for v in np.asarray(x, dtype=np.float64).ravel()])


def bf16_once(x):
    return np.array([round_float(v, 8, -133, float.fromhex("0x1.fep127")) for v in np.asarray(x, dtype=np.float64).ravel()])


@program
def f64_math(rng):
    d = np.float64
    F64 = {"rel": 4e-16, "abs": 0.0, "why": "f64 libm results (glibc, under 1 ulp) against numpy's: a couple of ulp"}
    ONCE = {"rel": 0.0, "abs": 0.0, "why": "exact: rounded once to nearest even from the f64 value (computed exactly)"}
    x = np.concatenate([[0.0, -0.0, 1e-300, -2.5, 700.0, -745.0, 20.0, np.pi, 1e6, -3e10, 0.5, 1.0],
                        rng.uniform(-30, 30, size=8)]).astype(d)
    p = np.concatenate([[1e-300, 5e-324, 0.25, 1.0, 2.0, 1e300, np.e, 12345.678],
                        rng.uniform(0, 100, size=12)]).astype(d)

    def results(x, p):
        return [result(np.exp(x), "f64", F64, part=0), result(np.sin(x), "f64", F64, part=1),
                result(np.cos(x), "f64", F64, part=2), result(np.tanh(x), "f64", F64, part=3),
                result(np.abs(x), "f64", F64, part=4), result(np.log(p), "f64", F64, part=5),
                result(np.sqrt(p), "f64", F64, part=6), result(1.0 / np.sqrt(p), "f64", F64, part=7)]

    np.seterr(over="ignore")  # exp(1e6) is inf, as wanted
    calls = [call("math_20", {"x": x, "p": p}, *results(x, p)),
             call("math_3", {"x": x[[3, 7, 16]], "p": p[[2, 6, 13]]}, *results(x[[3, 7, 16]], p[[2, 6, 13]]))]
    for i in [3, 8]:
        calls.append(call("math_scalar", {"x": x[i], "p": p[i]},
                          *[dict(r, shape=[], values=r["values"][:1]) for r in results(x[i:i + 1], p[i:i + 1])]))
    xs, ps = rng.uniform(-5, 5, size=20), rng.uniform(0.1, 50, size=20)
    want = np.exp(xs) * np.sin(xs) + np.log(ps) * np.tanh(xs) + np.cos(xs) / np.sqrt(ps)
    calls.append(call("math_notation", {"x": xs, "p": ps},
                      result(want, "f64", {"rel": 1e-14, "abs": 1e-14, "why": "three f64 products summed: a few ulp of the terms"})))
    # Values just above (or below) a half-way point of f16/bf16 by less than
    # an f32 ulp: rounding to f32 first lands on the half-way point, which then
    # rounds to even, the wrong way. Also overflow, subnormals and signs.
    h = [1 + 2.0 ** -11 + 2.0 ** -40, -(1 + 2.0 ** -11 + 2.0 ** -40), 1 + 3 * 2.0 ** -11 - 2.0 ** -40,
         1 + 2.0 ** -8 + 2.0 ** -30, -(1 + 2.0 ** -8 + 2.0 ** -30), 1 + 3 * 2.0 ** -8 - 2.0 ** -30,
         65519.99, 65520.0, 1e6, 3.5e38, -1e39, 2.0 ** -25 + 2.0 ** -60, 2.0 ** -24 * 1.5, 1e-40,
         2.0 ** -134 + 2.0 ** -170, 1e-310, 0.1, -3.14159, 0.0, -0.0]
    h = np.array(h, dtype=d)
    calls.append(call("narrow_20", {"x": h}, result(f16_once(h), "f16", ONCE, part=0),
                      result(bf16_once(h), "bf16", ONCE, part=1)))
    for v in [h[0], h[3], h[7]]:
        calls.append(call("narrow_scalar", {"x": v}, result(f16_once([v])[0], "f16", ONCE, part=0),
                          result(bf16_once([v])[0], "bf16", ONCE, part=1)))
    a = np.array([2 ** 24 + 2 ** 16 + 1, -(2 ** 24 + 2 ** 16 + 1), 2 ** 31 - 1, -2 ** 31, 16909312 - 1, 0, 1, -1,
                  65519, 65520, -65536, 123456789] + rng.integers(-2 ** 31, 2 ** 31, size=8).tolist(), dtype=np.int32)
    b = np.array([2 ** 32 - 1, 2 ** 31 + 2 ** 23 + 1, 2 ** 24 + 2 ** 16 + 1, 0, 4278190081, 4286578687] +
                 rng.integers(0, 2 ** 32, size=14).tolist(), dtype=np.uint32)
    calls.append(call("ints_to_bf16", {"a": a, "b": b}, result(bf16_once(a.astype(d)), "bf16", ONCE, part=0),
                      result(bf16_once(b.astype(d)), "bf16", ONCE, part=1),
                      result(f16_once(a.astype(d)), "f16", ONCE, part=2)))
    return calls


@program
def trig_range(rng):
    d = np.float64
    # f32 sin/cos are checked in ulp of the result: 2.5 ulp is 2.5 * 2^-23
    # relative at worst (just above a power of two).
    tol = {"rel": 3e-7, "abs": 1e-38,
           "why": "f32 sin/cos within 2.5 ulp (measured at most 1.5) of the f64 value, for |x| up to 1e15"}
    # f32 values closest to a multiple of pi/2 (k up to 10^6): tiny results,
    # where a weak range reduction loses every correct digit.
    k = np.arange(1, 10 ** 6 + 1, dtype=d)
    near = (k * (np.pi / 2)).astype(np.float32)
    miss = np.abs(near.astype(d) - k * (np.pi / 2)) / np.abs(near.astype(d))
    hard = near[np.argsort(miss)[:10]]
    x = np.concatenate([
        [1e5, 1e6, -1e5, -1e6, 0.0, -0.0, 1e-30, 0.5, -3.0, 100.0, 12345.678, 3e8, 8e8, 1e10, 1e12, -1e15],
        hard, -hard[:4],
        np.float32(np.pi) * np.arange(1, 9), np.float32(np.pi / 2) * np.arange(1, 9) * 1000,
        rng.uniform(-1e5, 1e5, size=14), np.exp(rng.uniform(0, np.log(1e9), size=10)),
    ]).astype(np.float32)
    assert x.size == 70
    xd = x.astype(d)
    calls = [call("trig", {"x": x}, result(np.sin(xd), "f32", tol, part=0), result(np.cos(xd), "f32", tol, part=1))]
    for v in [x[0], x[1], hard[0]]:
        calls.append(call("trig_scalar", {"x": v}, result(np.sin(d(v)), "f32", tol, part=0),
                          result(np.cos(d(v)), "f32", tol, part=1)))
    pos = np.array([0, 1, 17, 500, 2047, 4095], dtype=np.int32)
    inv = f32(10000.0 ** (-np.arange(0, 10, 2) / 10.0))
    angle = (pos.astype(np.float32)[:, None] * inv[None, :]).astype(d)  # one f32 rounding, as computed
    bf = {"rel": 2 ** -8, "abs": 1e-6,
          "why": "an f32 result within 2 ulp, rounded to bf16: at most one bf16 ulp off where it is next to a tie"}
    calls.append(call("rotary", {"pos": pos, "inv": inv}, result(bf16_round(f32(np.cos(angle))), "bf16", bf, part=0),
                      result(bf16_round(f32(np.sin(angle))), "bf16", bf, part=1)))
    return calls


@program
def tanh_range(rng):
    d = np.float64
    # 1.25 ulp is at most 1.25 * 2^-23 relative (a result just above a power
    # of two); measured at most 1.25 ulp (just above |x| = 0.625).
    F32 = {"rel": 1.5e-7, "abs": 1e-45,
           "why": "f32 tanh within 1.25 ulp of the f64 value (measured over 350,000 arguments)"}
    BF16 = {"rel": 2.0 ** -8, "abs": 1e-45,
            "why": "an f32 result within 1.25 f32 ulp, rounded to bf16: at most one bf16 ulp off next to a tie"}
    x = np.concatenate([
        # 0, -0, subnormal and tiny arguments (tanh x = x), the polynomial's end
        [0.0, -0.0, 1e-40, -1e-45, 1e-30, 1e-8, -3e-4, 0.1, 0.5, 0.62, 0.6249999, 0.625, -0.625, 0.63311005],
        # exp's range: the worst seen, saturation, exp's overflow, infinities, NaN
        [1.0, -1.6644646, 3.8296502, -5.74932, 7.9, 7.905, 8.04, -8.03796, 8.66, 9.0, 9.0108, 12.0, 20.0,
         44.3, 44.5, 88.8, 1e30, -3.4e38, np.inf, -np.inf, np.nan],
        rng.uniform(-12.0, 12.0, size=25), np.exp(rng.uniform(np.log(1e-6), np.log(0.625), size=10)),
    ]).astype(np.float32)
    assert x.size == 70

    def expected(v, dtype, tol):
        t = np.tanh(v.astype(d))
        t = f32(t) if dtype == "f32" else bf16_round(f32(t))
        return [result(np.where(np.isnan(t), 0.0, t), dtype, tol, part=0), result(np.isnan(t), "bool", part=1)]

    calls = [call(entry, {"x": typed(x, "f32")}, *expected(x, "f32", F32)) for entry in ("whole", "notation")]
    for v in [x[7], x[20], x[13], x[1]]:
        calls.append(call("scalar", {"x": typed(f32(v), "f32")}, result(f32(np.tanh(d(v))), "f32", F32)))
    xb = bf16_round(x)
    calls.append(call("whole_bf16", {"x": typed(xb, "f32")}, *expected(xb, "bf16", BF16)))
    return calls


@program
def unsigned_ops(rng):
    calls = []
    for name, dtype in [("u8", np.uint8), ("u16", np.uint16), ("u32", np.uint32)]:
        hi = int(np.iinfo(dtype).max)
        for n in (20, 3):
            a = rng.integers(0, hi + 1, size=n, dtype=np.uint64).astype(dtype)
            a[0], a[1] = hi, hi // 2 + 1   # values with the top bit set
            a[-1] = 3
            calls.append(call("reduce_%s_%d" % (name, n), {"a": a},
                              result(a.max(), name, part=0), result(a.min(), name, part=1)))
    a = rng.integers(0, 2 ** 63, size=20, dtype=np.uint64)
    a[3], a[7], a[19] = 2 ** 63 - 1, 2 ** 62, 5
    w = a + a
    calls.append(call("reduce_u64", {"a": a}, result(w.max(), "u64", part=0), result(w.min(), "u64", part=1)))
    r8 = rng.integers(0, 256, size=(3, 20)).astype(np.uint8)
    r8[0, :] = rng.integers(128, 256, size=20)
    calls.append(call("rows_u8", {"a": r8}, result(r8.max(axis=1), "u8", part=0), result(r8.min(axis=1), "u8", part=1)))
    r32 = rng.integers(0, 2 ** 32, size=(20, 3), dtype=np.uint64).astype(np.uint32)
    r32[5, :] = [2 ** 32 - 1, 2 ** 31, 7]
    calls.append(call("rows_u32", {"a": r32}, result(r32.max(axis=0), "u32", part=0),
                      result(r32.min(axis=0), "u32", part=1)))
    calls.append(call("empty_u8", {"a": np.zeros(0, dtype=np.uint8)}, result(np.uint8(0), "u8", part=0),
                      result(np.uint8(255), "u8", part=1), bind={"N": 0}))
    calls.append(call("empty_u32", {"a": np.zeros((2, 0), dtype=np.uint32)},
                      result(np.zeros(2, dtype=np.uint32), "u32", part=0),
                      result(np.full(2, 2 ** 32 - 1, dtype=np.uint32), "u32", part=1), bind={"N": 0}))
    au = rng.integers(0, 256, size=20).astype(np.uint8)
    au[:3] = [255, 128, 200]
    bu = rng.integers(0, 2 ** 16, size=20).astype(np.uint16)
    bu[0] = 2 ** 16 - 1
    cu = rng.integers(0, 2 ** 32, size=20, dtype=np.uint64).astype(np.uint32)
    cu[0] = 2 ** 32 - 1
    du = rng.integers(0, 2 ** 63, size=20, dtype=np.uint64)
    calls.append(call("abs_all", {"a": au, "b": bu, "c": cu, "d": du, "s": 200},
                      result(au, "u8", part=0), result(bu, "u16", part=1), result(cu, "u32", part=2),
                      result(du + du, "u64", part=3), result(np.uint8(200), "u8", part=4)))
    calls.append(call("abs_notation", {"a": au}, result(au, "u8")))
    return calls


def scalar_trunc_div(a, b):
    """Integer `/` as docs/dialect.md defines it: toward zero, x / 0 == -1."""
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def scalar_trunc_rem(a, b):
    """Integer `%`: the dividend's sign, x % 0 == x."""
    return a if b == 0 else a - b * scalar_trunc_div(a, b)


def shift_i32(x, n, left, unsigned=False):
    """XLA's shifts on 32 bits: a count outside [0, 32) (unsigned) shifts
    every bit out: 0, or the sign for an arithmetic right shift."""
    width = 32
    count = n & 0xFFFFFFFF
    if unsigned:
        x &= 0xFFFFFFFF
        return 0 if count >= width else ((x << count) & 0xFFFFFFFF if left else x >> count)
    if count >= width:
        return 0 if left else (-1 if x < 0 else 0)
    if left:
        r = (x << count) & 0xFFFFFFFF
        return r - (1 << 32) if r >= 1 << 31 else r
    return x >> count


@program
def value_semantics(rng):
    calls = [call("constants", {}, *[result(np.int64(v), "i64", part=i) for i, v in enumerate(
        [scalar_trunc_div(7, -2), scalar_trunc_rem(-7, 3), scalar_trunc_div(7, 0), scalar_trunc_rem(7, 0), 1 << 40, 6, -1])])]
    for a in [0, 5]:
        calls.append(call("locals", {"a": np.int64(a)}, *[result(np.int64(v + a), "i64", part=i) for i, v in enumerate(
            [scalar_trunc_div(-7, 2), scalar_trunc_rem(-7, 2), scalar_trunc_div(7, 0), scalar_trunc_rem(7, 0)])]))
    for n, m in [(7, 0), (7, 2), (23, 5), (0, 0)]:
        x, y = np.arange(n, dtype=np.float32), np.arange(m, dtype=np.float32)
        calls.append(call("dims", {"x": x, "y": y}, *[result(np.int64(v), "i64", part=i) for i, v in enumerate(
            [scalar_trunc_div(n - 10, 4), scalar_trunc_rem(n - 10, 4), scalar_trunc_div(n, m), scalar_trunc_rem(n, m)])]))
    for n, m in [(3, 1), (2, 2), (5, 7)]:
        x, y = dyadic(rng, (n,)), dyadic(rng, (m,))
        flags = [n > 2, n < 2, n == 3, n != 3, n >= 0, n + 1 > 3, n > m]
        calls.append(call("compare", {"x": x, "y": y}, *[result(np.bool_(f), "bool", part=i) for i, f in enumerate(flags)],
                          result(x * (2.0 if n > 2 else 3.0), "f32", EXACT_DYADIC, part=7)))
    for n in [0, 2]:
        x = np.zeros(n, dtype=np.float32)
        calls.append(call("casts", {"x": x}, result(np.bool_(True), "bool", part=0), result(np.bool_(False), "bool", part=1),
                          result(np.int32(2), "i32", part=2), result(np.int32(-2), "i32", part=3),
                          result(np.bool_(n != 0), "bool", part=4), result(np.float32(3.0), "f32", EXACT, part=5)))
    v = np.array([-7, 3, -1, 100], dtype=np.int32)
    n = np.array([1, 31, 32, -1], dtype=np.int32)
    for a, k in [(-5, 3), (12345, 40), (-12345, -1)]:
        calls.append(call("shifts", {"a": np.int32(a), "k": np.int32(k), "v": v, "n": n},
                          result(np.int32(shift_i32(a, 40, True)), "i32", part=0),
                          result(np.int32(shift_i32(a, 33, False)), "i32", part=1),
                          result(np.int32(shift_i32(a, k, True)), "i32", part=2),
                          result(np.int32(shift_i32(a, k, False)), "i32", part=3),
                          result(np.array([shift_i32(int(p), int(q), True) for p, q in zip(v, n)], dtype=np.int32), "i32", part=4),
                          result(np.array([shift_i32(int(p), int(q), False) for p, q in zip(v, n)], dtype=np.int32), "i32", part=5),
                          result(np.array([shift_i32(int(p), int(q), False, True) for p, q in zip(v, n)], dtype=np.uint32),
                                 "u32", part=6)))
    for n in [3, 12]:
        calls.append(call("math", {"x": np.zeros(n, dtype=np.float32)},
                          result(np.float32(np.exp(1.0)), "f32", EXACT, part=0), result(np.float32(4.5), "f32", EXACT, part=1),
                          result(np.float64(1.0), "f64", EXACT, part=2), result(np.int64(5), "i64", part=3),
                          result(np.int64(abs(n - 10)), "i64", part=4),
                          result(np.int64(-2 ** 63), "i64", part=5)))
    for x, i, h, g in [(-3.5, -4, 1.5, 2.5), (2.25, 6, -1.5, 0.5)]:
        w = -1.0 if x < 0 else 1.0
        calls.append(call("joined", {"x": np.float32(x), "i": np.int32(i), "h": h, "g": g},
                          result(np.float32(w * x), "f32", EXACT, part=0), result(np.float32(w * x), "f32", EXACT, part=1),
                          result(np.int32(-i if i < 0 else i), "i32", part=2),
                          result(np.float32(1.0 if x > 0 else 2.0), "f32", EXACT, part=3),
                          result(np.float32(0.25 if x > 0 else h), "bf16", EXACT, part=4),
                          result(np.float32(0.75 if x > 0 else g), "f16", EXACT, part=5),
                          result(np.float32(0.5 if x > 0 else h), "bf16", EXACT, part=6),
                          result(np.float32(2.0 * x), "f32", EXACT, part=7)))
    return calls


@program
def block_items(rng):
    x = dyadic(rng, (3,))
    calls = []
    scale = {0: (x, 1), 1: (-x, -1), 2: (x * 2.0, 2)}
    for mode in range(3):
        m = (mode + 1) % 3
        v, k = scale[m]
        calls.append(call("stepped", {"x": x, "mode": np.int32(mode)}, result(v, "f32", EXACT_DYADIC, part=0),
                          result(np.int32(k), "i32", part=1), result(np.int32(m), "i32", part=2)))
    calls.append(call("known", {"x": x}, result(x, "f32", EXACT_DYADIC)))
    return calls


@program
def slicing_unit_axes(rng):
    a = dyadic(rng, (1, 2, 2))
    b = dyadic(rng, (1, 2, 2, 2))
    c = dyadic(rng, (2, 1, 2))
    d = dyadic(rng, (1, 2, 3))
    calls = [
        call("last_axis", {"x": a}, result(a[:, :, 0], "f32", EXACT, part=0), result(a[..., 1], "f32", EXACT, part=1),
             result(a[0:1, 0:2, 0], "f32", EXACT, part=2)),
        call("inner_axes", {"x": b}, result(b[:, :, 0, :], "f32", EXACT, part=0),
             result(b[:, :, :, 1], "f32", EXACT, part=1), result(b[0, :, 1, :], "f32", EXACT, part=2)),
        call("unit_between", {"x": c}, result(c[:, :, 1], "f32", EXACT, part=0), result(c[:, 0, 0], "f32", EXACT, part=1)),
    ]
    for i in range(3):
        calls.append(call("at_run_time", {"x": d, "i": np.int64(i)}, result(d[:, :, i], "f32", EXACT, part=0),
                          result(d[0, 1, i], "f32", EXACT, part=1)))
    for n in [1, 3]:
        e = dyadic(rng, (n, 1, 3))
        calls.append(call("dynamic_lead", {"x": e}, result(e[:, 0, 1:3], "f32", EXACT, part=0),
                          result(e[:, 0, 2] * 2.0, "f32", EXACT_DYADIC, part=1)))
    return calls


@program
def loops_changing_constants(rng):
    calls = [call("tuple_literal", {"x": np.float32(x)}, result(x + 2.5, "f32", EXACT_DYADIC)) for x in [1.0, -3.25]]
    for n in [0, 1, 5, -2]:
        steps = max(n, 0)
        code = 0 if steps == 0 else 1 if steps == 1 else 2
        calls.append(call("struct_enum", {"n": np.int32(n)}, result(2.0 ** steps, "f32", EXACT, part=0),
                          result(code, "i32", part=1)))
    x = dyadic(rng, (2,))
    calls.append(call("nested", {"x": x}, result(x * 4.0, "f32", EXACT_DYADIC, part=0),
                      result(2 * 3 * 7, "i64", part=1)))
    calls.append(call("scanned", {"x": np.float32(3.0)},
                      result(np.array([3.0 * 0.5 * 2 ** i for i in range(4)]), "f32", EXACT_DYADIC)))
    for n in [0, 1, 2]:
        v = 3.0 + n
        out = v if n == 0 else v * 10.0 + (v - 1.0)
        calls.append(call("optional_part", {"x": np.float32(3.0), "n": np.int32(n)}, result(out, "f32", EXACT)))
    x3 = dyadic(rng, (3,))
    calls.append(call("in_notation", {"x": x3}, result(x3 * 4.0, "f32", EXACT_DYADIC)))
    calls.append(call("nothing_carried", {"x": x3[:2]}, result(x3[:2] * 10.0, "f32", EXACT_DYADIC)))
    return calls


@program
def untyped_run_time_values(rng):
    calls = []
    x = dyadic(rng, (3,))
    xb = dyadic(rng, (3,))
    factor = {"Up": 2.0, "Down": -1.0, "Flat": 0.0}
    for c in [True, False]:
        calls.append(call("add", {"a": np.int32(5), "c": c}, result(6 if c else 5, "i32")))
        calls.append(call("compare", {"x": np.int32(3), "c": c}, result(not c, "bool")))
        calls.append(call("negated", {"c": c}, result(-1 if c else -2, "i32")))
        calls.append(call("both_untyped", {"c": c}, result(4.5 if c else 2.5, "f32", EXACT, part=0),
                          result(not c, "bool", part=1)))
        calls.append(call("prelude", {"a": np.int32(5), "x": x, "c": c},
                          result(100 if c else 5, "i32", part=0),
                          result(np.where(x > 0, x, 2.0 if c else 3.0), "f32", EXACT, part=1),
                          result(1.0 if c else np.e, "f32", {"rel": 1e-6, "abs": 0.0, "why": "f32 exp"}, part=2),
                          result(7.0 if c else 9.0, "f32", EXACT, part=3)))
        calls.append(call("narrow", {"x": bf16_round(xb), "b": np.uint8(100), "c": c},
                          result(xb + (0.5 if c else 0.25), "bf16", EXACT_DYADIC, part=0),
                          result((100 + (200 if c else 1)) % 256, "u8", part=1)))
    x4 = dyadic(rng, (4,))
    for m in factor:
        calls.append(call("scaled", {"x": x, "m": m}, result(x * factor[m], "f32", EXACT)))
        calls.append(call("scaled_in_function", {"x": x4, "m": m},
                          result(x4 * {"Up": 2.0, "Down": -1.0, "Flat": 1.0}[m], "f32", EXACT)))
    for c, m, o in [(True, "Up", 1.5), (False, "Down", None), (True, "Flat", None)]:
        args = {"x": x, "c": c, "m": m}
        if o is not None:
            args["o"] = np.float32(o)
        b = {"Up": x, "Down": -x, "Flat": x * 0.0}[m]
        d = x + o if o is not None else x * 4.0
        calls.append(call("in_notation", args, result(x * (2.0 if c else 3.0), "f32", EXACT, part=0),
                          result(b, "f32", EXACT, part=1), result(d, "f32", EXACT_DYADIC, part=2)))
    return calls


@program
def reductions_split_axes(rng):
    x = dyadic(rng, (2, 3, 4, 5))
    xi = rng.integers(-50, 50, size=(2, 3, 4, 8)).astype(np.int32)
    x5 = dyadic(rng, (2, 4, 8, 3, 5))
    sums = {"rel": 0.0, "abs": 0.0, "why": "exact: sums of 10 multiples of 1/4 below 20 are exact in f32"}
    return [
        call("outer_inner", {"x": x}, result(x.sum(axis=(0, 3)), "f32", sums)),
        call("outer_inner_max", {"x": x}, result(x.max(axis=(0, 3)), "f32", EXACT)),
        call("unit_outer", {"x": x[:1]}, result(x[:1].sum(axis=(0, 3)), "f32", sums)),
        call("wide", {"x": xi}, result(xi.sum(axis=(0, 3)), "i32")),
        call("rank5", {"x": x5}, result(x5.max(axis=(0, 2)).transpose(1, 0, 2), "f32", EXACT)),
    ]


@program
def optional_fields_in_params(rng):
    value, extra = float(dyadic(rng, ())), float(dyadic(rng, ()))
    x, scale, shift = dyadic(rng, (3,)), dyadic(rng, (3,)), dyadic(rng, (3,))
    calls = [call("total", {"r.value": value, "r.extra": extra}, result(value + extra, "f32", EXACT_DYADIC)),
             call("total", {"r.value": value, "r.extra": None}, result(value, "f32", EXACT))]
    for s in (scale, None):
        for b in (shift, None):
            want = (x * s if s is not None else x) + (b if b is not None else 0.0)
            calls.append(call("affine", {"a.scale": s, "a.shift": b, "x": x}, result(want, "f32", EXACT_DYADIC)))
    calls.append(call("nested", {"l.name": 7, "l.affine.scale": None, "l.affine.shift": shift, "x": x},
                      result(x + shift, "f32", EXACT_DYADIC, part=0), result(7, "i32", part=1)))
    calls.append(call("parts", {"p.0": scale, "p.1": extra, "x": x},
                      result(x + scale * f32(extra), "f32", EXACT_DYADIC)))
    calls.append(call("parts", {"p.0": None, "p.1": extra, "x": x}, result(x * f32(extra), "f32", EXACT_DYADIC)))
    calls.append(call("maybe_reading", {"r.value": value, "r.extra": extra}, result(value + extra, "f32", EXACT_DYADIC)))
    calls.append(call("maybe_reading", {"r.value": value}, result(value * 100, "f32", EXACT_DYADIC)))
    calls.append(call("maybe_reading", {}, result(-1.0, "f32", EXACT)))
    calls.append(call("maybe_reading", {"r.value": None, "r.extra": None}, result(-1.0, "f32", EXACT)))
    return calls


@program
def notation_outer_scalars(rng):
    x, t = dyadic(rng, (4,)), f32(dyadic(rng, ()))
    mask = np.array([True, False, True, False])
    return [
        call("negated", {"x": x, "t": float(t)}, result(x + -t, "f32", EXACT_DYADIC)),
        call("negated_not", {"x": mask, "p": True}, result(mask & False, "bool")),
        call("negated_not", {"x": mask, "p": False}, result(mask & True, "bool")),
        call("through_functions", {"x": x, "t": float(t)}, result((x + t) * -t, "f32", EXACT_DYADIC)),
        call("struct_field", {"x": x, "t": float(t)}, result(x * t + -t, "f32", EXACT_DYADIC)),
        call("in_cast", {"x": x, "k": 3}, result(x * f32(-3.0), "f32", EXACT_DYADIC)),
    ]


@program
def scans_nested_tuples(rng):
    x = dyadic(rng, (2,))
    steps = np.arange(3)
    a = np.stack([x + f32(i) for i in steps])
    c = np.stack([x * f32(i) for i in steps])
    y = dyadic(rng, (5,))
    v = np.stack([y * f32(i) for i in range(4)])
    return [
        call("nested", {"x": x}, result(a, "f32", EXACT_DYADIC, part=0), result(steps.astype(np.int64), "i64", part=1),
             result(c, "f32", EXACT_DYADIC, part=2)),
        call("nested_first", {"x": y}, result(v, "f32", EXACT_DYADIC, part=0),
             result(f32(np.arange(4) * 0.5), "f32", EXACT, part=1), result(np.arange(4) % 2 == 0, "bool", part=2)),
    ]


@program
def pack_broadcast(rng):
    calls = []
    for shape in [(), (3,), (2, 3)]:
        x = dyadic(rng, shape)
        y = dyadic(rng, (2,) + shape)
        calls.append(call("widened", {"x": x}, result(np.broadcast_to(x, (2,) + shape), "f32", EXACT)))
        calls.append(call("added", {"x": x, "y": y}, result(x + y, "f32", EXACT_DYADIC)))
    x, y = dyadic(rng, (2, 3)), dyadic(rng, (2, 1))
    calls.append(call("trailing", {"x": x, "y": y}, result(x * y, "f32", EXACT_DYADIC)))
    return calls


@program
def reduction_literal_types(rng):
    calls = []
    for m in (np.array([True, False, True, True, False]), np.zeros(5, dtype=bool)):
        calls.append(call("counted", {"m": m}, result(np.int32(m.sum()), "i32")))
        calls.append(call("annotated", {"m": m}, result(np.int16(np.where(m, 3, -1).sum()), "i16")))
        calls.append(call("weighted", {"m": m}, result(np.where(m, 1.5, 0.25).sum(), "f32", EXACT_DYADIC)))
        calls.append(call("largest", {"m": m}, result(np.uint8(np.where(m, 200, 7).max()), "u8")))
    return calls


@program
def notation_pack_reductions(rng):
    calls = []
    for shape in [(3,), (2, 3), (2, 1, 4)]:
        a = dyadic(rng, shape)
        calls.append(call("centred", {"a": a}, result(a - a.min(axis=-1, keepdims=True), "f32", EXACT_DYADIC)))
        calls.append(call("spread", {"a": a}, result(a.max(axis=-1) - a.min(axis=-1), "f32", EXACT_DYADIC)))
        calls.append(call("leading", {"a": a}, result(a * a.sum(axis=0, keepdims=True), "f32", EXACT_DYADIC)))
    return calls


@program
def math_subnormals(rng):
    d = np.float64
    # f32 results within 2.5 ulp: relative for normal results, 3 * 2^-149
    # absolute for subnormal ones (measured: at most 0.79 ulp).
    F32 = {"rel": 3e-7, "abs": 3 * 2.0 ** -149,
           "why": "f32 log/exp within 2.5 ulp of the f64 value rounded to f32 (an ulp of a subnormal is 2^-149)"}
    BF16 = {"rel": 2.0 ** -7, "abs": 2.0 ** -133,
            "why": "an f32 result within a couple of f32 ulp, rounded to bf16: at most one bf16 ulp off (2^-133 for subnormals)"}
    tiny = 2.0 ** -149
    x = np.concatenate([
        # subnormal arguments, the largest one, the smallest normal, 2^-127
        [tiny, 2 * tiny, 1e-45 * 7, 1e-40, 5e-39, 2.0 ** -126 - tiny, 2.0 ** -126, 2.0 ** -127, 3e-42, 1.5e-44],
        np.exp(rng.uniform(np.log(tiny), np.log(2.0 ** -126), size=10)),
        # normal arguments
        [1.0, 0.5, 2.0, 1e-30, 3.4e38, 1e-20, 123.4, 0.9999999, 7e-38, 1.1754945e-38],
        # 0, negative arguments (a negative subnormal), infinities, NaN
        [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -1e-40, -tiny, 2.5, 1e10],
    ]).astype(np.float32)
    y = np.concatenate([
        # around ln 2^-126 = -87.33654475, the subnormal range, 2^-149 (-103.28)
        # and the smallest half ulp (-103.97), below which exp rounds to 0
        [-87.3, -87.33654, -87.3365478515625, -87.34, -88.0, -95.0, -100.0, -103.2789, -103.9, -104.0],
        rng.uniform(-103.9, -87.34, size=12),
        # normal results, overflow, infinities, NaN
        [0.0, -0.0, 1.0, -1.0, -50.0, 60.0, 88.0, 88.8, 100.0, np.inf, -np.inf, np.nan, -110.0, -1e30,
         -80.0, 20.0, -87.0, -87.5],
    ]).astype(np.float32)
    assert x.size == 40 and y.size == 40

    def f32_results(x, y, parts=True):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            l = f32(np.log(x.astype(d)))
            e = f32(np.exp(y.astype(d)))
        return [result(np.where(np.isnan(l), 0.0, l), "f32", F32, part=0), result(np.isnan(l), "bool", part=1),
                result(np.where(np.isnan(e), 0.0, e), "f32", F32, part=2), result(np.isnan(e), "bool", part=3)]

    calls = [call(entry, {"x": typed(x, "f32"), "y": typed(y, "f32")}, *f32_results(x, y))
             for entry in ("whole", "notation")]
    for i in [3, 0, 5, 24]:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            l, e = f32(np.log(d(x[i]))), f32(np.exp(d(y[i])))
        calls.append(call("scalar", {"x": typed(x[i], "f32"), "y": typed(y[i], "f32")},
                          result(l, "f32", F32, part=0), result(e, "f32", F32, part=1)))
    # bf16: arguments rounded to bf16 values first (passed as f32, cast
    # exactly); subnormal bf16 values go down to 2^-133.
    xb, yb = bf16_round(x), bf16_round(y)
    xb[:3] = [2.0 ** -133, 2.0 ** -132, 3 * 2.0 ** -133]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        lb = bf16_round(f32(np.log(xb.astype(d))))
        eb = bf16_round(f32(np.exp(yb.astype(d))))
    bf_results = [result(np.where(np.isnan(lb), 0.0, lb), "bf16", BF16, part=0), result(np.isnan(lb), "bool", part=1),
                  result(np.where(np.isnan(eb), 0.0, eb), "bf16", BF16, part=2), result(np.isnan(eb), "bool", part=3)]
    for entry in ("whole_bf16", "notation_bf16"):
        calls.append(call(entry, {"x": typed(xb, "f32"), "y": typed(yb, "f32")}, *bf_results))
    return calls


@program
def elementwise_rounding(rng):
    # Each operation rounded once, as numpy does in the operands' dtype.
    ROUNDED = {"rel": 0.0, "abs": 0.0, "why": "exact: each operation rounded once in its dtype, as numpy does"}
    up32, down32 = np.float32(1 + 2.0 ** -23), np.float32(1 - 2.0 ** -23)
    up64, down64 = 1 + 2.0 ** -52, 1 - 2.0 ** -52
    n = 37  # past a vector's lanes, with a remainder
    x = np.where(np.arange(n) % 3 == 0, up32, f32(rng.uniform(0.5, 2.0, n))).astype(np.float32)
    y = np.where(np.arange(n) % 3 == 0, down32, f32(rng.uniform(0.5, 2.0, n))).astype(np.float32)
    hx = f32(rng.uniform(-3, 3, n))
    hy = f32(rng.uniform(-3, 3, n))
    a = np.where(np.arange(n) % 2 == 0, up64, rng.uniform(0.5, 2.0, n))
    b = np.where(np.arange(n) % 2 == 0, down64, rng.uniform(0.5, 2.0, n))
    c = np.where(np.arange(n) % 2 == 0, -1.0, rng.uniform(-1, 1, n))
    one32 = np.float32(1)
    return [
        call("scalar32", {"x": typed(up32, "f32"), "y": typed(down32, "f32")},
             result(up32 * down32 - one32, "f32", ROUNDED)),
        call("scalar64", {"x": typed(up64, "f64"), "y": typed(down64, "f64")}, result(up64 * down64 - 1.0, "f64", ROUNDED)),
        call("whole", {"x": x, "y": y}, result(x * y - one32, "f32", ROUNDED)),
        call("notation", {"x": x, "y": y}, result(x * y - one32, "f32", ROUNDED)),
        call("hypot", {"x": hx, "y": hy}, result(np.sqrt(hx * hx + hy * hy), "f32", ROUNDED)),
        call("affine64", {"a": typed(a, "f64"), "b": typed(b, "f64"), "c": typed(c, "f64")},
             result(a * b + c, "f64", ROUNDED)),
    ]


def main():
    names = sys.argv[1:] or sorted(PROGRAMS)
    OUT.mkdir(parents=True, exist_ok=True)
    for name in names:
        rng = np.random.default_rng(sum(map(ord, name)))
        spec = {
            "program": name + ".linnet",
            "generated_by": "tools/e2e/make_expected.py (numpy); do not edit by hand",
            "calls": PROGRAMS[name](rng),
        }
        (OUT / (name + ".json")).write_text(json.dumps(spec, indent=1) + "\n")
        print("wrote", OUT / (name + ".json"))


if __name__ == "__main__":
    main()
