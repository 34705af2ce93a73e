#!/usr/bin/env bash
# Runs one Hugging Face reference case (test/data/reference/cases/*.json)
# through linnet at both dtypes: builds PACKAGE for the case's checkpoint with
# the case's root binds and only the entries it calls (T=f32, then T=bf16),
# then checks every output with linnet-parity. Fails if a build or a check does.
#   run-case.sh LINNET LINNET_PARITY PACKAGE CASE.json WORKDIR
set -euo pipefail
linnet=$1 parity=$2 package=$3 case_json=$4 work=$5
reference=$(cd "$(dirname "$case_json")/../.." && pwd)
read -r checkpoint binds entries < <(python3 - "$case_json" <<'PY'
import json, sys
case = json.load(open(sys.argv[1]))
binds = ",".join(f"{k}={v}" for k, v in case["bind"].items())
entries = ",".join(sorted({c["entry"] for c in case["calls"]}))
print(case["checkpoint"], binds or "-", entries)
PY
)
args=()
[ "$binds" != "-" ] && for b in ${binds//,/ }; do args+=(--bind "$b"); done
for e in ${entries//,/ }; do args+=(--entry "$e"); done
mkdir -p "$work"
status=0
for dtype in f32 bf16; do
  artifact="$work/$(basename "$case_json" .json)-$dtype.lnpkg"
  "$linnet" build "$package" --checkpoint "$reference/$checkpoint" "${args[@]}" --bind "T=$dtype" -o "$artifact"
  echo "== $dtype"
  "$parity" "$case_json" --artifact "$artifact" --checkpoint "$reference/$checkpoint" --run "$dtype" || status=1
done
exit $status
