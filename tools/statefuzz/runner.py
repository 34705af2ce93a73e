import json
import os
import re
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LINNET = os.environ.get("LINNET", os.path.join(REPO, "build", "bin", "linnet"))
RUN = os.environ.get("LINNET_RUN", os.path.join(REPO, "build", "bin", "linnet-run"))
WORK = os.environ.get("STATEFUZZ_WORK", os.path.join(REPO, "build", "statefuzz"))
ENV = dict(os.environ, LINNET_STD=os.environ.get("LINNET_STD", os.path.join(REPO, "stdlib")))


def read_st(path):
    b = open(path, "rb").read()
    n = struct.unpack("<Q", b[:8])[0]
    hdr = json.loads(b[8:8 + n])
    out = {}
    base = 8 + n
    for k, v in hdr.items():
        if k == "__metadata__":
            continue
        s, e = v["data_offsets"]
        dt = {"F32": np.float32, "I32": np.int32, "I64": np.int64, "BOOL": np.bool_}[v["dtype"]]
        out[k] = np.frombuffer(b[base + s:base + e], dtype=dt).reshape(v["shape"])
    return out


def sh(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, env=ENV, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        return "timeout", str(e)


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1].strip() if lines else ""


def signature(kind, text):
    line = first_error(text)
    line = re.sub(r"/\S+\.linnet:\d+:\d+:?", "PROG:", line)
    line = re.sub(r"loc\([^)]*\)", "loc", line)
    line = re.sub(r"%\w+", "%v", line)
    line = re.sub(r"\b\d+\b", "N", line)
    line = re.sub(r"`[^`]*`", "`_`", line)
    m = re.search(r"'([\w.]+)' op not bufferizable.*RaW conflict", line)
    if m:
        return kind + ": not bufferizable: cannot avoid RaW conflict"
    return kind + ": " + line[:200]


def equal(a, b):
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    if a.shape != b.shape:
        return False
    both_nan = np.isnan(a) & np.isnan(b)
    return bool(np.all((a == b) | both_nan))


def run_program(p, workdir, name="p"):
    """Returns dict with status in {ok, check, build, run, wrong, timeout} and details."""
    os.makedirs(workdir, exist_ok=True)
    src = os.path.join(workdir, name + ".linnet")
    pkg = os.path.join(workdir, name + ".lnpkg")
    cj = os.path.join(workdir, name + ".calls.json")
    out = os.path.join(workdir, name + ".safetensors")
    open(src, "w").write(p.render() + "\n")
    json.dump({"calls": p.calls}, open(cj, "w"), indent=1)
    expected = p.run_calls()
    json.dump([[e.tolist() for e in r] for r in expected], open(os.path.join(workdir, name + ".expected.json"), "w"))
    rc, txt = sh([LINNET, "check", src])
    if rc != 0:
        return {"status": "check", "sig": signature("check", txt), "text": txt}
    rc, txt = sh([LINNET, "build", src, "-o", pkg])
    if rc != 0:
        return {"status": "build", "sig": signature("build rc=%s" % rc, txt), "text": txt}
    if os.path.exists(out):
        os.remove(out)
    rc, txt = sh([RUN, pkg, "--calls", cj, "--out", out])
    if rc != 0:
        return {"status": "run", "sig": signature("run rc=%s" % rc, txt), "text": txt}
    got = read_st(out)
    bad = []
    for i, exp in enumerate(expected):
        if len(exp) == 1 and str(i) in got:
            parts = [got[str(i)]]
        else:
            parts = [got.get("%d.%d" % (i, j)) for j in range(len(exp))]
        for j, (e, g) in enumerate(zip(exp, parts)):
            if g is None or not equal(e, g):
                bad.append({"call": i, "entry": p.calls[i]["entry"], "part": j, "expected": e.tolist(),
                            "got": None if g is None else g.tolist()})
    if bad:
        return {"status": "wrong", "sig": "wrong", "bad": bad}
    return {"status": "ok"}


if __name__ == "__main__":
    start, count = int(sys.argv[1]), int(sys.argv[2])
    logf = open(sys.argv[3], "a")
    for seed in range(start, start + count):
        p = gen.gen_program(seed)
        wd = os.path.join(WORK, str(seed))
        try:
            res = run_program(p, wd)
        except Exception as e:  # generator/evaluator bug
            res = {"status": "gen-error", "sig": repr(e)}
        res["seed"] = seed
        if res["status"] == "ok":
            # keep disk small
            for f in os.listdir(wd):
                if f.endswith(".lnpkg") or f.endswith(".safetensors"):
                    os.remove(os.path.join(wd, f))
        logf.write(json.dumps({k: v for k, v in res.items() if k != "text"} | {"text": res.get("text", "")[:3000]}) + "\n")
        logf.flush()
        print(seed, res["status"], res.get("sig", ""), flush=True)
