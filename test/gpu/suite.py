#!/usr/bin/env python3
"""The GPU suite: attention graphs compiled by tgc, run on the GPU and
checked against the CPU reference interpreter (float64) by `tg-run --check`.

Grid mode (default): the NVRTC issue's 55 forward tg.sdpa configurations
(test/gpu/attention_graphs.py) and the backward ones (on NVRTC they run on
the fused backward kernels; --expect-fused makes an expansion into generic
kernels a failure): tg.sdpa_grad alone on
consistent inputs (a reference training forward is run first with `tg-run
--ref`; its inputs, o and stats are fed back with --input), and a few
training steps (forward and tg.sdpa_grad in one function; o, stats, dq, dk,
dv all checked).
--graphs mode: every function of the example and test graphs (generic
kernels, models, FP8 attention, mixed-input matmul).

--backend nvrtc|cudnn|auto is passed to tg-run as --backend and set as
TGC_BACKEND for the runtime (cudnn: a cuDNN step that cannot run is an
error, not a silent fallback). Each row shows what the compiler planned
(`tg-compile --explain-backend`) and what actually ran (tg-run's
"step N: <backend>: ..." lines); configurations cuDNN does not support show
"nvrtc" or "nvrtc (fallback)" there and are still checked.

Usage (on the GPU machine):
  test/gpu/suite.py --bin BIN --backend cudnn [--cudnn-lib PATH] [--set fwd|bwd|masks|gather|ragged|paged|fp8|all]
                    [--quick] [--only SUBSTR] [--graphs] [--force-ptx] [--tag NAME]
  test/gpu/suite.py --bin BIN --backend nvrtc --set fused --expect-fused   # the fused backward
Here (no GPU): --emit-graphs DIR writes the generated graphs; --compile-only
runs tg-compile on each and reports the planned backends.
Writes suite_<tag>.json and suite_<tag>.md under --out ($OUT by default).
Tolerances are tg-run's (bf16 2e-2, f16 4e-3, f32 1e-3, fp8 0.125)."""
import argparse, glob, json, os, re, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attention_graphs as ag  # noqa: E402
import gather_graphs as gg  # noqa: E402
import mask_graphs as mg  # noqa: E402
import fp8_graphs as fg  # noqa: E402
import paged_graphs as pg  # noqa: E402
import ragged_graphs as rg  # noqa: E402
import tool_output as to  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Graphs of every other kind (generic kernels, model forms, sdpa_grad, FP8
# attention, mixed-input matmul), run function by function from these files.
GRAPH_FILES = ["examples/*.mlir", "examples/models/*.mlir", "examples/**/*fp8*.mlir", "test/gpu/*.mlir", "test/Cudnn/Inputs/*.mlir",
               "test/Reference/tg-run-*.mlir", "test/Lowering/*.mlir"]
GRAPH_EXCLUDE = {"test/Lowering/errors.mlir", "test/Reference/tg-run-errors.mlir",
                 # f32 packed / paged attention: only the reference runs it
                 # (the fused kernels take bf16/f16; --set ragged and paged
                 # run these layouts on the GPU)
                 "test/Reference/tg-run-sdpa-ragged.mlir", "test/Reference/tg-run-sdpa-paged.mlir",
                 # i64 extremes the float64 reference cannot hold exactly
                 "test/Lowering/constants.mlir:ints"}


def configs(which, quick):
    out = []
    if which in ("fwd", "all"):
        out += ag.forward_configs()
    if which in ("bwd", "all"):
        out += ag.backward_configs()
    if which in ("masks", "all"):
        out += mg.mask_configs()
    if which == "bias-probe":
        out += mg.bias_probe_configs()
    if which == "fused":
        out += ag.fused_backward_configs()
    if which == "gather":
        out += gg.gather_configs()
    if which == "ragged":
        out += rg.ragged_configs()
    if which == "paged":
        out += pg.paged_configs()
    if which == "fp8":
        out += fg.fp8_configs()
    if quick:
        out = [c for c in out if not ag.is_big(c)]
    return out


def graph_entries(root):
    out, seen = [], set()
    for pattern in GRAPH_FILES:
        for path in sorted(glob.glob(os.path.join(root, pattern), recursive=True)):
            rel = os.path.relpath(path, root)
            if rel in GRAPH_EXCLUDE:
                continue
            text = open(path).read()
            for fn in re.findall(r"^\s*func\.func @(\w+)", text, re.M):
                name = "%s:%s" % (rel, fn)
                if name in GRAPH_EXCLUDE or name in seen:
                    continue
                seen.add(name)
                out.append(dict(name=name, file=path, entry=fn))
    return out


def tool_env(args):
    env = dict(os.environ)
    if args.force_ptx:
        env["TGC_FORCE_PTX"] = "1"
    runtime = args.backend if args.runtime_backend == "same" else args.runtime_backend
    if runtime:
        env["TGC_BACKEND"] = runtime
    if args.cudnn_lib:
        env["TGC_CUDNN_LIBRARY"] = args.cudnn_lib
    # The runtime logs the cuDNN it loaded and each cuDNN step's engine at
    # info level, a step's NVRTC fallback and its reason at debug level.
    env.setdefault("TGC_LOG", "debug")
    return env


def backend_flags(args):
    return ["--backend=" + args.backend] if args.backend else []


def explain(path, entry, args, extra=()):
    """What tg-compile plans for each op: (summary, [(op, backend, reason)])."""
    if args.no_explain:
        return "", []
    cmd = [os.path.join(args.bin, "tg-compile"), path, "--explain-backend", "--emit=plan", "--arch=" + args.arch,
           "-o", os.devnull] + backend_flags(args) + (["--entry=" + entry] if entry else []) + list(extra)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=tool_env(args), timeout=120)
    except subprocess.TimeoutExpired:
        return "tg-compile timed out", []
    items = to.planned(p.stderr + p.stdout)
    if p.returncode != 0:
        return "compile error: " + (p.stderr.strip().splitlines() or ["?"])[-1][:200], items
    return to.planned_summary(items), items


