"""The tgc C API (docs/api.md) through ctypes.

`Library` loads libtgc.so (found by `find_library`), `Library.compile`
turns tg graph text into an `Executable`, and `Executable.run` binds device
buffers by name and enqueues the plan on a CUDA stream. Every failing call
raises a TgcError subclass carrying tgc_last_error()'s text; the bindings
carry dtype, shape and strides so that the runtime checks them against the
plan before it touches the GPU."""
import ctypes
import glob
import os
import threading

from .errors import LibraryNotFoundError, error_for_status

# tgc_dtype_t values (runtime/include/tgc/tgc.h).
DTYPES = {"bf16": 1, "f16": 2, "f32": 3, "f8E4M3FN": 4, "f8E5M2": 5, "i8": 6, "i32": 7, "i64": 8, "i1": 9,
          "i4": 10}  # i4: packed two per byte; bind it by pointer (torch has no 4-bit dtype)
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
ROLES = {0: "input", 1: "output", 2: "intermediate"}


class Binding(ctypes.Structure):
    """tgc_binding_t. Zero fields are not checked by the runtime."""
    _fields_ = [("name", ctypes.c_char_p), ("data", ctypes.c_void_p), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64))]


class _BufferInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("role", ctypes.c_int), ("dtype", ctypes.c_int),
                ("rank", ctypes.c_int32), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("bytes", ctypes.c_uint64),
                ("alignment", ctypes.c_uint32)]


class _CacheStats(ctypes.Structure):
    _fields_ = [("memory_hits", ctypes.c_uint64), ("disk_hits", ctypes.c_uint64), ("compiles", ctypes.c_uint64),
                ("corrupt_entries", ctypes.c_uint64), ("disk_write_failures", ctypes.c_uint64),
                ("compile_seconds", ctypes.c_double), ("disk_load_seconds", ctypes.c_double)]


class BufferInfo:
    """One buffer of a plan: name, role, dtype, shape, strides (elements), bytes, alignment."""

    def __init__(self, name, role, dtype, shape, strides, nbytes, alignment):
        self.name, self.role, self.dtype = name, role, dtype
        self.shape, self.strides, self.bytes, self.alignment = shape, strides, nbytes, alignment

    def __repr__(self):
        return "BufferInfo(%r, %s, %s, shape=%s, strides=%s, bytes=%d, alignment=%d)" % (
            self.name, self.role, self.dtype, list(self.shape), list(self.strides), self.bytes, self.alignment)


def _library_names(folder):
    """libtgc.so, or a versioned libtgc.so.N[.M...] (never libtgc_runtime.so)."""
    exact = os.path.join(folder, "libtgc.so")
    if os.path.isfile(exact):
        return [exact]
    return sorted(glob.glob(os.path.join(folder, "libtgc.so.*")), key=len)


def candidate_paths():
    """Where find_library looks, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    folders = [os.path.join(here, "lib"), here]
    source_root = os.path.dirname(os.path.dirname(here))  # python/tgc -> repository root
    build = os.environ.get("TGC_BUILD_DIR")
    if build:
        folders.append(os.path.join(build if os.path.isabs(build) else os.path.join(source_root, build), "lib"))
    folders.append(os.path.join(source_root, "build", "lib"))
    return folders


def find_library():
    """$TGC_LIBRARY (a file, or a folder holding libtgc.so), else libtgc.so next to
    the package (tgc/lib/ or tgc/), else the source tree's build/lib."""
    env = os.environ.get("TGC_LIBRARY")
    if env:
        if os.path.isdir(env):
            found = _library_names(env)
            if found:
                return found[0]
            raise LibraryNotFoundError("TGC_LIBRARY=%s is a folder without libtgc.so or libtgc.so.*" % env)
        if os.path.isfile(env):
            return env
        raise LibraryNotFoundError("TGC_LIBRARY=%s does not exist" % env)
    tried = []
    for folder in candidate_paths():
        found = _library_names(folder)
        if found:
            return found[0]
        tried.append(folder)
    raise LibraryNotFoundError(
        "libtgc.so not found; set TGC_LIBRARY to its path (looked in %s)" % ", ".join(tried))


