"""Exceptions raised by the tgc Python package.

Every failure of a C API call becomes a TgcError carrying the status code,
its name and the text of tgc_last_error() (docs/api.md lists the codes);
subclasses let callers catch one kind (a graph that does not compile, a
binding that does not match the plan) without parsing messages."""


class TgcError(RuntimeError):
    """A tgc C API call failed: `status` (int), `status_name`, `message`."""

    def __init__(self, what, status, status_name, message):
        self.what = what
        self.status = status
        self.status_name = status_name
        self.message = message
        super().__init__("%s failed (%s): %s" % (what, status_name, message))


class TgcCompileError(TgcError):
    """TGC_ERROR_COMPILE: the graph compiler or NVRTC rejected the graph."""


class TgcBindingError(TgcError):
    """TGC_ERROR_BINDING / TGC_ERROR_MISALIGNED: bound buffers do not match the plan."""


class TgcUnsupportedError(TgcError):
    """TGC_ERROR_UNSUPPORTED: this GPU or backend cannot run the plan."""


class TgcDriverError(TgcError):
    """TGC_ERROR_NO_DRIVER / TGC_ERROR_CUDA: no usable GPU, or a driver call failed."""


_BY_STATUS = {4: TgcCompileError, 8: TgcBindingError, 9: TgcBindingError, 7: TgcUnsupportedError,
              5: TgcDriverError, 6: TgcDriverError}


def error_for_status(what, status, status_name, message):
    return _BY_STATUS.get(status, TgcError)(what, status, status_name, message)


class LibraryNotFoundError(OSError):
    """libtgc.so was not found where the package looks for it."""


class TraceError(ValueError):
    """A score_mod or mask_mod could not be traced into a tg.attention score region.

    `where` is "file:line" of the user code that did the untraceable thing."""

    def __init__(self, message, where=None, source=None):
        self.where = where
        self.source = source
        text = message
        if where:
            text += "\n  at %s" % where
            if source:
                text += ": %s" % source
        super().__init__(text)
