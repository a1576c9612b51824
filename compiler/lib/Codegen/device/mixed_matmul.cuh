// tgc device library: the mixed-input matmul y = x . w' of 16-bit
// activations x [M, K] (bf16 or f16, row-major) and narrow weights w [K, N]
// (i8, e4m3 or e5m2, row-major as users store them; or i4, packed two per
// byte along N, the low nibble first), where w' is the weight after its
// prologue (a conversion, scales, zero points) applied per element in
// registers. It is built for the sizes where the weight's bytes set the time
// (decode and small batches): the weight is read once, at one byte (i4:
// half a byte) per element, and never written back converted.
//
// Shape of the work:
//  - a CTA of kWarps warps owns kWarpN kWarps output columns, kMTile rows
//    and one split of K; warp w owns columns [kWarpN w, kWarpN (w + 1));
//    with kKSlices = 2 there are two such sets of warps, each taking half
//    of every K step's k16 steps (twice the warps per SM to hide latency
//    at the same grid), and the second set's sums are added to the
//    first's through shared memory at the end;
//  - the roles of the operands are swapped for the tensor cores: the
//    converted weight is the A operand of mma.m16n8k16 (16 columns of w as
//    the 16 "rows") and x^T is the B operand (8 rows of x as the 8
//    "columns"), so that a handful of rows of x still fill the MMA;
//  - each K step (kBlockK rows) is copied by cp.async into a kStages ring:
//    the weight as kBlockK rows of kWarpN kWarps bytes, x as kMTile rows of
//    kBlockK elements, both with the 16-byte chunks of row r at chunk
//    c ^ (r % 8), so that the ldmatrix row addresses of a warp hit distinct
//    banks;
//  - ldmatrix.trans on the weight bytes, read as 16-bit pairs of columns,
//    hands lane (g = lane / 4, t = lane % 4) the 2x2 block of rows
//    {2t, 2t + 1} and columns {2g, 2g + 1} of each 8x16-byte matrix; pairing
//    its bytes by column gives the A fragment of the MMA whose row g is
//    column 2g and whose row g + 8 is column 2g + 1 (a permutation of the
//    output columns the epilogue undoes);
//  - for i4 a 16-bit element is 4 columns, so the lane gets rows {2t, 2t + 1}
//    of columns 4g .. 4g + 3 of a 32-column matrix: two fragments, one whose
//    rows g / g + 8 are columns 4g / 4g + 1 and one with 4g + 2 / 4g + 3; an
//    x4 load covers 64 columns (4 fragments) per k16 step;
//  - with K split over gridDim.z > 1 CTAs, each writes f32 partial sums
//    [split][M][N] that
//    mixed_matmul_combine adds in split order (deterministic) before the
//    epilogue.
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// The weight's element type.
enum class Narrow { I8, E4M3, E5M2, I4 };

