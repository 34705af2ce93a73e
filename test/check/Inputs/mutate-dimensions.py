#!/usr/bin/env python3
"""Every dimension written in a package's `Tensor[...]` types, one at a time,
made one larger (`D` -> `(D) + 1`): `linnet check` must reject each mutant
with type and shape errors (E2xxx only, exit 1), except the mutants listed in the
allowlist file, which stay valid programs (each line there says why).

usage: mutate-dimensions.py 'LINNET COMMAND' PACKAGE ALLOWLIST [CHECK OPTION ...]
Prints one line per mutant that behaves otherwise and exits 1 if any does.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def dimension_spans(text):
    """(start, end) of each non-pack dimension inside `Tensor[...; dtype]`."""
    for match in re.finditer(r"Tensor\[", text):
        i, depth, start = match.end(), 0, match.end()
        while i < len(text):
            c = text[i]
            if c in "([":
                depth += 1
            elif c in ")]":
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and c in ",;":
                seg = text[start:i]
                if seg.strip() and not seg.strip().startswith("*"):
                    lead = len(seg) - len(seg.lstrip())
                    yield start + lead, start + len(seg.rstrip())
                start = i + 1
                if c == ";":
                    break
            i += 1


def main():
    linnet, package, allowlist = sys.argv[1].split(), sys.argv[2], sys.argv[3]
    options = sys.argv[4:]
    allowed = set()
    for line in open(allowlist):
        line = line.split("#", 1)[0].strip()
        if line:
            allowed.add(line)
    work = tempfile.mkdtemp()
    failures, mutants, survived = [], 0, set()
    try:
        src = os.path.join(package, "src")
        for name in sorted(os.listdir(src)):
            text = open(os.path.join(src, name)).read()
            for a, b in dimension_spans(text):
                mutants += 1
                line = text.count("\n", 0, a) + 1
                where = f"{name}:{line}:{a - text.rfind(chr(10), 0, a)}"
                copy = os.path.join(work, "pkg")
                shutil.rmtree(copy, ignore_errors=True)
                shutil.copytree(package, copy)
                with open(os.path.join(copy, "src", name), "w") as out:
                    out.write(text[:a] + "(" + text[a:b] + ") + 1" + text[b:])
                run = subprocess.run(linnet + ["check", copy] + options, capture_output=True,
                                     text=True)
                codes = re.findall(r"^error (\S+):", run.stderr, re.M)
                if run.returncode == 0:
                    survived.add(where)
                    if where not in allowed:
                        failures.append(f"{where}: `{text[a:b]}` + 1 still checks")
                elif run.returncode != 1 or not codes or any(not c.startswith("E2") for c in codes):
                    failures.append(f"{where}: `{text[a:b]}` + 1: exit {run.returncode}, codes {codes}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for where in sorted(allowed - survived):
        failures.append(f"{where}: allowlisted but rejected now; remove it from the allowlist")
    for f in failures:
        print(f)
    print(f"{mutants} mutants, {len(survived)} valid (allowlisted), {len(failures)} unexpected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
