"""tgc from Python: the C API (`tgc.Library`), attention for PyTorch
(`tgc.torch.attention`, with autograd and FlexAttention-style score_mod /
mask_mod), and HF transformers' attention interface (`tgc.hf.register()`).

See docs/python.md."""
from .errors import (LibraryNotFoundError, TgcBindingError, TgcCompileError, TgcDriverError, TgcError,  # noqa: F401
                     TgcUnsupportedError, TraceError)
from .library import Binding, BindingArray, BufferInfo, Executable, Library, default_library, find_library  # noqa: F401

__version__ = "0.1.0"
