#!/usr/bin/env python3
"""Chart of bench_attention.py's bench.json (forward TFLOP/s of tgc, FA2 and
cuDNN per shape) as an SVG, written without plotting libraries, for runs
whose PNG did not come back from the GPU machine.

Usage: python3 bench/plot_forward.py RESULTS/bench.json [OUT.svg]"""
import json, os, sys

SERIES = (("tgc_fwd", "tgc", "#1f77b4"), ("flash_fwd", "flash (FA2)", "#2ca02c"), ("cudnn_fwd", "cuDNN", "#d62728"))


def svg(data):
    rows, env = data["rows"], data["env"]
    bar, gap, top, left, height = 12, 24, 50, 50, 260
    peak = max(r[k] for r in rows for k, _, _ in SERIES)
    peak = (int(peak / 100) + 1) * 100
    width = left + len(rows) * (len(SERIES) * bar + gap) + 120
    y = lambda v: top + height * (1 - v / peak)  # noqa: E731
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" '
           'font-size="11">' % (width, top + height + 60),
           '<text x="%d" y="20" font-size="13">Forward attention, bf16, TFLOP/s (%s, %s, commit %s)</text>'
           % (left, env.get("gpu", ""), env.get("date", ""), env.get("commit", ""))]
    for v in range(0, peak + 1, 100):
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>' % (left, width - 120, y(v), y(v)))
        out.append('<text x="%d" y="%.1f" text-anchor="end">%d</text>' % (left - 4, y(v) + 4, v))
    x = left + gap / 2
    for r in rows:
        for key, _, color in SERIES:
            out.append('<rect x="%.1f" y="%.1f" width="%d" height="%.1f" fill="%s"/>'
                       % (x, y(r[key]), bar - 1, top + height - y(r[key]), color))
            x += bar
        label = "hd%d %s S%d" % (r["hd"], "causal" if r["causal"] else "full", r["S"])
        cx = x - len(SERIES) * bar / 2
        out.append('<text x="%.1f" y="%d" font-size="8" text-anchor="end" transform="rotate(-40 %.1f %d)">%s</text>'
                   % (cx, top + height + 12, cx, top + height + 12, label))
        out.append('<text x="%.1f" y="%.1f" font-size="8" text-anchor="middle">%.2f</text>'
                   % (cx, y(r["tgc_fwd"]) - 3, r["ratio_cudnn"]))
        x += gap
    for i, (_, name, color) in enumerate(SERIES):
        out.append('<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>'
                   % (width - 112, top + 16 * i, color, width - 98, top + 9 + 16 * i, name))
    out.append('<text x="%d" y="%d" font-size="9">numbers above tgc: tgc / cuDNN</text>'
               % (left, top + height + 55))
    out.append("</svg>")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(sys.argv[1]), "bench.svg")
    open(out, "w").write(svg(data))
    print("wrote " + out)


if __name__ == "__main__":
    main()
