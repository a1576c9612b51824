#!/usr/bin/env python3
"""Chart (not a benchmark): FlexAttention time / tgc time per case of two
bench_gather runs (.json, or the .md table), side by side (e.g. before and after a change).

Usage: python3 bench/plot_gather_before_after.py BEFORE.json AFTER.json OUT.png [label-before label-after]"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def ratios(path):
    """case -> flex ms / tgc ms, from bench_gather.json or its .md table."""
    out = {}
    if path.endswith(".md"):
        for line in open(path):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 3 or cells[0] in ("case", "") or cells[0].startswith("-"):
                continue
            try:
                out[cells[0]] = float(cells[2]) / float(cells[1])
            except ValueError:
                pass
        return out
    for r in json.load(open(path))["rows"]:
        if r.get("tgc_ms") and isinstance(r.get("flex_ms"), (int, float)):
            out[r["case"]] = r["flex_ms"] / r["tgc_ms"]
    return out


def main():
    before, after, png = sys.argv[1:4]
    labels = sys.argv[4:6] if len(sys.argv) >= 6 else ["before", "after"]
    a, b = ratios(before), ratios(after)
    cases = [c for c in b if c in a]
    x = range(len(cases))
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.bar([i - 0.2 for i in x], [a[c] for c in cases], 0.4, label=labels[0])
    ax.bar([i + 0.2 for i in x], [b[c] for c in cases], 0.4, label=labels[1])
    ax.axhline(1.0, color="gray", lw=0.8)
    ax.set_xticks(list(x))
    ax.set_xticklabels(cases, rotation=20)
    ax.set_ylabel("FlexAttention ms / tgc ms")
    ax.set_title("tgc vs FlexAttention, H200, bf16, B1 H16 S8192 hd128")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


if __name__ == "__main__":
    main()
