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

echo "== compile: $example"
"$bin/tg-opt" "$example" ${TGC_PIPELINE:---tg-decompose-sdpa --canonicalize --cse} \
  -o "$out/attention.compiled.mlir"
grep -c "tg\." "$out/attention.compiled.mlir" | xargs echo "   tg ops after the pipeline:"

if [ -x "$bin/tg-run" ]; then
  echo "== run on the CPU reference (float64)"
  "$bin/tg-run" --ref "$example" --seed=1 --output-dir="$out"
  echo "== run the compiled graph on the CPU reference, same inputs"
  "$bin/tg-run" --ref "$out/attention.compiled.mlir" --seed=1
fi
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && "$bin/tg-run" --help 2>/dev/null | grep -q -- "--check"; then
  echo "== run on the GPU, checked against the reference"
  "$bin/tg-run" "$example" --check
fi
