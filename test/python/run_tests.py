#!/usr/bin/env python3
"""Runs the Python package's CPU tests (test/python/test_*.py) and prints
"python: N passed, N failed, N skipped" for scripts/test.sh.
Usage: run_tests.py [--build DIR] [-v] [PATTERN]"""
import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("TGC_BUILD_DIR", "build"))
    ap.add_argument("-v", action="store_true")
    ap.add_argument("pattern", nargs="?", default="test_*.py")
    args = ap.parse_args()
    root = os.path.dirname(os.path.dirname(HERE))
    build = args.build if os.path.isabs(args.build) else os.path.join(root, args.build)
    os.environ["TGC_BUILD_DIR"] = build
    os.environ.setdefault("TGC_BIN", os.path.join(build, "bin"))
    os.environ["TGC_LIBRARY"] = os.environ.get("TGC_LIBRARY") or os.path.join(build, "lib", "libtgc.so")
    sys.path.insert(0, HERE)
    suite = unittest.defaultTestLoader.discover(HERE, pattern=args.pattern)
    result = unittest.TextTestRunner(verbosity=2 if args.v else 1).run(suite)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    print("python: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 0 if failed == 0 and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
