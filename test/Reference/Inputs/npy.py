"""Minimal .npy reading for lit checks (plain python3, no numpy)."""
import ast
import struct

_FORMATS = {"<f4": "f", "<f2": "e", "<f8": "d", "|i1": "b", "<i4": "i",
            "<i8": "q", "|b1": "?"}


def load(path):
    """Returns (shape, flat list of values)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    if data[6] == 1:
        length = struct.unpack("<H", data[8:10])[0]
        start = 10
    else:
        length = struct.unpack("<I", data[8:12])[0]
        start = 12
    header = ast.literal_eval(data[start:start + length].decode("latin1"))
    assert not header["fortran_order"]
    shape = tuple(header["shape"])
    code = _FORMATS[header["descr"]]
    count = 1
    for d in shape:
        count *= d
    body = data[start + length:]
    values = list(struct.unpack("<%d%s" % (count, code),
                                body[:count * struct.calcsize(code)]))
    return shape, values


def save(path, shape, values, descr="<f4"):
    """Writes a version 1.0 .npy file."""
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % d for d in shape) if len(shape) != 1
        else "%d," % shape[0])
    header = header.replace(", )", ")")
    pad = (64 - (10 + len(header) + 1) % 64) % 64
    header = header + " " * pad + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), _FORMATS[descr]), *values))
