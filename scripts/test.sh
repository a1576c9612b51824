#!/usr/bin/env bash
# Builds tgc if needed, then runs every CPU test: the lit suite (dialect,
# passes, tools) and the GoogleTest unit tests. Prints "N passed, N failed".
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
# The kernel generator's tests (NVRTC compiles of every kernel variant); built
# only where the CUDA toolkit was found.
codegen_rc=0
if [ -x "$build/bin/tgc-codegen-tests" ]; then
  "$build/bin/tgc-codegen-tests" --gtest_brief=1 | tee "$log"
  codegen_rc=${PIPESTATUS[0]}
  codegen_passed=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  codegen_failed=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
  unit_passed=$(( ${unit_passed:-0} + ${codegen_passed:-0} ))
  unit_failed=$(( ${unit_failed:-0} + ${codegen_failed:-0} ))
fi
rm -f "$log"
passed=$(( ${lit_passed:-0} + ${unit_passed:-0} ))
failed=$(( ${lit_failed:-0} + ${unit_failed:-0} ))
if [ "$lit_rc" -ne 0 ] || [ "$unit_rc" -ne 0 ] || [ "$codegen_rc" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
