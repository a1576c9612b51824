#!/usr/bin/env python3
"""Checks what a tgc shared library shows the dynamic loader.

  check_library.py LIB...

For each library prints its SONAME, NEEDED and RUNPATH entries and a count
of its exported symbols, then one line per problem:
  - an exported symbol that is not tgc's (not tgc_* or in namespace tgc);
  - a needed libLLVM/libMLIR (they must be linked in statically) or a needed
    CUDA library (NVRTC, the driver and cuDNN are loaded with dlopen);
  - a RUNPATH/RPATH entry that is not relative to $ORIGIN.
Ends with "problems: N" and exits non-zero when N > 0.
"""
import os
import re
import subprocess
import sys

FORBIDDEN_NEEDED = re.compile(r"^lib(LLVM|MLIR|clang|nvrtc|cuda|cudart|cudnn)[-.]")
# Demangled names of the C++ API: functions and data in namespace tgc, and
# the RTTI/vtables/guards of its classes.
CXX_API = re.compile(r"^((typeinfo|typeinfo name|vtable|VTT|guard variable) for )?tgc::")
# A std template instantiated over tgc types, e.g.
# "tgc::cudnn::Port* std::__do_uninit_copy<...>(...)": weak, and exported
# because its types are; the name starts with its tgc return type.
STD_OVER_TGC = re.compile(r"^tgc::[\w:<>, *&]*[*&]? std::")


def dynamic_section(lib):
    out = subprocess.run(["readelf", "-dW", lib], check=True,
                         capture_output=True, text=True).stdout
    entries = {}
    for line in out.splitlines():
        m = re.search(r"\((\w+)\)\s+.*?\[(.*)\]", line)
        if m:
            entries.setdefault(m.group(1), []).append(m.group(2))
    return entries


def exported_symbols(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", lib], check=True,
                         capture_output=True, text=True).stdout
    symbols = []
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            symbols.append(parts[2])
    return symbols


def check(lib):
    name = os.path.basename(os.path.realpath(lib))
    problems = []
    dyn = dynamic_section(lib)
    print("%s: soname %s" % (name, " ".join(dyn.get("SONAME", ["none"]))))
    needed = dyn.get("NEEDED", [])
    print("%s: needed %s" % (name, " ".join(needed)))
    for lib_needed in needed:
        if FORBIDDEN_NEEDED.match(lib_needed):
            problems.append("needs %s" % lib_needed)
    paths = []
    for tag in ("RUNPATH", "RPATH"):
        for value in dyn.get(tag, []):
            paths += value.split(":")
    print("%s: runpath %s" % (name, ":".join(paths) if paths else "none"))
    for path in paths:
        if not path.startswith("$ORIGIN"):
            problems.append("RUNPATH entry %s is not relative to $ORIGIN" % path)

    c_api = cxx_api = std_over_tgc = 0
    for symbol in exported_symbols(lib):
        if re.match(r"^tgc_\w+$", symbol):
            c_api += 1
        elif STD_OVER_TGC.match(symbol):
            std_over_tgc += 1
        elif CXX_API.match(symbol):
            cxx_api += 1
        else:
            problems.append("exports %s" % symbol)
    print("%s: exports %d C functions (tgc_*), %d C++ (tgc::), %d std "
          "templates over tgc types" % (name, c_api, cxx_api, std_over_tgc))
    for problem in problems:
        print("%s: problem: %s" % (name, problem))
    return len(problems)


def main():
    total = sum(check(lib) for lib in sys.argv[1:])
    print("problems: %d" % total)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
