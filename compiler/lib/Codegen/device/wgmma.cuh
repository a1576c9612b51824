// tgc device library: warpgroup tensor-core tiles (sm_90a wgmma.mma_async,
// m64nNk16 for 16-bit and m64nNk32 for fp8 elements, f32 accumulators).
//
// A warpgroup (4 consecutive warps, the first a multiple of 4) computes a
// 64 x N tile; warp w of the group holds rows 16 (w % 4) .. +15 in the
// mma.sync accumulator layout (mma.cuh), one [4] array per 8 columns, so
// stages written for mma.sync accumulators apply unchanged. Operands come
// from shared memory through 64-bit matrix descriptors (the A operand may
// instead come from registers, in the mma.sync A-fragment layout).
//
// The instructions exist only for sm_90a (compute_90a); a kernel that uses
// them checks kHasWgmma. Their operand lists depend on N, so each N has its
// own specialisation of WgmmaM64 (N a multiple of 16 up to 256); the
// templates are instantiated only by kernels that use them.
#pragma once
#include "prelude.cuh"

namespace tg::device {

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
inline constexpr bool kHasWgmma = false;
#else
inline constexpr bool kHasWgmma = true;
#endif

/// Shared-memory matrix descriptor: start address >> 4 (bits 0-13), leading
/// byte offset >> 4 (16-29), stride byte offset >> 4 (32-45), swizzle mode
/// (62-63; 1 = 128-byte).
__device__ __forceinline__ unsigned long long make_descriptor(unsigned address, unsigned leading,
                                                              unsigned stride) {
  return static_cast<unsigned long long>((address & 0x3FFFF) >> 4) |
         (static_cast<unsigned long long>(leading >> 4) << 16) |
         (static_cast<unsigned long long>(stride >> 4) << 32) | (1ull << 62);
}
/// K-major, 128-byte swizzle (copy.cuh: tile_offset with pitch 0): 8-row
/// groups of 128-byte rows are 1024 bytes apart; the leading offset is
/// unused (16 by convention).
__device__ __forceinline__ unsigned long long k_major_descriptor(unsigned address) {
  return make_descriptor(address, 16, 1024);
}
/// MN-major (a [k][n] tile with n contiguous, e.g. V), 128-byte swizzle:
/// 64-column blocks of kRows rows are kRows * 128 bytes apart (leading),
/// 8-row groups 1024 bytes (stride).
template <int kRows>
__device__ __forceinline__ unsigned long long mn_major_descriptor(unsigned address) {
  return make_descriptor(address, kRows * 128, 1024);
}
/// `desc` moved on by `bytes` (a multiple of 16) in shared memory: one add
/// to the start address field, which no shared address (< 256 KB) carries
/// out of; a product's k steps add constants to one descriptor instead of
/// building a descriptor each.
__device__ __forceinline__ unsigned long long descriptor_plus(unsigned long long desc, unsigned bytes) {
  return desc + (bytes >> 4);
}

/// One m64nNk16 step for 16-bit elements E (m64nNk32 for fp8: each k step
/// reads 32 bytes of a row either way; fp8 operands in shared memory are
/// K-major, and the register A operand holds four fp8 elements per
/// register, consecutive in k, in the places the mma.sync A fragment has
/// its pairs):
///   ss: d (+)= A B, A and B from shared memory (accumulate = false
///       overwrites d), K-major unless kTransA / kTransB (then MN-major:
///       A stored [k][m], B stored [k][n]);
///   rs: d += A B, A from registers (a, the mma.sync A fragment of this
///       warp's 16 rows), B MN-major.
template <int N>
struct WgmmaM64;

#ifdef TG_DEVICE_HOST_EMULATION
// The host emulation (test/unit/DeviceEmulator.h) computes the products
// from the descriptors and the warpgroup's registers.
void emulate_wgmma_ss(float *d, int n, bool bf16, unsigned long long desc_a, unsigned long long desc_b,
                      bool accumulate, bool trans_a, bool trans_b);
void emulate_wgmma_rs(float *d, int n, bool bf16, const unsigned (&a)[4], unsigned long long desc_b);
template <int N>
struct WgmmaM64 {
  template <Elem E, int kTransA = 0, int kTransB = 0>
  static void ss(float (&d)[N / 8][4], unsigned long long desc_a, unsigned long long desc_b, bool accumulate) {
    static_assert(!is_fp8(E), "the emulation has no fp8 wgmma");
    emulate_wgmma_ss(&d[0][0], N, E == Elem::BF16, desc_a, desc_b, accumulate, kTransA, kTransB);
  }
  template <Elem E>
  static void rs(float (&d)[N / 8][4], const unsigned (&a)[4], unsigned long long desc_b) {
    static_assert(!is_fp8(E), "the emulation has no fp8 wgmma");
    emulate_wgmma_rs(&d[0][0], N, E == Elem::BF16, a, desc_b);
  }
};
#else

// Operand lists: accumulator tiles "+f"(d[i][e]) and their register numbers.
#define TG_WGMMA_ACC(d, i) "+f"(d[i][0]), "+f"(d[i][1]), "+f"(d[i][2]), "+f"(d[i][3])
#define TG_WGMMA_ACC_2(d) TG_WGMMA_ACC(d, 0), TG_WGMMA_ACC(d, 1)
#define TG_WGMMA_ACC_4(d) TG_WGMMA_ACC_2(d), TG_WGMMA_ACC(d, 2), TG_WGMMA_ACC(d, 3)
#define TG_WGMMA_ACC_6(d) TG_WGMMA_ACC_4(d), TG_WGMMA_ACC(d, 4), TG_WGMMA_ACC(d, 5)
#define TG_WGMMA_ACC_8(d) TG_WGMMA_ACC_6(d), TG_WGMMA_ACC(d, 6), TG_WGMMA_ACC(d, 7)
#define TG_WGMMA_ACC_10(d) TG_WGMMA_ACC_8(d), TG_WGMMA_ACC(d, 8), TG_WGMMA_ACC(d, 9)
#define TG_WGMMA_ACC_12(d) TG_WGMMA_ACC_10(d), TG_WGMMA_ACC(d, 10), TG_WGMMA_ACC(d, 11)
#define TG_WGMMA_ACC_14(d) TG_WGMMA_ACC_12(d), TG_WGMMA_ACC(d, 12), TG_WGMMA_ACC(d, 13)
#define TG_WGMMA_ACC_16(d) TG_WGMMA_ACC_14(d), TG_WGMMA_ACC(d, 14), TG_WGMMA_ACC(d, 15)
#define TG_WGMMA_ACC_18(d) TG_WGMMA_ACC_16(d), TG_WGMMA_ACC(d, 16), TG_WGMMA_ACC(d, 17)
#define TG_WGMMA_ACC_20(d) TG_WGMMA_ACC_18(d), TG_WGMMA_ACC(d, 18), TG_WGMMA_ACC(d, 19)
#define TG_WGMMA_ACC_22(d) TG_WGMMA_ACC_20(d), TG_WGMMA_ACC(d, 20), TG_WGMMA_ACC(d, 21)
#define TG_WGMMA_ACC_24(d) TG_WGMMA_ACC_22(d), TG_WGMMA_ACC(d, 22), TG_WGMMA_ACC(d, 23)
#define TG_WGMMA_ACC_26(d) TG_WGMMA_ACC_24(d), TG_WGMMA_ACC(d, 24), TG_WGMMA_ACC(d, 25)
#define TG_WGMMA_ACC_28(d) TG_WGMMA_ACC_26(d), TG_WGMMA_ACC(d, 26), TG_WGMMA_ACC(d, 27)
#define TG_WGMMA_ACC_30(d) TG_WGMMA_ACC_28(d), TG_WGMMA_ACC(d, 28), TG_WGMMA_ACC(d, 29)
#define TG_WGMMA_ACC_32(d) TG_WGMMA_ACC_30(d), TG_WGMMA_ACC(d, 30), TG_WGMMA_ACC(d, 31)
#define TG_WGMMA_REGS_8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define TG_WGMMA_REGS_16 TG_WGMMA_REGS_8 ", %8, %9, %10, %11, %12, %13, %14, %15"
#define TG_WGMMA_REGS_24 TG_WGMMA_REGS_16 ", %16, %17, %18, %19, %20, %21, %22, %23"
#define TG_WGMMA_REGS_32 TG_WGMMA_REGS_24 ", %24, %25, %26, %27, %28, %29, %30, %31"
#define TG_WGMMA_REGS_40 TG_WGMMA_REGS_32 ", %32, %33, %34, %35, %36, %37, %38, %39"
#define TG_WGMMA_REGS_48 TG_WGMMA_REGS_40 ", %40, %41, %42, %43, %44, %45, %46, %47"
#define TG_WGMMA_REGS_56 TG_WGMMA_REGS_48 ", %48, %49, %50, %51, %52, %53, %54, %55"
#define TG_WGMMA_REGS_64 TG_WGMMA_REGS_56 ", %56, %57, %58, %59, %60, %61, %62, %63"
#define TG_WGMMA_REGS_72 TG_WGMMA_REGS_64 ", %64, %65, %66, %67, %68, %69, %70, %71"
#define TG_WGMMA_REGS_80 TG_WGMMA_REGS_72 ", %72, %73, %74, %75, %76, %77, %78, %79"
#define TG_WGMMA_REGS_88 TG_WGMMA_REGS_80 ", %80, %81, %82, %83, %84, %85, %86, %87"
#define TG_WGMMA_REGS_96 TG_WGMMA_REGS_88 ", %88, %89, %90, %91, %92, %93, %94, %95"
#define TG_WGMMA_REGS_104 TG_WGMMA_REGS_96 ", %96, %97, %98, %99, %100, %101, %102, %103"
#define TG_WGMMA_REGS_112 TG_WGMMA_REGS_104 ", %104, %105, %106, %107, %108, %109, %110, %111"
#define TG_WGMMA_REGS_120 TG_WGMMA_REGS_112 ", %112, %113, %114, %115, %116, %117, %118, %119"
#define TG_WGMMA_REGS_128 TG_WGMMA_REGS_120 ", %120, %121, %122, %123, %124, %125, %126, %127"

// N, then the accumulators' operand list and register numbers, then the
// numbers of the operands after them (k = N / 2 accumulator registers): ss
// uses %k, %k+1 (descriptors), %k+2 (accumulate), %k+3, %k+4 (transposes); rs uses %k..%k+3 (A),
// %k+4 (B descriptor), %k+5 (scale-d, always 1).
#define TG_WGMMA_M64(N, ACC, REGS, K0, K1, K2, K3, K4, K5)                                         \
  template <>                                                                                      \
  struct WgmmaM64<N> {                                                                             \
    template <Elem E, int kTransA = 0, int kTransB = 0>                                            \
    static __device__ __forceinline__ void ss(float (&d)[N / 8][4], unsigned long long desc_a,     \
                                              unsigned long long desc_b, bool accumulate) {        \
      if constexpr (E == Elem::BF16)                                                               \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K2 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 {" REGS "}, %" #K0    \
                     ", %" #K1 ", p, 1, 1, %" #K3 ", %" #K4 ";\n}\n"                                \
                     : ACC(d)                                                                      \
                     : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransA),  \
                       "n"(kTransB));                                                              \
      else if constexpr (E == Elem::F16)                                                           \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K2 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 {" REGS "}, %" #K0      \
                     ", %" #K1 ", p, 1, 1, %" #K3 ", %" #K4 ";\n}\n"                                \
                     : ACC(d)                                                                      \
                     : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)), "n"(kTransA),  \
                       "n"(kTransB));                                                              \
      else {                                                                                       \
        static_assert(!kTransA && !kTransB, "fp8 wgmma operands are K-major");                     \
        if constexpr (E == Elem::E4M3)                                                             \
          asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K2 ", 0;\n"                           \
                       "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 {" REGS "}, %" #K0  \
                       ", %" #K1 ", p, 1, 1;\n}\n"                                                 \
                       : ACC(d)                                                                    \
                       : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)));             \
        else                                                                                       \
          asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K2 ", 0;\n"                           \
                       "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e5m2.e5m2 {" REGS "}, %" #K0  \
                       ", %" #K1 ", p, 1, 1;\n}\n"                                                 \
                       : ACC(d)                                                                    \
                       : "l"(desc_a), "l"(desc_b), "r"(static_cast<int>(accumulate)));             \
      }                                                                                            \
    }                                                                                              \
    template <Elem E>                                                                              \
    static __device__ __forceinline__ void rs(float (&d)[N / 8][4], const unsigned (&a)[4],        \
                                              unsigned long long desc_b) {                         \
      if constexpr (E == Elem::BF16)                                                               \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K5 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 {" REGS "}, {%" #K0   \
                     ", %" #K1 ", %" #K2 ", %" #K3 "}, %" #K4 ", p, 1, 1, 1;\n}\n"                   \
                     : ACC(d)                                                                      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));           \
      else if constexpr (E == Elem::F16)                                                           \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K5 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.f16.f16 {" REGS "}, {%" #K0     \
                     ", %" #K1 ", %" #K2 ", %" #K3 "}, %" #K4 ", p, 1, 1, 1;\n}\n"                   \
                     : ACC(d)                                                                      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));           \
      else if constexpr (E == Elem::E4M3)                                                          \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K5 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e4m3.e4m3 {" REGS "}, {%" #K0   \
                     ", %" #K1 ", %" #K2 ", %" #K3 "}, %" #K4 ", p, 1, 1;\n}\n"                      \
                     : ACC(d)                                                                      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));           \
      else                                                                                         \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #K5 ", 0;\n"                             \
                     "wgmma.mma_async.sync.aligned.m64n" #N "k32.f32.e5m2.e5m2 {" REGS "}, {%" #K0   \
                     ", %" #K1 ", %" #K2 ", %" #K3 "}, %" #K4 ", p, 1, 1;\n}\n"                      \
                     : ACC(d)                                                                      \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(1));           \
    }                                                                                              \
  };