def tg_run(cmd, args):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, env=tool_env(args), timeout=args.timeout)
        rc, out = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as ex:
        partial = ex.stdout or ""
        if isinstance(partial, bytes):
            partial = partial.decode(errors="replace")
        rc, out = 124, "timed out after %d s\n" % args.timeout + partial
    return rc, out, round(time.time() - t0, 1)


ALLOW_FALLBACK = False  # --allow-fallback


def not_fused(planned_items):
    """The NVRTC attention ops the compiler expanded into generic kernels
    instead of running them on the fused kernels (reasons)."""
    return [r for op, b, r in planned_items
            if b == "nvrtc" and op in ("tg.attention", "tg.attention_grad", "tg.sdpa", "tg.sdpa_grad", "?")
            and to.nvrtc_kernel(r) == "expanded"]


def result(name, rc, out, seconds, planned, planned_items, kind, compile_only=False, expect_fused=False,
           repeat=False):
    steps = to.step_lines(out)
    cks = to.checks(out)
    ok = rc == 0 and (compile_only or (bool(cks) and all(c["ok"] for c in cks)))
    # A plan says what will run: a step planned on cuDNN that ran its NVRTC
    # fallback fails the configuration (unless --allow-fallback).
    fell_back = [l for l in steps if to.step_backend(l) == "nvrtc (fallback)"]
    if fell_back and not ALLOW_FALLBACK and not compile_only:
        ok = False
        out += "\nFAIL: planned on cuDNN, ran NVRTC:\n  " + "\n  ".join(fell_back) + "\n"
    if repeat and not compile_only and ok and not re.search(r"^repeat: PASS", out, re.M):
        # --deterministic rows: tg-run --repeat must report identical outputs.
        ok = False
        out = "expected a 'repeat: PASS' line from tg-run --repeat\n" + out
    expanded = not_fused(planned_items) if expect_fused and kind in ("bwd", "train") else []
    if expanded:
        # --expect-fused: a correct result from the expansion does not count.
        ok = False
        out = "expected the fused kernels, the compiler expanded: " + "; ".join(expanded) + "\n" + out
    return dict(name=name, kind=kind, ok=ok, rc=rc, seconds=seconds, planned=planned,
                planned_ops=[list(i) for i in planned_items], ran=to.ran_summary(steps), steps=steps,
                cudnn=to.cudnn_version(out), checks=cks, worst=to.worst(cks),
                why_not_cudnn=to.why_not_cudnn(planned_items, steps),
                log=out[-3000:] if not ok else "")


