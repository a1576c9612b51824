#!/usr/bin/env python3
"""Summarises Nsight Compute's per-instruction source page of one kernel
(`ncu -i REPORT --page source --print-source sass --csv > sass.csv`, the
report taken with --section SourceCounters): executed instructions per
warp and iteration (when --warp-iterations gives their count), the stall
reasons over all warp samples, the opcodes by executions, and the hottest
instructions with their top stall reasons.

  bench/ncu_sass_summary.py sass.csv [--warp-iterations N] [--top 25]
"""
import argparse
import collections
import csv


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--warp-iterations", type=float, default=0,
                    help="warps x loop iterations of the launch (CTAs x warps x iterations)")
    ap.add_argument("--top", type=int, default=25)
    args = ap.parse_args()
    rows = list(csv.reader(open(args.csv)))
    header_at = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    header = rows[header_at]
    col = {name: i for i, name in enumerate(header)}
    data = [r for r in rows[header_at + 1:] if len(r) >= len(header)]
    stalls = [name for name in header if name.startswith("stall_") and "(Not Issued)" not in name]
    samples = sum(number(r[col["Warp Stall Sampling (All Samples)"]]) for r in data)
    executed = sum(number(r[col["Instructions Executed"]]) for r in data)
    print("kernel:", rows[header_at - 1][1] if header_at else "?")
    print("warp samples %d, instructions executed %d" % (samples, executed))
    if args.warp_iterations:
        print("instructions per warp and iteration: %.0f" % (executed / args.warp_iterations))
    totals = collections.Counter()
    for r in data:
        for name in stalls:
            totals[name] += number(r[col[name]])
    print("\nstall reasons (share of warp samples):")
    for name, value in totals.most_common(12):
        print("  %-24s %5.1f%%" % (name[6:], 100 * value / samples))
    ops, op_samples = collections.Counter(), collections.Counter()
    for r in data:
        words = r[col["Source"]].split()
        if not words:
            continue
        op = (words[1] if words[0].startswith("@") and len(words) > 1 else words[0]).split(".")[0]
        ops[op] += number(r[col["Instructions Executed"]])
        op_samples[op] += number(r[col["Warp Stall Sampling (All Samples)"]])
    print("\nopcodes by executions (per warp and iteration where known; share of samples):")
    for op, value in ops.most_common(20):
        per = " %6.0f" % (value / args.warp_iterations) if args.warp_iterations else ""
        print("  %-10s %12d%s %5.1f%%" % (op, value, per, 100 * op_samples[op] / samples))
    print("\nhottest instructions (index, share of samples, executions, source, top stalls):")
    hot = sorted(range(len(data)), key=lambda i: -number(data[i][col["Warp Stall Sampling (All Samples)"]]))
    for i in sorted(hot[:args.top]):
        r = data[i]
        reasons = sorted(((number(r[col[n]]), n[6:]) for n in stalls), reverse=True)[:3]
        print("  %5d %5.1f%% %10d  %-56s %s" % (
            i, 100 * number(r[col["Warp Stall Sampling (All Samples)"]]) / samples,
            number(r[col["Instructions Executed"]]), r[col["Source"]].strip()[:56],
            " ".join("%s=%d" % (n, v) for v, n in reasons if v > 0)))


if __name__ == "__main__":
    main()
