#!/usr/bin/env bash
# Fingerprints the NVRTC attention forward kernels (no GPU needed): per
# variant and target, ptxas's registers / stack / spills / shared memory, the
# SASS size and hash, and key PTX instruction counts (tgc-kernel-fingerprint,
# test/unit/KernelFingerprint.cpp).
#   scripts/kernel-fingerprint.sh OUT              write the fingerprint to OUT
#   scripts/kernel-fingerprint.sh OUT BASE         ... and compare it with BASE
# The comparison lists every line that differs (exit 1 if any); lines
# starting with '#' are comments. Fingerprints depend on the NVRTC version:
# compare runs of the same toolkit. test/unit/fingerprints/ keeps the
# recorded bases (the file says where and with which NVRTC it was taken).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TGC_BUILD_DIR:-build}
[ $# -ge 1 ] || { echo "usage: $0 OUT [BASE]" >&2; exit 2; }
cmake --build "$build" --target tgc-kernel-fingerprint >/dev/null
"$build/bin/tgc-kernel-fingerprint" > "$1"
grep -q "ERROR" "$1" && { grep -A3 "ERROR" "$1" >&2; exit 1; }
[ $# -ge 2 ] || exit 0
lines() { grep -v '^#' "$1" | sort; }
if diff <(lines "$2") <(lines "$1") > /dev/null; then
  echo "fingerprints identical ($(wc -l < "$1") kernels)"
  exit 0
fi
echo "fingerprints differ (< $2, > $1):"
diff <(lines "$2") <(lines "$1") | grep '^[<>]'
exit 1
