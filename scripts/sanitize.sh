#!/usr/bin/env bash
# Builds tgc with clang's sanitizers in a build directory of its own and runs
# the tests they are for (docs/fuzzing.md):
#
#   scripts/sanitize.sh asan [--ci]   ASan+UBSan: the GoogleTest suites and the
#                                     lit suite (build-asan; also the fuzzers'
#                                     build, see scripts/fuzz.sh)
#   scripts/sanitize.sh tsan [--ci]   TSan: the multi-threaded compile tests,
#                                     the runtime's concurrent compile/run
#                                     tests, and the lit suite with the pass
#                                     manager's threading on (build-tsan)
#
# --ci builds and runs the subset CI can afford (see below); without it,
# everything. A sanitizer report fails the run. Prints "sanitize <mode>: N
# passed, N failed" and exits non-zero on failures.
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
ci=0
[ "${2:-}" = "--ci" ] && ci=1
case "$mode" in
  asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
        extra=(-DTGC_FUZZ=ON) ;;
  tsan) flags="-fsanitize=thread"
        extra=() ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan [--ci]" >&2; exit 2 ;;
esac
build=${TGC_SAN_BUILD_DIR:-build-$mode}
cc=${TGC_SAN_CC:-clang-22}
cxx=${TGC_SAN_CXX:-clang++-22}
command -v "$cxx" >/dev/null || { echo "sanitize: $cxx not found (apt install clang-22 libclang-rt-22-dev)" >&2; exit 2; }

if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags -fno-omit-frame-pointer" \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" "${extra[@]}" >/dev/null || exit 1
fi

# What each mode builds and runs. The CI subset: for ASan+UBSan the MLIR-free
# runtime tests (every plan, cache, binding and C API path) and the fuzz
# regression inputs; for TSan the concurrent compile and plan-printing tests
# and the runtime's concurrent tests. The full run adds every unit binary and
# the lit suite.
if [ "$mode" = asan ]; then
  if [ $ci = 1 ]; then
    targets=(tgc-runtime-tests tgc-fuzz-regression-tests)
  else
    targets=(all)
  fi
  units=(tgc-runtime-tests tgc-fuzz-regression-tests)
  [ $ci = 1 ] || units+=(tgc-unit-tests tgc-interp-tests tgc-lowering-tests tgc-codegen-tests tgc-driver-tests)
  filter='*'
else
  if [ $ci = 1 ]; then
    targets=(tgc-runtime-tests tgc-driver-tests)
  else
    targets=(all)
  fi
  units=(tgc-driver-tests tgc-runtime-tests)
  filter='*'
fi
start=$(date +%s)
cmake --build "$build" --target "${targets[@]}" || exit 1
echo "sanitize $mode: built in $(( $(date +%s) - start )) s"

# Reports fail the process; LeakSanitizer is off: MLIR and LLVM keep
# process-lifetime allocations (registries, options) they never free.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
passed=0 failed=0
log=$(mktemp)
for binary in "${units[@]}"; do
  "$build/bin/$binary" --gtest_brief=1 --gtest_filter="$filter" > "$log" 2>&1
  rc=$?
  p=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
  passed=$(( passed + ${p:-0} ))
  if [ "$rc" -ne 0 ]; then
    failed=$(( failed + ${f:-1} ))
    echo "sanitize $mode: $binary failed (exit $rc):"
    grep -E "ERROR: |WARNING: ThreadSanitizer|runtime error|SUMMARY|FAILED" "$log" | head -20
  fi
done
if [ $ci = 0 ]; then
  /usr/lib/llvm-22/bin/lit -s "$build/test" > "$log" 2>&1
  lit_rc=$?
  p=$(grep -oP '^\s*Passed\s*:\s*\K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '^\s*(Failed|Unresolved|Timed Out)\s*:\s*\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
  passed=$(( passed + ${p:-0} ))
  failed=$(( failed + ${f:-0} ))
  if [ "$lit_rc" -ne 0 ]; then
    [ "${f:-0}" -gt 0 ] || failed=$(( failed + 1 ))
    grep -E "^  TGC ::" "$log" | head -20
  fi
fi
rm -f "$log"
echo "sanitize $mode: $passed passed, $failed failed ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ]
