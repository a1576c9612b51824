#include "CudaPrelude.h"

#include "DeviceLibrary.h"
#include "SourceTemplate.h"

namespace tg::codegen {

namespace {

const char *kPreludeTemplate = R"cuda(
// ---------------------------------------------------------------------------
// Device helpers: element type, conversions, async copies, tensor cores
// ---------------------------------------------------------------------------
// $(TYPE_NAME) values travel as raw 16-bit words; only the tensor cores and
// the cvt instructions interpret them.
typedef unsigned short elem_t;

__device__ __forceinline__ float neg_inf() { return __int_as_float(0xff800000); }
__device__ __forceinline__ int imin(int a, int b) { return a < b ? a : b; }
__device__ __forceinline__ int imax(int a, int b) { return a > b ? a : b; }

// Packs two floats into one register holding two $(TYPE_NAME) values,
// `lo` in the low half (the element with the smaller column index).
__device__ __forceinline__ unsigned pack_elem_x2(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn.$(PTX_TYPE)x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}

// 32-bit shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ unsigned shared_address(const void *pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}

// 16-byte global -> shared copy that bypasses L1; when `valid` is false
// nothing is read and the destination is zero-filled.
__device__ __forceinline__ void cp_async_16(unsigned dst, const void *src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :: "r"(dst), "l"(src), "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most `kPending` committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" :: "n"(kPending) : "memory");
}

// Four 8x8 tiles of 16-bit elements from shared memory; lanes 8i..8i+7 give
// the row addresses of tile i, register i receives tile i.
__device__ __forceinline__ void ldmatrix_x4(unsigned address, unsigned &r0, unsigned &r1,
                                            unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(address));
}
// As ldmatrix_x4, each tile transposed (row-major V -> column-major B operand).
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned address, unsigned &r0, unsigned &r1,
                                                  unsigned &r2, unsigned &r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(address));
}
// Two transposed tiles; lanes 0..15 give the row addresses.
__device__ __forceinline__ void ldmatrix_x2_trans(unsigned address, unsigned &r0, unsigned &r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r0), "=r"(r1) : "r"(address));
}

// acc += A * B for one 16x8x16 tile: A 16x16 row-major (4 registers), B 16x8
// column-major (2 registers), f32 accumulators in the mma C/D layout
// (lane = 4 * row + column pair; acc[0..1] row r, acc[2..3] row r + 8).
__device__ __forceinline__ void mma_16x8x16(float (&acc)[4], const unsigned (&a)[4],
                                            unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.$(PTX_TYPE).$(PTX_TYPE).f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// 2^x on the special-function unit; ex2(-inf) = 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Reductions over the 4 lanes that share one accumulator row.
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
  return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(0xffffffffu, x, 1);
  return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// Scalar conversions used by capture accessors.
__device__ __forceinline__ float bf16_bits_to_float(unsigned short bits) {
  return __uint_as_float(static_cast<unsigned>(bits) << 16);
}
__device__ __forceinline__ float f16_bits_to_float(unsigned short bits) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}
)cuda";


} // namespace

std::string cudaPrelude(AttentionElementType type) {
  SourceTemplate t;
  bool bf16 = type == AttentionElementType::BF16;
  t.set("TYPE_NAME", bf16 ? "bf16" : "f16");
  t.set("PTX_TYPE", bf16 ? "bf16" : "f16");
  return t.expand(kPreludeTemplate);
}

std::string cudaPhiloxSource() { return deviceLibrarySource({"philox.cuh"}); }

} // namespace tg::codegen
