// tgc device library: every inline-PTX instruction the library uses, as a
// thin function each (the wgmma instructions themselves, whose operand lists
// depend on the tile shape, are in wgmma.cuh). A host emulation of the
// device code (tgc-codegen-tests, AttentionBackwardEmulationTest.cpp)
// defines TG_DEVICE_HOST_EMULATION and provides these functions itself.
#pragma once

namespace tg::device {

#ifndef TG_DEVICE_HOST_EMULATION

// --- Conversions: two floats rounded to nearest even into a pair of 16-bit
// elements (`lo` in the low half); an f16 element to float (exact).
__device__ __forceinline__ unsigned cvt_pack_bf16x2(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}
__device__ __forceinline__ unsigned cvt_pack_f16x2(float lo, float hi) {
  unsigned packed;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(packed) : "f"(hi), "f"(lo));
  return packed;
}
// Two floats into a pair of fp8 elements (`lo` in the low byte), rounded
// to nearest even with saturation to the largest finite value.
__device__ __forceinline__ unsigned short cvt_pack_e4m3x2(float lo, float hi) {
  unsigned short packed;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(packed) : "f"(hi), "f"(lo));
  return packed;
}
__device__ __forceinline__ unsigned short cvt_pack_e5m2x2(float lo, float hi) {
  unsigned short packed;
  asm("cvt.rn.satfinite.e5m2x2.f32 %0, %1, %2;" : "=h"(packed) : "f"(hi), "f"(lo));
  return packed;
}
__device__ __forceinline__ float cvt_f16_to_f32(unsigned short bits) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(bits));
  return f;
}

// --- Packed 16-bit multiplies (and subtracts, adds), each result rounded once to nearest even
// (as tg.mul of two 16-bit values rounds it). sm_80 has no mul.bf16x2: an
// fma with a -0 addend is the same operation (x + -0 = x for every x).
__device__ __forceinline__ unsigned mul_bf16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(0x80008000u));
  return d;
}
__device__ __forceinline__ unsigned mul_f16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("mul.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
__device__ __forceinline__ unsigned sub_f16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("sub.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
/// a - b as a * 1 + (-b): sm_80 has no sub.bf16x2.
__device__ __forceinline__ unsigned sub_bf16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(0x3f803f80u), "r"(b ^ 0x80008000u));
  return d;
}
__device__ __forceinline__ unsigned add_f16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("add.rn.f16x2 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b));
  return d;
}
/// a + b as a * 1 + b: sm_80 has no add.bf16x2.
__device__ __forceinline__ unsigned add_bf16x2(unsigned a, unsigned b) {
  unsigned d;
  asm("fma.rn.bf16x2 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(0x3f803f80u), "r"(b));
  return d;
}

/// 2^x on the special-function unit; ex2(-inf) = 0.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// --- Asynchronous copies (sm_80): global -> shared, zero-filled when
// `valid` is false (nothing is read then).
// kPrefetchL2: also fetch the rest of the 128-byte line into L2 (a hint;
// the decode kernel streams its K/V cache once, where it measured 1-3%
// more bandwidth on the H200).
template <bool kPrefetchL2 = false>
__device__ __forceinline__ void cp_async_16(unsigned dst, const void *src, bool valid) {
  if constexpr (kPrefetchL2)
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0));
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_4(unsigned dst, const void *src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
               "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
/// Waits until at most `kPending` committed copy groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

// --- ldmatrix: four (or two) 8x8 tiles of 16-bit elements from shared
// memory (mma.cuh describes the layouts).
__device__ __forceinline__ void ldmatrix_x4(unsigned address, unsigned (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned address, unsigned (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x2(unsigned address, unsigned (&r)[2]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}
__device__ __forceinline__ void ldmatrix_x2_trans(unsigned address, unsigned (&r)[2]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(address));
}

// --- mma.sync.m16n8k16, f32 accumulate: acc += A * B.
__device__ __forceinline__ void mma_bf16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0,
                                                 unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ void mma_f16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0,
                                                unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// --- Cross-CTA ordering (the deterministic backward's semaphores).
__device__ __forceinline__ int ld_acquire_gpu(const int *address) {
  int value;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(value) : "l"(address) : "memory");
  return value;
}
__device__ __forceinline__ void red_release_gpu_add(int *address, int value) {
  asm volatile("red.release.gpu.global.add.s32 [%0], %1;\n" ::"l"(address), "r"(value) : "memory");
}

// --- sm_90a: wgmma ordering, and the proxy fence between generic-proxy
// writes of shared memory (cp.async, st.shared) and async-proxy reads
// (wgmma operands).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/// Waits until at most `kPending` committed wgmma groups are in flight.
template <int kPending>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
__device__ __forceinline__ void fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
// --- sm_90: bulk reductions from shared into global memory (the bulk copy
// unit adds `bytes` of f32, 16-byte aligned at both ends, asynchronously).
__device__ __forceinline__ void bulk_reduce_add_f32(float *gmem, unsigned smem, unsigned bytes) {
  asm volatile("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%0], [%1], %2;\n" ::"l"(gmem),
               "r"(smem), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
/// Waits until this thread's bulk groups but kPending have read their source.
template <int kPending>
__device__ __forceinline__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(kPending) : "memory");
}
/// Waits until they have completed (their writes are done).
template <int kPending>
__device__ __forceinline__ void bulk_wait() {
  asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(kPending) : "memory");
}
// --- sm_90: mbarriers (the warp-specialised kernels' pipelines). A barrier
// completes a phase when `count` arrivals have come; waits name the phase by
// its parity. cp.async arrivals come when this thread's earlier copies land.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/// Makes initialised barriers visible to the other threads (before a barrier).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/// An arrival when every cp.async this thread issued so far has landed
/// (counted in the barrier's `count`: noinc).
__device__ __forceinline__ void cp_async_mbarrier_arrive(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}
/// Waits until the phase of parity `parity` has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  asm volatile(
      "{\n.reg .pred done;\nwait_loop:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra wait_loop;\n}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}
// --- Named barriers among `count` threads (id 0 is __syncthreads'):
// sync waits for the others, arrive only counts this warp in.
__device__ __forceinline__ void named_barrier_sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
__device__ __forceinline__ void named_barrier_arrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
// --- sm_90: a warpgroup gives back registers or takes more (setmaxnreg;
// every warp of the warpgroup executes the same one).
template <int kRegisters>
__device__ __forceinline__ void warpgroup_release_registers() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
template <int kRegisters>
__device__ __forceinline__ void warpgroup_claim_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegisters));
}
/// Keeps four packed registers live (and in place) until this point: the
/// A fragments of an asynchronous wgmma are read until its wait.
__device__ __forceinline__ void fence_operand(unsigned (&r)[4]) {
#pragma unroll
  for (int e = 0; e < 4; ++e) asm volatile("" : "+r"(r[e])::"memory");
}
/// Keeps the compiler from moving accesses of four accumulator registers
/// across wgmma fences and waits.
__device__ __forceinline__ void fence_operand(float (&r)[4]) {
#pragma unroll
  for (int e = 0; e < 4; ++e) asm volatile("" : "+f"(r[e])::"memory");
}

