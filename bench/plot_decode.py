#!/usr/bin/env python3
"""Chart of bench_decode.json (HBM fraction per case and shape) as an SVG,
written without plotting libraries (the CI machine has none).

Usage: python3 bench/plot_decode.py RESULTS/bench_decode.json [OUT.svg]"""
import json, os, sys

COLORS = {"read_ceiling": "#999999", "torch_sdpa": "#d62728", "tgc_cudnn_dense": "#ff7f0e", "tgc_dense": "#1f77b4",
          "tgc_dense_softcap30": "#17becf", "tgc_paged_p16": "#2ca02c", "tgc_paged_p64": "#9467bd"}


def svg(data):
    rows, env = data["rows"], data["env"]
    shapes = sorted({(r["B"], r["Sq"]) for r in rows})
    cases = [c for c in COLORS if any(r["case"] == c for r in rows)]
    bar, gap, top, left, height = 18, 30, 50, 50, 260
    width = left + len(shapes) * (len(cases) * bar + gap) + 170
    y = lambda f: top + height * (1 - min(f, 1.0))  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (width, top + height + 50),
           '<text x="%d" y="20" font-size="13">Decode: fraction of 4.8 TB/s (%s, %s, commit %s)</text>'
           % (left, env.get("gpu", ""), env.get("date", ""), env.get("commit", ""))]
    for f in (0.0, 0.25, 0.5, 0.75, 1.0):
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, width - 170, y(f), y(f)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (left - 4, y(f) + 4, f))
    out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/>'
               % (left, width - 170, y(0.85), y(0.85)))
    out.append('<text x="%d" y="%.1f">goal 0.85</text>' % (width - 166, y(0.85) + 4))
    x = left + gap / 2
    for B, Sq in shapes:
        for c in cases:
            r = next((r for r in rows if (r["B"], r["Sq"], r["case"]) == (B, Sq, c)), None)
            if r:
                f = r["hbm_fraction"]
                out.append('<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s"/>'
                           % (x, y(f), bar - 2, top + height - y(f), COLORS[c]))
                out.append('<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle">%.2f</text>'
                           % (x + bar / 2 - 1, y(f) - 2, f))
            x += bar
        out.append('<text x="%.1f" y="%d" text-anchor="middle">B %d, Sq %d</text>'
                   % (x - len(cases) * bar / 2, top + height + 16, B, Sq))
        x += gap
    for i, c in enumerate(cases):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (width - 150, top + 30 + 16 * i, COLORS[c], width - 135, top + 39 + 16 * i, c))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    src = sys.argv[1]
    dst = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(src), "bench_decode.svg")
    with open(src) as f:
        data = json.load(f)
    with open(dst, "w") as f:
        f.write(svg(data))
    print("wrote", dst)


if __name__ == "__main__":
    main()
