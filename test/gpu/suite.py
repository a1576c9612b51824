#!/usr/bin/env python3
"""The GPU suite: every attention configuration of the NVRTC grid, compiled
by tgc from a tg.sdpa graph, run on the GPU and checked against the CPU
reference interpreter (float64) by `tg-run --check`.

Usage (on the GPU machine):  test/gpu/suite.py --bin build/bin --out $OUT [--force-ptx] [--jobs 12]
Prints one line per configuration and a summary table; writes suite.json.
Tolerances are tg-run's (docs/gpu-suite.md)."""
import argparse, itertools, json, os, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

def sdpa_graph(c):
    """A tg graph computing one tg.sdpa configuration `c` (a dict)."""
    B, Hq, Hkv, Sq, Skv, D = c["B"], c["Hq"], c["Hkv"], c["Sq"], c["Skv"], c["D"]
    dt = c["dtype"]
    def t(shape, e=dt):
        return "tensor<" + "x".join(map(str, shape)) + "x" + e + ">"
    def arg(name, shape, e=dt, bshd=False):
        attrs = 'tg.name = "%s"' % name
        if bshd:  # logical [B,H,S,D] over a [B,S,H,D] buffer
            b, h, s, d = shape
            attrs += ", tg.strides = array<i64: %d, %d, %d, 1>" % (s * h * d, d, h * d)
        return "%%%s: %s {%s}" % (name, t(shape, e), attrs)
    bshd = c.get("layout") == "bshd"
    args = [arg("q", [B, Hq, Sq, D], bshd=bshd), arg("k", [B, Hkv, Skv, D], bshd=bshd),
            arg("v", [B, Hkv, Skv, D], bshd=bshd)]
    operands, types = [], []
    if c.get("bias"):
        args.append(arg("bias", [1, Hq, Sq, Skv], "f32"))
        operands.append("bias(%%bias : %s)" % t([1, Hq, Sq, Skv], "f32"))
    if c.get("padding"):
        args.append(arg("seq_len_q", [B], "i32")); args.append(arg("seq_len_kv", [B], "i32"))
        operands.append("seq_len_q(%%seq_len_q : %s)" % t([B], "i32"))
        operands.append("seq_len_kv(%%seq_len_kv : %s)" % t([B], "i32"))
    if c.get("dropout"):
        args.append("%seed: tensor<i64> {tg.name = \"seed\"}")
        args.append("%offset: tensor<i64> {tg.name = \"offset\"}")
        operands.append("seed(%seed) offset(%offset)")
    attrs = []
    if c.get("causal"):
        attrs.append("causal = #tg<causal %s>" % c["causal"])
    if c.get("window"):
        l, r = c["window"]
        if l is not None: attrs.append("window_left = %d : i64" % l)
        if r is not None: attrs.append("window_right = %d : i64" % r)
    if c.get("softcap"): attrs.append("softcap = %s : f64" % c["softcap"])
    if c.get("alibi"): attrs.append("alibi")
    if c.get("dropout"): attrs.append("dropout = %s : f64" % c["dropout"])
    if c.get("training"): attrs.append("training")
    out_t = t([B, Hq, Sq, D])
    results = ['%s {tg.name = "o"%s}' % (out_t, (", tg.strides = array<i64: %d, %d, %d, 1>" % (Sq * Hq * D, D, Hq * D)) if bshd else "")]
    res_types = [out_t]
    if c.get("training"):
        results.append('%s {tg.name = "stats"}' % t([B, Hq, Sq, 1], "f32")); res_types.append(t([B, Hq, Sq, 1], "f32"))
    names = "%o, %stats" if c.get("training") else "%o"
    return (
        "func.func @attention(%s) -> (%s) {\n" % (", ".join(args), ", ".join(results)) +
        "  %s = tg.sdpa %%q, %%k, %%v %s {%s}\n" % (names, " ".join(operands), ", ".join(attrs)) +
        "      : %s, %s, %s -> %s\n" % (t([B, Hq, Sq, D]), t([B, Hkv, Skv, D]), t([B, Hkv, Skv, D]), ", ".join(res_types)) +
        "  return %s : %s\n}\n" % (names, ", ".join(res_types)))

