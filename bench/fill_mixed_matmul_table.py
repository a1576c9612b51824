#!/usr/bin/env python3
"""Rewrites the measurement table tg-mixed-matmul-plan chooses from
(compiler/lib/Transforms/MixedMatmulTable.inc) from a
bench/bench_mixed_matmul.py result: one TG_MIXED_MATMUL_ROW per shape where
both forced plans ran and passed their check (fused = tgc --mixed-matmul=fused,
dequant = tgc --mixed-matmul=dequant, TFLOP/s), and a
TG_MIXED_MATMUL_SOURCE naming the run. The file's leading comment (up to the
line that starts the provenance note, "// PROVISIONAL" or "// MEASURED") is
kept.

Usage: python3 bench/fill_mixed_matmul_table.py OUT/bench_mixed_matmul.json
           [--results-dir bench/results/2026-12-02_abc1234_mixed] [--table FILE]
Then rebuild and run the tests (test/Transforms/tg-mixed-matmul-plan.mlir
checks which plan auto picks at M = 16 and 8192)."""
import argparse, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "compiler", "lib", "Transforms", "MixedMatmulTable.inc")


def measured_rows(rows):
    out, left = [], []
    for r in rows:
        f, d = r.get("tgc_fused"), r.get("tgc_dequant")
        bad = set(r.get("bad", []))
        if r.get("skipped") or not f or not d or {"tgc_fused", "tgc_dequant"} & bad:
            left.append(r)
            continue
        out.append(r)
    return out, left


def render(header, env, results_dir, rows):
    src = "H200" if "H200" in env.get("gpu", "") else env.get("gpu", "?")
    source = "%s, cuDNN %s, commit %s, %s: bench/bench_mixed_matmul.py%s" % (
        src, env.get("torch_cudnn", "?"), env.get("commit", "?"), env.get("date", "?")[:10],
        ", " + results_dir if results_dir else "")
    lines = list(header)
    lines += ["// MEASURED: tgc's plans forced (--mixed-matmul=fused and =dequant with",
              "// --backend=cudnn; --mixed-matmul=generated), timed in one process on %s by" % env.get("gpu", "?"),
              "// bench/bench_mixed_matmul.py and written here by",
              "// bench/fill_mixed_matmul_table.py%s." % (" from " + results_dir if results_dir else "")]
    lines.append('TG_MIXED_MATMUL_SOURCE("%s")' % source.replace('"', "'"))
    for r in sorted(rows, key=lambda r: (r.get("weight", "i8"), r["scaled"], r["K"], r["N"], r["M"])):
        generated = r.get("tgc_generated") or 0.0
        if "tgc_generated" in r.get("bad", []):
            generated = 0.0  # failed its check: never chosen
        lines.append('TG_MIXED_MATMUL_ROW("%s", %s, %d, %d, %d, %.1f, %.1f, %.1f)' % (
            r.get("weight", "i8"), "true" if r["scaled"] else "false", r["M"], r["K"], r["N"],
            r["tgc_fused"], r["tgc_dequant"], generated))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json")
    ap.add_argument("--table", default=TABLE)
    ap.add_argument("--results-dir", default="", help="where the run is committed, named in the source")
    args = ap.parse_args()
    data = json.load(open(args.json))
    rows, left = measured_rows(data["rows"])
    if not rows:
        sys.exit("fill_mixed_matmul_table: no row of %s has both plans measured and checked" % args.json)
    header = []
    for line in open(args.table).read().splitlines():
        if line.startswith(("// PROVISIONAL", "// MEASURED", "TG_MIXED_MATMUL_")):
            break
        header.append(line)
    with open(args.table, "w") as f:
        f.write(render(header, data.get("env", {}), args.results_dir, rows))
    print("fill_mixed_matmul_table: %d rows written to %s; %d left out (skipped, failed or unmeasured)%s" % (
        len(rows), args.table, len(left),
        "".join("\n  left out: M=%s K=%s N=%s %s" % (r["M"], r["K"], r["N"], "scaled" if r["scaled"] else "plain")
                for r in left)))


if __name__ == "__main__":
    main()
