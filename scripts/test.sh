#!/usr/bin/env bash
# Builds tgc if needed, then runs every CPU test: the lit suite (dialect,
# passes, tools), the GoogleTest unit tests and the runtime tests (no GPU
# needed). Prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TGC_BUILD_DIR:-build}
./scripts/build.sh || exit 1
log=$(mktemp)
/usr/lib/llvm-22/bin/lit -sv "$build/test" | tee "$log"
lit_rc=${PIPESTATUS[0]}
lit_passed=$(grep -oP '^\s*Passed\s*:\s*\K[0-9]+' "$log" | tail -1)
lit_failed=$(grep -oP '^\s*(Failed|Unresolved|Timed Out|Unexpectedly Passed)\s*:\s*\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
# GoogleTest binaries: plain C++ units, the reference interpreter, and the
# MLIR-free runtime (plans, NVRTC, cache, executor on a mock driver), and the
# generic kernel generator (every generated kernel compiled with NVRTC), and
# the attention backward kernels run on the host device emulator.
unit_rc=0 unit_passed=0 unit_failed=0
for binary in tgc-unit-tests tgc-interp-tests tgc-runtime-tests tgc-lowering-tests tgc-codegen-tests tgc-emulation-tests; do
  "$build/bin/$binary" --gtest_brief=1 | tee "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || unit_rc=$rc
  p=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
  unit_passed=$(( unit_passed + ${p:-0} ))
  unit_failed=$(( unit_failed + ${f:-0} ))
done
rm -f "$log"
passed=$(( ${lit_passed:-0} + unit_passed ))
failed=$(( ${lit_failed:-0} + unit_failed ))
if [ "$lit_rc" -ne 0 ] || [ "$unit_rc" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