TG_WGMMA_M64(16, TG_WGMMA_ACC_2, TG_WGMMA_REGS_8, 8, 9, 10, 11, 12, 13)
TG_WGMMA_M64(32, TG_WGMMA_ACC_4, TG_WGMMA_REGS_16, 16, 17, 18, 19, 20, 21)
TG_WGMMA_M64(48, TG_WGMMA_ACC_6, TG_WGMMA_REGS_24, 24, 25, 26, 27, 28, 29)
TG_WGMMA_M64(64, TG_WGMMA_ACC_8, TG_WGMMA_REGS_32, 32, 33, 34, 35, 36, 37)
TG_WGMMA_M64(80, TG_WGMMA_ACC_10, TG_WGMMA_REGS_40, 40, 41, 42, 43, 44, 45)
TG_WGMMA_M64(96, TG_WGMMA_ACC_12, TG_WGMMA_REGS_48, 48, 49, 50, 51, 52, 53)
TG_WGMMA_M64(112, TG_WGMMA_ACC_14, TG_WGMMA_REGS_56, 56, 57, 58, 59, 60, 61)
TG_WGMMA_M64(128, TG_WGMMA_ACC_16, TG_WGMMA_REGS_64, 64, 65, 66, 67, 68, 69)
TG_WGMMA_M64(144, TG_WGMMA_ACC_18, TG_WGMMA_REGS_72, 72, 73, 74, 75, 76, 77)
TG_WGMMA_M64(160, TG_WGMMA_ACC_20, TG_WGMMA_REGS_80, 80, 81, 82, 83, 84, 85)
TG_WGMMA_M64(176, TG_WGMMA_ACC_22, TG_WGMMA_REGS_88, 88, 89, 90, 91, 92, 93)
TG_WGMMA_M64(192, TG_WGMMA_ACC_24, TG_WGMMA_REGS_96, 96, 97, 98, 99, 100, 101)
TG_WGMMA_M64(208, TG_WGMMA_ACC_26, TG_WGMMA_REGS_104, 104, 105, 106, 107, 108, 109)
TG_WGMMA_M64(224, TG_WGMMA_ACC_28, TG_WGMMA_REGS_112, 112, 113, 114, 115, 116, 117)
TG_WGMMA_M64(240, TG_WGMMA_ACC_30, TG_WGMMA_REGS_120, 120, 121, 122, 123, 124, 125)
TG_WGMMA_M64(256, TG_WGMMA_ACC_32, TG_WGMMA_REGS_128, 128, 129, 130, 131, 132, 133)

