#!/usr/bin/env python3
"""Checks every model package under a directory with `linnet` and prints one
row per model: does it check, does it build for the CPU, does it run.

Called by check-hub.sh (see README.md there); Python standard library only.

A model package is a directory holding `linnet.toml`, `nest.toml` or `.linnet`
sources (the layout of the public model hub, franknoh/nest `models/*/`):

- with `linnet.toml` the directory is checked as a package;
- without one, a `src/lib.linnet` is checked as a package whose manifest is
  made up in a temporary copy (the name is the module `src/lib.linnet`
  declares), so `use crate.x` resolves as the hub intends;
- otherwise the file `nest.toml` names under `[source] path`, or every
  `.linnet` file of the directory, is checked as standalone files.

`nest.toml`'s `[generics]` (root block generics) give the `--bind` values a
header-only build uses.

With `$HUB_CHECKPOINTS/<model>/` (tools/hub/make_hub_checkpoints.py: a random
tiny checkpoint and Hugging Face's outputs on it), the model is built against
that checkpoint with the generics its hub-check.json records, and the runs
column runs the `[source] entry` on the recorded inputs through linnet-run and
compares with the reference at f32 (max|err| <= 1e-3 x (1 + max|ref|); for an
output hub-check.json calls logits, also the same top-1 along the last axis).
"""

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import tomllib

BUILD_TIMEOUT_S = 600
CHECK_TIMEOUT_S = 300


def read_toml(path):
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return None


def module_name(path):
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                m = re.match(r"\s*module\s+([A-Za-z_][A-Za-z0-9_.]*)", line)
                if m:
                    return m.group(1)
    except OSError:
        pass
    return None


class Model:
    def __init__(self, root, name, workdir):
        self.name = name
        self.dir = os.path.join(root, name)
        self.nest = read_toml(os.path.join(self.dir, "nest.toml")) or {}
        self.note = ""
        self.targets = self._targets(workdir)

    def _targets(self, workdir):
        if os.path.isfile(os.path.join(self.dir, "linnet.toml")):
            return [self.dir]
        lib = os.path.join(self.dir, "src", "lib.linnet")
        if os.path.isfile(lib):
            # The hub ships some packages with `nest.toml` only; make the
            # manifest the package layout implies in a copy.
            package = module_name(lib)
            if package and "." not in package:
                copy = os.path.join(workdir, self.name)
                shutil.copytree(self.dir, copy, symlinks=True)
                with open(os.path.join(copy, "linnet.toml"), "w") as f:
                    f.write(f'[package]\nname = "{package}"\nversion = "0.0.0"\nlanguage = "0.1"\n')
                self.note = "no linnet.toml: checked with a made-up one"
                return [copy]
        source = (self.nest.get("source") or {}).get("path")
        if source and os.path.isfile(os.path.join(self.dir, source)):
            return [os.path.join(self.dir, source)]
        files = []
        for base, _, names in os.walk(self.dir):
            files += [os.path.join(base, n) for n in sorted(names) if n.endswith(".linnet")]
        return sorted(files)

    def binds(self):
        """`--bind` values for the root block's generics from nest.toml's
        `[generics]` (its `[check]` holds entry dims, which an artifact
        takes at call time, not at build)."""
        out = []
        for key, value in (self.nest.get("generics") or {}).items():
            out += ["--bind", f"{key}={value}"]
        return out

    def root_entry(self):
        source = self.nest.get("source") or {}
        return source.get("entry")


def run(cmd, timeout, env=None):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", f"timed out after {timeout}s"
    except OSError as e:
        # A tool that cannot be started (missing, being relinked) is that
        # row's failure, not the end of the table.
        return None, "", f"cannot run {cmd[0]}: {e.strerror or e}"


def first_error(stdout):
    """The first error of `linnet check --json`: 'CODE message (file:line)'."""
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError:
        return None
    for d in doc.get("diagnostics", []):
        if d.get("severity") == "error":
            loc = d.get("location") or {}
            where = ""
            if loc.get("file"):
                where = f" ({os.path.basename(loc['file'])}:{loc.get('start', {}).get('line', '?')})"
            return f"{d.get('code') or 'error'} {d.get('message', '')}{where}"
    return None