namespace mixed {

/// Bits per weight element.
__host__ __device__ constexpr int weight_bits(Narrow w) { return w == Narrow::I4 ? 4 : 8; }

/// Greatest common divisor (the rows between possible group starts).
__host__ __device__ constexpr int gcd(int a, int b) { return b == 0 ? a : gcd(b, a % b); }

/// What a prologue reads per column (and group): N packed pairs.
template <int N>
struct Pairs {
  unsigned v[N];
};

/// Dynamic shared memory of a CTA: `stages` stages of a weight tile
/// (block_k rows of block_n elements of `bits` bits) and an x tile (m_tile
/// rows of block_k 16-bit elements).
__host__ __device__ constexpr int shared_bytes(int m_tile, int block_k, int block_n, int stages, int bits = 8) {
  return stages * (block_k * block_n * bits / 8 + m_tile * block_k * 2);
}

/// The tile of a configuration (Cfg: kWarps, kWarpN, kBlockK, kStages,
/// kMTile).
template <class Cfg>
struct Tile {
  static constexpr int kWarps = Cfg::kWarps; // warps across the columns
  static constexpr int kKSlices = Cfg::kKSlices; // sets of kWarps warps splitting each K step
  static constexpr int kThreads = 32 * kWarps * kKSlices;
  static constexpr int kWarpN = Cfg::kWarpN; // output columns per warp: 32 or 64
  static constexpr int kBlockN = kWarpN * kWarps; // output columns per CTA
  static constexpr int kBits = weight_bits(Cfg::kWeight);
  static constexpr int kChunkColumns = 128 / kBits; // columns of a 16-byte chunk
  static constexpr int kWeightRowBytes = kBlockN * kBits / 8;
  static constexpr int kBlockK = Cfg::kBlockK; // K per pipeline stage
  static constexpr int kStages = Cfg::kStages;
  static constexpr int kWeightStageBytes = kBlockK * kWeightRowBytes;
  static constexpr int kXRowBytes = kBlockK * 2;
  static constexpr int kStageBytes = kWeightStageBytes + Cfg::kMTile * kXRowBytes;
  static_assert(kWarps == 4 || kWarps == 8, "4 or 8 warps");
  static_assert(kWarpN == 32 || kWarpN == 64, "32 or 64 columns per warp");
  static_assert(kBits == 8 || kWarpN == 64, "i4: 64 columns per warp (an x4 load's 4 fragments)");
  static_assert(kBlockK == 64 || kBlockK == 128, "K steps of 64 or 128");
  static_assert(kStages >= 2 && kStages <= 8, "2 to 8 stages");
  static_assert(kKSlices == 1 || kKSlices == 2, "one or two K slices");
};

/// The byte offset of 16-byte chunk `chunk` of row `row` in a tile of
/// `kRowBytes`-byte rows (at least 128): the chunk's low three bits are
/// swizzled by the row's, so that 8 rows' ldmatrix addresses at the same
/// column hit 8 different groups of banks.
template <int kRowBytes>
__device__ __forceinline__ unsigned swizzled(int row, int chunk) {
  static_assert(kRowBytes >= 128 && kRowBytes % 128 == 0, "rows of whole 128-byte lines");
  return static_cast<unsigned>(row * kRowBytes + ((chunk ^ (row & 7)) << 4));
}

/// Byte `index` of `word` (a weight element) as an exact float (the
/// generic prologue's input; `index` is a constant after unrolling).
template <Narrow W>
__device__ __forceinline__ float narrow_to_float(unsigned word, int index) {
  if constexpr (W == Narrow::I4) {
    // `index` is a nibble: two's complement, biased by 8.
    return static_cast<float>(static_cast<int>(((word >> (4 * index)) & 15u) ^ 8u) - 8);
  } else if constexpr (W == Narrow::I8) {
    // 0x4B0000uu is 2^23 + uu as a float; uu is the byte biased by 128.
    const unsigned biased = __byte_perm(word ^ 0x80808080u, 0x4B000000u, 0x7440 | index);
    return __uint_as_float(biased) - 8388736.0f; // 2^23 + 128
  } else {
    const unsigned byte = (word >> (8 * index)) & 0xffu;
    const unsigned magnitude = byte & 0x7fu;
    float value;
    if constexpr (W == Narrow::E4M3) {
      // Normal numbers: the exponent and mantissa bits moved into an f32
      // (bias 127 instead of 7); subnormals (exponent 0) as m * 2^-9.
      // Neither path makes an f32 subnormal, so flush-to-zero is harmless.
      const float normal = __uint_as_float(magnitude << 20) * 0x1p120f;
      const float subnormal = (__uint_as_float(0x4B000000u | magnitude) - 8388608.0f) * 0x1p-9f;
      value = magnitude < 8 ? subnormal : normal;
      if (magnitude == 0x7f)
        value = __uint_as_float(0x7fc00000u); // e4m3's only NaN
    } else {
      // e5m2: bias 15; exponent 31 is infinity (mantissa 0) or NaN.
      const float normal = __uint_as_float(magnitude << 21) * 0x1p112f;
      const float subnormal = (__uint_as_float(0x4B000000u | magnitude) - 8388608.0f) * 0x1p-16f;
      value = magnitude < 4 ? subnormal : normal;
      if (magnitude >= 0x7c)
        value = magnitude == 0x7c ? pos_inf() : __uint_as_float(0x7fc00000u);
    }
    return (byte & 0x80u) ? -value : value;
  }
}

/// Where the two elements (rows k0 and k1 of one column) of pair `sel` sit
/// in a word of ldmatrix.trans: for 8-bit weights bytes (0, 2) (sel 0) or
/// (1, 3) (sel 1); for i4 nibbles (sel, sel + 4), sel 0-3.
template <Narrow W>
__device__ __forceinline__ int pair_element(int sel, int second) {
  return W == Narrow::I4 ? sel + 4 * second : sel + 2 * second;
}

/// Element `second` (0: row k0, 1: row k1) of pair `sel` as an exact float
/// (the generic prologue's input).
template <Narrow W>
__device__ __forceinline__ float pair_to_float(unsigned word, int sel, int second) {
  return narrow_to_float<W>(word, pair_element<W>(sel, second));
}

/// Bytes (0, 2) of `word` (or (1, 3) when `odd`) of an 8-bit weight as a
/// pair of E (narrow_pair's 8-bit half).
template <Narrow W, Elem E>
__device__ __forceinline__ unsigned byte_pair(unsigned word, bool odd) {
  const unsigned v = odd ? word >> 8 : word; // the pair's bytes at bits 0-7 and 16-23
  if constexpr (W == Narrow::I8) {
    if constexpr (E == Elem::F16) {
      // 0x64uu is 1024 + uu in f16; uu is the byte biased by 128.
      return sub_f16x2(__byte_perm(v ^ 0x00800080u, 0x64u, 0x4240), 0x64806480u); // - (1024 + 128)
    }
    return pack2<E>(pair_to_float<W>(word, odd, 0), pair_to_float<W>(word, odd, 1));
  } else if constexpr (W == Narrow::E5M2 && E == Elem::F16) {
    return (v & 0x00ff00ffu) << 8; // e5m2 is the high byte of f16 (infinities and NaN included)
  } else {
    // Sign, exponent and mantissa moved into the 16-bit format's fields; the
    // exponent bias is then the 16-bit format's, which one exact multiply by a
    // power of two corrects (subnormals included: the packed multiplies keep
    // them).
    constexpr bool kE4M3 = W == Narrow::E4M3;
    constexpr int kShift = E == Elem::BF16 ? (kE4M3 ? 4 : 5) : 7; // f16 from e4m3 only
    const unsigned magnitude = (v & 0x007f007fu) << kShift;
    const unsigned sign = (v & 0x00800080u) << 8;
    unsigned pair;
    if constexpr (E == Elem::BF16)
      pair = mul_bf16x2(sign | magnitude, kE4M3 ? 0x7b807b80u : 0x77807780u); // 2^120, 2^112
    else
      pair = mul_f16x2(sign | magnitude, 0x5c005c00u); // 2^8
    // The formats' non-finite codes (rare): e4m3's NaN is S.1111.111, e5m2's
    // infinities and NaN are S.11111.xx.
    const unsigned special = kE4M3 ? 0x007f007fu : 0x007c007cu;
    const unsigned hits = (v & special) ^ special; // a zero half: that element is special
    if (((hits & 0xffffu) == 0) | ((hits >> 16) == 0)) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const unsigned byte = (v >> (16 * half)) & 0xffu;
        if ((byte & special & 0xffu) != (special & 0xffu))
          continue;
        const bool infinity = !kE4M3 && (byte & 3u) == 0;
        const unsigned code = E == Elem::BF16 ? (infinity ? 0x7f80u : 0x7fc0u) : (infinity ? 0x7c00u : 0x7e00u);
        pair = (pair & ~(0xffffu << (16 * half))) | ((code | ((byte & 0x80u) << 8)) << (16 * half));
      }
    }
    return pair;
  }
}

