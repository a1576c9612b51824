"""Parsing what tg-run and tg-compile print, defensively: formats may grow,
and a line we do not understand is kept verbatim rather than dropped."""
import re

_CHECK = re.compile(r"check (\S+): (PASS|FAIL) max_abs (\S+) max_rel (\S+) mismatches (\d+)/(\d+)")
_STEP = re.compile(r"step\s+(\d+)\s*:\s*([A-Za-z0-9_]+)")
_REMARK = re.compile(r"remark: backend (\w+): (.*)")
_OP = re.compile(r"=\s*\"?(tg\.\w+)")
_CUDNN_VERSION = re.compile(r"(?:loaded )?cuDNN (\d+\.\d+\.\d+)(?: from (\S+))?")


def checks(text):
    """[{output, ok, max_abs, max_rel, mismatches, elements}] from `check` lines."""
    out = []
    for line in text.splitlines():
        m = _CHECK.search(line)
        if m and line.startswith("check "):
            out.append(dict(output=m.group(1), ok=m.group(2) == "PASS", max_abs=float(m.group(3)),
                            max_rel=float(m.group(4)), mismatches=int(m.group(5)), elements=int(m.group(6))))
    return out


_LOG_STEP = re.compile(r"\[tgc (info|debug)\] step (\d+) \(cudnn\): (.*)")


def step_lines(text):
    """Every line starting with "step " (tg-run's per-step backend). When
    tg-run prints none, the same facts for cuDNN steps from the runtime's
    log (TGC_LOG=debug): "step N (cudnn): cudnn: graph ..." at info level,
    "step N (cudnn): running the NVRTC fallback: why" at debug level."""
    lines = [l.strip() for l in text.splitlines() if l.startswith("step ")]
    if lines:
        return lines
    for l in text.splitlines():
        m = _LOG_STEP.search(l)
        if not m:
            continue
        message = m.group(3)
        if message.startswith("running the NVRTC fallback:"):
            message = "nvrtc: fallback: " + message.split(":", 1)[1].strip()
        elif not message.startswith("cudnn"):
            continue
        lines.append("step %s: %s" % (m.group(2), message))
    return lines


def step_backend(line):
    """"cudnn", "nvrtc", "nvrtc (fallback)" or the raw word after "step N:".

    Expected forms: "step 0: cudnn: graph 'g' engine 7 (...)",
    "step 1: nvrtc: kernel 'k' (sm_90), fallback: <why not cuDNN>"."""
    m = _STEP.match(line)
    if not m:
        return "?"
    backend = m.group(2).lower()
    if backend != "cudnn" and "fallback" in line.lower():
        return "nvrtc (fallback)"
    return backend


def ran_summary(lines):
    """A short description of the backends of all steps, e.g. "cudnn",
    "cudnn x2 + nvrtc", "nvrtc (fallback)"; "-" when tg-run printed none."""
    kinds = ("cudnn", "nvrtc (fallback)", "nvrtc")
    counts = {}
    for l in lines:
        b = step_backend(l)
        if b in ("memset", "copy"):  # data movement, no backend
            continue
        counts[b] = counts.get(b, 0) + 1
    if not counts:
        return "-"
    order = sorted(counts, key=lambda b: kinds.index(b) if b in kinds else 9)
    return " + ".join(b if counts[b] == 1 else "%s x%d" % (b, counts[b]) for b in order)


def planned(text):
    """[(op, backend, reason)] from `tg-compile --explain-backend` remarks;
    op is the tg op named in the note that follows a remark ("?" if none)."""
    out = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _REMARK.search(line)
        if not m:
            continue
        op = "?"
        for j in range(i + 1, min(i + 8, len(lines))):
            if _REMARK.search(lines[j]):
                break
            if "see current operation:" in lines[j]:
                current = lines[j].split("see current operation:", 1)[1]
                if not current.strip() and j + 1 < len(lines):
                    current = lines[j + 1]
                o = _OP.search(current)
                op = o.group(1) if o else "?"
                break
        out.append((op, m.group(1), m.group(2).strip()))
    return out


def nvrtc_kernel(reason):
    """"fused" or "expanded" for an NVRTC attention op (tg-select-backend
    ends its reason with "; fused kernel" or "; expanded into generic
    kernels (why)"), else ""."""
    if reason.endswith("; fused kernel"):
        return "fused"
    if "; expanded into generic kernels" in reason:
        return "expanded"
    return ""


def planned_summary(items):
    """e.g. "attention:cudnn", "attention_grad:nvrtc(fused)" or
    "matmul:nvrtc x6, reduce:nvrtc x2"; "-" if none."""
    if not items:
        return "-"
    counts = {}
    for op, backend, reason in items:
        kernel = nvrtc_kernel(reason) if backend == "nvrtc" else ""
        key = "%s:%s%s" % (op.replace("tg.", ""), backend, "(%s)" % kernel if kernel else "")
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(k if n == 1 else "%s x%d" % (k, n) for k, n in counts.items())


def cudnn_version(text):
    """"9.19.0 (/path)" from the runtime's info log line, else ""."""
    for line in text.splitlines():
        if "cuDNN" in line and "loaded" in line:
            m = _CUDNN_VERSION.search(line)
            if m:
                return m.group(1) + (" (%s)" % m.group(2) if m.group(2) else "")
    return ""


def worst(check_list):
    """"o 3.9e-03, dq 1.6e-02" (max abs error per output)."""
    return ", ".join("%s %.1e%s" % (c["output"], c["max_abs"], "" if c["ok"] else " FAIL") for c in check_list)


def why_not_cudnn(planned_items, steps):
    """Why ops did not run on cuDNN: the compiler's reasons for ops it gave
    to NVRTC (other than being asked to) and the runtime's fallback reasons."""
    reasons = []
    for _, backend, reason in planned_items:
        if backend != "cudnn" and not reason.startswith("requested"):
            reasons.append(reason)
    for line in steps:
        if "fallback:" in line:
            reasons.append("run time: " + line.split("fallback:", 1)[1].strip())
    unique = []
    for r in reasons:
        if r not in unique:
            unique.append(r)
    return "; ".join(unique)
