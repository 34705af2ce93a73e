#!/usr/bin/env bash
# The whole test suite, as `make test` runs it (after the main build):
#   1. lit + FileCheck over test/ against build/bin/linnet
#   2. GoogleTest unit tests (ctest)
#   3. the frontend and runtime unit tests again under ASan + UBSan (clang-19)
#   4. each libFuzzer target for a short bounded run, from the same build
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

# Steps 3 and 4 share one instrumented build (clang-19: ASan + UBSan, and
# libFuzzer's coverage on every library; -O1 keeps the fuzzers fast). The
# MLIR backend is not built here: the frontend, checkpoint and runtime are.
san="$build/sanitize"
san_ok=0
step "instrumented build (ASan, UBSan, libFuzzer)"
if cmake -S . -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" \
     -DLINNET_SANITIZE=ON -DLINNET_FUZZ=ON -DLINNET_BACKEND=OFF \
     -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null &&
   cmake --build "$san" -j "$jobs" >/dev/null; then
  san_ok=1
else
  failed+=("instrumented build")
fi

step "unit tests under ASan and UBSan"
if [ "$san_ok" = 1 ]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir "$san" --output-on-failure -j "$jobs" || failed+=("sanitized unit tests")
fi

step "fuzzers (bounded runs)"
fuzz_seconds=${LINNET_FUZZ_SECONDS:-20}
# One fuzzer per core at a time; each writes its own log, shown if it fails.
fuzz_one() {
  local target=$1 seconds=$2 name work status=0
  name=$(basename "$target" _fuzzer)
  work=$(mktemp -d)
  [ -d "test/fuzz/corpus/$name" ] && cp -r "test/fuzz/corpus/$name"/. "$work"/
  # UBSan stops the run at the first report, so undefined behaviour fails the step.
  if UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 "$target" -max_total_time="$seconds" -max_len=4096 \
       -rss_limit_mb=2048 -timeout=10 -print_final_stats=0 "$work" >"$work.log" 2>&1; then
    echo "fuzzed $name for ${seconds}s: clean"
  else
    echo "fuzzed $name: FAILED"; tail -40 "$work.log"
    status=1
  fi
  rm -rf "$work" "$work.log"
  return $status
}
export -f fuzz_one
if [ "$san_ok" = 1 ]; then
  if ! ls "$san"/bin/*_fuzzer | xargs -P "$jobs" -I{} bash -c 'fuzz_one "$@"' _ {} "$fuzz_seconds"; then
    failed+=("fuzzers")
  fi
fi

echo
if [ ${#failed[@]} -ne 0 ]; then
  printf 'FAILED: %s\n' "${failed[*]}"
  exit 1
fi
echo "all test steps passed"