#undef TG_WGMMA_M64
#undef TG_WGMMA_ACC_2
#undef TG_WGMMA_ACC_4
#undef TG_WGMMA_ACC_6
#undef TG_WGMMA_ACC_8
#undef TG_WGMMA_ACC_10
#undef TG_WGMMA_ACC_12
#undef TG_WGMMA_ACC_14
#undef TG_WGMMA_ACC_16
#undef TG_WGMMA_ACC_18
#undef TG_WGMMA_ACC_20
#undef TG_WGMMA_ACC_22
#undef TG_WGMMA_ACC_24
#undef TG_WGMMA_ACC_26
#undef TG_WGMMA_ACC_28
#undef TG_WGMMA_ACC_30
#undef TG_WGMMA_ACC_32
#undef TG_WGMMA_REGS_8
#undef TG_WGMMA_REGS_16
#undef TG_WGMMA_REGS_24
#undef TG_WGMMA_REGS_32
#undef TG_WGMMA_REGS_40
#undef TG_WGMMA_REGS_48
#undef TG_WGMMA_REGS_56
#undef TG_WGMMA_REGS_64
#undef TG_WGMMA_REGS_72
#undef TG_WGMMA_REGS_80
#undef TG_WGMMA_REGS_88
#undef TG_WGMMA_REGS_96
#undef TG_WGMMA_REGS_104
#undef TG_WGMMA_REGS_112
#undef TG_WGMMA_REGS_120
#undef TG_WGMMA_REGS_128
#undef TG_WGMMA_ACC
#endif // TG_DEVICE_HOST_EMULATION

/// d = A B^T over kSteps k steps (k16, or k32 for fp8), A and B K-major
/// tiles in the swizzled layout (128-byte-wide column blocks of kRowsA /
/// kRowsB rows) from a and b: step ks reads block ks / 4, 32 bytes per step
/// inside the swizzled row. Issues only (no fence, commit or wait).
template <int N, Elem E, int kSteps, int kRowsA, int kRowsB>
__device__ __forceinline__ void wgmma_k_major_product(float (&d)[N / 8][4], unsigned a, unsigned b) {
  const unsigned long long desc_a = k_major_descriptor(a), desc_b = k_major_descriptor(b);
#pragma unroll
  for (int ks = 0; ks < kSteps; ++ks)
    WgmmaM64<N>::template ss<E>(d, descriptor_plus(desc_a, (ks / 4) * (kRowsA * 128) + (ks % 4) * 32),
                                descriptor_plus(desc_b, (ks / 4) * (kRowsB * 128) + (ks % 4) * 32), ks > 0);
}

} // namespace tg::device
