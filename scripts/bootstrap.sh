#!/usr/bin/env bash
# One command from a fresh Debian 12 machine to a result: installs what tgc
# needs, builds it, compiles the bundled example graph through the pass
# pipeline, and runs it on the CPU reference interpreter (and, when a GPU and
# the GPU runtime are present, on the GPU, checked against the reference).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
./scripts/build.sh
bin=${TGC_BUILD_DIR:-build}/bin
example=examples/attention.mlir
out=${TGC_OUT_DIR:-build/example}
mkdir -p "$out"

echo "== compile: $example (decompose, fuse, select backend, lower to a plan)"
"$bin/tg-compile" "$example" --emit=mlir -o "$out/attention.compiled.mlir"
"$bin/tg-compile" "$example" --emit=plan -o "$out/attention.plan"
"$bin/tg-compile" "$example" --emit=cuda -o "$out/attention.cu"
echo "   fused graph: $out/attention.compiled.mlir"
echo "   plan:        $out/attention.plan ($(grep -c '^kernel ' "$out/attention.plan") kernel(s))"
echo "   CUDA source: $out/attention.cu"

echo "== run on the CPU reference (float64)"
"$bin/tg-run" --ref "$example" --seed=1 --output-dir="$out"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== run on the GPU (NVRTC backend), checked against the reference"
  "$bin/tg-run" "$example" --seed=1 --check --bench=20
else
  echo "== no GPU here: skipping the GPU run (tg-run $example --check does it where there is one)"
fi
