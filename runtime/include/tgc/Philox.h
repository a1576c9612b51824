#ifndef TGC_PHILOX_H
#define TGC_PHILOX_H

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC'11) and the dropout keep bit that tgc defines on top of it. The CPU
// reference, the generated CUDA kernels and the backward pass must all use
// exactly this mapping, so everything here is a pure function of its
// arguments, with no state and no dependencies.
//
// Dropout keep bit for the element at row-major linear index i:
//   key     = (lo32(seed), hi32(seed))
//   counter = (lo32(i / 4), hi32(i / 4), lo32(offset), hi32(offset))
//   word    = philox4x32_10(counter, key)[i % 4]
//   keep    = word >= uint32(floor(p * 2^32))

#include <cstdint>

#if defined(__CUDACC__)
#define TGC_HOST_DEVICE __host__ __device__
#else
#define TGC_HOST_DEVICE
#endif

namespace tgc {

struct PhiloxWords {
  uint32_t w[4];
};

namespace philox {
// Multipliers and Weyl key increments from the paper (Random123's
// PHILOX_M4x32_0/1 and PHILOX_W32_0/1).
constexpr uint32_t kMul0 = 0xD2511F53u;
constexpr uint32_t kMul1 = 0xCD9E8D57u;
constexpr uint32_t kWeyl0 = 0x9E3779B9u;
constexpr uint32_t kWeyl1 = 0xBB67AE85u;
constexpr int kRounds = 10;
} // namespace philox

/// One Philox4x32 round on `c` with round key (k0, k1).
TGC_HOST_DEVICE inline PhiloxWords philoxRound(PhiloxWords c, uint32_t k0,
                                               uint32_t k1) {
  uint64_t p0 = static_cast<uint64_t>(philox::kMul0) * c.w[0];
  uint64_t p1 = static_cast<uint64_t>(philox::kMul1) * c.w[2];
  auto hi0 = static_cast<uint32_t>(p0 >> 32), lo0 = static_cast<uint32_t>(p0);
  auto hi1 = static_cast<uint32_t>(p1 >> 32), lo1 = static_cast<uint32_t>(p1);
  PhiloxWords out;
  out.w[0] = hi1 ^ c.w[1] ^ k0;
  out.w[1] = lo1;
  out.w[2] = hi0 ^ c.w[3] ^ k1;
  out.w[3] = lo0;
  return out;
}

/// Philox4x32 with 10 rounds: the key is bumped by the Weyl constants
/// between rounds.
TGC_HOST_DEVICE inline PhiloxWords philox4x32_10(PhiloxWords counter,
                                                 uint32_t key0,
                                                 uint32_t key1) {
  for (int round = 0; round < philox::kRounds; ++round) {
    if (round > 0) {
      key0 += philox::kWeyl0;
      key1 += philox::kWeyl1;
    }
    counter = philoxRound(counter, key0, key1);
  }
  return counter;
}

/// The drop threshold for probability p in [0, 1): floor(p * 2^32). Exact
/// in double because scaling by 2^32 loses no bits.
TGC_HOST_DEVICE inline uint32_t dropoutThreshold(double p) {
  if (!(p > 0.0))
    return 0u;
  double scaled = p * 4294967296.0;
  if (scaled >= 4294967295.0)
    return 0xFFFFFFFFu;
  return static_cast<uint32_t>(scaled); // truncation == floor for >= 0
}

/// Whether dropout keeps the element at linear index `index` (see the file
/// comment). `seed` and `offset` are the bit patterns of the i64 operands.
TGC_HOST_DEVICE inline bool dropoutKeep(uint64_t seed, uint64_t offset,
                                        uint64_t index, uint32_t threshold) {
  uint64_t block = index / 4;
  PhiloxWords counter = {{static_cast<uint32_t>(block),
                          static_cast<uint32_t>(block >> 32),
                          static_cast<uint32_t>(offset),
                          static_cast<uint32_t>(offset >> 32)}};
  PhiloxWords words = philox4x32_10(counter, static_cast<uint32_t>(seed),
                                     static_cast<uint32_t>(seed >> 32));
  return words.w[index % 4] >= threshold;
}

} // namespace tgc

#endif // TGC_PHILOX_H
