#!/usr/bin/env python3
"""library_version.py LIB...: prints "<file name>: <tgc_version()>" for each
library, loading it as an FFI user (ctypes) would."""
import ctypes
import os
import sys

for path in sys.argv[1:]:
    library = ctypes.CDLL(path)
    library.tgc_version.restype = ctypes.c_char_p
    print("%s: %s" % (os.path.basename(path), library.tgc_version().decode()))
