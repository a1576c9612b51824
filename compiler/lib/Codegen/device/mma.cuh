// tgc device library: warp-level tensor-core tiles (mma.sync.m16n8k16 fed
// by ldmatrix from shared memory, sm_80+).
//
// Fragment layouts of mma.m16n8k16 (g = lane / 4, c = lane % 4; a register
// holds two 16-bit elements, the smaller index in the low half):
//   A (16x16): a[0] = A[g][2c, 2c+1]   a[1] = A[g+8][2c, 2c+1]
//              a[2] = A[g][2c+8, +9]   a[3] = A[g+8][2c+8, +9]
//   B (16x8):  b[0] = B[2c, 2c+1][g]   b[1] = B[2c+8, +9][g]
//   C (16x8, f32): c[0], c[1] = C[g][2c, 2c+1]   c[2], c[3] = C[g+8][2c, 2c+1]
// ldmatrix.x4: lane l gives the address of row l % 8 of 8x8 matrix l / 8;
// register i receives matrix i: without .trans thread t gets row t / 4,
// columns 2(t % 4), +1; with .trans it gets rows 2(t % 4), +1 of column
// t / 4 (the transpose).
#pragma once
#include "prelude.cuh"

namespace tg::device {

/// acc += A * B for one 16x8x16 tile (f32 accumulate).
template <Elem E>
__device__ __forceinline__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0,
                                            unsigned b1) {
  if constexpr (E == Elem::BF16)
    mma_bf16_16x8x16(acc, a, b0, b1);
  else
    mma_f16_16x8x16(acc, a, b0, b1);
}

/// How an operand is stored in shared memory. For A (M x K): kMajorRows =
/// stored [m][k] (rows are m), kMajorCols = stored [k][m]. For B (K x N):
/// kMajorRows = stored [n][k] (what mma's .col B wants: rows are n),
/// kMajorCols = stored [k][n]. Tiles have a row pitch in elements.
enum class Stored { Rows, Cols };

/// Byte address of element (row, col) of a shared tile with pitch kPitch.
template <int kPitch>
__device__ __forceinline__ unsigned element_address(unsigned base, int row, int col) {
  return base + static_cast<unsigned>((row * kPitch + col) * 2);
}

/// The A fragment of the 16x16 tile at (m0, k0) of an M x K operand.
template <Stored kStored, int kPitch>
__device__ __forceinline__ void load_a(unsigned (&a)[4], unsigned base, int m0, int k0, int lane) {
  if constexpr (kStored == Stored::Rows) {
    // Matrices: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15).
    ldmatrix_x4(element_address<kPitch>(base, m0 + lane % 16, k0 + 8 * (lane / 16)), a);
  } else {
    // Stored [k][m], transposed on load. Matrices (as stored): (k 0-7, m 0-7),
    // (k 0-7, m 8-15), (k 8-15, m 0-7), (k 8-15, m 8-15).
    ldmatrix_x4_trans(
        element_address<kPitch>(base, k0 + lane % 8 + 8 * (lane / 16), m0 + 8 * ((lane / 8) % 2)), a);
  }
}

/// The B fragments of two adjacent 16x8 tiles at (k0, n0) and (k0, n0 + 8)
/// of a K x N operand: b[0], b[1] for the first, b[2], b[3] for the second.
template <Stored kStored, int kPitch>
__device__ __forceinline__ void load_b_pair(unsigned (&b)[4], unsigned base, int k0, int n0,
                                            int lane) {
  if constexpr (kStored == Stored::Rows) {
    // Stored [n][k]. Matrices: (n 0-7, k 0-7), (n 0-7, k 8-15), (n 8-15, k 0-7), (n 8-15, k 8-15).
    ldmatrix_x4(element_address<kPitch>(base, n0 + lane % 8 + 8 * (lane / 16), k0 + 8 * ((lane / 8) % 2)),
                b);
  } else {
    // Stored [k][n], transposed on load. Matrices (as stored): (k 0-7, n 0-7),
    // (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
    ldmatrix_x4_trans(
        element_address<kPitch>(base, k0 + lane % 8 + 8 * ((lane / 8) % 2), n0 + 8 * (lane / 16)), b);
  }
}

