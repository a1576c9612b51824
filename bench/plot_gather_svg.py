#!/usr/bin/env python3
"""Forward time per case from bench_gather.md tables (labelled files, each
with the tgc column; FlexAttention's column from the last) as an SVG bar
chart, written without plotting libraries (the CI machine has none).

Usage: python3 bench/plot_gather_svg.py OUT.svg LABEL=FILE ..."""
import sys

COLORS = ["#aec7e8", "#1f77b4", "#2ca02c", "#9467bd"]
FLEX = "#d62728"


def rows(path):
    """case -> (tgc ms, flex ms) from a bench_gather.md table."""
    out = {}
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        try:
            out[cells[0]] = (float(cells[1]), float(cells[2]))
        except (ValueError, IndexError):
            pass
    return out


def main():
    out_path, series = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    tables = [(label, rows(path)) for label, path in series]
    cases = [c for c in tables[-1][1] if all(c in t for _, t in tables)]
    bars = [(label, COLORS[i % len(COLORS)], [t[c][0] for c in cases]) for i, (label, t) in enumerate(tables)]
    bars.append(("FlexAttention (%s run)" % tables[-1][0], FLEX, [tables[-1][1][c][1] for c in cases]))
    top = max(max(v) for _, _, v in bars) * 1.15
    width, height, left, base = 120 + 150 * len(cases), 360, 60, 300
    bw = 120 / len(bars)
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (width, height + 20 * len(bars)),
           '<text x="%d" y="16" font-size="13">forward time (ms, lower is better)</text>' % left,
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (left, base, width - 20, base)]
    for k, case in enumerate(cases):
        x0 = left + 20 + 150 * k
        for j, (label, color, values) in enumerate(bars):
            h = (base - 30) * values[k] / top
            svg.append('<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>'
                       % (x0 + j * bw, base - h, bw - 2, h, color))
            svg.append('<text x="%.1f" y="%.1f" font-size="9" text-anchor="middle">%.3g</text>'
                       % (x0 + j * bw + bw / 2, base - h - 3, values[k]))
        svg.append('<text x="%d" y="%d" text-anchor="middle">%s</text>' % (x0 + 60, base + 15, case))
    for j, (label, color, _) in enumerate(bars):
        y = height + 20 * j
        svg.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (left, y - 10, color))
        svg.append('<text x="%d" y="%d">%s</text>' % (left + 18, y, label))
    svg.append("</svg>")
    with open(out_path, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
