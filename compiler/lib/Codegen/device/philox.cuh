// ---------------------------------------------------------------------------
// Dropout: Philox 4x32-10 and the tg.dropout keep-bit mapping
// ---------------------------------------------------------------------------
// tgc device library. At global scope: the forward kernel (AttentionKernel.cpp)
// embeds this text as it is. The host copy is runtime/include/tgc/Philox.h;
// tgc-codegen-tests compiles this file on the host against it.
#pragma once

// The element at linear index i of [B, Hq, Sq, Skv] is kept iff word i % 4 of
// Philox4x32-10(key = (lo(seed), hi(seed)),
//               counter = (lo(i / 4), hi(i / 4), lo(offset), hi(offset)))
// is >= floor(p * 2^32); the CPU reference uses the same mapping.
struct PhiloxKey { unsigned k0, k1; };
struct PhiloxWords { unsigned w0, w1, w2, w3; };

__device__ __forceinline__ PhiloxWords philox4x32_10(unsigned c0, unsigned c1, unsigned c2,
                                                     unsigned c3, PhiloxKey key) {
  constexpr unsigned kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;  // round multipliers
  constexpr unsigned kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;  // Weyl key increments
  unsigned k0 = key.k0, k1 = key.k1;
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    const unsigned hi0 = __umulhi(kMul0, c0), lo0 = kMul0 * c0;
    const unsigned hi1 = __umulhi(kMul1, c2), lo1 = kMul1 * c2;
    const unsigned n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += kBump0; k1 += kBump1;
  }
  return {c0, c1, c2, c3};
}

__device__ __forceinline__ unsigned philox_word(const PhiloxWords &w, unsigned index) {
  return index == 0 ? w.w0 : index == 1 ? w.w1 : index == 2 ? w.w2 : w.w3;
}

// Keep bits of the two consecutive elements at linear indices i and i + 1.
__device__ __forceinline__ void dropout_keep_pair(unsigned long long i, PhiloxKey key,
                                                  unsigned long long offset, unsigned threshold,
                                                  bool &keep0, bool &keep1) {
  const unsigned long long group = i >> 2;
  const unsigned lane_in_group = static_cast<unsigned>(i & 3);
  const unsigned off_lo = static_cast<unsigned>(offset), off_hi = static_cast<unsigned>(offset >> 32);
  const PhiloxWords w = philox4x32_10(static_cast<unsigned>(group), static_cast<unsigned>(group >> 32),
                                      off_lo, off_hi, key);
  keep0 = philox_word(w, lane_in_group) >= threshold;
  if (lane_in_group != 3) {
    keep1 = philox_word(w, lane_in_group + 1) >= threshold;
  } else {  // i + 1 starts the next group of four
    const unsigned long long next = group + 1;
    const PhiloxWords w2 = philox4x32_10(static_cast<unsigned>(next), static_cast<unsigned>(next >> 32),
                                         off_lo, off_hi, key);
    keep1 = w2.w0 >= threshold;
  }
}

// Keep bits of the 32 consecutive elements at linear indices [i, i + 32):
// bit j is element i + j. Those span 8 Philox groups of four, or 9 when i is
// not a multiple of 4.
__device__ __forceinline__ unsigned dropout_keep_bits32(unsigned long long i, PhiloxKey key,
                                                        unsigned long long offset, unsigned threshold) {
  const unsigned long long first = i >> 2;
  const int shift = static_cast<int>(i & 3);  // position of element i in its group
  const unsigned off_lo = static_cast<unsigned>(offset), off_hi = static_cast<unsigned>(offset >> 32);
  unsigned bits = 0;
#pragma unroll
  for (int g = 0; g < 9; ++g) {
    if (g < 8 || shift != 0) {
      const unsigned long long group = first + g;
      const PhiloxWords w = philox4x32_10(static_cast<unsigned>(group), static_cast<unsigned>(group >> 32),
                                          off_lo, off_hi, key);
      const unsigned words[4] = {w.w0, w.w1, w.w2, w.w3};
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int bit = 4 * g + e - shift;  // element 4 * group + e is element i + bit
        if (bit >= 0 && bit < 32 && words[e] >= threshold) bits |= 1u << bit;
      }
    }
  }
  return bits;
}
