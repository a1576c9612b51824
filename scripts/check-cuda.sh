#!/usr/bin/env bash
# Checks that the CUDA 13 toolkit tgc builds with is where the build will look
# for it: $TGC_CUDA_HOME, else /usr/local/cuda (the same checks as
# cmake/TgcCudaToolkit.cmake). Prints what it found, or says what is missing
# and how to point tgc at another toolkit, and exits 1.
set -euo pipefail
home=${TGC_CUDA_HOME:-/usr/local/cuda}
problem="" version=""
libdir=""
if [ ! -e "$home" ]; then
  problem="found none: TGC_CUDA_HOME=$home does not exist"
elif [ ! -f "$home/include/cuda.h" ]; then
  problem="$home is not one (it has no include/cuda.h)"
else
  # CUDA_VERSION is 1000 * major + 10 * minor.
  code=$(sed -n 's/^#define[[:space:]]\{1,\}CUDA_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' \
           "$home/include/cuda.h" | head -n 1)
  if [ -z "$code" ]; then
    problem="cannot read CUDA_VERSION from $home/include/cuda.h"
  else
    version="$((code / 1000)).$((code % 1000 / 10))"
    for dir in lib64 lib "targets/$(uname -m)-linux/lib"; do
      if [ -e "$home/$dir/libnvrtc.so" ]; then libdir="$home/$dir"; break; fi
    done
    if [ "$((code / 1000))" -ne 13 ]; then
      problem="found CUDA $version at TGC_CUDA_HOME=$home"
    elif [ ! -f "$home/include/nvrtc.h" ]; then
      problem="$home (CUDA $version) has no NVRTC (include/nvrtc.h is missing)"
    elif [ -z "$libdir" ]; then
      problem="$home (CUDA $version) has no libnvrtc.so in lib64/ or lib/"
    elif [ ! -f "$libdir/libcudart_static.a" ]; then
      problem="$libdir has no libcudart_static.a (the examples and GPU checks link it)"
    fi
  fi
fi
if [ -n "$problem" ]; then
  cat >&2 <<MESSAGE
tgc needs the CUDA 13 toolkit (NVRTC, the CUDA headers and the static CUDA runtime) and $problem.
Install CUDA 13 (https://developer.nvidia.com/cuda-downloads; on Debian the cuda-toolkit-13-0 package from NVIDIA's repository), or point tgc at a CUDA 13 toolkit installed elsewhere:
  TGC_CUDA_HOME=/path/to/cuda-13 ./scripts/bootstrap.sh
  cmake -DTGC_CUDA_HOME=/path/to/cuda-13 ...   (an existing build directory takes it too)
MESSAGE
  exit 1
fi
echo "tgc: using CUDA $version from $home"
