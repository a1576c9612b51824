#!/usr/bin/env bash
# Installs what tgc builds with on Debian 12: LLVM/MLIR 22 (lit and FileCheck
# included), CMake, Ninja, GoogleTest, binutils/pkg-config for the install
# checks, torch + numpy for the Python package's tests (Debian's
# python3-torch, CPU only), and clang 22 with its sanitizer and libFuzzer
# runtimes (scripts/sanitize.sh, scripts/fuzz.sh). Idempotent: installs
# only what is missing.
# The CUDA 13 toolkit does not come from Debian: it is checked first, at
# $TGC_CUDA_HOME or /usr/local/cuda, and a missing one stops here with what
# to do (scripts/check-cuda.sh).
set -euo pipefail
"$(dirname "$0")/check-cuda.sh"
packages=(cmake ninja-build g++ python3 googletest libgtest-dev
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
          binutils pkgconf python3-torch python3-numpy clang-22 libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  echo "tgc: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v ccache >/dev/null || true
