#!/usr/bin/env bash
# The installed tgc on the GPU machine (docs/api.md "Installing"): a prefix
# made on the CPU machine with
#   cmake --install build --prefix .carry/tgc --strip
# and carried. Builds examples/embed against it out of tree and runs both
# programs on the GPU, then a tool from the prefix and the library from
# Python next to PyTorch: no RUNPATH, so this shows NVRTC, the driver and
# cuDNN found as "Finding CUDA" says on a machine tgc was not built on.
# Prints "install check: N failed" last; exits non-zero when N > 0.
#
# Usage (GPU machine, repository root): bash test/gpu/install_check.sh [PREFIX]
set -uo pipefail
cd "$(dirname "$0")/../.."
prefix=$(realpath "${1:-.carry/tgc}")
work=$(mktemp -d /tmp/tgc-install-check.XXXXXX)
export TGC_CACHE_DIR=$work/kernel-cache
failed=0
step() { echo; echo "== $*"; }
check() { "$@" || { echo "FAILED: $*"; failed=$((failed + 1)); }; }

step "the prefix"
check "$prefix/bin/tg-run" --version
readelf -dW "$prefix/lib/libtgc.so" | grep -E 'SONAME|NEEDED|RUNPATH'

step "examples/embed built against $prefix"
if cmake -G Ninja -S examples/embed -B "$work/embed" -DCMAKE_PREFIX_PATH="$prefix" >"$work/configure.log" 2>&1 &&
   cmake --build "$work/embed" >"$work/build.log" 2>&1; then
  check env TGC_LOG=info "$work/embed/tgc-embed-example"
  check env TGC_LOG=info "$work/embed/tgc-compile-example" --arch=sm_90a
else
  cat "$work/configure.log" "$work/build.log"
  echo "FAILED: configure/build of examples/embed"; failed=$((failed + 1))
fi

step "tg-run from the prefix: the GPU against the reference"
check env TGC_LOG=info "$prefix/bin/tg-run" examples/attention.mlir --seed=1 --check

step "libtgc.so from Python, PyTorch imported first"
check python3 - "$prefix/lib/libtgc.so" <<'PY'
import ctypes, sys
import torch  # its CUDA libraries and LLVM users load first
lib = ctypes.CDLL(sys.argv[1])
lib.tgc_version.restype = ctypes.c_char_p
lib.tgc_last_error.restype = ctypes.c_char_p
print("torch", torch.__version__, "cuda", torch.version.cuda, "| tgc", lib.tgc_version().decode())
source = open("examples/attention.mlir", "rb").read()
exe = ctypes.c_void_p()
status = lib.tgc_compile_string(source, ctypes.c_size_t(len(source)), b"--arch=sm_90a", ctypes.byref(exe))
print("tgc_compile_string:", status, lib.tgc_last_error().decode())
if status == 0:
    torch.zeros(1, device="cuda")  # a current context for the default stream
    text = ctypes.c_char_p()
    lib.tgc_executable_describe.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]
    status = lib.tgc_executable_describe(exe, None, ctypes.byref(text))
    print("tgc_executable_describe:", status, (text.value or b"").decode(), lib.tgc_last_error().decode())
sys.exit(1 if status else 0)
PY

echo
echo "install check: $failed failed"
rm -rf "$work"
[ "$failed" -eq 0 ]