/// Pair `sel` of `word` (see pair_element) as a pair of E, exactly, the
/// first in the low half: the identity and column-scale prologues' fast
/// path (2-3 integer or packed operations per element instead of a float
/// round trip).
template <Narrow W, Elem E>
__device__ __forceinline__ unsigned narrow_pair(unsigned word, int sel) {
  if constexpr (W == Narrow::I4) {
    // Nibbles at bits 0-3 and 16-19, biased by 8 (0..15), as the low
    // mantissa bits of 128 (bf16: 7 mantissa bits) or 1024 (f16: 10): then
    // one packed subtract of 136 or 1032, exact.
    const unsigned biased = ((word >> (4 * sel)) & 0x000f000fu) ^ 0x00080008u;
    if constexpr (E == Elem::BF16)
      return sub_bf16x2(biased | 0x43004300u, 0x43084308u);
    else
      return sub_f16x2(biased | 0x64006400u, 0x64086408u);
  } else {
    return byte_pair<W, E>(word, sel != 0);
  }
}

/// The main kernel. Launch: grid (ceil(N / (kWarpN kWarps)), ceil(M /
/// kMTile), splits), 32 kWarps kKSlices threads, shared_bytes(kMTile, kBlockK,
/// kWarpN kWarps, kStages) of dynamic shared memory. Split z takes K rows [z k_per_split,
/// (z + 1) k_per_split) (k_per_split a multiple of kBlockK; the last split
/// may be shorter). x and w must be 16-byte aligned with K % 8 == 0 and
/// N % 16 == 0 (i4: N % 32 == 0; rows of whole chunks).
///
/// Cfg: kElem (Elem::BF16 or F16: x's type and the type w' enters the
/// product as), kWeight, kM, kN, kK, kMTile (16, 32 or 64), kWarps (4, 8),
/// kWarpN (32, 64), kBlockK (64, 128), kStages, kKSlices (1, 2; with 2,
/// kGroup must be 0 or a multiple of kBlockK), kGroup (0, or rows per
/// group: a multiple of 16).
/// column(n, k) returns what the prologue reads per output column and
/// group of rows (the group holding row k): with kGroup 0 it is read once
/// (hoisted out of the K loop), else once per group, the next group's read
/// issued a group ahead so that its latency hides behind this group's
/// MMAs (group-wise scales and zero points);
/// prologue(column(n, k), word, sel, k0, k1, n) is the pair
/// (w'[k0][n], w'[k1][n]) packed as two kElem (w'[k0][n] in the low half)
/// from pair `sel` of the weight word (pair_element): the identity is
/// narrow_pair, a generic prologue converts pair_to_float per element. epilogue(acc, m, n)
/// finishes and stores y[m][n] (one split; with more, each split writes its
/// partial sums [split][M][N] and mixed_matmul_combine calls it).
template <class Cfg, class Column, class Prologue, class Epilogue>
__device__ __forceinline__ void mixed_matmul(const u16 *__restrict__ x, const unsigned char *__restrict__ w,
                                             float *__restrict__ partials, long long k_per_split,
                                             Column column, Prologue prologue, Epilogue epilogue) {
  using T = Tile<Cfg>;
  constexpr int kBlockK = T::kBlockK, kBlockN = T::kBlockN, kStages = T::kStages, kThreads = T::kThreads;
  constexpr int kFrags = T::kWarpN / 16; // A fragments (16 columns each) per warp and k16 step
  constexpr Elem E = Cfg::kElem;
  constexpr int kMTile = Cfg::kMTile;
  static_assert(E == Elem::BF16 || E == Elem::F16, "x is 16-bit");
  static_assert(kMTile == 16 || kMTile == 32 || kMTile == 64, "rows per CTA");
  static_assert(Cfg::kK % 8 == 0 && Cfg::kN % T::kChunkColumns == 0, "rows of whole 16-byte chunks");
  constexpr int kTokenTiles = kMTile / 8;
  constexpr bool kI4 = T::kBits == 4;
  constexpr int kWRowBytes = T::kWeightRowBytes;
  constexpr long long kWeightRowStride = Cfg::kN * T::kBits / 8; // bytes per weight row in memory
  constexpr int kWChunks = kWRowBytes / 16, kXChunks = kBlockK / 8; // 16-byte chunks per row

  extern __shared__ __align__(128) unsigned char smem_raw[];
  const unsigned smem = shared_address(smem_raw);
  constexpr int kStageBytes = T::kStageBytes;

  const int tid = threadIdx.x, lane = tid % 32;
  const int warp = (tid / 32) % T::kWarps; // the warp's columns
  const int slice = T::kKSlices == 1 ? 0 : tid / (32 * T::kWarps); // the warp's half of each K step
  constexpr int kKPerSlice = kBlockK / 16 / T::kKSlices; // k16 steps per warp and K step
  const int g = lane / 4, t = lane % 4;
  const long long n_block = static_cast<long long>(blockIdx.x) * kBlockN;
  const long long m_block = static_cast<long long>(blockIdx.y) * kMTile;
  const long long k_begin = static_cast<long long>(blockIdx.z) * k_per_split;
  const long long k_end = k_begin + k_per_split < Cfg::kK ? k_begin + k_per_split : Cfg::kK;
  const int steps = static_cast<int>((k_end - k_begin + kBlockK - 1) / kBlockK);

  // The copies of a stage: thread tid always copies the same 16-byte chunk
  // column of the weight (and of x), in rows tid / chunks + j * row step, so
  // that its addresses, its swizzle and its column test are computed once;
  // a stage only adds its K offset. (Row steps are multiples of 8, so a
  // row's swizzle is that of the thread's first row.)
  constexpr int kWRowStep = kThreads / kWChunks, kWLoads = kBlockK / kWRowStep;
  constexpr int kXRowStep = kThreads / kXChunks, kXLoads = (kMTile + kXRowStep - 1) / kXRowStep;
  static_assert(kThreads % kWChunks == 0 && kBlockK % kWRowStep == 0 && kWRowStep % 8 == 0, "weight copy rows");
  static_assert(kThreads % kXChunks == 0 && kXRowStep % 8 == 0, "x copy rows");
  const int w_chunk = tid % kWChunks, w_row = tid / kWChunks;
  const int x_chunk = tid % kXChunks, x_row = tid / kXChunks;
  const bool w_column_inside = n_block + T::kChunkColumns * w_chunk < Cfg::kN;
  const unsigned char *w_thread =
      w + (k_begin + w_row) * kWeightRowStride + n_block * T::kBits / 8 + 16 * w_chunk;
  const u16 *x_thread = x + (m_block + x_row) * Cfg::kK + k_begin + 8 * x_chunk;
  const unsigned w_offset = swizzled<kWRowBytes>(w_row, w_chunk);
  const unsigned x_offset = T::kWeightStageBytes + swizzled<T::kXRowBytes>(x_row, x_chunk);
  auto load_stage = [&](int step) {
    const unsigned base = smem + (step % kStages) * kStageBytes;
    const long long k_step = static_cast<long long>(step) * kBlockK; // from k_begin
    const long long k_left = k_end - k_begin - k_step; // rows of this split from here on
#pragma unroll
    for (int j = 0; j < kWLoads; ++j) {
      const int row = w_row + j * kWRowStep;
      const bool valid = w_column_inside && row < k_left;
      cp_async_16(base + w_offset + j * kWRowStep * kWRowBytes,
                  valid ? w_thread + (k_step + j * kWRowStep) * kWeightRowStride : w, valid);
    }
    const bool x_columns_inside = k_step + 8 * x_chunk < k_end - k_begin;
#pragma unroll
    for (int j = 0; j < kXLoads; ++j) {
      const int row = x_row + j * kXRowStep;
      if (kMTile % kXRowStep != 0 && row >= kMTile)
        break;
      const bool valid = x_columns_inside && m_block + row < Cfg::kM;
      cp_async_16(base + x_offset + j * kXRowStep * T::kXRowBytes,
                  valid ? x_thread + j * kXRowStep * Cfg::kK + k_step : x, valid);
    }
  };

  // The output columns of this lane (fixed for the whole K loop): column
  // (f, j) = n_block + kWarpN warp + 16 f + 2 g + j (i4: + 32 (f / 2) +
  // 4 g + 2 (f % 2) + j). Loads of what the prologue reads stay inside the
  // weight (columns past N are computed and dropped).
  auto lane_column = [&](int f, int j) {
    const long long base = n_block + T::kWarpN * warp + j;
    return kI4 ? base + 32 * (f / 2) + 4 * g + 2 * (f % 2) : base + 16 * f + 2 * g;
  };
  long long inside[kFrags][2]; // the lane's columns, clamped into the weight
  using ColumnData = decltype(column(0LL, 0LL));
  ColumnData columns[kFrags][2]; // for the current group of rows
  ColumnData next[kFrags][2];    // for the next group (kGroup > 0)
  constexpr long long kGroup = Cfg::kGroup;
  static_assert(kGroup >= 0 && kGroup % 16 == 0, "groups of whole k16 steps");
  static_assert(T::kKSlices == 1 || kGroup % kBlockK == 0, "K slices see every group: whole K steps");
  // The first row of the next group; groups start at multiples of kGroup,
  // so within a K step only at multiples of gcd(kGroup, kBlockK) rows.
  long long next_group = kGroup ? (k_begin / (kGroup ? kGroup : 1) + 1) * kGroup : 0;
  constexpr int kGroupCheck = kGroup ? gcd(static_cast<int>(kGroup), kBlockK) : kBlockK;
#pragma unroll
  for (int f = 0; f < kFrags; ++f)
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const long long n = lane_column(f, j);
      inside[f][j] = n < Cfg::kN ? n : Cfg::kN - 1;
      columns[f][j] = column(inside[f][j], k_begin);
      if constexpr (kGroup != 0)
        next[f][j] = column(inside[f][j], next_group < Cfg::kK ? next_group : Cfg::kK - 1);
    }

  float acc[kFrags][kTokenTiles][4];
