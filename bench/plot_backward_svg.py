#!/usr/bin/env python3
"""Backward TFLOP/s per grid shape from bench_backward.md tables (labelled
files, each with the tgc column; cuDNN's column from the last) as an SVG,
written without plotting libraries (the CI machine has none).

Usage: python3 bench/plot_backward_svg.py OUT.svg LABEL=FILE ..."""
import re
import sys

COLORS = ["#aec7e8", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]
CUDNN = "#d62728"


def rows(path):
    out = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        # (a backward row: tgc and cuDNN TFLOP/s in columns 5 and 6; forward
        # tables, which say where tgc ran in column 6, are skipped)
        if (len(cells) > 7 and re.fullmatch(r"\d+", cells[0]) and cells[1] in ("yes", "no")
                and re.fullmatch(r"[0-9.]+", cells[5])):
            key = (int(cells[0]), cells[1], int(cells[2]))
            out.setdefault(key, (float(cells[4]), float(cells[5])))
    return out


def svg(series):
    shapes = sorted(set.intersection(*(set(r) for _, r in series)))
    bars = len(series) + 1
    bar, gap, top, left, height = 14, 26, 40, 50, 260
    peak = max(max(v for r in (s for _, s in series) for v in r[k]) for k in shapes) * 1.1
    width = left + len(shapes) * (bars * bar + gap) + 190
    y = lambda v: top + height * (1 - v / peak)  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (width, top + height + 60),
           '<text x="%d" y="20" font-size="13">attention backward, bf16, 16k tokens: TFLOP/s (H200)</text>' % left]
    for t in range(0, int(peak) + 1, 100):
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, width - 190, y(t), y(t)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (left - 4, y(t) + 4, t))
    for i, k in enumerate(shapes):
        x0 = left + gap / 2 + i * (bars * bar + gap)
        values = [(r[k][0], COLORS[j % len(COLORS)]) for j, (_, r) in enumerate(series)]
        values.append((series[-1][1][k][1], CUDNN))
        for j, (v, color) in enumerate(values):
            out.append('<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s"/>' %
                       (x0 + j * bar, y(v), bar - 1, top + height - y(v), color))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">hd%d %s</text>' %
                   (x0 + bars * bar / 2, top + height + 16, k[0], "causal" if k[1] == "yes" else "full"))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">S %d</text>' %
                   (x0 + bars * bar / 2, top + height + 30, k[2]))
    labels = [(name, COLORS[j % len(COLORS)]) for j, (name, _) in enumerate(series)] + [("cuDNN 9.19", CUDNN)]
    for j, (name, color) in enumerate(labels):
        ly = top + 10 + 18 * j
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (width - 180, ly, color))
        out.append('<text x="%d" y="%d">%s</text>' % (width - 162, ly + 10, name))
    out.append("</svg>")
    return "\n".join(out)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    series = [(arg.split("=", 1)[0], rows(arg.split("=", 1)[1])) for arg in sys.argv[2:]]
    with open(sys.argv[1], "w") as f:
        f.write(svg(series))


if __name__ == "__main__":
    main()