# One libtgc per process: two copies would register LLVM's command-line options
# twice, which aborts the process.
_loaded = {}
_loaded_lock = threading.Lock()


class Library:
    """The C API of one loaded libtgc.so."""

    def __init__(self, path=None):
        self.path = path or find_library()
        real = os.path.realpath(self.path)
        with _loaded_lock:
            lib = _loaded.get(real)
            if lib is None:
                if _loaded:
                    raise LibraryNotFoundError(
                        "cannot load %s: %s is already loaded in this process, and two copies of libtgc cannot "
                        "share one (their LLVM option registries clash)" % (self.path, next(iter(_loaded))))
                try:
                    lib = ctypes.CDLL(self.path)
                except OSError as ex:
                    raise LibraryNotFoundError("cannot load %s: %s" % (self.path, ex)) from None
                _loaded[real] = lib
        self._lib = lib
        vp, sz = ctypes.c_void_p, ctypes.c_size_t
        lib.tgc_last_error.restype = ctypes.c_char_p
        lib.tgc_last_error.argtypes = []
        lib.tgc_status_name.restype = ctypes.c_char_p
        lib.tgc_status_name.argtypes = [ctypes.c_int]
        lib.tgc_compile_string.argtypes = [ctypes.c_char_p, sz, ctypes.c_char_p, ctypes.POINTER(vp)]
        lib.tgc_compile_file.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(vp)]
        lib.tgc_executable_load_plan.argtypes = [ctypes.c_char_p, ctypes.POINTER(vp)]
        lib.tgc_executable_load_plan_string.argtypes = [ctypes.c_char_p, sz, ctypes.POINTER(vp)]
        lib.tgc_executable_destroy.argtypes = [vp]
        lib.tgc_executable_destroy.restype = None
        lib.tgc_executable_workspace_size.argtypes = [vp, ctypes.POINTER(ctypes.c_uint64)]
        lib.tgc_executable_num_buffers.argtypes = [vp, ctypes.POINTER(sz)]
        lib.tgc_executable_buffer_info.argtypes = [vp, sz, ctypes.POINTER(_BufferInfo)]
        lib.tgc_executable_prepare.argtypes = [vp, vp]
        lib.tgc_executable_describe.argtypes = [vp, vp, ctypes.POINTER(ctypes.c_char_p)]
        lib.tgc_run.argtypes = [vp, ctypes.POINTER(Binding), sz, vp]
        lib.tgc_run_with_workspace.argtypes = [vp, ctypes.POINTER(Binding), sz, vp, ctypes.c_uint64, vp]
        lib.tgc_cache_stats.argtypes = [ctypes.POINTER(_CacheStats)]
        for fn in ("tgc_compile_string", "tgc_compile_file", "tgc_executable_load_plan",
                   "tgc_executable_load_plan_string", "tgc_executable_workspace_size", "tgc_executable_num_buffers",
                   "tgc_executable_buffer_info", "tgc_executable_prepare", "tgc_executable_describe", "tgc_run",
                   "tgc_run_with_workspace", "tgc_cache_stats"):
            getattr(lib, fn).restype = ctypes.c_int

    # --- errors ---------------------------------------------------------
    def last_error(self):
        return self._lib.tgc_last_error().decode(errors="replace")

    def status_name(self, status):
        name = self._lib.tgc_status_name(status)
        return name.decode() if name else "status %d" % status

    def check(self, status, what):
        if status != 0:
            raise error_for_status(what, status, self.status_name(status), self.last_error())

    # --- executables ----------------------------------------------------
    def compile(self, source, options=None):
        """Compile tg graph text (tgc_compile_string); `options` is a tg-compile
        option string such as "--arch=sm_90a --backend=auto --entry=f"."""
        exe = ctypes.c_void_p()
        src = source.encode() if isinstance(source, str) else bytes(source)
        opts = options.encode() if options else None
        self.check(self._lib.tgc_compile_string(src, len(src), opts, ctypes.byref(exe)), "tgc_compile_string")
        return Executable(self, exe)

    def compile_file(self, path, options=None):
        exe = ctypes.c_void_p()
        opts = options.encode() if options else None
        self.check(self._lib.tgc_compile_file(os.fsencode(path), opts, ctypes.byref(exe)), "tgc_compile_file")
        return Executable(self, exe)

    def load_plan(self, path):
        exe = ctypes.c_void_p()
        self.check(self._lib.tgc_executable_load_plan(os.fsencode(path), ctypes.byref(exe)),
                   "tgc_executable_load_plan")
        return Executable(self, exe)

    def load_plan_string(self, text):
        exe = ctypes.c_void_p()
        data = text.encode() if isinstance(text, str) else bytes(text)
        self.check(self._lib.tgc_executable_load_plan_string(data, len(data), ctypes.byref(exe)),
                   "tgc_executable_load_plan_string")
        return Executable(self, exe)

    def cache_stats(self):
        stats = _CacheStats()
        self.check(self._lib.tgc_cache_stats(ctypes.byref(stats)), "tgc_cache_stats")
        return {name: getattr(stats, name) for name, _ in _CacheStats._fields_}


