#!/usr/bin/env bash
# Regenerates docs/ops.md, the tg dialect reference, from the ODS definitions
# (the same output as the CMake target `tgc-docs`, which writes
# build/docs/Dialects/TGDialect.md). With --check, changes nothing and fails
# when docs/ops.md is stale; the lit suite runs that check.
set -euo pipefail
cd "$(dirname "$0")/.."
llvm_dir=${TGC_LLVM_DIR:-/usr/lib/llvm-22}
generated=$(mktemp)
trap 'rm -f "$generated"' EXIT
{
  echo "<!-- Generated from dialect/include/tg/Dialect/TG/IR/*.td by scripts/gen-docs.sh; do not edit. -->"
  "$llvm_dir/bin/mlir-tblgen" -gen-dialect-doc -allow-hugo-specific-features \
    -dialect=tg -I dialect/include -I "$llvm_dir/include" \
    dialect/include/tg/Dialect/TG/IR/TGOps.td
} > "$generated"
if [ "${1:-}" = "--check" ]; then
  if ! diff -q docs/ops.md "$generated" >/dev/null; then
    echo "docs/ops.md is stale: run scripts/gen-docs.sh" >&2
    diff -u docs/ops.md "$generated" | head -40 >&2 || true
    exit 1
  fi
  exit 0
fi
cp "$generated" docs/ops.md
echo "wrote docs/ops.md"
