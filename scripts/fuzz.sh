#!/usr/bin/env bash
# libFuzzer runs of tgc's harnesses (test/fuzz, docs/fuzzing.md), built with
# ASan+UBSan in build-asan (scripts/sanitize.sh configures it):
#
#   scripts/fuzz.sh --smoke                  every harness for 15 s (CI)
#   scripts/fuzz.sh --time=S [HARNESS...]    each for S seconds, at nice 19
#   scripts/fuzz.sh --runs=N [HARNESS...]    each for N inputs, at nice 19
#   --record=FILE                            also append the results to FILE
#
# Harnesses: compile plan npy cache-entry (default: all), one at a time (one
# process). Corpora start from the seeds (test/ and examples/ .mlir files,
# generated plans, .npy files and kernel cache entries, and every saved
# regression input) and grow in build-asan/fuzz/corpus/<harness>. A crash,
# leak, timeout (20 s) or out-of-memory (2.5 GB) stops that harness and
# leaves its input in build-asan/fuzz/artifacts/<harness>/: once fixed, it
# goes to test/fuzz/regressions/<harness>/, which every build replays.
# Prints one line per harness (inputs, seconds, result); exits 1 on a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TGC_SAN_BUILD_DIR:-build-asan}
seconds="" runs="" record="" harnesses=() nice=(nice -n 19)
for arg in "$@"; do
  case "$arg" in
    --smoke) seconds=15; nice=() ;;
    --time=*) seconds=${arg#--time=} ;;
    --runs=*) runs=${arg#--runs=} ;;
    --record=*) record=${arg#--record=} ;;
    compile|plan|npy|cache-entry) harnesses+=("$arg") ;;
    *) echo "usage: scripts/fuzz.sh --smoke | --time=S | --runs=N [--record=FILE] [harness...]" >&2
       exit 2 ;;
  esac
done
[ -n "$seconds$runs" ] || { echo "fuzz: give --smoke, --time=S or --runs=N" >&2; exit 2; }
((${#harnesses[@]})) || harnesses=(compile plan npy cache-entry)

targets=()
for h in "${harnesses[@]}"; do targets+=("tgc-fuzz-$h"); done
# The regression test writes the compiled-plan seeds; a runtime-only build
# (CI) has no compiler and seeds the plan corpus from the tree alone.
[ -f "$build/CMakeCache.txt" ] && grep -q "^TGC_RUNTIME_ONLY:BOOL=ON" "$build/CMakeCache.txt" ||
  targets+=(tgc-fuzz-regression-tests)
./scripts/sanitize.sh asan --build "${targets[@]}" >/dev/null || {
  echo "fuzz: cannot build ${targets[*]} in $build" >&2; exit 1; }

work="$build/fuzz"
seeds="$work/seeds"
mkdir -p "$seeds"
if [ -x "$build/bin/tgc-fuzz-regression-tests" ]; then
  "$build/bin/tgc-fuzz-regression-tests" --write-seeds="$seeds" || exit 1
fi
# allow_user_poisoning=0: see scripts/sanitize.sh.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# MLIR and LLVM keep process-lifetime allocations (registries, options).
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/sanitizers/lsan.supp}

status=0
for h in "${harnesses[@]}"; do
  corpus="$work/corpus/$h" artifacts="$work/artifacts/$h"
  mkdir -p "$corpus" "$artifacts"
  # Seeds: copied once (the corpus keeps what the fuzzer adds).
  case "$h" in
    compile) find test examples -name '*.mlir' -exec cp -n {} "$corpus/" \; ;;
    plan) cp -n "$seeds/plan"/* "$corpus/" 2>/dev/null
          cp -n examples/embed/square.plan "$corpus/" ;;
    *) cp -n "test/fuzz/seeds/$h"/* "$corpus/" ;;
  esac
  [ -d "test/fuzz/regressions/$h" ] && cp -n "test/fuzz/regressions/$h"/* "$corpus/" 2>/dev/null
  options=(-timeout=20 -rss_limit_mb=2560 -print_final_stats=1
           -artifact_prefix="$artifacts/")
  case "$h" in
    compile) options+=(-max_len=65536 -dict=test/fuzz/mlir.dict) ;;
    plan) options+=(-max_len=262144) ;;
    npy) options+=(-max_len=4096) ;;
    cache-entry) options+=(-max_len=65536) ;;
  esac
  [ -n "$seconds" ] && options+=(-max_total_time="$seconds")
  [ -n "$runs" ] && options+=(-runs="$runs")
  log="$work/$h.log"
  start=$(date +%s)
  "${nice[@]}" "$build/bin/tgc-fuzz-$h" "${options[@]}" "$corpus" > "$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start ))
  inputs=$(grep -oP 'stat::number_of_executed_units: \K[0-9]+' "$log" | tail -1)
  size=$(ls "$corpus" | wc -l)
  if [ "$rc" -eq 0 ]; then
    result="no findings"
  else
    result="FINDING (exit $rc): $(grep -m1 -E 'ERROR: |runtime error|property violated|Timeout|out-of-memory' "$log" | cut -c1-160); input in $artifacts"
    status=1
  fi
  line="$h: ${inputs:-0} inputs in ${elapsed} s, corpus $size, $result"
  echo "fuzz $line"
  [ -n "$record" ] && echo "| $h | ${inputs:-0} | $elapsed | $size | $result |" >> "$record"
done
exit $status
