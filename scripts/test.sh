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
"$build/bin/tgc-unit-tests" --gtest_brief=1 | tee "$log"
unit_rc=${PIPESTATUS[0]}
unit_passed=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
unit_failed=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
"$build/bin/tgc-runtime-tests" --gtest_brief=1 | tee "$log"
runtime_rc=${PIPESTATUS[0]}
runtime_passed=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
runtime_failed=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
rm -f "$log"
passed=$(( ${lit_passed:-0} + ${unit_passed:-0} + ${runtime_passed:-0} ))
failed=$(( ${lit_failed:-0} + ${unit_failed:-0} + ${runtime_failed:-0} ))
if [ "$lit_rc" -ne 0 ] || [ "$unit_rc" -ne 0 ] || [ "$runtime_rc" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
