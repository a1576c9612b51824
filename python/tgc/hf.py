"""HF transformers integration: `tgc.hf.register()` makes
`attn_implementation="tgc"` available to every model that uses transformers'
attention interface (transformers >= 4.48; masks through
AttentionMaskInterface from 4.53; both of sdpa_mask's signatures, 4.5x's
cache_position and 5.x's q_length/q_offset), e.g.

    import tgc.hf
    tgc.hf.register()
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation="tgc")

What each model passes is mapped onto tgc.torch.attention:
  - GQA (Llama, Mistral, Gemma-2): key/value keep their kv heads (enable_gqa);
  - causal: without a materialised mask, the module's is_causal (bottom-right
    aligned when a cache makes Sq < Skv, as FlashAttention does);
  - sliding_window (Mistral, Gemma-2): keeps kv > q - window, i.e. the lifted
    window_left = window - 1 on top of causal;
  - softcap (Gemma-2): score_mod softcap * tanh(score / softcap);
  - padding (GPT-2, BERT, any model given an attention_mask): the boolean
    [B, 1, Sq, Skv] mask transformers builds, as attn_mask;
  - scaling, dropout: scale, dropout_p.
The "tgc" mask function returns no mask when the pattern is plain causal,
causal + sliding window or full attention without padding (so the kernels
skip whole tiles), and transformers' sdpa boolean mask otherwise."""
import functools
import warnings

import torch

from . import masks as M
from . import trace as T
from .torch import attention
from .torch.front import _assume_constant

_warned = set()


def _warn_once(msg):
    if msg not in _warned:
        _warned.add(msg)
        warnings.warn(msg, stacklevel=3)


# The score_mod/mask_mod a model's options give, one object per option value (a
# stable cache key). Marked as constants for torch.compile: Dynamo calls them
# when it traces and passes the callables they return on to tgc untouched.
_MODS = {}


def _memo(key, make):
    fn = _MODS.get(key)
    if fn is None:
        fn = _MODS.setdefault(key, make())
    return fn


@_assume_constant
def _softcap(cap):
    cap = float(cap)
    return _memo(("softcap", cap), lambda: lambda score, b, h, q_idx, kv_idx: cap * torch.tanh(score / cap))


@_assume_constant
def _causal(offset, window):
    """kv <= q + offset (bottom-right causal when offset = Skv - Sq), and with a
    window also kv > q + offset - window (transformers' sliding_window_overlay)."""
    if window is None:
        return _memo(("causal", offset), lambda: lambda b, h, q_idx, kv_idx: kv_idx <= q_idx + offset)
    return _memo(("causal", offset, window), lambda: lambda b, h, q_idx, kv_idx:
                 (kv_idx <= q_idx + offset) & (kv_idx > q_idx + offset - window))


@_assume_constant
def _window(window):
    return _memo(("window", window), lambda: lambda b, h, q_idx, kv_idx: (kv_idx - q_idx).abs() < window)


def attention_forward(module, query, key, value, attention_mask, dropout=0.0, scaling=None, sliding_window=None,
                      softcap=None, is_causal=None, backend="auto", **kwargs):
    """transformers' attention-function signature: query [B, Hq, Sq, D], key/value
    [B, Hkv, Skv, D]; returns (attn_output [B, Sq, Hq, Dv], None)."""
    if kwargs.get("output_attentions", False):
        _warn_once("tgc attention does not return attention weights (output_attentions=True); they are None")
    sq, skv = query.shape[2], key.shape[2]
    score_mod = _softcap(softcap) if softcap else None
    mask_mod, attn_mask, causal = None, None, False
    if sliding_window is not None and sliding_window <= 0:
        sliding_window = None
    if attention_mask is not None and not isinstance(attention_mask, torch.Tensor):
        raise TypeError("tgc attention got an attention_mask of type %s; expected a tensor or None (is the 'tgc' "
                        "mask function registered? tgc.hf.register() does it)" % type(attention_mask).__name__)
    if attention_mask is None:
        if is_causal is None:
            is_causal = getattr(module, "is_causal", True)
        if is_causal:
            mask_mod = _causal(skv - sq, sliding_window)
        elif sliding_window is not None:
            mask_mod = _window(sliding_window)
    else:
        m = attention_mask
        if m.dim() == 4 and m.shape[-1] != skv:
            m = m[:, :, :, :skv]
        if m.dim() == 2:
            # A 2-D padding mask (1 = token): combine with the module's causality.
            m = m.bool()[:, None, None, :]
            if is_causal is None:
                is_causal = getattr(module, "is_causal", True)
            if is_causal:
                mask_mod = _causal(skv - sq, sliding_window)
        attn_mask = m
    out = attention(query, key, value, attn_mask=attn_mask, scale=scaling, dropout_p=dropout,
                    enable_gqa=query.shape[1] != key.shape[1], score_mod=score_mod, mask_mod=mask_mod,
                    backend=backend)
    return out.transpose(1, 2).contiguous(), None


