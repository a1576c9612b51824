#!/usr/bin/env bash
# Configures (once) and builds tgc into ${TGC_BUILD_DIR:-build}.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${TGC_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$build" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" ${TGC_CMAKE_ARGS:-}
fi
cmake --build "$build"
