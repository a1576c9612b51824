#!/usr/bin/env python3
"""Horizontal bars of ratios (a speed-up, 1.0 = unchanged) as an SVG, with
no plotting library: the chart of an A/B comparison under bench/results/.

Usage: python3 bench/plot_ratios_svg.py out.svg "title" "label=ratio" ...
Bars right of the 1.0 line are gains (green), left of it losses (red)."""
import sys


def main():
    out, title, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
    rows = [(p.rsplit("=", 1)[0], float(p.rsplit("=", 1)[1])) for p in pairs]
    lo = min(0.85, min(r for _, r in rows) - 0.02)
    hi = max(1.15, max(r for _, r in rows) + 0.02)
    left, width, bar, top = 300, 420, 18, 40
    x = lambda r: left + (r - lo) / (hi - lo) * width  # noqa: E731
    height = top + len(rows) * (bar + 6) + 40
    svg = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="12">' % (left + width + 60, height),
           '<text x="10" y="20" font-size="14">%s</text>' % title]
    for i, (label, r) in enumerate(rows):
        y = top + i * (bar + 6)
        x0, x1 = sorted((x(1.0), x(r)))
        svg.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + bar - 5, label))
        svg.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                   % (x0, y, max(x1 - x0, 1), bar, "#3a9a4a" if r >= 1 else "#c0392b"))
        svg.append('<text x="%.1f" y="%d">%.3f</text>' % (x(max(r, 1.0)) + 4, y + bar - 5, r))
    base = top + len(rows) * (bar + 6)
    svg.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/>' % (x(1.0), top - 4, x(1.0), base))
    for t in (lo, 1.0, hi):
        svg.append('<text x="%.1f" y="%d" text-anchor="middle">%.2f</text>' % (x(t), base + 16, t))
    svg.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