def seed_of(name):
    # Stable across runs (Python's hash() is salted per process).
    return sum((i + 1) * ord(ch) for i, ch in enumerate(name)) % 1000


def graph_text(c):
    if c["kind"] == "fp8":
        return fg.graph_text(c)
    if c["kind"].startswith("gather_"):
        return gg.graph_text(c)
    if "ragged" in c:
        return rg.graph_text(c)
    if "paged" in c:
        return pg.graph_text(c)
    return mg.graph_text(c) if c["kind"].startswith("mask_") else ag.graph_text(c)


def run_config(c, args, workdir):
    path = os.path.join(workdir, c["name"] + ".mlir")
    with open(path, "w") as f:
        f.write(graph_text(c))
    det = ["--deterministic"] if c.get("deterministic") else []
    planned, items = explain(path, None, args, det)
    if args.compile_only:
        rc = 1 if planned.startswith("compile error") or planned == "tg-compile timed out" else 0
        return result(c["name"], rc, planned, 0.0, planned, items, c["kind"], compile_only=True,
                      expect_fused=args.expect_fused)
    seed = seed_of(c["name"])
    # Inputs with values of their own (additive masks); the rest are random.
    extra = mg.write_inputs(c, workdir) if "mask" in c else []
    if "gather" in c:
        extra = gg.write_inputs(c, workdir)
    if "ragged" in c:
        extra = rg.write_inputs(c, workdir)
    if "paged" in c:
        extra = pg.write_inputs(c, workdir)
    if c["kind"] == "fp8":
        extra = fg.write_inputs(c, workdir)
    if c["kind"] == "bwd":
        # Every input of the reference training forward (q, k, v and the
        # options' inputs) and its o and stats; do stays random.
        fwd = os.path.join(workdir, c["name"] + "_fwd.mlir")
        data = os.path.join(workdir, c["name"] + "_data")
        with open(fwd, "w") as f:
            f.write(ag.sdpa_graph(dict(c, training=True)))
        rc, out, _ = tg_run([os.path.join(args.bin, "tg-run"), fwd, "--ref", "--seed=%d" % seed,
                             "--save-inputs=" + data, "--output-dir=" + data] + extra, args)
        if rc != 0:
            return result(c["name"], rc, "reference forward failed:\n" + out, 0.0, planned, items, c["kind"])
        extra = ["--input=%s=%s" % (f[:-4], os.path.join(data, f)) for f in sorted(os.listdir(data))
                 if f.endswith(".npy")]
    if det:
        extra += det + ["--repeat=4"]
    cmd = [os.path.join(args.bin, "tg-run"), path, "--check", "--seed=%d" % seed] + backend_flags(args) + extra
    if args.sanitizer:
        # compute-sanitizer memcheck: any out-of-bounds access fails the run.
        cmd = [args.sanitizer, "--tool", "memcheck", "--error-exitcode", "97"] + cmd
    rc, out, seconds = tg_run(cmd, args)
    r = result(c["name"], rc, out, seconds, planned, items, c["kind"], expect_fused=args.expect_fused,
               repeat=bool(det))
    if c["kind"] == "fp8" and args.backend == "nvrtc" and not c.get("expanded") and r["ok"]:
        # FP8 rows the fused kernel takes must run on it.
        expanded = not_fused(items)
        if expanded:
            r["ok"] = False
            r["log"] = "expected the fused FP8 kernel, the compiler expanded: " + "; ".join(expanded)
    known = c.get("known_cudnn_difference")
    if known and not r["ok"] and r["ran"].startswith("cudnn") and r["checks"] and rc in (0, 1):
        # A measured, documented difference of cuDNN's: reported as such,
        # not as a pass and not as a regression.
        r["known"] = known
    return r


def run_graph(g, args):
    planned, items = explain(g["file"], g["entry"], args)
    if args.compile_only:
        rc = 1 if planned.startswith("compile error") or planned == "tg-compile timed out" else 0
        return result(g["name"], rc, planned, 0.0, planned, items, "graph", compile_only=True)
    cmd = [os.path.join(args.bin, "tg-run"), g["file"], "--entry=" + g["entry"], "--check", "--seed=3"] + backend_flags(args)
    rc, out, seconds = tg_run(cmd, args)
    return result(g["name"], rc, out, seconds, planned, items, "graph")


