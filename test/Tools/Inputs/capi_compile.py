"""Drives tgc_compile_string / tgc_compile_file through ctypes (used by
capi-compile-errors.mlir): prints each call's status and tgc_last_error()."""
import ctypes, sys

lib = ctypes.CDLL(sys.argv[1])
lib.tgc_last_error.restype = ctypes.c_char_p
lib.tgc_compile_string.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                   ctypes.POINTER(ctypes.c_void_p)]
lib.tgc_compile_file.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.tgc_executable_destroy.argtypes = [ctypes.c_void_p]
good = open(sys.argv[2]).read().encode()

def report(label, status):
    print("%s: %d %s" % (label, status, lib.tgc_last_error().decode().replace("\n", " ")))

exe = ctypes.c_void_p()
report("good", lib.tgc_compile_string(good, len(good), b"--arch=sm_80", ctypes.byref(exe)))
lib.tgc_executable_destroy(exe)
report("deterministic", lib.tgc_compile_string(good, len(good), b"--arch=sm_80 --deterministic --backend=nvrtc",
                                               ctypes.byref(exe)))
lib.tgc_executable_destroy(exe)
bad = b"this is not a graph"
report("garbage", lib.tgc_compile_string(bad, len(bad), None, ctypes.byref(exe)))
report("fast math", lib.tgc_compile_string(good, len(good), b"--fast-math --backend=nvrtc", ctypes.byref(exe)))
lib.tgc_executable_destroy(exe)
report("bad option", lib.tgc_compile_string(good, len(good), b"--fast", ctypes.byref(exe)))
report("mixed plan", lib.tgc_compile_string(good, len(good), b"--mixed-matmul=dequant", ctypes.byref(exe)))
lib.tgc_executable_destroy(exe)
report("bad mixed plan", lib.tgc_compile_string(good, len(good), b"--mixed-matmul=split", ctypes.byref(exe)))
report("tile without attention", lib.tgc_compile_string(good, len(good), b"--attention-tile=128x128:8:smem:s2:wg:ws",
                                                        ctypes.byref(exe)))
report("bad arch", lib.tgc_compile_string(good, len(good), b"--arch=gfx90a", ctypes.byref(exe)))
report("null out", lib.tgc_compile_string(good, len(good), None, None))
report("missing file", lib.tgc_compile_file(b"/nonexistent/graph.mlir", None, ctypes.byref(exe)))
# Text MLIR's parser would crash on is a compile error with a located message.
deep = b"func.func @f(%x: " + b"tensor<" * 100000 + b"f32" + b">" * 100000 + b") { return }"
report("deep nesting", lib.tgc_compile_string(deep, len(deep), None, ctypes.byref(exe)))
array = b"func.func @f() attributes {a = array<index: 1, 2>} { return }"
report("index array", lib.tgc_compile_string(array, len(array), None, ctypes.byref(exe)))
report("device file", lib.tgc_compile_file(b"/dev/zero", None, ctypes.byref(exe)))
