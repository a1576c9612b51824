"""Checks the random inputs tg-run-random.mlir saved (plain python3)."""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(__file__))
import npy  # noqa: E402

directory = sys.argv[1]


def load(name):
    return npy.load(os.path.join(directory, name + ".npy"))[1]


x = load("x")
mean = sum(x) / len(x)
std = math.sqrt(sum((v - mean) ** 2 for v in x) / len(x))
print("x: mean %s, stddev %s" % ("ok" if abs(mean) < 0.05 else mean,
                                   "ok" if abs(std - 1) < 0.05 else std))
h = load("h")
exact = all(struct.unpack("<e", struct.pack("<e", v))[0] == v for v in h)
print("h: values %s in f16" % ("exact" if exact else "NOT exact"))
for name, lo, hi in (("small", -128, 127), ("wide", -1024, 1024),
                     ("flags", 0, 1), ("lens", 1, 6), ("kv_lens", 1, 9),
                     ("seed", 0, 2 ** 53 - 1), ("offset", 0, 2 ** 53 - 1)):
    values = load(name)
    inside = all(lo <= v <= hi for v in values)
    # Wide ranges must also be used, not just respected.
    spread = len(values) < 8 or max(values) - min(values) > (hi - lo) / 2
    print("%s: range [%d, %d] %s" % (name, lo, hi, "ok" if inside and spread
                                     else "BAD %s" % values[:8]))