def verdict(r):
    return "PASS" if r["ok"] else ("KNOWN" if r.get("known") else "FAIL")


def summary_rows(results):
    """(kind, ran, passed, failed) counts; a known difference counts as
    neither (it is listed on its own)."""
    table = {}
    for r in results:
        key = (r["kind"], r["ran"])
        p, f = table.get(key, (0, 0))
        table[key] = (p + r["ok"], f + (not r["ok"] and not r.get("known")))
    return [(k[0], k[1], v[0], v[1]) for k, v in sorted(table.items())]


def write_markdown(path, title, meta, results):
    lines = ["# " + title, ""]
    lines += ["- %s: %s" % (k, v) for k, v in meta.items()]
    lines += ["", "| kind | ran | passed | failed |", "|---|---|---|---|"]
    lines += ["| %s | %s | %d | %d |" % row for row in summary_rows(results)]
    lines += ["", "| configuration | result | planned (tg-compile) | ran (runtime steps) | max abs error | s "
              "| why not cuDNN |", "|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append("| %s | %s | %s | %s | %s | %.1f | %s |" % (
            r["name"], verdict(r) + (" (%s)" % r["known"] if r.get("known") else ""), r["planned"].replace("|", "/"), r["ran"], r["worst"] or "-",
            r["seconds"], r["why_not_cudnn"].replace("|", "/")[:300]))
    fails = [r for r in results if not r["ok"] and not r.get("known")]
    if fails:
        lines += ["", "## Failures", ""]
        for r in fails:
            lines += ["### " + r["name"], "", "```", r["log"].strip()[-1500:], "```", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--out", default=os.environ.get("OUT", "."))
    ap.add_argument("--jobs", type=int, default=12)
    ap.add_argument("--backend", choices=["nvrtc", "cudnn", "auto"],
                    help="tg-run --backend and TGC_BACKEND (default: neither set)")
    ap.add_argument("--runtime-backend", choices=["same", "nvrtc", "cudnn", "auto"], default="same",
                    help="TGC_BACKEND when it should differ from --backend (auto: a cuDNN step cuDNN "
                         "rejects at run time falls back to NVRTC instead of failing)")
    ap.add_argument("--cudnn-lib", default="", help="TGC_CUDNN_LIBRARY: the libcudnn.so.9 file to load")
    ap.add_argument("--set", dest="which", choices=["fwd", "bwd", "fused", "masks", "all", "bias-probe", "gather", "ragged", "paged",
                                                "fp8"],
                    default="all", help="grid mode: forward, backward, additive masks (mask_graphs.py) or all "
                    "of them; fused: the backward configurations plus every option of the fused NVRTC "
                    "backward; bias-probe: which bias forms cuDNN takes; gather: tables read at computed "
                    "indices (gather_graphs.py, not part of all); fp8: FP8 attention (fp8_graphs.py)")
    ap.add_argument("--sanitizer", default="", help="run each tg-run under this compute-sanitizer "
                    "(memcheck; a reported error fails the configuration)")
    ap.add_argument("--force-ptx", action="store_true")
    ap.add_argument("--quick", action="store_true", help="grid mode: leave out S >= 1000")
    ap.add_argument("--expect-fused", action="store_true",
                    help="bwd/train rows fail when an NVRTC attention op was expanded into generic "
                         "kernels instead of running on the fused kernels (with --backend nvrtc)")
    ap.add_argument("--only", default="", help="configurations whose name contains one of these (comma list)")
    ap.add_argument("--timeout", type=int, default=400, help="seconds per tg-run")
    ap.add_argument("--arch", default="sm_90a", help="for tg-compile --explain-backend")
    ap.add_argument("--graphs", action="store_true",
                    help="run every function of the example and test graphs instead of the grid")
    ap.add_argument("--tag", default="", help="output file names: suite_<tag>.json/.md")
    ap.add_argument("--no-explain", action="store_true", help="skip tg-compile --explain-backend")
    ap.add_argument("--allow-fallback", action="store_true",
                    help="a cuDNN step that ran its NVRTC fallback passes (default: it fails the "
                         "configuration: the plan must say what runs)")
    ap.add_argument("--compile-only", action="store_true", help="no GPU: tg-compile each graph, report the plan")
    ap.add_argument("--emit-graphs", metavar="DIR", help="write the grid's graphs to DIR and exit")
    ap.add_argument("--list", action="store_true", help="print the selected names and exit")
    args = ap.parse_args()
    global ALLOW_FALLBACK
    ALLOW_FALLBACK = args.allow_fallback

    if not args.no_explain and not os.path.exists(os.path.join(args.bin, "tg-compile")):
        if args.compile_only:
            sys.exit("suite.py: --compile-only needs %s/tg-compile" % args.bin)
        print("note: no %s/tg-compile: the planned column stays empty" % args.bin, flush=True)
        args.no_explain = True
    only = args.only.split(",")
    if args.graphs:
        items = [g for g in graph_entries(ROOT) if any(o in g["name"] for o in only)]
    else:
        items = [c for c in configs(args.which, args.quick) if any(o in c["name"] for o in only)]
    if args.list:
        print("\n".join(i["name"] for i in items))
        return
    if args.emit_graphs:
        os.makedirs(args.emit_graphs, exist_ok=True)
        for c in items:
            with open(os.path.join(args.emit_graphs, c["name"] + ".mlir"), "w") as f:
                f.write(graph_text(c))
        print("wrote %d graphs to %s" % (len(items), args.emit_graphs))
        return

    mode = "graphs" if args.graphs else "grid " + args.which
    backend = args.backend or "default"
    tag = args.tag or "_".join(filter(None, ["graphs" if args.graphs else "", backend,
                                             "ptx" if args.force_ptx else "",
                                             "compile" if args.compile_only else ""]))
    if args.runtime_backend != "same":
        backend += " (runtime %s)" % args.runtime_backend
    label = "%s, backend %s%s%s%s" % (mode, backend, ", cuDNN " + args.cudnn_lib if args.cudnn_lib else "",
                                      ", forced PTX" if args.force_ptx else "",
                                      ", compile only" if args.compile_only else "")
    print("tgc GPU suite (%s): %d %s" % (label, len(items), "functions" if args.graphs else "configurations"),
          flush=True)
    t0 = time.time()
    workdir = tempfile.mkdtemp(prefix="tgc-suite-")
    fn = (lambda g: run_graph(g, args)) if args.graphs else (lambda c: run_config(c, args, workdir))
    results = []
    width = max([len(i["name"]) for i in items] + [10])
    with ThreadPoolExecutor(args.jobs) as pool:
        for r in pool.map(fn, items):
            results.append(r)
            print("%-*s %s %6.1fs  planned: %-30s ran: %-18s %s" % (
                width, r["name"], verdict(r), r["seconds"], r["planned"][:60], r["ran"],
                r["worst"]), flush=True)
            if r["steps"]:
                print("    " + "\n    ".join(r["steps"]), flush=True)
            if r.get("known"):
                print("    known difference: " + r["known"], flush=True)
            elif not r["ok"]:
                print(r["log"], flush=True)
    passed = sum(r["ok"] for r in results)
    known = sum(bool(r.get("known")) for r in results)
    failed = len(results) - passed - known
    versions = sorted({r["cudnn"] for r in results if r["cudnn"]})
    print("\nsummary (%s): %d passed, %d failed, %d known differences, %.0f s"
          % (label, passed, failed, known, time.time() - t0))
    print("%-6s %-32s %7s %7s" % ("kind", "ran", "passed", "failed"))
    for row in summary_rows(results):
        print("%-6s %-32s %7d %7d" % row)
    if versions:
        print("cuDNN loaded by the runtime: " + "; ".join(versions))
    meta = dict(mode=mode, backend=backend, cudnn_library=args.cudnn_lib or "(default)",
                cudnn_loaded="; ".join(versions) or "(not reported)", force_ptx=args.force_ptx,
                compile_only=args.compile_only, passed=passed, failed=failed, known_differences=known,
                seconds=round(time.time() - t0, 1), commit=os.environ.get("TGC_COMMIT", "unknown"))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "suite_%s.json" % tag), "w") as f:
        json.dump(dict(meta, results=results, configs=[] if args.graphs else items), f, indent=1)
    write_markdown(os.path.join(args.out, "suite_%s.md" % tag), "tgc GPU suite: " + label, meta, results)
    sys.exit(0 if failed == 0 else 1)


if __name__ == "__main__":
    main()
