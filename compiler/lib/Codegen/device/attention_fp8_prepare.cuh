// tgc device library: the kernel that prepares V for FP8 attention's P V.
//
// The fp8 wgmma reads both of its shared-memory operands K-major, so P V
// needs V transposed: prepare_v_fp8 writes V^T, [B * Hkv][Dv][pitch bytes]
// with zeros past each sequence's last key, once per call, and the forward
// (attention_fwd.cuh) copies V^T tiles as it copies K tiles. Its keys are
// stored in the order of the register A operand's k slots
// (attention_fwd_wgmma.cuh: pack_probabilities), so that P never moves
// between threads. A portable kernel: it needs no sm_90a instruction.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// The key (0-15) of k slot `slot` of a 16-key group of P V's A operand:
/// thread t of a quad holds keys 2t, 2t + 1, 2t + 8, 2t + 9 of its row's
/// accumulators and puts them in slots 4t .. 4t + 3.
__host__ __device__ constexpr int fp8_key_of_slot(int slot) {
  return 2 * (slot / 4) + (slot % 2) + 8 * ((slot % 4) / 2);
}

/// V [B, Hkv, Skv, kDv] fp8 (strides in bytes, rows 16-byte aligned) ->
/// v_t [B * Hkv][kDv][pitch]: byte 16 g + s of row d is V[16 g +
/// fp8_key_of_slot(s)][d]; keys at or past the sequence's length
/// (seq_lens_kv[b] when given, clamped to [0, Skv]) are 0, up to the pitch.
/// One CTA per (kPrepareKeys keys blockIdx.x, kv head blockIdx.y, batch
/// blockIdx.z), kThreads threads; the pitch is a multiple of kPrepareKeys.
template <int kDv, int kThreads, int kPrepareKeys>
__device__ __forceinline__ void prepare_v_fp8(const unsigned char *v, long long stride_b, long long stride_h,
                                              long long stride_s, const int *seq_lens_kv, long long seq_len_kv,
                                              unsigned char *v_t, long long pitch) {
  static_assert(kDv % 16 == 0 && kPrepareKeys % 16 == 0, "16-byte rows and key groups");
  constexpr int kPitch = kDv + 16;  // (staged rows: 16-byte aligned, banks spread)
  __shared__ __align__(16) unsigned char tile[kPrepareKeys][kPitch];
  const long long b = blockIdx.z, h = blockIdx.y;
  const int key0 = blockIdx.x * kPrepareKeys;
  int len = static_cast<int>(seq_len_kv);
  if (seq_lens_kv != nullptr) len = imax(0, imin(seq_lens_kv[b], len));
  const unsigned char *head = v + b * stride_b + h * stride_h;
  constexpr int kChunks = kPrepareKeys * kDv / 16;
  for (int c = threadIdx.x; c < kChunks; c += kThreads) {
    const int key = c / (kDv / 16), col = (c % (kDv / 16)) * 16;
    uint4 value = {0u, 0u, 0u, 0u};
    if (key0 + key < len) value = *reinterpret_cast<const uint4 *>(head + (key0 + key) * stride_s + col);
    *reinterpret_cast<uint4 *>(&tile[key][col]) = value;
  }
  __syncthreads();
  unsigned char *out = v_t + (b * gridDim.y + h) * kDv * pitch + key0;
  // 16 bytes per (dim, 16-key group): the group's keys in slot order.
  for (int c = threadIdx.x; c < kDv * (kPrepareKeys / 16); c += kThreads) {
    const int d = c / (kPrepareKeys / 16), group = c % (kPrepareKeys / 16);
    unsigned words[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      words[w] = 0;
#pragma unroll
      for (int i = 0; i < 4; ++i)
        words[w] |= static_cast<unsigned>(tile[16 * group + fp8_key_of_slot(4 * w + i)][d]) << (8 * i);
    }
    *reinterpret_cast<uint4 *>(out + d * pitch + 16 * group) = uint4{words[0], words[1], words[2], words[3]};
  }
}

} // namespace tg::device