#pragma unroll
  for (int f = 0; f < kFrags; ++f)
#pragma unroll
    for (int tt = 0; tt < kTokenTiles; ++tt)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        acc[f][tt][e] = 0.0f;

#pragma unroll
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < steps)
      load_stage(s);
    cp_async_commit();
  }

  const int mat = lane / 8, mat_row = lane % 8;
  for (int step = 0; step < steps; ++step) {
    cp_async_wait<kStages - 2>();
    __syncthreads(); // this stage landed for every thread; the slot refilled below is free
    if (step + kStages - 1 < steps)
      load_stage(step + kStages - 1);
    cp_async_commit();

    const unsigned w_stage = smem + (step % kStages) * kStageBytes;
    const unsigned x_stage = w_stage + T::kWeightStageBytes;
    const long long k_step = k_begin + static_cast<long long>(step) * kBlockK;
#pragma unroll
    for (int kq = 0; kq < kKPerSlice; ++kq) {
      const int kk = slice * kKPerSlice + kq;
      if constexpr (kGroup != 0) {
        // (With two slices groups are whole K steps: the second slice meets
        // the step's group at its first k16 step, past the group's start.)
        if ((kq == 0 || (kk * 16) % kGroupCheck == 0) && k_step + kk * 16 >= next_group) {
          // A new group: its column data was read a group ago; read the next.
          next_group += kGroup;
          const long long k_next = next_group < Cfg::kK ? next_group : Cfg::kK - 1;
#pragma unroll
          for (int f = 0; f < kFrags; ++f)
#pragma unroll
            for (int j = 0; j < 2; ++j) {
              columns[f][j] = next[f][j];
              next[f][j] = column(inside[f][j], k_next);
            }
        }
      }
      // Per 2 chunks (8-bit: 32 columns, i4: 64), matrices: 0 = rows kk*16 +
      // 0..7, the first chunk; 1 = rows + 8..15; 2, 3 = the same rows, the
      // second chunk. A chunk is one fragment (8-bit) or two (i4).
      constexpr int kFragsPerLoad = kI4 ? 4 : 2;
      unsigned raw[kFrags / kFragsPerLoad][4];
      const int w_row = kk * 16 + (mat & 1) * 8 + mat_row;
#pragma unroll
      for (int q = 0; q < kFrags / kFragsPerLoad; ++q)
        ldmatrix_x4_trans(
            w_stage + swizzled<kWRowBytes>(w_row, (T::kWarpN / T::kChunkColumns) * warp + 2 * q + (mat >> 1)),
            raw[q]);
      unsigned a[kFrags][4];
#pragma unroll
      for (int f = 0; f < kFrags; ++f)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          // 8-bit bytes: 0 = (row 2t, column 2g), 1 = (2t, 2g + 1), 2 = (2t + 1, 2g), 3 = (2t + 1, 2g + 1);
          // i4 nibbles: 0-3 = (row 2t, columns 4g .. 4g + 3), 4-7 = row 2t + 1.
          const int chunk = kI4 ? (f / 2) % 2 : f % 2;
          const unsigned word = raw[f / kFragsPerLoad][2 * chunk + h];
          const int sel = kI4 ? 2 * (f % 2) : 0; // pair of the even column; the odd one's is sel + 1
          const long long k = k_step + kk * 16 + 8 * h + 2 * t;
          // Rows past K (the zero-filled tail) read the prologue's tensors at
          // the last row.
          const long long k0 = k < Cfg::kK ? k : Cfg::kK - 1;
          const long long k1 = k + 1 < Cfg::kK ? k + 1 : Cfg::kK - 1;
          unsigned even = prologue(columns[f][0], word, sel, k0, k1, inside[f][0]);
          unsigned odd = prologue(columns[f][1], word, sel + 1, k0, k1, inside[f][1]);
          if constexpr (Cfg::kK % kBlockK != 0) {
            // Rows past K were zero-filled, but a prologue may map 0 to a
            // non-finite value; x is zero there, and 0 * inf would be NaN.
            const unsigned keep = (k < k_end ? 0xffffu : 0u) | (k + 1 < k_end ? 0xffff0000u : 0u);
            even &= keep;
            odd &= keep;
          }
          a[f][2 * h] = even;    // fragment row g: column 2g
          a[f][2 * h + 1] = odd; // fragment row g + 8: column 2g + 1
        }
#pragma unroll
      for (int tp = 0; tp < kTokenTiles / 2; ++tp) {
        // Matrices: rows of x 16 tp + 0..7 at k + 0..7 and + 8..15, then
        // rows + 8..15 the same.
        unsigned b[4];
        const int x_row = 16 * tp + 8 * (mat >> 1) + mat_row;
        ldmatrix_x4(x_stage + swizzled<T::kXRowBytes>(x_row, 2 * kk + (mat & 1)), b);
#pragma unroll
        for (int f = 0; f < kFrags; ++f) {
          if constexpr (E == Elem::BF16) {
            mma_bf16_16x8x16(acc[f][2 * tp], a[f], b[0], b[1]);
            mma_bf16_16x8x16(acc[f][2 * tp + 1], a[f], b[2], b[3]);
          } else {
            mma_f16_16x8x16(acc[f][2 * tp], a[f], b[0], b[1]);
            mma_f16_16x8x16(acc[f][2 * tp + 1], a[f], b[2], b[3]);
          }
        }
      }
    }
  }
  cp_async_wait<0>();

  if constexpr (T::kKSlices == 2) {
    // The second slice's sums into the first's, through the (now idle)
    // pipeline buffers: lane-major, so that a warp's stores are contiguous.
    constexpr int kValues = kFrags * kTokenTiles * 4;
    static_assert(kValues * 4 * 32 * T::kWarps <= kStages * kStageBytes, "the exchange fits the ring");
    float *exchange = reinterpret_cast<float *>(smem_raw) + (warp * kValues) * 32 + lane;
    __syncthreads(); // every warp is done reading the ring
    float *sums = &acc[0][0][0]; // (constant indices once unrolled: registers)
    if (slice == 1) {
#pragma unroll
      for (int i = 0; i < kValues; ++i)
        exchange[i * 32] = sums[i];
    }
    __syncthreads();
    if (slice == 1)
      return;
#pragma unroll
    for (int i = 0; i < kValues; ++i)
      sums[i] += exchange[i * 32];
  }

  // acc[f][tt][e]: column 2g + (e / 2) of sub-tile f, row 8 tt + 2t + (e % 2).
