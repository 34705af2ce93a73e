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
    """TODO(hub-runs): random tiny checkpoints made by the reference tool.

    Point HUB_CHECKPOINTS at a directory holding `<model>/` checkpoint
    directories (config.json, *.safetensors, and the model's bindings.json
    where it has one), e.g. written with tiny generics by the reference
    toolchain's converter. Until such a directory exists, nothing is built
    or run against weights."""
    root = os.environ.get("HUB_CHECKPOINTS")
    if not root:
        return None
    path = os.path.join(root, model.name)
    return path if os.path.isdir(path) else None


def build(linnet, model, outdir):
    """A CPU build: with a checkpoint when one is available, else header-only
    with nest.toml's generics (refused when the program reads parameters)."""
    if len(model.targets) != 1:
        return False, "- (not one package or file)"
    artifact = os.path.join(outdir, model.name + ".lnpkg")
    checkpoint = checkpoint_of(model)
    cmd = [*linnet, "build", model.targets[0], "-o", artifact, "--no-color"]
    if checkpoint:
        cmd += ["--checkpoint", checkpoint]
    elif not model.binds():
        return False, "- (no checkpoint, and no nest.toml [generics] to bind)"
    else:
        cmd += model.binds()
    code, out, err = run(cmd, BUILD_TIMEOUT_S)
    if code == 0:
        return True, "ok" if not checkpoint else "ok (checkpoint)"
    if code is None:
        return False, f"- ({err})"
    text = out + err
    if "built without the code generator" in text:
        return False, "- (this linnet has no code generator)"
    if not checkpoint and re.search(r"parameter `[^`]*`, which is not bound", text):
        return False, "- (reads parameters: needs a checkpoint)"
    m = re.search(r"^error(?: (E\d+))?: (.*)$", text, re.M)
    return False, f"{m.group(1) or 'error'} {m.group(2)}" if m else f"exit {code}"


def run_model(linnet, model, built):
    """TODO(hub-runs): run the root entry on random inputs of nest.toml's
    `[check]` dims once a checkpoint exists (see checkpoint_of) and compare
    with the reference toolchain's outputs."""
    if not built or not checkpoint_of(model):
        return "-"
    return "- (TODO: no input generator yet)"


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
            built = False
            if args.no_build:
                building = "-"
            elif ok:
                built, building = build(linnet, model, outdir)
            else:
                building = "- (does not check)"
            rows.append((name, result, building, run_model(linnet, model, built)))
            failed += not ok
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
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
