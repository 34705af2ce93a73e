#!/usr/bin/env bash
# The whole test suite, as `make test` runs it (after the main build):
#   1. lit + FileCheck over test/ against build/bin/linnet
#   2. GoogleTest unit tests (ctest)
#   3. the frontend and runtime unit tests again under ASan + UBSan (gcc)
#   4. each libFuzzer target for a short bounded run (clang-19)
# Every step runs even if an earlier one failed; the script fails if any did.
set -uo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
jobs=$(nproc)
llvm_bin=/usr/lib/llvm-19/bin
failed=()

step() { printf '\n==> %s\n' "$1"; }

step "lit"
python3 "$llvm_bin/../build/utils/lit/lit.py" -sv -j "$jobs" \
  --param build_dir="$root/$build" test/ || failed+=("lit")

step "unit tests"
ctest --test-dir "$build" --output-on-failure -j "$jobs" || failed+=("unit tests")

step "unit tests under ASan and UBSan"
san="$build/sanitize"
# The frontend and runtime unit tests: the MLIR backend is not built here.
if cmake -S . -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DLINNET_SANITIZE=ON -DLINNET_BACKEND=OFF >/dev/null &&
   cmake --build "$san" -j "$jobs" >/dev/null; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$san" --output-on-failure -j "$jobs" || failed+=("sanitized unit tests")
else
  failed+=("sanitized build")
fi

step "fuzzers (bounded runs)"
fuzz="$build/fuzz"
fuzz_seconds=${LINNET_FUZZ_SECONDS:-20}
if cmake -S . -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLINNET_FUZZ=ON -DLINNET_TESTS=OFF -DLINNET_BACKEND=OFF \
     -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null &&
   cmake --build "$fuzz" -j "$jobs" >/dev/null; then
  for target in "$fuzz"/bin/*_fuzzer; do
    [ -x "$target" ] || continue
    name=$(basename "$target" _fuzzer)
    corpus="test/fuzz/corpus/$name"
    work=$(mktemp -d)
    [ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
    echo "fuzzing $name for ${fuzz_seconds}s"
    # UBSan stops the run at the first report, so undefined behaviour fails the step.
    if ! UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$target" -max_total_time="$fuzz_seconds" -max_len=4096 -rss_limit_mb=2048 \
         -timeout=10 -print_final_stats=0 "$work" >"$work.log" 2>&1; then
      tail -40 "$work.log"
      failed+=("fuzzer $name")
    fi
    rm -rf "$work" "$work.log"
  done
else
  failed+=("fuzz build")
fi

echo
if [ ${#failed[@]} -ne 0 ]; then
  printf 'FAILED: %s\n' "${failed[*]}"
  exit 1
fi
echo "all test steps passed"
