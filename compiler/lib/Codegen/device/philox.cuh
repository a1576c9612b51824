// ---------------------------------------------------------------------------
// Dropout: Philox 4x32-10 and the tg.dropout keep-bit mapping
// ---------------------------------------------------------------------------
// tgc's one Philox. The attention kernels paste it (DeviceLibrary.h), the
// generic kernels' helpers include it (elementwise.cuh),
// and the host reference (compiler/lib/Reference) and the unit tests include
// it as plain C++; so it has no includes, works at global scope, and every
// function is host and device code alike (TG_PHILOX_FN).
#pragma once
// A guard as well: a kernel with a score region pastes the generic prelude
// and the attention library into one translation unit, where the pragma
// above means nothing (the pasting drops it).
#ifndef TG_DEVICE_PHILOX_CUH
#define TG_DEVICE_PHILOX_CUH

#if defined(__CUDACC__)  // nvcc and NVRTC
#define TG_PHILOX_FN __host__ __device__ __forceinline__
#define TG_PHILOX_UNROLL _Pragma("unroll")
#else
#define TG_PHILOX_FN inline
#define TG_PHILOX_UNROLL
#endif

// The element at linear index i of a dropout tensor (for attention, of
// [B, Hq, Sq, Skv]) is kept iff word i % 4 of
//   Philox4x32-10(key     = (lo(seed), hi(seed)),
//                 counter = (lo(i / 4), hi(i / 4), lo(offset), hi(offset)))
// is >= dropout_threshold(p) = floor(p * 2^32); seed and offset are the bit
// patterns of the i64 operands. (Salmon et al., "Parallel random numbers: as
// easy as 1, 2, 3", SC'11; checked against Random123's known answers.)
struct PhiloxKey { unsigned k0, k1; };
struct PhiloxWords { unsigned w0, w1, w2, w3; };

TG_PHILOX_FN PhiloxWords philox4x32_10(unsigned c0, unsigned c1, unsigned c2, unsigned c3,
                                       PhiloxKey key) {
  const unsigned kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;   // round multipliers
  const unsigned kBump0 = 0x9E3779B9u, kBump1 = 0xBB67AE85u;  // Weyl key increments
  unsigned k0 = key.k0, k1 = key.k1;
  TG_PHILOX_UNROLL
  for (int round = 0; round < 10; ++round) {
    // One 32x32 -> 64-bit product gives both halves (mul.wide.u32 on the GPU).
    const unsigned long long p0 = static_cast<unsigned long long>(kMul0) * c0;
    const unsigned long long p1 = static_cast<unsigned long long>(kMul1) * c2;
    const unsigned hi0 = static_cast<unsigned>(p0 >> 32), lo0 = static_cast<unsigned>(p0);
    const unsigned hi1 = static_cast<unsigned>(p1 >> 32), lo1 = static_cast<unsigned>(p1);
    const unsigned n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
    c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    k0 += kBump0; k1 += kBump1;  // the last bump is unused
  }
  PhiloxWords out = {c0, c1, c2, c3};
  return out;
}

TG_PHILOX_FN PhiloxKey philox_key(unsigned long long seed) {
  PhiloxKey key = {static_cast<unsigned>(seed), static_cast<unsigned>(seed >> 32)};
  return key;
}

// The four words of elements 4 * group .. 4 * group + 3.
TG_PHILOX_FN PhiloxWords philox_group(unsigned long long group, unsigned long long offset,
                                      PhiloxKey key) {
  return philox4x32_10(static_cast<unsigned>(group), static_cast<unsigned>(group >> 32),
                       static_cast<unsigned>(offset), static_cast<unsigned>(offset >> 32), key);
}

TG_PHILOX_FN unsigned philox_word(const PhiloxWords &w, unsigned index) {
  return index == 0 ? w.w0 : index == 1 ? w.w1 : index == 2 ? w.w2 : w.w3;
}

// floor(p * 2^32) for p in [0, 1) (tg.dropout verifies the range), exact in
// double since scaling by 2^32 loses no bits; 0 keeps everything.
TG_PHILOX_FN unsigned dropout_threshold(double p) {
  if (!(p > 0.0))
    return 0u;
  const double scaled = p * 4294967296.0;
  if (scaled >= 4294967295.0)
    return 0xFFFFFFFFu;
  return static_cast<unsigned>(scaled);  // truncation == floor for >= 0
}

// Whether the element at linear index i is kept.
TG_PHILOX_FN bool dropout_keep(unsigned long long seed, unsigned long long offset,
                               unsigned long long i, unsigned threshold) {
  const PhiloxWords w = philox_group(i >> 2, offset, philox_key(seed));
  return philox_word(w, static_cast<unsigned>(i & 3)) >= threshold;
}

// Keep bits of the two consecutive elements at linear indices i and i + 1.
TG_PHILOX_FN void dropout_keep_pair(unsigned long long i, PhiloxKey key, unsigned long long offset,
                                    unsigned threshold, bool &keep0, bool &keep1) {
  const unsigned long long group = i >> 2;
  const unsigned lane_in_group = static_cast<unsigned>(i & 3);
  const PhiloxWords w = philox_group(group, offset, key);
  keep0 = philox_word(w, lane_in_group) >= threshold;
  if (lane_in_group != 3) {
    keep1 = philox_word(w, lane_in_group + 1) >= threshold;
  } else {  // i + 1 starts the next group of four
    keep1 = philox_group(group + 1, offset, key).w0 >= threshold;
  }
}

// Keep bits of the 32 consecutive elements at linear indices [i, i + 32):
// bit j is element i + j. Those span 8 Philox groups of four, or 9 when i is
// not a multiple of 4.
TG_PHILOX_FN unsigned dropout_keep_bits32(unsigned long long i, PhiloxKey key,
                                          unsigned long long offset, unsigned threshold) {
  const unsigned long long first = i >> 2;
  const int shift = static_cast<int>(i & 3);  // position of element i in its group
  unsigned bits = 0;
  TG_PHILOX_UNROLL
  for (int g = 0; g < 9; ++g) {
    if (g < 8 || shift != 0) {
      const PhiloxWords w = philox_group(first + g, offset, key);
      const unsigned words[4] = {w.w0, w.w1, w.w2, w.w3};
      TG_PHILOX_UNROLL
      for (int e = 0; e < 4; ++e) {
        const int bit = 4 * g + e - shift;  // element 4 * group + e is element i + bit
        if (bit >= 0 && bit < 32 && words[e] >= threshold) bits |= 1u << bit;
      }
    }
  }
  return bits;
}

#endif  // TG_DEVICE_PHILOX_CUH
