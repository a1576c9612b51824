#!/usr/bin/env python3
"""Rewrites the measurement table tg-mixed-matmul-plan chooses from
(compiler/lib/Transforms/MixedMatmulTable.inc) from a
bench/bench_mixed_matmul.py result: one TG_MIXED_MATMUL_ROW per shape where
both forced plans ran and passed their check (fused = tgc --mixed-matmul=fused,
dequant = tgc --mixed-matmul=dequant, TFLOP/s; i4 weights, which cuDNN cannot
read, need dequant only and get fused 0), and a TG_MIXED_MATMUL_SOURCE naming
the run. The file's leading comment (up to the line that starts the first
provenance note, "// PROVISIONAL" or "// MEASURED") is kept, and so is every
block of rows (a provenance note, its source line and rows) of the weight
types the result does not measure: a table holds one block per run.

Usage: python3 bench/fill_mixed_matmul_table.py OUT/bench_mixed_matmul.json
           [--results-dir bench/results/2026-12-02_abc1234_mixed] [--table FILE]
Then rebuild and run the tests (test/Transforms/tg-mixed-matmul-plan.mlir
checks which plan auto picks at M = 16 and 8192)."""
import argparse, json, os, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "compiler", "lib", "Transforms", "MixedMatmulTable.inc")


# Weight types cuDNN's mixed-input graph cannot read: their rows measure
# dequant (and generated) only.
NO_FUSED = {"i4"}


def measured_rows(rows):
    out, left = [], []
    for r in rows:
        no_fused = r.get("weight", "i8") in NO_FUSED
        f, d = (0.0 if no_fused else r.get("tgc_fused")), r.get("tgc_dequant")
        bad = set(r.get("bad", [])) - ({"tgc_fused"} if no_fused else set())
        if r.get("skipped") or (not f and not no_fused) or not d or {"tgc_fused", "tgc_dequant"} & bad:
            left.append(r)
            continue
        out.append(dict(r, tgc_fused=f))
    return out, left


def blocks(lines):
    """The table's provenance blocks after its header: [(lines, weights)]."""
    out = []
    for line in lines:
        if line.startswith(("// PROVISIONAL", "// MEASURED")) and (not out or out[-1][1]):
            out.append(([], set()))
        if not out:
            continue
        out[-1][0].append(line)
        if line.startswith("TG_MIXED_MATMUL_ROW("):
            out[-1][1].add(line.split('"')[1])
    return out


def render(header, kept, env, results_dir, rows):
    src = "H200" if "H200" in env.get("gpu", "") else env.get("gpu", "?")
    source = "%s, cuDNN %s, commit %s, %s: bench/bench_mixed_matmul.py%s" % (
        src, env.get("torch_cudnn", "?"), env.get("commit", "?"), env.get("date", "?")[:10],
        ", " + results_dir if results_dir else "")
    lines = list(header)
    for block in kept:
        lines += block
    lines += ["// MEASURED: tgc's plans forced (--mixed-matmul=fused and =dequant with",
              "// --backend=cudnn; --mixed-matmul=generated; fused 0 where cuDNN cannot read",
              "// the weight), timed in one process on %s by" % env.get("gpu", "?"),
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
    header, rest = [], open(args.table).read().splitlines()
    while rest and not rest[0].startswith(("// PROVISIONAL", "// MEASURED", "TG_MIXED_MATMUL_")):
        header.append(rest.pop(0))
    measured = {r.get("weight", "i8") for r in rows}
    kept = [lines for lines, weights in blocks(rest) if weights and not weights & measured]
    with open(args.table, "w") as f:
        f.write(render(header, kept, data.get("env", {}), args.results_dir, rows))
    print("fill_mixed_matmul_table: %d rows written to %s; %d left out (skipped, failed or unmeasured)%s" % (
        len(rows), args.table, len(left),
        "".join("\n  left out: M=%s K=%s N=%s %s" % (r["M"], r["K"], r["N"], "scaled" if r["scaled"] else "plain")
                for r in left)))


if __name__ == "__main__":
    main()
