"""The few C API calls bench_cudnn.py and bench_backward.py make, through
ctypes on libtgc.so directly (raw pointers, dtype 0 = the plan's own, no
checks beyond the status). The Python package's tgc.Library is the checked
API; these benchmarks keep the thinnest possible host path."""
import ctypes


class Binding(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


class Tgc:
    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.tgc_last_error.restype = ctypes.c_char_p
        self.lib.tgc_compile_string.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                                ctypes.POINTER(ctypes.c_void_p)]
        self.lib.tgc_run.argtypes = [ctypes.c_void_p, ctypes.POINTER(Binding), ctypes.c_size_t, ctypes.c_void_p]
        self.lib.tgc_executable_prepare.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.tgc_executable_destroy.argtypes = [ctypes.c_void_p]

    def check(self, status, what):
        if status != 0:
            raise RuntimeError("%s failed (%d): %s" % (what, status, self.lib.tgc_last_error().decode()))

    def compile(self, mlir, options="--arch=sm_90a"):
        exe = ctypes.c_void_p()
        src = mlir.encode()
        self.check(self.lib.tgc_compile_string(src, len(src), options.encode(), ctypes.byref(exe)),
                   "tgc_compile_string")
        return exe

    def bindings(self, tensors):
        arr = (Binding * len(tensors))()
        for i, (name, t) in enumerate(tensors.items()):
            # A tensor, or a device pointer (an int: e.g. a packed i4 weight)
            arr[i].name = name.encode(); arr[i].data = t if isinstance(t, int) else t.data_ptr(); arr[i].dtype = 0
        return arr

    def run(self, exe, arr, stream):
        self.check(self.lib.tgc_run(exe, arr, len(arr), stream), "tgc_run")