_default = None
_default_lock = threading.Lock()


def default_library():
    """The process-wide Library (loaded on first use)."""
    global _default
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = Library()
    return _default


def _int64_array(values):
    return (ctypes.c_int64 * len(values))(*values) if values is not None else None


def make_binding(name, data, dtype=None, shape=None, strides=None, keep=None):
    """One tgc_binding_t. `dtype` is a tg name ("bf16"), `shape`/`strides` lists
    of ints (elements); None leaves that check out. `keep` collects the ctypes
    arrays the binding points into, which must outlive the run."""
    b = Binding()
    b.name = name.encode() if isinstance(name, str) else name
    b.data = data
    if dtype is not None:
        if dtype not in DTYPES:
            raise ValueError("binding '%s': unknown dtype %r (expected one of %s)" % (name, dtype, ", ".join(DTYPES)))
        b.dtype = DTYPES[dtype]
    if shape is not None:
        arr = _int64_array(list(shape))
        b.rank, b.shape = len(shape), arr
        if keep is not None:
            keep.append(arr)
        if strides is not None:
            if len(strides) != len(shape):
                raise ValueError("binding '%s': %d strides for rank %d" % (name, len(strides), len(shape)))
            sarr = _int64_array(list(strides))
            b.strides = sarr
            if keep is not None:
                keep.append(sarr)
    elif strides is not None:
        raise ValueError("binding '%s': strides need a shape" % name)
    return b


