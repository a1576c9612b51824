#!/usr/bin/env bash
# GPU checks of the cuDNN matmul and reduction lowerings (on the GPU machine):
#
#   ./scripts/build.sh && test/Cudnn/run-gpu-checks.sh [BIN_DIR] [OUT_DIR]
#
# Every graph in test/Cudnn/Inputs and examples/mixed_attention_matmul.mlir
# runs under `tg-run --check` (outputs against the CPU reference) twice:
#   cudnn: TGC_BACKEND=cudnn, so a cuDNN step whose graphs cuDNN rejects is
#          an error naming the graph and cuDNN's reason (no silent fallback);
#   auto:  the default policy (rejected graphs run their NVRTC fallback).
# Prints one line per run with the backend of each step, writes each run's
# full log to OUT_DIR (default: a temporary directory), and exits 1 when a
# check fails (a wrong answer), not when cuDNN merely has no engine.
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/bin}
out=${2:-$(mktemp -d)}
mkdir -p "$out"
graphs=(test/Cudnn/Inputs/*.mlir examples/mixed_attention_matmul.mlir)
passed=0 failed=0 rejected=0
for graph in "${graphs[@]}"; do
  name=$(basename "$graph" .mlir)
  for mode in cudnn auto; do
    log="$out/$name.$mode.log"
    TGC_BACKEND=$mode TGC_LOG=info "$bin/tg-run" --check "$graph" >"$log" 2>&1
    rc=$?
    steps=$(grep -E '^step [0-9]+:' "$log" | sed 's/^/    /')
    if [ "$rc" -eq 0 ]; then
      result=PASS; passed=$((passed + 1))
    elif grep -q -i -E 'mismatch|FAIL' "$log"; then
      result=FAIL; failed=$((failed + 1))
    else
      # No engine (or another error before the check): not a wrong answer.
      result=ERROR; rejected=$((rejected + 1))
    fi
    echo "$result $name ($mode)"
    [ -n "$steps" ] && echo "$steps"
    [ "$result" = PASS ] || tail -n 5 "$log" | sed 's/^/    | /'
  done
done
echo "$passed passed, $failed failed (wrong results), $rejected errors (logs in $out)"
[ "$failed" -eq 0 ]
