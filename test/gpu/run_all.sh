#!/usr/bin/env bash
# Every GPU check of the cuDNN issue in one device call (< 560 s):
#   1. env       versions, libraries
#   2. nvrtc     suite, quick grid (S < 1000, forward + backward), --backend nvrtc
#   3. cudnn919  suite, full grid (forward + backward), --backend cudnn, cuDNN 9.19 (PyTorch's venv)
#   4. cudnn914  suite, quick grid, --backend cudnn, system cuDNN 9.14; runtime TGC_BACKEND=auto, so what
#                needs a newer cuDNN shows as "nvrtc (fallback)" with the reason instead of failing
#   5. graphs    suite --graphs (examples incl. FP8 and mixed-input matmul), --backend cudnn, cuDNN 9.19,
#                runtime TGC_BACKEND=auto
#   6. bench     bench/bench_cudnn.py (tgc vs torch cuDNN, same libcudnn; FP8; mixed matmul)
# Stages run only when named in STAGES:
#   nvrtcbwd    suite, --set fused (bwd + train + every option of the fused NVRTC backward),
#               --backend nvrtc --expect-fused (60 configurations)
#   benchbwd    bench/bench_backward.py (fused backward vs torch cuDNN/flash; training steps
#               vs FlexAttention), e.g. STAGES="env nvrtcbwd benchbwd"
#   masks       suite --set masks (additive finfo.min/-inf/-1e9 masks, test/gpu/mask_graphs.py), nvrtc
#   masks919    the same on cuDNN 9.19 (runtime auto: a cuDNN step that falls back fails with its reason)
#   probe919/914 suite --set bias-probe: which bias dtypes/broadcasts cuDNN's engines take
#   gather      suite --set gather (tables read by tg.gather: relative bias, T5 buckets, documents), nvrtc
#   gathersan   the same under compute-sanitizer memcheck (an out-of-bounds access fails the row)
#   ragged      suite --set ragged (packed sequences, cu_seqlens; test/gpu/ragged_graphs.py), nvrtc
#   raggedsan   the same under compute-sanitizer memcheck (malformed offsets must stay in bounds)
#   paged       suite --set paged (paged K/V caches: decode, prefill; test/gpu/paged_graphs.py), nvrtc
#   pagedsan    the same under compute-sanitizer memcheck (page indices outside the cache)
#   benchvarlen bench/bench_varlen.py (varlen vs dense and padded batches, FlashAttention varlen)
#   fp8         suite --set fp8 (FP8 attention: the fused sm_90a kernel and its refusals; fp8_graphs.py), nvrtc
#   fp8san      the same under compute-sanitizer memcheck
#   benchfp8    bench/bench_fp8.py (FP8 forward: NVRTC vs cuDNN vs torch bf16; bench_fp8.{json,md,png})
#   benchgather bench/bench_gather.py (table gathers vs FlexAttention; bench_gather.{json,md})
#   mixed       tg-run --check of test/gpu/mixed_matmul_graphs.mlir on the generated mixed-input
#               kernel (--mixed-matmul=generated), four of them under compute-sanitizer memcheck,
#               three i4 graphs on the dequant plan (--mixed-matmul=dequant), and
#               test/gpu/vector_pointwise_graphs.mlir (element-wise kernels 8 elements a thread)
#   benchmixed  tg-run --check of a mixed-input matmul under each --mixed-matmul plan, then
#               bench/bench_mixed_matmul.py (both plans vs torch, M = 1..16384;
#               bench_mixed_matmul.{json,md,png}), e.g. STAGES="env benchmixed"
#   sanitizer   compute-sanitizer memcheck/racecheck/synccheck/initcheck over tg-run --check of a few
#               graphs on both backends (test/gpu/sanitizer_check.sh); writes sanitizer.md
# Each stage has a timeout; the bench gets what is left. Files in $OUT (6, +1 with
#   sanitizer): run_all.log (every stage's full output), summary.md (the suites' tables),
#   suites.json (the suites' results), bench.json, bench.md, bench.png.
#
# Usage (GPU machine, repository root; binaries carried in .carry):
#   OUT=$OUT bash test/gpu/run_all.sh
# Environment: TGC_BIN (default .carry/bin: tg-run, tg-compile), TGC_LIB
# (default .carry/lib/libtgc.so), TGC_COMMIT, STAGES (default
# "env nvrtc cudnn919 cudnn914 graphs bench"), JOBS (default 16), SUITE_ARGS
# and BENCH_ARGS (extra arguments, e.g. SUITE_ARGS="--only hd64").
set -u
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/out}
mkdir -p "$OUT"
BIN=${TGC_BIN:-$ROOT/.carry/bin}
LIB=${TGC_LIB:-$ROOT/.carry/lib/libtgc.so}
JOBS=${JOBS:-16}
STAGES=${STAGES:-env nvrtc cudnn919 cudnn914 graphs bench}
export TGC_COMMIT=${TGC_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
VENV_CUDNN=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/cudnn/lib
SYS_CUDNN=/usr/lib/x86_64-linux-gnu/libcudnn.so.9
CUDA_LIB=/usr/local/cuda/lib64
BASE_LD=${LD_LIBRARY_PATH:-}
LIMIT=${RUN_ALL_LIMIT:-550}   # seconds for the whole script (device limit 600)
WORK=$(mktemp -d /tmp/tgc-run-all.XXXXXX)
# One kernel cache for all stages: NVRTC kernels compiled once.
export TGC_CACHE_DIR=$WORK/kernel-cache
LOG=$OUT/run_all.log
: >"$LOG"
T0=$(date +%s)
declare -a REPORT

elapsed() { echo $(( $(date +%s) - T0 )); }
# bench_budget CAP: the seconds a benchmark stage gets: what is left, less
# a margin, at most CAP (the bench's own caps sit inside that).
bench_budget() { local left=$(( LIMIT - $(elapsed) - 10 )); echo $(( left > $1 ? $1 : left )); }

# stage NAME TIMEOUT LD_PATH COMMAND...: runs COMMAND with LD_LIBRARY_PATH,
# its full output in run_all.log, its summary lines on stdout.
stage() {
  local name=$1 limit=$2 ld=$3; shift 3
  local left=$(( LIMIT - $(elapsed) ))
  if (( limit > left )); then limit=$left; fi
  if (( limit < 10 )); then
    echo "== $name: skipped (no time left)"; REPORT+=("$name skipped"); return
  fi
  local t=$(date +%s) f=$WORK/$name.log rc
  echo "== $name (timeout ${limit}s, at $(elapsed)s): $*" | tee -a "$LOG"
  LD_LIBRARY_PATH=$ld timeout -k 5 "$limit" "$@" >"$f" 2>&1
  rc=$?
  cat "$f" >>"$LOG"
  if [[ $name == env ]]; then cat "$f"; fi
  if [[ $name == bench || $name == benchbwd || $name == benchgather || $name == benchfp8 || $name == benchmixed ]]; then grep -E "^\|" "$f" | cut -c1-220 | head -50; fi
  if [[ $name == mixedcheck_* || $name == mixed_* || $name == mixedsan_* ]]; then cut -c1-220 "$f" | head -20; fi
  grep -E "^(summary|kind |fwd |bwd |train |graph |mask_|cuDNN loaded|note:|bench_cudnn:|Ratios|tgc GPU suite|sanitizer:)|FAIL|Traceback|Error|error:" "$f" \
    | grep -v "^\s*$" | head -60
  local dt=$(( $(date +%s) - t ))
  [[ $rc == 124 || $rc == 137 ]] && echo "   $name TIMED OUT after ${limit}s"
  echo "== $name: rc=$rc, ${dt}s (total $(elapsed)s)" | tee -a "$LOG"
  REPORT+=("$name rc=$rc ${dt}s")
}

run_env() {  # runs under `bash -c`: what it reads is exported
  echo "commit $TGC_COMMIT; bin $BIN; lib $LIB"
  ls -la "$BIN" "$LIB"
  nvidia-smi --query-gpu=name,driver_version,memory.used,memory.total --format=csv,noheader
  ls -la "$VENV_CUDNN"/libcudnn.so* "$SYS_CUDNN"* 2>&1
  ls "$CUDA_LIB" | grep -i cudnn || echo "(no cuDNN in $CUDA_LIB)"
  python3 -c "import torch; print('torch', torch.__version__, 'cudnn', torch.backends.cudnn.version())"
}

SUITE="python3 test/gpu/suite.py --bin $BIN --out $WORK --jobs $JOBS --timeout 150 ${SUITE_ARGS:-}"
for s in $STAGES; do
  case $s in
    env) export -f run_env; export BIN LIB VENV_CUDNN SYS_CUDNN CUDA_LIB
         stage env 30 "$BASE_LD" bash -c run_env ;;
    nvrtc) stage nvrtc 50 "$CUDA_LIB:$BASE_LD" \
      $SUITE --backend nvrtc --quick --tag nvrtc_quick ;;
    nvrtcbwd) stage nvrtcbwd 240 "$CUDA_LIB:$BASE_LD" \
      $SUITE --backend nvrtc --set fused --expect-fused --tag nvrtc_fused_bwd ;;
    benchbwd)
      left=$(bench_budget 260)
      stage benchbwd "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_backward.py --lib "$LIB" --out "$OUT" \
        --total-s $(( left - 25 )) --budget-s $(( (left - 25) * 11 / 20 )) ${BENCH_ARGS:-} ;;
    cudnn919) stage cudnn919 120 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
      $SUITE --backend cudnn --cudnn-lib "$VENV_CUDNN/libcudnn.so.9" --tag cudnn919 ;;
    cudnn914) stage cudnn914 70 "/usr/lib/x86_64-linux-gnu:$CUDA_LIB:$BASE_LD" \
      $SUITE --backend cudnn --runtime-backend auto --allow-fallback --cudnn-lib "$SYS_CUDNN" --quick \
      --tag cudnn914_quick ;;
    gather) stage gather 90 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set gather --backend nvrtc --tag gather_nvrtc ;;
    fp8) stage fp8 120 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set fp8 --backend nvrtc --tag fp8_nvrtc ;;
    fp8san) stage fp8san 200 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set fp8 --backend nvrtc --sanitizer /usr/local/cuda/bin/compute-sanitizer --only s384,s1000,sq300,padding,window_64 --tag fp8_memcheck ;;
    benchfp8)
      left=$(bench_budget 240)
      stage benchfp8 "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_fp8.py --lib "$LIB" --out "$OUT" --budget-s $(( left - 40 )) ${BENCH_ARGS:-} ;;
    ragged) stage ragged 90 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set ragged --backend nvrtc --tag ragged_nvrtc ;;
    raggedsan) stage raggedsan 150 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set ragged --backend nvrtc --sanitizer /usr/local/cuda/bin/compute-sanitizer --tag ragged_memcheck ;;
    paged) stage paged 90 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set paged --backend nvrtc --tag paged_nvrtc ;;
    pagedsan) stage pagedsan 150 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set paged --backend nvrtc --sanitizer /usr/local/cuda/bin/compute-sanitizer --tag paged_memcheck ;;
    benchvarlen)
      left=$(bench_budget 150)
      stage benchvarlen "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_varlen.py --lib "$LIB" --out "$OUT" ${BENCH_ARGS:-} ;;
    gathersan) stage gathersan 150 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set gather --backend nvrtc --sanitizer /usr/local/cuda/bin/compute-sanitizer --tag gather_memcheck ;;
    benchgather)
      left=$(bench_budget 200)
      stage benchgather "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_gather.py --lib "$LIB" --out "$OUT" ${BENCH_ARGS:-} ;;
    mixed)  # the generated mixed-input kernel against the reference, then under memcheck
      for fn in $(grep -o '^func.func @[a-z0-9_]*' test/gpu/mixed_matmul_graphs.mlir | cut -c12-); do
        stage "mixed_$fn" 60 "$CUDA_LIB:$BASE_LD" \
          "$BIN/tg-run" test/gpu/mixed_matmul_graphs.mlir --entry=$fn --check --mixed-matmul=generated
      done
      for fn in i8_column_scale_split e4m3_scale_epilogue i4_scaled_tail i4_group32_zero_point; do
        stage "mixedsan_$fn" 120 "$CUDA_LIB:$BASE_LD" /usr/local/cuda/bin/compute-sanitizer --tool memcheck \
          --error-exitcode 3 "$BIN/tg-run" test/gpu/mixed_matmul_graphs.mlir --entry=$fn --check --mixed-matmul=generated
      done
      # element-wise kernels that take 8 elements per thread, every storage type
      for fn in floats integers; do
        stage "vector_$fn" 60 "$CUDA_LIB:$BASE_LD" \
          "$BIN/tg-run" test/gpu/vector_pointwise_graphs.mlir --entry=$fn --check --backend=nvrtc
      done
      # i4 weights dequantised by a generic kernel, then a 16-bit matmul
      for fn in i4_zero_point_row_scale_generic decode_i4_scaled i4_group128_as_written; do
        stage "mixed_dequant_$fn" 60 "$CUDA_LIB:$BASE_LD" \
          "$BIN/tg-run" test/gpu/mixed_matmul_graphs.mlir --entry=$fn --check --mixed-matmul=dequant
      done ;;
    benchmixed)
      stage mixedcheck_generated 40 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        "$BIN/tg-run" examples/mixed_attention_matmul.mlir --check --seed=3 --mixed-matmul=generated
      for plan in fused dequant auto; do
        stage "mixedcheck_$plan" 40 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
          "$BIN/tg-run" examples/mixed_attention_matmul.mlir --check --seed=3 --backend=cudnn --mixed-matmul=$plan
      done
      left=$(bench_budget 240)
      stage benchmixed "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_mixed_matmul.py --lib "$LIB" --out "$OUT" --total-s $(( left - 40 )) ${BENCH_ARGS:-} ;;
    masks) stage masks 70 "$CUDA_LIB:$BASE_LD" \
      $SUITE --set masks --backend nvrtc --tag masks_nvrtc ;;
    masks919) stage masks919 90 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
      $SUITE --set masks --backend cudnn --runtime-backend auto --cudnn-lib "$VENV_CUDNN/libcudnn.so.9" \
      --tag masks_cudnn919 ;;
    probe919) stage probe919 70 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
      $SUITE --set bias-probe --backend cudnn --runtime-backend auto --cudnn-lib "$VENV_CUDNN/libcudnn.so.9" \
      --tag probe_cudnn919 ;;
    probe914) stage probe914 70 "/usr/lib/x86_64-linux-gnu:$CUDA_LIB:$BASE_LD" \
      $SUITE --set bias-probe --backend cudnn --runtime-backend auto --cudnn-lib "$SYS_CUDNN" \
      --tag probe_cudnn914 ;;
    graphs) stage graphs 60 "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
      $SUITE --graphs --backend cudnn --runtime-backend auto --cudnn-lib "$VENV_CUDNN/libcudnn.so.9" --tag graphs_cudnn919 ;;
    sanitizer) stage sanitizer 480 "$CUDA_LIB:$BASE_LD" \
      env CUDNN_DIR="$VENV_CUDNN" CUDA_LIB="$CUDA_LIB" \
      bash test/gpu/sanitizer_check.sh "$BIN" "$OUT/sanitizer.md" ;;
    bench)
      left=$(bench_budget 250)
      stage bench "$left" "$VENV_CUDNN:$CUDA_LIB:$BASE_LD" \
        python3 bench/bench_cudnn.py --lib "$LIB" --out "$OUT" \
        --total-s $(( left - 20 )) --budget-s $(( left - 75 )) ${BENCH_ARGS:-} ;;
    *) echo "unknown stage $s" ;;
  esac
done

# Combine the suites' files: at most 8 files come back from the device.
python3 - "$WORK" "$OUT" <<'EOF'
import glob, json, os, sys
work, out = sys.argv[1:3]
suites, md = {}, []
for path in sorted(glob.glob(os.path.join(work, "suite_*.json"))):
    tag = os.path.basename(path)[len("suite_"):-len(".json")]
    suites[tag] = json.load(open(path))
    mdp = path[:-5] + ".md"
    if os.path.exists(mdp):
        md.append(open(mdp).read())
json.dump(suites, open(os.path.join(out, "suites.json"), "w"), indent=1)
open(os.path.join(out, "summary.md"), "w").write("\n\n".join(md))
print("suites: " + ", ".join("%s %d/%d" % (t, s.get("passed", 0), s.get("passed", 0) + s.get("failed", 0))
                             for t, s in suites.items()))
EOF
echo "== stages: ${REPORT[*]:-none}"
echo "== total $(elapsed)s; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
rm -rf "$WORK"
