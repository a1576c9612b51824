"""Writes a small .npy file for lit tests (plain python3, no numpy).

usage: make_npy.py PATH DESCR SHAPE VALUES [--truncate=N] [--append=N] [--fortran]
  SHAPE and VALUES are comma-separated ("" for a rank-0 shape); the header
  says SHAPE whatever the number of VALUES; --truncate drops the last N
  bytes, --append adds N zero bytes; --fortran marks the array Fortran-order.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import npy  # noqa: E402


def main():
    path, descr, shape_text, values_text = sys.argv[1:5]
    flags = sys.argv[5:]
    shape = tuple(int(d) for d in shape_text.split(",") if d)
    values = [float(v) if descr[1] == "f" else int(v)
              for v in values_text.split(",") if v]
    npy.save(path, shape, values, descr)
    if any(f == "--fortran" for f in flags):
        with open(path, "rb") as f:
            data = f.read()
        data = data.replace(b"'fortran_order': False", b"'fortran_order': True ")
        with open(path, "wb") as f:
            f.write(data)
    for f in flags:
        if f.startswith("--append="):
            with open(path, "ab") as handle:
                handle.write(b"\0" * int(f.split("=")[1]))
        if f.startswith("--truncate="):
            with open(path, "rb") as handle:
                data = handle.read()
            with open(path, "wb") as handle:
                handle.write(data[:-int(f.split("=")[1])])


if __name__ == "__main__":
    main()