def _is_attribute_pattern(mask_function, q_len, kv_len):
    """Whether transformers' mask_function is exactly causal, causal + a left
    window, or everything (no padding): then no mask needs materialising."""
    try:
        tr = T.trace_mask_mod(mask_function)
    except Exception:
        return False
    factors = M.split_factors(tr.root)
    lifted = M.lift(factors, tr.captures, q_len, kv_len, 1)
    if lifted.rest or lifted.seq_len_q is not None or lifted.seq_len_kv is not None:
        return False
    if lifted.window_right is not None or lifted.causal == "bottom_right":
        return False
    return True


@functools.lru_cache(maxsize=None)
def _takes_q_length(sdpa_mask):
    """Whether transformers' sdpa_mask has the 5.x signature (q_length, q_offset)
    rather than 4.5x's (cache_position)."""
    import inspect
    return "q_length" in inspect.signature(sdpa_mask).parameters


def mask_function(batch_size, q_length=None, kv_length=None, q_offset=0, kv_offset=0, mask_function=None,
                  attention_mask=None, allow_is_causal_skip=True, cache_position=None, **kwargs):
    """transformers' mask-interface function (AttentionMaskInterface), called with
    keywords: sdpa_mask's arguments of transformers 5.x (q_length, q_offset) or of
    4.5x (cache_position). No mask (None) where the pattern is an attribute mask;
    else transformers' sdpa_mask, given the arguments its version takes."""
    from transformers.masking_utils import sdpa_mask
    if q_length is None:
        if cache_position is None:
            raise TypeError("the tgc mask function needs q_length (transformers 5) or cache_position (4.5x)")
        q_length = cache_position.shape[0]
    if kv_length is None:
        raise TypeError("the tgc mask function needs kv_length")
    if (allow_is_causal_skip and attention_mask is None and q_offset == 0 and kv_offset == 0
            and q_length == kv_length and mask_function is not None
            and _is_attribute_pattern(mask_function, q_length, kv_length)):
        return None
    args = dict(batch_size=batch_size, kv_length=kv_length, kv_offset=kv_offset, attention_mask=attention_mask,
                allow_is_causal_skip=False, **kwargs)
    if mask_function is not None:
        args["mask_function"] = mask_function
    if _takes_q_length(sdpa_mask):
        args.update(q_length=q_length, q_offset=q_offset)
    else:
        if cache_position is None:
            cache_position = torch.arange(q_offset, q_offset + q_length, device=kwargs.get("device", "cpu"))
        args["cache_position"] = cache_position
    return sdpa_mask(**args)


def register(name="tgc", backend="auto"):
    """Registers `name` in transformers' AttentionInterface (and its mask function
    in AttentionMaskInterface where transformers has it). Returns name."""
    try:
        from transformers import AttentionInterface
    except ImportError as ex:
        raise ImportError("tgc.hf.register() needs transformers >= 4.48 (AttentionInterface): %s" % ex) from None
    fn = attention_forward if backend == "auto" else functools.partial(attention_forward, backend=backend)
    AttentionInterface.register(name, fn)
    try:
        from transformers.masking_utils import AttentionMaskInterface
    except ImportError:
        _warn_once("this transformers has no AttentionMaskInterface: models pass their own masks to tgc")
    else:
        AttentionMaskInterface.register(name, mask_function)
    return name
