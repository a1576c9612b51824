#!/usr/bin/env bash
# compute-sanitizer over a quick subset of the GPU checks: each graph below
# through `tg-run --check` (compile, run, compare with the CPU reference) on
# both backends, under memcheck (with leak checks), racecheck, synccheck and
# initcheck. A run is clean when the tool reports nothing (its error exit
# code is not hit) and the check passes. Used by run_all.sh's `sanitizer`
# stage (docs/gpu-suite.md, docs/fuzzing.md).
#
#   test/gpu/sanitizer_check.sh BIN_DIR REPORT.md
# Environment: CUDNN_DIR (the libcudnn.so.9 directory for the cudnn
# backend), CUDA_LIB, SANITIZER (default: compute-sanitizer on PATH or in
# /usr/local/cuda/bin), PER_RUN_TIMEOUT (default 90 s), TOOLS, BACKENDS.
set -u
BIN=$1
REPORT=$2
CUDA_LIB=${CUDA_LIB:-/usr/local/cuda/lib64}
SANITIZER=${SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
PER_RUN=${PER_RUN_TIMEOUT:-90}
TOOLS=${TOOLS:-memcheck racecheck synccheck initcheck}
BACKENDS=${BACKENDS:-nvrtc cudnn}
# graph file, then the tg-run options that pick the function
GRAPHS=(
  "examples/attention.mlir|"
  "examples/mixed_attention_matmul.mlir|"
  "test/Lowering/softmax.mlir|--entry=middle_axis_stats"
  "test/gpu/attention_bias_masked_rows.mlir|--entry=bias_rows"
  "test/gpu/attention_bias_masked_rows.mlir|--entry=bias_rows_training"
  "test/gpu/sanitizer_train_everything.mlir|"
)
if [ ! -x "$SANITIZER" ]; then
  echo "sanitizer: compute-sanitizer not found ($SANITIZER)"
  echo "compute-sanitizer not found" > "$REPORT"
  exit 1
fi
"$SANITIZER" --version | head -2
printf '| graph | backend | tool | result | time |\n|---|---|---|---|---|\n' > "$REPORT"
clean=0 total=0
for backend in $BACKENDS; do
  ld="$CUDA_LIB:${LD_LIBRARY_PATH:-}"
  envs=(TGC_BACKEND="$backend")
  if [ "$backend" = cudnn ] && [ -n "${CUDNN_DIR:-}" ]; then
    ld="$CUDNN_DIR:$ld"
    envs+=(TGC_CUDNN_LIBRARY="$CUDNN_DIR/libcudnn.so.9")
  fi
  for entry in "${GRAPHS[@]}"; do
    graph=${entry%%|*} args=${entry#*|}
    for tool in $TOOLS; do
      extra=()
      case $tool in
        memcheck) extra=(--leak-check full) ;;
        racecheck) extra=(--racecheck-report all) ;;
      esac
      log=$(mktemp)
      t=$(date +%s)
      env "${envs[@]}" LD_LIBRARY_PATH="$ld" timeout -k 5 "$PER_RUN" \
        "$SANITIZER" --tool "$tool" "${extra[@]}" --error-exitcode 99 \
        "$BIN/tg-run" "$graph" --check --backend="$backend" $args > "$log" 2>&1
      rc=$?
      dt=$(( $(date +%s) - t ))
      total=$(( total + 1 ))
      case $rc in
        0) result="clean"; clean=$(( clean + 1 )) ;;
        99) result="NOT CLEAN: $(grep -m1 -E '^========= (Invalid|Program hit|Race|Barrier|Uninitialized|Leaked|ERROR)|Error:|hazard' "$log" | cut -c1-150)" ;;
        124|137) result="TIMED OUT after ${PER_RUN}s" ;;
        *) result="FAILED (exit $rc): $(grep -m1 -iE 'error|mismatch|FAIL' "$log" | cut -c1-150)" ;;
      esac
      summary=$(grep -m1 -E "(ERROR|RACECHECK) SUMMARY" "$log" | sed 's/^=* *//')
      echo "----- $graph $args $backend $tool (rc $rc)"
      cat "$log"
      echo "sanitizer: $graph $args | $backend | $tool | $result | ${summary:-} | ${dt}s"
      echo "| $graph $args | $backend | $tool | $result ${summary:+($summary)} | ${dt}s |" >> "$REPORT"
      rm -f "$log"
    done
  done
done
echo "sanitizer: $clean/$total clean" | tee -a "$REPORT"
[ "$clean" -eq "$total" ]
