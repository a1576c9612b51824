# Finds the CUDA 13 toolkit tgc builds with, at TGC_CUDA_HOME, and fails with
# one message that says what is missing and how to point at another toolkit.
#
# Sets TGC_CUDA_HOME, TGC_CUDA_VERSION (e.g. 13.0), TGC_CUDA_INCLUDE_DIR,
# TGC_CUDA_LIBRARY_DIR, TGC_NVRTC_LIBRARY and the imported targets
# CUDA::toolkit (headers), CUDA::nvrtc and CUDA::cudart_static, named as
# CMake's FindCUDAToolkit names them so that examples/ builds the same way in
# and out of this tree. FindCUDAToolkit itself is not used: it needs nvcc (or a
# version.txt), which NVRTC-only toolkits lack.
#
# Every configure checks again (plain variables, not find_* caches), so
# changing TGC_CUDA_HOME in an existing build directory takes effect. A
# missing or wrong toolkit sets TGC_CUDA_PROBLEM to the whole message instead;
# the top-level CMakeLists.txt stops with it (there, so that CMake prints no
# call stack with it).

set(tgc_cuda_default "/usr/local/cuda")
if(DEFINED ENV{TGC_CUDA_HOME} AND NOT "$ENV{TGC_CUDA_HOME}" STREQUAL "")
  set(tgc_cuda_default "$ENV{TGC_CUDA_HOME}")
endif()
set(TGC_CUDA_HOME "${tgc_cuda_default}" CACHE PATH
  "Root of the CUDA 13 toolkit (default: $TGC_CUDA_HOME, else /usr/local/cuda)")

# Sets the message and leaves this file (return() in a macro returns from
# the file that calls it).
# Every line is indented so that CMake prints it as it is (no reflowing):
# the same lines as scripts/check-cuda.sh.
macro(tgc_cuda_fail problem)
  string(CONCAT TGC_CUDA_PROBLEM
    " tgc needs the CUDA 13 toolkit (NVRTC, the CUDA headers and the static "
    "CUDA runtime) and ${problem}.\n"
    " Install CUDA 13 (https://developer.nvidia.com/cuda-downloads; on Debian "
    "the cuda-toolkit-13-0 package from NVIDIA's repository), or point tgc at "
    "a CUDA 13 toolkit installed elsewhere:\n"
    "   TGC_CUDA_HOME=/path/to/cuda-13 ./scripts/bootstrap.sh\n"
    "   cmake -DTGC_CUDA_HOME=/path/to/cuda-13 ...   (an existing build "
    "directory takes it too)")
  return()
endmacro()

set(TGC_CUDA_PROBLEM "")

set(tgc_home "${TGC_CUDA_HOME}")
if(NOT EXISTS "${tgc_home}/include/cuda.h")
  if(NOT EXISTS "${tgc_home}")
    tgc_cuda_fail("found none: TGC_CUDA_HOME=${tgc_home} does not exist")
  endif()
  tgc_cuda_fail("${tgc_home} is not one (it has no include/cuda.h)")
endif()

# cuda.h says which toolkit this is: CUDA_VERSION is 1000 * major + 10 * minor.
file(STRINGS "${tgc_home}/include/cuda.h" tgc_cuda_version_line
  REGEX "^#define[ \t]+CUDA_VERSION[ \t]+[0-9]+" LIMIT_COUNT 1)
string(REGEX MATCH "[0-9]+$" tgc_cuda_version_code "${tgc_cuda_version_line}")
if(NOT tgc_cuda_version_code)
  tgc_cuda_fail("cannot read CUDA_VERSION from ${tgc_home}/include/cuda.h")
endif()
math(EXPR tgc_cuda_major "${tgc_cuda_version_code} / 1000")
math(EXPR tgc_cuda_minor "${tgc_cuda_version_code} % 1000 / 10")
set(TGC_CUDA_VERSION "${tgc_cuda_major}.${tgc_cuda_minor}")
if(NOT tgc_cuda_major EQUAL 13)
  tgc_cuda_fail("found CUDA ${TGC_CUDA_VERSION} at TGC_CUDA_HOME=${tgc_home}")
endif()

if(NOT EXISTS "${tgc_home}/include/nvrtc.h")
  tgc_cuda_fail("${tgc_home} (CUDA ${TGC_CUDA_VERSION}) has no NVRTC (include/nvrtc.h is missing)")
endif()
set(TGC_CUDA_INCLUDE_DIR "${tgc_home}/include")

set(TGC_CUDA_LIBRARY_DIR "")
foreach(dir lib64 lib "targets/${CMAKE_SYSTEM_PROCESSOR}-linux/lib")
  if(EXISTS "${tgc_home}/${dir}/libnvrtc.so")
    set(TGC_CUDA_LIBRARY_DIR "${tgc_home}/${dir}")
    break()
  endif()
endforeach()
if(NOT TGC_CUDA_LIBRARY_DIR)
  tgc_cuda_fail("${tgc_home} (CUDA ${TGC_CUDA_VERSION}) has no libnvrtc.so in lib64/ or lib/")
endif()
set(TGC_NVRTC_LIBRARY "${TGC_CUDA_LIBRARY_DIR}/libnvrtc.so")
if(NOT EXISTS "${TGC_CUDA_LIBRARY_DIR}/libcudart_static.a")
  tgc_cuda_fail("${TGC_CUDA_LIBRARY_DIR} has no libcudart_static.a (the examples and GPU checks link it)")
endif()
message(STATUS "Using CUDA ${TGC_CUDA_VERSION} from ${tgc_home}")

find_package(Threads REQUIRED)
if(NOT TARGET CUDA::toolkit)
  add_library(CUDA::toolkit INTERFACE IMPORTED)
  set_target_properties(CUDA::toolkit PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${TGC_CUDA_INCLUDE_DIR}")
endif()
if(NOT TARGET CUDA::nvrtc)
  add_library(CUDA::nvrtc SHARED IMPORTED)
  set_target_properties(CUDA::nvrtc PROPERTIES
    IMPORTED_LOCATION "${TGC_NVRTC_LIBRARY}"
    INTERFACE_LINK_LIBRARIES CUDA::toolkit)
endif()
if(NOT TARGET CUDA::cudart_static)
  add_library(CUDA::cudart_static STATIC IMPORTED)
  set_target_properties(CUDA::cudart_static PROPERTIES
    IMPORTED_LOCATION "${TGC_CUDA_LIBRARY_DIR}/libcudart_static.a"
    INTERFACE_LINK_LIBRARIES "CUDA::toolkit;Threads::Threads;${CMAKE_DL_LIBS};rt")
endif()