#pragma unroll
  for (int f = 0; f < kFrags; ++f)
#pragma unroll
    for (int tt = 0; tt < kTokenTiles; ++tt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const long long n = lane_column(f, e / 2);
        const long long m = m_block + 8 * tt + 2 * t + (e % 2);
        if (m >= Cfg::kM || n >= Cfg::kN)
          continue;
        if (gridDim.z == 1)
          epilogue(acc[f][tt][e], m, n);
        else
          partials[(static_cast<long long>(blockIdx.z) * Cfg::kM + m) * Cfg::kN + n] = acc[f][tt][e];
      }
}

/// The sums of the splits' partials, in split order, through the epilogue.
/// Launch: grid (ceil(M * N / 256)), 256 threads.
template <class Cfg, class Epilogue>
__device__ __forceinline__ void mixed_matmul_combine(const float *__restrict__ partials, int splits,
                                                     Epilogue epilogue) {
  const long long i = static_cast<long long>(blockIdx.x) * 256 + threadIdx.x;
  if (i >= Cfg::kM * Cfg::kN)
    return;
  float sum = 0.0f;
#pragma unroll 4
  for (int s = 0; s < splits; ++s)
    sum += partials[s * Cfg::kM * Cfg::kN + i];
  epilogue(sum, i / Cfg::kN, i % Cfg::kN);
}

} // namespace mixed
} // namespace tg::device
