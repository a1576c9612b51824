#!/usr/bin/env bash
# Builds tgc with clang's sanitizers in build directories of their own and
# runs the tests they are for (docs/fuzzing.md):
#
#   scripts/sanitize.sh asan        ASan+UBSan (build-asan): every GoogleTest
#                                   binary and the lit suite; also the build
#                                   of the fuzzers (scripts/fuzz.sh)
#   scripts/sanitize.sh tsan        TSan (build-tsan): the multi-threaded
#                                   compile tests, the runtime's concurrent
#                                   compile/run tests, every other GoogleTest
#                                   binary, and the lit suite (tg-opt and
#                                   tg-compile run the pass manager threaded)
#   scripts/sanitize.sh asan --ci   the MLIR-free runtime only (build-asan-
#   scripts/sanitize.sh tsan --ci   runtime, build-tsan-runtime): a few
#                                   minutes each, what .ci/run affords; asan
#                                   adds a smoke run of the plan and cache
#                                   entry fuzzers
#   scripts/sanitize.sh MODE [--ci] --build TARGET...   configure and build only
#
# A sanitizer report fails the run. Prints "sanitize <mode>: N passed, N
# failed" and exits non-zero on failures. TGC_SAN_BUILD_DIR overrides the
# build directory; TGC_SAN_CC/TGC_SAN_CXX the compilers (clang-22).
set -uo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
shift || true
ci=0 build_only=()
while (($#)); do
  case "$1" in
    --ci) ci=1 ;;
    --build) shift; build_only=("$@"); break ;;
    *) echo "usage: scripts/sanitize.sh asan|tsan [--ci] [--build TARGET...]" >&2; exit 2 ;;
  esac
  shift
done
case "$mode" in
  asan) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
        llvm_sanitizer="Address;Undefined" extra=(-DTGC_FUZZ=ON) ;;
  tsan) flags="-fsanitize=thread"
        llvm_sanitizer="Thread" extra=() ;;
  *) echo "usage: scripts/sanitize.sh asan|tsan [--ci] [--build TARGET...]" >&2; exit 2 ;;
esac
if [ $ci = 1 ]; then
  build=${TGC_SAN_BUILD_DIR:-build-$mode-runtime}
  extra+=(-DTGC_RUNTIME_ONLY=ON)
else
  build=${TGC_SAN_BUILD_DIR:-build-$mode}
fi
cc=${TGC_SAN_CC:-clang-22}
cxx=${TGC_SAN_CXX:-clang++-22}
command -v "$cxx" >/dev/null ||
  { echo "sanitize: $cxx not found (apt install clang-22 libclang-rt-22-dev)" >&2; exit 2; }

# libstdc++ 12 marks get_temporary_buffer deprecated and uses it in
# std::stable_sort, which clang then reports in our code as an error
# (-Werror=deprecated-declarations); -fno-deprecated-macro turns off only
# libstdc++'s deprecations, not MLIR's. LLVM_USE_SANITIZER keeps LLVM's CMake
# from linking shared libraries with -z defs (the sanitizer runtime is in the
# executables).
cflags="$flags -Xclang -fno-deprecated-macro -fno-omit-frame-pointer"
# As Debian's gcc links: without it, CUDA::nvrtc drags in libcuda.so.1,
# which machines without a GPU lack.
lflags="$flags -Wl,--as-needed"
if [ ! -f "$build/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  cmake -G Ninja -S . -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$cflags" -DCMAKE_CXX_FLAGS="$cflags" \
    -DCMAKE_EXE_LINKER_FLAGS="$lflags" -DCMAKE_SHARED_LINKER_FLAGS="$lflags" \
    -DLLVM_USE_SANITIZER="$llvm_sanitizer" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    "${launcher[@]}" "${extra[@]}" >/dev/null || exit 1
fi
if ((${#build_only[@]})); then
  cmake --build "$build" --target "${build_only[@]}"
  exit $?
fi

if [ $ci = 1 ]; then
  units=(tgc-runtime-tests)
  targets=(tgc-runtime-tests)
  [ "$mode" = asan ] && targets+=(tgc-fuzz-plan tgc-fuzz-cache-entry)
else
  units=(tgc-runtime-tests tgc-driver-tests tgc-fuzz-regression-tests tgc-unit-tests
         tgc-interp-tests tgc-lowering-tests tgc-codegen-tests)
  targets=(all)
fi
start=$(date +%s)
cmake --build "$build" --target "${targets[@]}" || exit 1
echo "sanitize $mode: built in $(( $(date +%s) - start )) s"

# LeakSanitizer is off here: MLIR and LLVM keep process-lifetime allocations
# (registries, options) they never free (the fuzzers run it, with
# suppressions). allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its
# slabs when compiled with ASan, and its instances inlined into our
# (instrumented) code and into Debian's (uninstrumented) MLIR libraries share
# slabs, so the poisoning would be inconsistent (false use-after-poison).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allocator_may_return_null=1:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# The TSan suppressions cover MLIR's uninstrumented uniquer only (see the file).
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/sanitizers/tsan.supp}
passed=0 failed=0
log=$(mktemp)
for binary in "${units[@]}"; do
  t=$(date +%s)
  "$build/bin/$binary" --gtest_brief=1 > "$log" 2>&1
  rc=$?
  p=$(grep -oP '\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '\[  FAILED  \] \K[0-9]+(?= test)' "$log" | tail -1)
  passed=$(( passed + ${p:-0} ))
  echo "sanitize $mode: $binary: ${p:-0} passed, exit $rc, $(( $(date +%s) - t )) s"
  if [ "$rc" -ne 0 ]; then
    failed=$(( failed + ${f:-1} ))
    grep -E "ERROR: |WARNING: ThreadSanitizer|runtime error|SUMMARY|FAILED|Failure" "$log" | head -20
  fi
done
if [ $ci = 0 ]; then
  # Python's ctypes loads libtgc.so into an uninstrumented interpreter: that
  # one test needs the sanitizer runtime preloaded.
  runtime=$("$cxx" -print-file-name="libclang_rt.${mode}-x86_64.so")
  t=$(date +%s)
  TGC_SAN_PRELOAD="$runtime" /usr/lib/llvm-22/bin/lit -s "$build/test" > "$log" 2>&1
  lit_rc=$?
  p=$(grep -oP '^\s*Passed\s*:\s*\K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '^\s*(Failed|Unresolved|Timed Out)\s*:\s*\K[0-9]+' "$log" | awk '{s+=$1} END {print s+0}')
  passed=$(( passed + ${p:-0} ))
  failed=$(( failed + ${f:-0} ))
  echo "sanitize $mode: lit: ${p:-0} passed, ${f:-0} failed, $(( $(date +%s) - t )) s"
  if [ "$lit_rc" -ne 0 ]; then
    [ "${f:-0}" -gt 0 ] || failed=$(( failed + 1 ))
    grep -E "^  TGC ::" "$log" | head -20
  fi
elif [ "$mode" = asan ]; then
  TGC_SAN_BUILD_DIR="$build" ./scripts/fuzz.sh --smoke plan cache-entry || failed=$(( failed + 1 ))
fi
rm -f "$log"
echo "sanitize $mode: $passed passed, $failed failed ($(( $(date +%s) - start )) s)"
[ "$failed" -eq 0 ]
