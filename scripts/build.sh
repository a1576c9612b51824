#!/usr/bin/env bash
# Configures (once) and builds tgc into ${TGC_BUILD_DIR:-build}.
#   TGC_CMAKE_ARGS   extra arguments for the first configure
#   TGC_CUDA_HOME    the CUDA 13 toolkit (default /usr/local/cuda); also
#                    applied to an existing build directory
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TGC_BUILD_DIR:-build}
cuda=()
[ -n "${TGC_CUDA_HOME:-}" ] && cuda=(-DTGC_CUDA_HOME="$TGC_CUDA_HOME")
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$build" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" "${cuda[@]}" ${TGC_CMAKE_ARGS:-}
elif ((${#cuda[@]})) && ! grep -qxF "TGC_CUDA_HOME:PATH=$TGC_CUDA_HOME" "$build/CMakeCache.txt"; then
  cmake "${cuda[@]}" "$build"
fi
cmake --build "$build"
