// tgc device library: element types and scalar helpers.
//
// The headers in this folder are real CUDA: NVRTC compiles each one as it
// is (test/unit/DeviceLibraryTest.cpp), and the generator pastes them, each
// once and in include order, in front of a kernel's configuration and entry
// point (DeviceLibrary.cpp). They need no CUDA header and no include path.
#pragma once
#include "ptx.cuh"

namespace tg::device {

/// The element type of attention operands: 16-bit (bf16, f16) or fp8
/// (e4m3, e5m2; the sm_90a forward only). Values travel as raw words (fp8
/// tiles as pairs of bytes in 16-bit words); only the tensor cores and the
/// cvt instructions interpret them.
enum class Elem { BF16, F16, E4M3, E5M2 };
using u16 = unsigned short;

__host__ __device__ constexpr bool is_fp8(Elem e) { return e == Elem::E4M3 || e == Elem::E5M2; }
__host__ __device__ constexpr int elem_bytes(Elem e) { return is_fp8(e) ? 1 : 2; }

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ float pos_inf() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int imax(int a, int b) { return a > b ? a : b; }

/// Two floats rounded (nearest even) into one register of two elements,
/// `lo` in the low half (the element with the smaller index).
template <Elem E>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
  static_assert(!is_fp8(E), "pack2 packs 16-bit elements (fp8: pack4_fp8)");
  if constexpr (E == Elem::BF16)
    return cvt_pack_bf16x2(lo, hi);
  else
    return cvt_pack_f16x2(lo, hi);
}

/// One element as a float (exact).
template <Elem E>
__device__ __forceinline__ float to_float(u16 bits) {
  static_assert(!is_fp8(E), "a 16-bit element");
  if constexpr (E == Elem::BF16)
    return __uint_as_float(static_cast<unsigned>(bits) << 16);
  else
    return cvt_f16_to_f32(bits);
}

/// The low and high element of a packed pair as floats.
template <Elem E>
__device__ __forceinline__ float low_float(unsigned pair) {
  return to_float<E>(static_cast<u16>(pair & 0xffffu));
}
template <Elem E>
__device__ __forceinline__ float high_float(unsigned pair) {
  return to_float<E>(static_cast<u16>(pair >> 16));
}

/// Four floats rounded to nearest even into one register of four fp8
/// elements (`e0` in the lowest byte), saturating: finite overflow and
/// infinities become the largest finite value, NaN stays NaN (tg.cast's
/// rounding to fp8).
template <Elem E>
__device__ __forceinline__ unsigned pack4_fp8(float e0, float e1, float e2, float e3) {
  static_assert(is_fp8(E), "an fp8 element type");
  if constexpr (E == Elem::E4M3)
    return cvt_pack_e4m3x2(e0, e1) | (static_cast<unsigned>(cvt_pack_e4m3x2(e2, e3)) << 16);
  else
    return cvt_pack_e5m2x2(e0, e1) | (static_cast<unsigned>(cvt_pack_e5m2x2(e2, e3)) << 16);
}

/// 32-bit shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

/// Row pitch (in 16-bit elements) of a shared-memory tile whose rows hold
/// `cols` elements: an odd number of 16-byte chunks, so that the 8 row
/// addresses of one ldmatrix fall in 8 different groups of 4 banks. The
/// generator's layout (AttentionBackward.cpp) uses the same rule.
__host__ __device__ constexpr int conflict_free_pitch(int cols) {
  return ((cols / 8 + 1) % 2 == 0 ? cols / 8 + 2 : cols / 8 + 1) * 8;
}

__host__ __device__ constexpr int round_up(int x, int multiple) { return (x + multiple - 1) / multiple * multiple; }

} // namespace tg::device
