"""From traced callables and SDPA-style options to one score region.

Order of the score pipeline (what `tgc.torch.attention` computes):
  s = scale * q . k^T  ->  score_mod(s, b, h, q_idx, kv_idx)  ->  + float attn_mask
  -> masks (bool attn_mask, mask_mod, where(.., -inf) at the end of score_mod)
Masks that are bands or padding become attributes (masks.lift); the rest are
selects to -inf at the end of the region."""
from . import expr as E
from . import masks as M


def remap(node, mapping, memo=None):
    """node with capture indices renumbered (mapping: old index -> new node)."""
    if memo is None:
        memo = {}
    k = node.key()
    if k in memo:
        return memo[k]
    if node.op in ("capture", "table"):
        out = mapping[node.value]
    elif not node.args:
        out = node
    else:
        args = tuple(remap(a, mapping, memo) for a in node.args)
        out = E.Node(node.op, args, node.type, node.value) if args != node.args else node
    memo[k] = out
    return out


def _capture_node(cap, index):
    """The region node of capture `cap` renumbered to `index`: its element, or
    the whole table (read by gather nodes)."""
    return E.Node("table" if getattr(cap, "table", False) else "capture", (), cap.dtype, index)


def used_captures(node, out=None, seen=None):
    if out is None:
        out, seen = [], set()
    k = node.key()
    if k in seen:
        return out
    seen.add(k)
    if node.op in ("capture", "table") and node.value not in out:
        out.append(node.value)
    for a in node.args:
        used_captures(a, out, seen)
    return out


class Region:
    """The assembled region: `root` (f32 node over captures 0..n-1), `captures`
    (list of trace.Capture-like objects, or ("attn_mask", ...) markers), the lifted
    masks, and seq_len capture objects."""

    def __init__(self, root, captures, lifted, seq_len_q, seq_len_kv):
        self.root, self.captures, self.lifted = root, captures, lifted
        self.seq_len_q, self.seq_len_kv = seq_len_q, seq_len_kv


def assemble(score_trace, mask_trace, attn_mask_capture, attn_mask_is_bool, shape_info, lift_masks=True):
    """score_trace / mask_trace: trace.Trace or None. attn_mask_capture: a capture
    object standing for the attn_mask tensor (or None). shape_info: (B, Sq, Skv)."""
    batch, sq, skv = shape_info
    captures = []
    score = E.Node("arg", (), "f32", "score")
    factors = []
    if score_trace is not None:
        base = len(captures)
        captures.extend(score_trace.captures)
        mapping = {c.index: _capture_node(c, base + i) for i, c in enumerate(score_trace.captures)}
        score, peeled = M.peel_where_masks(remap(score_trace.root, mapping))
        factors.extend(peeled)
    if attn_mask_capture is not None:
        idx = len(captures)
        captures.append(attn_mask_capture)
        elem = E.Node("capture", (), attn_mask_capture.dtype, idx)
        if attn_mask_is_bool:
            factors.append(elem)
        else:
            score = E.binary("add", score, E.cast(elem, "f32"))
    if mask_trace is not None:
        base = len(captures)
        captures.extend(mask_trace.captures)
        mapping = {c.index: _capture_node(c, base + i) for i, c in enumerate(mask_trace.captures)}
        factors.extend(M.split_factors(remap(mask_trace.root, mapping)))
    # Flatten conjunctions everywhere (a peeled where(a & b, ...) included).
    flat = []
    for f in factors:
        flat.extend(M.split_factors(f))
    if lift_masks:
        lifted = M.lift(flat, captures, sq, skv, batch)
    else:
        lifted = M.LiftedMasks()
        lifted.rest = flat
    ninf = E.const(E.NEG_INF, "f32")
    root = score
    for f in reversed(lifted.rest):
        root = E.select(f, root, ninf)
    # Keep only the captures the region still reads; renumber them.
    used = sorted(used_captures(root))
    mapping = {old: _capture_node(captures[old], new) for new, old in enumerate(used)}
    root = remap(root, mapping)
    region_captures = [captures[i] for i in used]
    slq = captures[lifted.seq_len_q] if lifted.seq_len_q is not None else None
    slkv = captures[lifted.seq_len_kv] if lifted.seq_len_kv is not None else None
    return Region(root, region_captures, lifted, slq, slkv)