def configs(quick):
    base = dict(B=2, Hq=2, Hkv=2, Sq=128, Skv=128, D=128, dtype="bf16")
    out = []
    def add(name, **kw):
        c = dict(base); c.update(kw); c["name"] = name; out.append(c)
    for dt in ("bf16", "f16"):
        for d in (64, 72, 80, 96, 128, 192, 256):
            add("hd%d_%s" % (d, dt), D=d, dtype=dt)
    for sq, skv in ((1, 1), (1, 17), (17, 17), (17, 128), (128, 1000), (1000, 1000), (1000, 128), (4096, 4096)):
        for causal in (None, "top_left", "bottom_right"):
            big = max(sq, skv) >= 1000
            add("s%dx%d_%s" % (sq, skv, causal or "full"), Sq=sq, Skv=skv, causal=causal,
                B=1 if big else 2, Hq=2 if big else 4, Hkv=1 if big else 2, D=64 if sq == 4096 else 128)
    for g in (1, 4, 8):
        add("gqa%d" % g, Hq=8, Hkv=8 // g, Sq=257, Skv=300)
    opt = dict(Sq=200, Skv=333)
    add("window_causal", causal="top_left", window=(64, None), **opt)
    add("window_both", window=(40, 24), **opt)
    add("bias", bias=True, **opt)
    add("softcap", softcap=30.0, **opt)
    add("alibi", alibi=True, Hq=4, Hkv=4, **opt)
    add("dropout_small", dropout=0.2, Sq=17, Skv=17)
    add("dropout", dropout=0.1, **opt)
    add("padding", padding=True, B=3, **opt)
    add("padding_causal_br", padding=True, causal="bottom_right", B=3, **opt)
    add("training", training=True, **opt)
    add("training_causal", training=True, causal="top_left", **opt)
    add("layout_bshd", layout="bshd", Hq=4, Hkv=2, **opt)
    add("layout_bshd_f16", layout="bshd", dtype="f16", **opt)
    add("everything", bias=True, softcap=20.0, alibi=True, padding=True, causal="bottom_right",
        dropout=0.1, training=True, Hq=4, Hkv=2, B=2, D=64, Sq=150, Skv=190)
    if quick:
        out = [c for c in out if max(c["Sq"], c["Skv"]) < 1000]
    return out

# Graphs of every other kind (generic kernels, model forms, sdpa_grad), run
# function by function from these files.
GRAPH_FILES = ["examples/attention.mlir", "examples/models/*.mlir", "test/Reference/tg-run-*.mlir",
               "test/Lowering/*.mlir"]
GRAPH_EXCLUDE = {"test/Lowering/errors.mlir", "test/Reference/tg-run-errors.mlir",
                 # i64 extremes the float64 reference cannot hold exactly
                 "test/Lowering/constants.mlir:ints"}

def graph_entries(root):
    import glob, re
    out = []
    for pattern in GRAPH_FILES:
        for path in sorted(glob.glob(os.path.join(root, pattern))):
            rel = os.path.relpath(path, root)
            if rel in GRAPH_EXCLUDE:
                continue
            for fn in re.findall(r"func\.func @(\w+)", open(path).read()):
                if "%s:%s" % (rel, fn) in GRAPH_EXCLUDE:
                    continue
                out.append(dict(name="%s:%s" % (rel, fn), file=path, entry=fn))
    return out

def run_graph(g, args):
    env = dict(os.environ)
    if args.force_ptx:
        env["TGC_FORCE_PTX"] = "1"
    cmd = [os.path.join(args.bin, "tg-run"), g["file"], "--entry=" + g["entry"], "--check", "--seed=3"]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    checks = [l for l in p.stdout.splitlines() if l.startswith("check ")]
    return dict(name=g["name"], ok=p.returncode == 0, seconds=round(time.time() - t0, 1), checks=checks,
                log=(p.stdout + p.stderr)[-3000:] if p.returncode else "")

def run_one(c, args, workdir):
    path = os.path.join(workdir, c["name"] + ".mlir")
    with open(path, "w") as f:
        f.write(sdpa_graph(c))
    env = dict(os.environ)
    if args.force_ptx:
        env["TGC_FORCE_PTX"] = "1"
    cmd = [os.path.join(args.bin, "tg-run"), path, "--check", "--seed=%d" % (abs(hash(c["name"])) % 1000)]
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=args.timeout)
    ok = p.returncode == 0
    worst = [l for l in p.stdout.splitlines() if l.startswith("check ")]
    return dict(name=c["name"], ok=ok, seconds=round(time.time() - t0, 1), checks=worst,
                log=(p.stdout + p.stderr)[-3000:] if not ok else "")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--force-ptx", action="store_true")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=400)
    ap.add_argument("--graphs", action="store_true",
                    help="run every function of the example and test graphs (generic kernels) instead")
    args = ap.parse_args()
    if args.graphs:
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        gs = [g for g in graph_entries(root) if args.only in g["name"]]
        print("tgc GPU suite (graphs%s): %d functions" % (", forced PTX" if args.force_ptx else "", len(gs)), flush=True)
        with ThreadPoolExecutor(args.jobs) as pool:
            results = list(pool.map(lambda g: run_graph(g, args), gs))
        for r in results:
            print("%-60s %s %5.1fs  %s" % (r["name"], "PASS" if r["ok"] else "FAIL", r["seconds"], " | ".join(r["checks"])[:300]))
            if not r["ok"]:
                print(r["log"])
        passed = sum(r["ok"] for r in results)
        print("\nsummary (graphs): %d passed, %d failed" % (passed, len(results) - passed))
        with open(os.path.join(args.out, "suite_graphs.json"), "w") as f:
            json.dump(dict(mode="graphs", results=results), f, indent=1)
        sys.exit(0 if passed == len(results) else 1)
    cs = [c for c in configs(args.quick) if args.only in c["name"]]
    workdir = tempfile.mkdtemp(prefix="tgc-suite-")
    label = "forced PTX" if args.force_ptx else "cubin"
    print("tgc GPU suite (%s): %d configurations" % (label, len(cs)), flush=True)
    results = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(lambda c: run_one(c, args, workdir), cs):
            results.append(r)
            print("%-28s %s %6.1fs  %s" % (r["name"], "PASS" if r["ok"] else "FAIL", r["seconds"],
                                          " | ".join(r["checks"])), flush=True)
            if not r["ok"]:
                print(r["log"], flush=True)
    passed = sum(r["ok"] for r in results)
    print("\nsummary (%s): %d passed, %d failed" % (label, passed, len(results) - passed))
    name = "suite_ptx.json" if args.force_ptx else "suite.json"
    with open(os.path.join(args.out, name), "w") as f:
        json.dump(dict(mode=label, results=results, configs=cs), f, indent=1)
    sys.exit(0 if passed == len(results) else 1)

if __name__ == "__main__":
    main()
