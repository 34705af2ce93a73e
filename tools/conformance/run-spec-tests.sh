#!/usr/bin/env bash
# Runs `linnet check` over a local copy of the public Linnet conformance
# programs and compares with their expected codes. The programs are not in
# this repository (they are the language's, not ours): fetch them into DIR as
#   DIR/valid/NNN_name.linnet      must check with no output, exit 0
#   DIR/invalid/NNN_name.linnet    must exit 1 with exactly one error
#   DIR/expected.txt               lines "NNN CODE" (from spec-tests/manifest.toml)
# usage: tools/conformance/run-spec-tests.sh DIR [LINNET]
set -u
dir=${1:?usage: run-spec-tests.sh DIR [LINNET]}
linnet=${2:-build/bin/linnet}
pass=0
fail=0
for f in "$dir"/valid/*.linnet; do
  out=$("$linnet" --no-color check "$f" 2>&1)
  rc=$?
  if [ "$rc" = 0 ] && [ -z "$out" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $f: exit $rc"
    echo "$out" | head -5
  fi
done
while read -r number code; do
  f=$(ls "$dir"/invalid/"${number}"_*.linnet 2>/dev/null | head -1)
  if [ -z "$f" ]; then
    echo "MISSING program $number"
    fail=$((fail + 1))
    continue
  fi
  out=$("$linnet" --no-color check "$f" 2>&1)
  rc=$?
  codes=$(echo "$out" | grep -oE '^error [EW][0-9]+' | awk '{print $2}' | tr '\n' ' ')
  if [ "$rc" = 1 ] && [ "$codes" = "$code " ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $f: expected $code, got [${codes}] exit $rc"
  fi
done < "$dir/expected.txt"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