def check(linnet, model):
    if not model.targets:
        return False, "- (no .linnet sources)"
    code, out, err = run([*linnet, "check", "--json", "--no-color", *model.targets], CHECK_TIMEOUT_S)
    if code == 0:
        return True, "ok"
    if code is None:
        return False, f"- ({err})"
    return False, first_error(out) or (err.strip().splitlines() or [f"exit {code}"])[0]


def checkpoint_of(model):
    """The model's random tiny checkpoint, `$HUB_CHECKPOINTS/<model>/`, when
    there is one (tools/hub/make_hub_checkpoints.py writes them: config.json,
    model.safetensors, and hub-check.json, calls.json, reference.safetensors
    for the run column)."""
    root = os.environ.get("HUB_CHECKPOINTS")
    if not root:
        return None
    path = os.path.join(root, model.name)
    return path if os.path.isdir(path) else None


def hub_meta(checkpoint):
    """hub-check.json of a checkpoint made by make_hub_checkpoints.py, or None."""
    if not checkpoint:
        return None
    try:
        with open(os.path.join(checkpoint, "hub-check.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


def checkpoint_binds(model, checkpoint):
    """`--bind`s of a checkpoint build: the tiny generics hub-check.json
    records (the hub's packages take Heads, Batch, MaxSeq... from nest.toml,
    which a checkpoint cannot give), else none."""
    meta = hub_meta(checkpoint)
    out = []
    for key, value in ((meta or {}).get("bind") or {}).items():
        out += ["--bind", f"{key}={value}"]
    return out


def wrap_file(model, path, workdir):
    """A one-file model with a bindings.json beside it (the hub's gpt2) as a
    package in a copy: linnet reads bindings.json from a package only. The
    package is named after the module's first component, the file goes where
    the module path puts it (`examples.gpt2` -> package `examples`,
    `src/gpt2.linnet`). None when that cannot be made."""
    beside = os.path.join(os.path.dirname(path), "bindings.json")
    module = module_name(path)
    if not module or not os.path.isfile(beside):
        return None
    parts = module.split(".")
    copy = os.path.join(workdir, model.name + ".package")
    if os.path.isdir(copy):
        shutil.rmtree(copy)
    source = os.path.join(copy, "src", *parts[1:]) + ".linnet" if len(parts) > 1 else \
        os.path.join(copy, "src", "lib.linnet")
    os.makedirs(os.path.dirname(source))
    shutil.copyfile(path, source)
    shutil.copyfile(beside, os.path.join(copy, "bindings.json"))
    with open(os.path.join(copy, "linnet.toml"), "w", encoding="utf-8") as f:
        f.write(f'[package]\nname = "{parts[0]}"\nversion = "0.0.0"\nlanguage = "0.1"\n')
    return copy


def build_error(code, out, err, checkpoint):
    if code is None:
        return f"- ({err})"
    text = out + err
    if "built without the code generator" in text:
        return "- (this linnet has no code generator)"
    if not checkpoint and re.search(r"parameter `[^`]*`, which no checkpoint binds", text):
        return "- (reads parameters: needs a checkpoint)"
    m = re.search(r"^error(?: (E\d+))?: (.*)$", text, re.M)
    if not m:
        return f"exit {code}"
    where = re.search(r"^\s*--> (\S+?):(\d+)", text[m.end():], re.M)
    loc = f" ({os.path.basename(where.group(1))}:{where.group(2)})" if where else ""
    return f"{m.group(1) or 'error'} {m.group(2)}{loc}"


class Build:
    """What building a model gave: the column's text, and for the run column
    the package path, the bindings note and an artifact (of every entry, or of
    the checked entry alone when the whole package does not build)."""

    def __init__(self):
        self.ok = False
        self.text = ""
        self.target = None
        self.notes = []
        self.artifact = None


def build(linnet, model, outdir):
    """A CPU build: with a checkpoint when one is available, else header-only
    with nest.toml's generics (refused when the program reads parameters)."""
    result = Build()
    if len(model.targets) != 1:
        result.text = "- (not one package or file)"
        return result
    result.target = model.targets[0]
    artifact = os.path.join(outdir, model.name + ".lnpkg")
    checkpoint = checkpoint_of(model)
    if not checkpoint and not model.binds():
        result.text = "- (no checkpoint, and no nest.toml [generics] to bind)"
        return result

    def attempt(target, extra=()):
        cmd = [*linnet, "build", target, "-o", artifact, "--no-color", *extra]
        if checkpoint:
            cmd += ["--checkpoint", checkpoint, *checkpoint_binds(model, checkpoint)]
        else:
            cmd += model.binds()
        return run(cmd, BUILD_TIMEOUT_S)

    if checkpoint and os.path.isfile(result.target):
        wrapped = wrap_file(model, result.target, outdir)
        if wrapped:
            result.target = wrapped
            result.notes.append("one file: built as a made-up package, so that its bindings.json is read")
    code, out, err = attempt(result.target)
    if code == 0:
        result.ok = True
        result.artifact = artifact
        result.text = "ok" if not checkpoint else "ok (checkpoint)"
    else:
        result.text = build_error(code, out, err, checkpoint)
        meta = hub_meta(checkpoint) or {}
        entries = meta.get("entries") or ([meta["entry"]] if meta.get("entry") else [])
        if checkpoint and entries:
            # The run column still wants the checked entries: build them alone.
            code, out, err = attempt(result.target, [w for e in entries for w in ("--entry", e)])
            shown = ", ".join(f"`{e}`" for e in entries)
            if code == 0:
                result.artifact = artifact
                result.notes.append(f"run: {shown} built alone")
            else:
                result.notes.append(f"{shown} alone: " + build_error(code, out, err, checkpoint))
    if result.notes:
        result.text += " [" + "; ".join(result.notes) + "]"
    return result


SAFETENSORS_DTYPES = {"F32": ("f", 4), "F64": ("d", 8), "I32": ("i", 4), "I64": ("q", 8)}


def read_safetensors(path):
    """{name: (shape, values)} of a .safetensors file's f32/f64/i32/i64 tensors
    (standard library only; bf16 tensors are widened)."""
    import array
    import struct
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        raw = data[base + begin:base + end]
        if info["dtype"] == "BF16":
            values = array.array("f", b"".join(b"\0\0" + raw[i:i + 2] for i in range(0, len(raw), 2)))
        elif info["dtype"] in SAFETENSORS_DTYPES:
            values = array.array(SAFETENSORS_DTYPES[info["dtype"]][0], raw)
        else:
            continue
        if sys.byteorder != "little":
            values.byteswap()
        out[name] = (list(info["shape"]), values)
    return out


def linnet_run_of(linnet):
    """linnet-run: $LINNET_RUN, else next to the linnet binary."""
    explicit = os.environ.get("LINNET_RUN")
    if explicit:
        return shlex.split(explicit)
    return [os.path.join(os.path.dirname(linnet[0]), "linnet-run")]


def compare(shape, out, ref, top1=True):
    """(ok, text) for one float output at the parity bar: max|err| <= 1e-3 x
    (1 + max|ref|), and (`top1`: logits) the top-1 of each last-axis row
    agrees."""
    if len(out) != len(ref):
        return False, f"{len(out)} values, the reference has {len(ref)}"
    err = max((abs(a - b) for a, b in zip(out, ref)), default=0.0)
    if err != err:  # NaN
        return False, "NaN in the output"
    peak = max((abs(b) for b in ref), default=0.0)
    bar = 1e-3 * (1.0 + peak)
    n = shape[-1] if shape else 1
    rows = len(ref) // n if n else 0
    differ = 0
    for r in range(rows if top1 else 0):
        a = out[r * n:(r + 1) * n]
        b = ref[r * n:(r + 1) * n]
        if max(range(n), key=a.__getitem__) != max(range(n), key=b.__getitem__):
            differ += 1
    if any(v != v for v in out):
        return False, "NaN in the output"
    if err > bar:
        tops = f", top-1 differs at {differ}/{rows}" if top1 else ""
        return False, f"max err {err:.3g} > {bar:.3g} (max|ref| {peak:.3g}){tops}"
    if differ:
        return False, f"max err {err:.3g}, but top-1 differs at {differ}/{rows} rows"
    return True, f"max err {err:.2g}"


def run_model(linnet, model, built, outdir=None):
    """Runs the `[source] entry` on the reference inputs of the model's tiny
    checkpoint (calls.json) through linnet-run and compares each output with
    Hugging Face's (reference.safetensors) at f32."""
    checkpoint = checkpoint_of(model)
    meta = hub_meta(checkpoint)
    if not checkpoint:
        return "-"
    if not meta:
        return "- (the checkpoint has no hub-check.json: make it with make_hub_checkpoints.py)"
    if not built or not built.artifact:
        return "- (not built)"
    results = os.path.join(outdir or os.path.dirname(built.artifact), model.name + ".out.safetensors")
    cmd = [*linnet_run_of(linnet), built.artifact, "--checkpoint", checkpoint,
           "--calls", os.path.join(checkpoint, meta.get("calls", "calls.json")), "--out", results]
    code, out, err = run(cmd, BUILD_TIMEOUT_S)
    if code != 0:
        if code is None:
            # A run that hangs or cannot start produced no output to compare:
            # a failure, not a row without a checkpoint.
            return f"FAIL: {err}"
        lines = [line for line in (err + out).splitlines() if line.strip()]
        text = next((line for line in lines if "error" in line), lines[0] if lines else "")
        return f"FAIL: linnet-run exit {code}: {text.strip()}"
    try:
        got = read_safetensors(results)
        want = read_safetensors(os.path.join(checkpoint, meta.get("reference", "reference.safetensors")))
    except (OSError, ValueError, KeyError) as e:
        return f"FAIL: reading results: {e}"
    texts = []
    ok = True
    for spec in meta.get("outputs") or [{"name": "0"}]:
        name = spec["name"]
        if name not in got:
            return f"FAIL: no output `{name}`"
        shape, values = got[name]
        rshape, rvalues = want[name]
        if shape != rshape:
            return f"FAIL: output `{name}` has shape {shape}, the reference {rshape}"
        good, text = compare(shape, values, rvalues, spec.get("kind") == "logits")
        if len(meta.get("outputs") or []) > 1:
            part = "." + name.split(".", 1)[1] if "." in name else ""   # a tuple's part
            text = f"{spec.get('entry', name)}{part}: {text}"
        ok &= good
        texts.append(text)
    return ("ok (" if ok else "FAIL: ") + "; ".join(texts) + (")" if ok else "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir")
    ap.add_argument("--linnet", required=True, help="the linnet command (split like a shell word list)")
    ap.add_argument("--no-build", action="store_true", help="only check")
    args = ap.parse_args()
    linnet = shlex.split(args.linnet)

    names = sorted(n for n in os.listdir(args.dir)
                   if os.path.isdir(os.path.join(args.dir, n)) and not n.startswith("."))
    rows = []
    failed = 0
    run_failed = 0
    with tempfile.TemporaryDirectory(prefix="check-hub-") as work:
        copies = os.path.join(work, "packages")
        outdir = os.path.join(work, "out")
        os.makedirs(copies)
        os.makedirs(outdir)
        for name in names:
            model = Model(args.dir, name, copies)
            if not model.targets and not model.nest:
                continue
            ok, result = check(linnet, model)
            if model.note:
                result += f" [{model.note}]"
            built = None
            if args.no_build:
                building = "-"
            elif ok:
                built = build(linnet, model, outdir)
                building = built.text
            else:
                building = "- (does not check)"
            running = run_model(linnet, model, built, outdir) if built else "-"
            rows.append((name, result, building, running))
            failed += not ok
            run_failed += running.startswith("FAIL")
            print(f"{name}: {result}", file=sys.stderr, flush=True)

    header = ("model", "check", "builds for CPU", "runs")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(3)]
    def line(r):
        return " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " | " + r[3]
    print(line(header))
    print("-|-".join("-" * w for w in widths) + "-|-" + "-" * len(header[3]))
    for r in rows:
        print(line(r))
    print(f"\n{len(rows) - failed} of {len(rows)} models check")
    if run_failed:
        print(f"{run_failed} run(s) disagree with the reference")
    return 1 if failed or run_failed else 0


if __name__ == "__main__":
    sys.exit(main())
