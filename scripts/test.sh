#!/usr/bin/env bash
# Builds tgc if needed, then runs every CPU test: the lit suite (dialect,
# passes, tools, install), the GoogleTest unit tests and the runtime tests (no
# GPU needed). Says what was skipped and why, then prints "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
build=${TGC_BUILD_DIR:-build}
./scripts/build.sh || exit 1
log=$(mktemp)
skipped=()
# A runtime-only build (TGC_RUNTIME_ONLY=ON) has no compiler, no lit suite
# and only the runtime's tests.
runtime_only=""
grep -q '^TGC_RUNTIME_ONLY:BOOL=ON$' "$build/CMakeCache.txt" && runtime_only=1
lit_rc=0 lit_passed=0 lit_failed=0
if [ -f "$build/test/lit.site.cfg.py" ]; then
  /usr/lib/llvm-22/bin/lit -sv --show-unsupported "$build/test" | tee "$log"
  lit_rc=${PIPESTATUS[0]}
  lit_passed=$(grep -oP '^\s*Passed\s*:\s*\K[0-9]+' "$log" | tail -1)
  lit_failed=$(grep -oP '^\s*(Failed|Unresolved|Timed Out|Unexpectedly Passed)\s*:\s*\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
  # Each unsupported test with the line that says why.
  while read -r name; do
    why=$(grep -ohE '(REQUIRES|UNSUPPORTED):.*' "test/$name" | head -n 1)
    skipped+=("lit $name (${why:-unsupported here})")
  done < <(awk '/^Unsupported Tests/ {on = 1; next} on && /^  TGC :: / {print $3; next} {on = 0}' "$log")
elif [ -n "$runtime_only" ]; then
  skipped+=("the lit suite (runtime-only build: TGC_RUNTIME_ONLY=ON)")
else
  echo "test.sh: $build/test/lit.site.cfg.py is missing (TGC_BUILD_TESTS=OFF?)" >&2
  lit_rc=1
fi
# GoogleTest binaries: plain C++ units, the reference interpreter, and the
# MLIR-free runtime (plans, NVRTC, cache, executor on a mock driver), and the
# generic kernel generator (every generated kernel compiled with NVRTC), and
# the attention backward kernels run on the host device emulator.
unit_rc=0 unit_passed=0 unit_failed=0
for binary in tgc-unit-tests tgc-interp-tests tgc-runtime-tests tgc-lowering-tests tgc-codegen-tests tgc-driver-tests tgc-fuzz-regression-tests tgc-emulation-tests; do
  if [ ! -x "$build/bin/$binary" ]; then
    if [ -n "$runtime_only" ] && [ "$binary" != tgc-runtime-tests ]; then
      skipped+=("$binary (runtime-only build: TGC_RUNTIME_ONLY=ON)")
    else
      echo "test.sh: $build/bin/$binary was not built" >&2
      unit_rc=1 unit_failed=$((unit_failed + 1))
    fi
    continue
  fi
  "$build/bin/$binary" --gtest_brief=1 | tee "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || unit_rc=$rc
  p=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
  unit_passed=$(( unit_passed + ${p:-0} ))
  unit_failed=$(( unit_failed + ${f:-0} ))
done
# The Python package (python/tgc): tracing, graph text, argument checks, cache,
# and every traced form compiled by libtgc and run on the reference
# interpreter. Needs a python3 with torch and numpy (install-deps.sh installs
# Debian's; TGC_PYTHON overrides).
py_rc=0 py_passed=0 py_failed=0
py=""
for cand in ${TGC_PYTHON:-} /usr/bin/python3 python3; do
  if "$cand" -c "import torch, numpy" >/dev/null 2>&1; then py=$cand; break; fi
done
if [ -n "$runtime_only" ]; then
  skipped+=("the Python tests (runtime-only build: TGC_RUNTIME_ONLY=ON, no libtgc.so)")
elif [ -z "$py" ]; then
  echo "python tests: no python3 with torch and numpy found (run scripts/install-deps.sh or set TGC_PYTHON)"
  py_rc=1 py_failed=1
else
  "$py" test/python/run_tests.py --build "$build" 2>&1 | tee "$log"
  py_rc=${PIPESTATUS[0]}
  py_passed=$(grep -oP '^python: \K[0-9]+(?= passed)' "$log" | tail -1)
  py_failed=$(grep -oP '^python: [0-9]+ passed, \K[0-9]+(?= failed)' "$log" | tail -1)
  py_passed=${py_passed:-0}; py_failed=${py_failed:-0}
  if [ "$py_rc" -ne 0 ] && [ "$py_failed" -eq 0 ]; then py_failed=1; fi
fi
rm -f "$log"
passed=$(( ${lit_passed:-0} + unit_passed + py_passed ))
failed=$(( ${lit_failed:-0} + unit_failed + py_failed ))
if [ "$lit_rc" -ne 0 ] || [ "$unit_rc" -ne 0 ] || [ "$py_rc" -ne 0 ]; then
  [ "$failed" -gt 0 ] || failed=1
fi
if ((${#skipped[@]})); then
  echo "skipped (${#skipped[@]}):"
  printf '  %s\n' "${skipped[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
