"""Attention for PyTorch compiled by tgc: `attention(q, k, v, ...)` with torch
SDPA's arguments plus FlexAttention's score_mod / mask_mod (docs/python.md)."""
from .front import attention, cache_info, clear_cache, graphs  # noqa: F401