class Executable:
    """A compiled plan (tgc_executable_t)."""

    def __init__(self, library, handle):
        self.library = library
        self._handle = handle
        self._lib = library._lib
        self._buffers = None
        self._workspace = None

    @property
    def handle(self):
        if self._handle is None:
            raise ValueError("the executable was destroyed")
        return self._handle

    def destroy(self):
        if getattr(self, "_handle", None) is not None:
            self._lib.tgc_executable_destroy(self._handle)
            self._handle = None

    def __del__(self):
        try:
            self.destroy()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.destroy()

    @property
    def workspace_size(self):
        if self._workspace is None:
            n = ctypes.c_uint64()
            self.library.check(self._lib.tgc_executable_workspace_size(self.handle, ctypes.byref(n)),
                               "tgc_executable_workspace_size")
            self._workspace = n.value
        return self._workspace

    @property
    def buffers(self):
        """BufferInfo of every buffer (inputs, outputs, intermediates), in plan order."""
        if self._buffers is None:
            count = ctypes.c_size_t()
            self.library.check(self._lib.tgc_executable_num_buffers(self.handle, ctypes.byref(count)),
                               "tgc_executable_num_buffers")
            out = []
            for i in range(count.value):
                info = _BufferInfo()
                self.library.check(self._lib.tgc_executable_buffer_info(self.handle, i, ctypes.byref(info)),
                                   "tgc_executable_buffer_info")
                out.append(BufferInfo(info.name.decode(), ROLES.get(info.role, str(info.role)),
                                      DTYPE_NAMES.get(info.dtype, str(info.dtype)),
                                      tuple(info.shape[d] for d in range(info.rank)),
                                      tuple(info.strides[d] for d in range(info.rank)), info.bytes, info.alignment))
            self._buffers = out
        return self._buffers

    def buffer(self, name):
        for b in self.buffers:
            if b.name == name:
                return b
        raise KeyError("the plan has no buffer '%s' (it has %s)" % (name, ", ".join(b.name for b in self.buffers)))

    def prepare(self, stream=None):
        self.library.check(self._lib.tgc_executable_prepare(self.handle, stream), "tgc_executable_prepare")

    def describe(self, stream=None):
        """What runs each step on the stream's device (prepares it there first)."""
        text = ctypes.c_char_p()
        self.library.check(self._lib.tgc_executable_describe(self.handle, stream, ctypes.byref(text)),
                           "tgc_executable_describe")
        return text.value.decode() if text.value else ""

    def bindings(self, items):
        """A BindingArray from (name, data, dtype, shape, strides) tuples."""
        return BindingArray(list(items))

    def run(self, bindings, stream=None, workspace=None, workspace_bytes=None):
        """Enqueue the plan. `bindings`: a BindingArray, or a dict name -> value where a
        value is a tensor-like object (data_ptr(), shape, stride(), dtype: its dtype,
        shape and strides are checked), a Binding, or a bare device pointer (int).
        `workspace`: a device pointer (int) of at least workspace_size bytes, or None
        for the executable's own workspace."""
        arr = bindings if isinstance(bindings, BindingArray) else BindingArray.from_dict(bindings)
        self.run_array(arr.array, arr.count, stream, workspace, workspace_bytes)

    def run_array(self, array, count, stream, workspace=None, workspace_bytes=None):
        if workspace is None:
            status = self._lib.tgc_run(self.handle, array, count, stream)
            if status != 0:
                self.library.check(status, "tgc_run")
        else:
            nbytes = self.workspace_size if workspace_bytes is None else workspace_bytes
            status = self._lib.tgc_run_with_workspace(self.handle, array, count, workspace, nbytes, stream)
            if status != 0:
                self.library.check(status, "tgc_run_with_workspace")


class BindingArray:
    """A ctypes array of tgc_binding_t whose names, dtypes, shapes and strides are
    fixed; `set_data(i, ptr)` changes one pointer (the fast path of a warm call)."""

    def __init__(self, items):
        self._keep = []
        self.count = len(items)
        self.array = (Binding * max(1, self.count))()
        self.names = []
        for i, item in enumerate(items):
            name, data, dtype, shape, strides = (tuple(item) + (None,) * 5)[:5]
            self.array[i] = make_binding(name, data or 0, dtype, shape, strides, self._keep)
            self.names.append(name)

    @classmethod
    def from_dict(cls, mapping):
        items = []
        for name, value in mapping.items():
            if isinstance(value, Binding):
                items.append((name, value.data, DTYPE_NAMES.get(value.dtype),
                              [value.shape[d] for d in range(value.rank)] if value.shape else None,
                              [value.strides[d] for d in range(value.rank)] if value.strides else None))
            elif isinstance(value, int):
                items.append((name, value))
            elif hasattr(value, "data_ptr"):
                items.append((name, value.data_ptr(), _tensor_dtype(value), list(value.shape),
                              list(value.stride())))
            else:
                raise TypeError("binding '%s': expected a tensor, a Binding or a device pointer (int), got %s"
                                % (name, type(value).__name__))
        return cls(items)

    def set_data(self, index, pointer):
        self.array[index].data = pointer


def _tensor_dtype(t):
    """The tg dtype name of a torch tensor (or None when tg has no such type)."""
    name = str(t.dtype).replace("torch.", "")
    return {"bfloat16": "bf16", "float16": "f16", "float32": "f32", "float8_e4m3fn": "f8E4M3FN",
            "float8_e5m2": "f8E5M2", "int8": "i8", "int32": "i32", "int64": "i64", "bool": "i1"}.get(name) or \
        _raise_dtype(t.dtype)


def _raise_dtype(dtype):
    raise TypeError("tgc has no element type for %s (supported: bfloat16, float16, float32, float8_e4m3fn, "
                    "float8_e5m2, int8, int32, int64, bool)" % dtype)