/// Makes a 64-bit value opaque to the optimiser (keeps it from hoisting
/// address arithmetic that depends on it out of a loop).
template <class T>
__device__ __forceinline__ void opaque(T &value) {
  static_assert(sizeof(T) == 8 || sizeof(T) == 4, "32- or 64-bit values");
  if constexpr (sizeof(T) == 8)
    asm volatile("" : "+l"(value));
  else
    asm volatile("" : "+r"(value));
}

// --- Early launch (programmatic dependent launch, sm_90): the first call
// of an early-launch kernel (tgc::kEarlyLaunchWait, runtime/include/tgc/
// Plan.h). It waits until the grids before this one in the stream have
// finished and their writes are visible, then lets the next grid launch:
// its CTAs may start while this grid's last ones run, and wait here in
// turn. Compiled for an earlier arch it is nothing, and the runtime then
// launches the kernel in stream order.
__device__ __forceinline__ void wait_for_earlier_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

#else // The host emulation defines these.

unsigned cvt_pack_bf16x2(float lo, float hi);
unsigned cvt_pack_f16x2(float lo, float hi);
unsigned short cvt_pack_e4m3x2(float lo, float hi);
unsigned short cvt_pack_e5m2x2(float lo, float hi);
float cvt_f16_to_f32(unsigned short bits);
unsigned mul_bf16x2(unsigned a, unsigned b);
unsigned mul_f16x2(unsigned a, unsigned b);
unsigned sub_f16x2(unsigned a, unsigned b);
unsigned sub_bf16x2(unsigned a, unsigned b);
unsigned add_f16x2(unsigned a, unsigned b);
unsigned add_bf16x2(unsigned a, unsigned b);
float fast_exp2(float x);
template <bool kPrefetchL2>
void cp_async_16(unsigned dst, const void *src, bool valid);
void cp_async_4(unsigned dst, const void *src, bool valid);
void cp_async_commit();
template <int kPending>
void cp_async_wait();
void ldmatrix_x4(unsigned address, unsigned (&r)[4]);
void ldmatrix_x4_trans(unsigned address, unsigned (&r)[4]);
void ldmatrix_x2(unsigned address, unsigned (&r)[2]);
void ldmatrix_x2_trans(unsigned address, unsigned (&r)[2]);
void mma_bf16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);
void mma_f16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1);
int ld_acquire_gpu(const int *address);
void red_release_gpu_add(int *address, int value);
void wgmma_fence();
void wgmma_commit();
template <int kPending>
void wgmma_wait();
void fence_proxy_async();
void bulk_reduce_add_f32(float *gmem, unsigned smem, unsigned bytes);
void bulk_commit();
template <int kPending>
void bulk_wait_read();
template <int kPending>
void bulk_wait();
void fence_operand(float (&r)[4]);
void mbarrier_init(unsigned bar, unsigned count);
void fence_mbarrier_init();
void mbarrier_arrive(unsigned bar);
void cp_async_mbarrier_arrive(unsigned bar);
void mbarrier_wait(unsigned bar, unsigned parity);
void named_barrier_sync(unsigned id, unsigned count);
void named_barrier_arrive(unsigned id, unsigned count);
template <int kRegisters>
void warpgroup_release_registers();
template <int kRegisters>
void warpgroup_claim_registers();
void fence_operand(unsigned (&r)[4]);
template <class T>
void opaque(T &value);
void wait_for_earlier_grids();

#endif // TG_DEVICE_HOST_EMULATION

} // namespace tg::device
