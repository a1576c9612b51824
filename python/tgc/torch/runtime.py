"""What the torch front needs from the machine: the library, the compile target
of a device, torch's current stream, dtypes and memory layouts."""
import threading

import torch

from ..library import default_library
from ..trace import TORCH_TO_TG

_arch_by_device = {}
_lock = threading.Lock()


def library():
    return default_library()


def arch_for(device):
    """The --arch of a CUDA device: sm_90a on compute capability 9.0 (the wgmma
    kernels), else sm_<major><minor>."""
    idx = device.index if device.index is not None else (torch.cuda.current_device() if device.type == "cuda" else -1)
    arch = _arch_by_device.get(idx)
    if arch is None:
        major, minor = torch.cuda.get_device_capability(idx)
        arch = "sm_90a" if (major, minor) == (9, 0) else "sm_%d%d" % (major, minor)
        _arch_by_device[idx] = arch
    return arch


try:
    _raw_stream = torch._C._cuda_getCurrentRawStream
except AttributeError:  # pragma: no cover - very old torch
    _raw_stream = None


def current_stream(device):
    """torch's current CUDA stream on device, as a CUstream pointer (int):
    torch.cuda.current_stream(device).cuda_stream without the Stream object."""
    idx = device.index
    if idx is None:
        idx = torch.cuda.current_device()
    if _raw_stream is not None:
        return _raw_stream(idx)
    return torch.cuda.current_stream(idx).cuda_stream


_current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device


def run(exe, array, count, device, workspace, workspace_bytes):
    """Enqueues an executable on torch's current stream of `device`. That is the
    legacy default stream (0) unless the caller set another; 0 means the current
    context's, so on another device than the current one the device is switched
    for the call (a thread with no context at all gets the memory's device from
    the runtime, docs/api.md)."""
    stream = current_stream(device)
    if stream == 0 and device.type == "cuda" and device.index != _current_device():
        with torch.cuda.device(device.index):
            exe.run_array(array, count, stream, workspace, workspace_bytes)
    else:
        exe.run_array(array, count, stream, workspace, workspace_bytes)


def tg_dtype(dtype, what):
    t = TORCH_TO_TG.get(dtype)
    if t is None:
        raise TypeError("%s has dtype %s, which tgc cannot bind" % (what, dtype))
    return t


def is_valid_layout(shape, strides):
    """Whether tg.strides can describe this memory: positive strides on dims of
    size > 1, nested without overlap (docs/dialect.md)."""
    dims = [(st, sz) for sz, st in zip(shape, strides) if sz > 1]
    if any(st <= 0 for st, _ in dims):
        return False
    dims.sort()
    extent = 1
    for st, sz in dims:
        if st < extent:
            return False
        extent = st * sz
    return True


def layout_order(shape, strides):
    """Dims from outermost to innermost in memory (ties: logical order)."""
    return sorted(range(len(shape)), key=lambda d: (-strides[d], d))


def dense_strides(shape, order):
    """Strides of a dense buffer holding `shape` with dims laid out in `order`."""
    strides = [0] * len(shape)
    acc = 1
    for d in reversed(order):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def dense_like(shape, strides, out_shape=None):
    """Strides of a dense buffer of out_shape (default: shape) with its dims in the
    memory order of (shape, strides); row-major where tg.strides cannot describe
    that layout (tgc then reads a contiguous copy). Outputs and gradients are laid
    out so."""
    order = layout_order(shape, strides) if is_valid_layout(shape, strides) else list(range(len(shape)))
    return dense_strides(shape if out_shape is None else out_shape, order)


def empty_strided(shape, strides, dtype, device):
    return torch.empty_strided(tuple(shape), tuple(strides), dtype=dtype, device=device)


TG_TO_TORCH_DTYPE = {v: k for k, v in TORCH_TO_TG.items()}