/// The B fragment of one 16x8 tile at (k0, n0) (lanes 0-15 address it; the
/// others repeat the same valid addresses).
template <Stored kStored, int kPitch>
__device__ __forceinline__ void load_b_single(unsigned (&b)[2], unsigned base, int k0, int n0,
                                              int lane) {
  if constexpr (kStored == Stored::Rows)
    ldmatrix_x2(element_address<kPitch>(base, n0 + lane % 8, k0 + 8 * ((lane / 8) % 2)), b);
  else
    ldmatrix_x2_trans(element_address<kPitch>(base, k0 + lane % 8 + 8 * ((lane / 8) % 2), n0), b);
}

/// acc[mt][nt] += A[m0 + 16 mt .., k] * B[k, n0 + 8 nt ..] for k in
/// [a_k0, a_k0 + 16 kKSteps) of A and [b_k0, ...) of B: one warp's block of
/// a product, both operands read from shared memory per k-step.
template <Elem E, int kMTiles, int kNTiles, int kKSteps, Stored kAStored, int kAPitch,
          Stored kBStored, int kBPitch>
__device__ __forceinline__ void warp_gemm(float (&acc)[kMTiles][kNTiles][4], unsigned a_base, int a_m0,
                                          int a_k0, unsigned b_base, int b_k0, int b_n0, int lane) {
#pragma unroll
  for (int ks = 0; ks < kKSteps; ++ks) {
    unsigned a[kMTiles][4];
#pragma unroll
    for (int mt = 0; mt < kMTiles; ++mt)
      load_a<kAStored, kAPitch>(a[mt], a_base, a_m0 + 16 * mt, a_k0 + 16 * ks, lane);
#pragma unroll
    for (int np = 0; np < kNTiles / 2; ++np) {
      unsigned b[4];
      load_b_pair<kBStored, kBPitch>(b, b_base, b_k0 + 16 * ks, b_n0 + 16 * np, lane);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) {
        mma_16x8x16<E>(acc[mt][2 * np], a[mt], b[0], b[1]);
        mma_16x8x16<E>(acc[mt][2 * np + 1], a[mt], b[2], b[3]);
      }
    }
    if constexpr (kNTiles % 2 == 1) {
      unsigned b[2];
      load_b_single<kBStored, kBPitch>(b, b_base, b_k0 + 16 * ks, b_n0 + 8 * (kNTiles - 1), lane);
#pragma unroll
      for (int mt = 0; mt < kMTiles; ++mt) mma_16x8x16<E>(acc[mt][kNTiles - 1], a[mt], b[0], b[1]);
    }
  }
}

template <int kMTiles, int kNTiles>
__device__ __forceinline__ void zero_accumulators(float (&acc)[kMTiles][kNTiles][4]) {
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mt][nt][e] = 0.0f;
}

/// Row and column, within a warp's block, of accumulator element e of tile
/// (mt, nt): rows 16 mt + g (+ 8 for e >= 2), columns 8 nt + 2c (+ 1 for odd e).
__device__ __forceinline__ int accumulator_row(int mt, int e, int lane) {
  return 16 * mt + lane / 4 + 8 * (e / 2);
}
__device__ __forceinline__ int accumulator_col(int nt, int e, int lane) {
  return 8 * nt + 2 * (lane % 4) + (e % 2);
}

/// Stores a warp's accumulator block, rounded to E, into a shared tile at
/// (row0, col0), scaled by `scale`: element pairs (adjacent columns) as
/// 4-byte stores.
template <Elem E, int kPitch, int kMTiles, int kNTiles>
__device__ __forceinline__ void store_accumulators(const float (&acc)[kMTiles][kNTiles][4], u16 *tile,
                                                   int row0, int col0, float scale, int lane) {
#pragma unroll
  for (int mt = 0; mt < kMTiles; ++mt)
#pragma unroll
    for (int nt = 0; nt < kNTiles; ++nt)
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int row = row0 + accumulator_row(mt, 2 * half, lane);
        const int col = col0 + accumulator_col(nt, 0, lane);
        *reinterpret_cast<unsigned *>(&tile[row * kPitch + col]) =
            pack2<E>(acc[mt][nt][2 * half] * scale, acc[mt][nt][2 * half + 1] * scale);
      }
}

} // namespace tg::device
