#!/usr/bin/env python3
"""Plots backward TFLOP/s from bench_backward.md tables (one or more files,
each labelled), with cuDNN's column from the last: the chart of a results
folder whose runs came back as markdown only.

Usage: python3 bench/plot_backward_tables.py OUT.png LABEL=FILE[#SECTION] ...
(SECTION: the '## name' heading a file's table follows, for files with
several runs)."""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path, section=None):
    text = open(path).read()
    if section:
        text = text.split("## " + section + "\n", 1)[1]
    table = text.split("## Backward", 1)[1].split("## Training", 1)[0]
    out = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) > 7 and re.fullmatch(r"\d+", cells[0]):
            key = (int(cells[0]), cells[1], int(cells[2]))
            out[key] = (float(cells[4]), float(cells[5]))
    return out


def main():
    out_png, specs = sys.argv[1], sys.argv[2:]
    series = []
    for spec in specs:
        label, path = spec.split("=", 1)
        path, _, section = path.partition("#")
        series.append((label, rows(path, section or None)))
    keys = sorted(set.intersection(*(set(r) for _, r in series)))
    width = 0.8 / (len(series) + 1)
    fig, ax = plt.subplots(figsize=(11, 4.5))
    for i, (label, r) in enumerate(series):
        ax.bar([x + i * width for x in range(len(keys))], [r[k][0] for k in keys], width, label=label)
    ax.bar([x + len(series) * width for x in range(len(keys))], [series[-1][1][k][1] for k in keys], width,
           label="cuDNN 9.19 (torch)", color="black")
    ax.set_xticks([x + 0.4 for x in range(len(keys))])
    ax.set_xticklabels([f"hd{k[0]} {'causal' if k[1] == 'yes' else 'full'}\nS {k[2]}" for k in keys], fontsize=8)
    ax.set_ylabel("backward TFLOP/s (bf16)")
    ax.set_title("tgc fused attention backward on the H200")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)


if __name__ == "__main__":
    main()
