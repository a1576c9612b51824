// tgc device library: what FP8 attention adds to the sm_90a forward
// (tg.attention with e4m3 or e5m2 q, k and v and fp8_scales; docs/dialect.md
// "FP8 attention" has the definition and where the tiled kernel rounds
// differently): the scales S, P and O take, and the epilogue's amax
// results. V^T, which the forward's P V reads, comes from
// attention_fp8_prepare.cuh.
#pragma once
#include "attention_fwd_common.cuh"
#include "attention_fwd_epilogue.cuh"

namespace tg::device {

/// S's extra scale (descale_q * descale_k), P's scale before rounding
/// (scale_s) and the epilogue's scales and amax results; 1 and null for
/// 16-bit kernels.
template <class K>
__device__ __forceinline__ float fp8_score_descale(const ForwardParams &p) {
  if constexpr (K::kFp8)
    return *p.descale_q * *p.descale_k;
  else
    return 1.0f;
}
template <class K>
__device__ __forceinline__ float fp8_p_scale(const ForwardParams &p) {
  if constexpr (K::kFp8)
    return *p.scale_s;
  else
    return 1.0f;
}
template <class K>
__device__ __forceinline__ Fp8Epilogue fp8_epilogue(const ForwardParams &p) {
  if constexpr (K::kFp8)
    return Fp8Epilogue{*p.descale_s * *p.descale_v, *p.scale_o, fp8_score_descale<K>(p), p.amax_s, p.amax_o};
  else
    return Fp8Epilogue{};
}

} // namespace tg::device
