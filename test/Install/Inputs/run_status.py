#!/usr/bin/env python3
"""run_status.py CMD ARGS...: runs CMD, passes its output through (stderr
after stdout) and ends with "exit status N", so that a test can check an
exact status (e.g. 77, "skipped") where `not` accepts any failure."""
import subprocess
import sys

result = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(result.stdout)
sys.stdout.write(result.stderr)
print("exit status %d" % result.returncode)
