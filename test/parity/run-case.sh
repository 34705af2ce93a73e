#!/usr/bin/env bash
# Runs one Hugging Face reference case (test/data/reference/cases/*.json)
# through linnet at both dtypes: builds PACKAGE for the case's checkpoint with
# the case's root binds (T=f32, then T=bf16), then checks every output with
# linnet-parity. Fails if a build or a check does.
#   run-case.sh LINNET LINNET_PARITY PACKAGE CASE.json WORKDIR
#
# The cases of one checkpoint and binding share their builds: each build has
# every entry any case of that checkpoint and binding calls, and goes into a
# cache beside WORKDIR keyed by the checkpoint, the binds, the dtype, the
# entries, the linnet binary (size and mtime) and a hash of the package's
# and the standard library's sources, so a rebuilt compiler or an edited
# model never reuses an old artifact. flock makes concurrent cases wait for
# one build instead of building it twice.
set -euo pipefail
linnet=$1 parity=$2 package=$3 case_json=$4 work=$5
reference=$(cd "$(dirname "$case_json")/../.." && pwd)
stdlib=${LINNET_STD:-$(cd "$(dirname "$0")/../../stdlib" && pwd)}
read -r checkpoint binds entries key < <(python3 - "$case_json" "$linnet" "$package" "$stdlib" <<'PY'
import hashlib, json, os, sys
from pathlib import Path
case_path, linnet, package, stdlib = sys.argv[1:]
case = json.load(open(case_path))
def key_of(c):
    return (c["checkpoint"], tuple(sorted(c["bind"].items())))
entries = set()
for other in Path(case_path).parent.parent.glob("*/*.json"):
    try:
        c = json.load(open(other))
    except (OSError, ValueError):
        continue
    if isinstance(c, dict) and "calls" in c and "checkpoint" in c and key_of(c) == key_of(case):
        entries |= {call["entry"] for call in c["calls"]}
entries |= {call["entry"] for call in case["calls"]}
binds = ",".join(f"{k}={v}" for k, v in case["bind"].items())
h = hashlib.sha256()
st = os.stat(linnet)
h.update(f"{st.st_size}:{st.st_mtime_ns}".encode())
for root in (package, stdlib):
    for f in sorted(Path(root).rglob("*")):
        if f.is_file():
            h.update(str(f.relative_to(root)).encode())
            h.update(f.read_bytes())
h.update(repr((key_of(case), sorted(entries))).encode())
print(case["checkpoint"], binds or "-", ",".join(sorted(entries)), h.hexdigest()[:24])
PY
)
args=()
[ "$binds" != "-" ] && for b in ${binds//,/ }; do args+=(--bind "$b"); done
for e in ${entries//,/ }; do args+=(--entry "$e"); done
mkdir -p "$work"
cache="$(dirname "$work")/parity-builds"
mkdir -p "$cache"
status=0
for dtype in f32 bf16; do
  artifact="$cache/$key-$dtype.lnpkg"
  (
    flock 9
    if [ ! -f "$artifact" ]; then
      "$linnet" build "$package" --checkpoint "$reference/$checkpoint" "${args[@]}" --bind "T=$dtype" -o "$artifact.tmp"
      mv "$artifact.tmp" "$artifact"
    fi
  ) 9> "$artifact.lock"
  # Where tools/reference/bf16_agreement.py looks for each case's artifact.
  ln -sfn "$artifact" "$work/$(basename "$case_json" .json)-$dtype.lnpkg"
  echo "== $dtype"
  "$parity" "$case_json" --artifact "$artifact" --checkpoint "$reference/$checkpoint" --run "$dtype" || status=1
done
exit $status
