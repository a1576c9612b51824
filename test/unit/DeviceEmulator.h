// A host emulation of the CUDA the device library uses, for tests without a
// GPU: a CTA's threads run as fibers (ucontext) under a round-robin
// scheduler, one CTA at a time; __syncthreads and warp collectives
// (ldmatrix, mma.sync, shuffles) are barriers over the fibers with their
// results computed from every lane's inputs as the PTX ISA defines them;
// cp.async copies land at a random point between their issue and the
// cp.async.wait_group that covers them, so a missing wait reads stale data
// and a copy into a buffer still being read shows. Each scheduler pass runs a random
// subset of the threads, so warps drift apart as far as the barriers allow
// and a missing __syncthreads shows as a race. Include this, then the device code
// (TG_DEVICE_HOST_EMULATION makes ptx.cuh leave its functions to this file).
#ifndef TG_TEST_DEVICEEMULATOR_H
#define TG_TEST_DEVICEEMULATOR_H

#define TG_DEVICE_HOST_EMULATION 1

#include <ucontext.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

// --- CUDA keywords and types as host C++ ---
#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)

struct uint4 {
  unsigned x, y, z, w;
};
struct float4 {
  float x, y, z, w;
};
struct float2 {
  float x, y;
};
inline float2 make_float2(float x, float y) { return {x, y}; }

namespace emu {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

struct Copy {
  unsigned dst;
  const void *src;
  unsigned bytes, fill; // copy `bytes` from src, zero the rest of `fill`
};

struct Fiber {
  ucontext_t context;
  std::vector<char> stack;
  Dim3 thread;
  bool done = false;
  std::vector<Copy> open;                // cp.async since the last commit
  std::vector<std::vector<Copy>> groups; // committed, oldest first
};

struct Warp {
  unsigned arrived = 0, generation = 0;
  uint32_t slots[32][12];
};

struct Cta {
  Dim3 block, grid, dim;
  std::vector<Fiber> fibers;
  int current = 0;
  ucontext_t scheduler;
  unsigned char *smem = nullptr;
  size_t smemBytes = 0;
  unsigned arrived = 0, generation = 0;
  struct Vote {
    unsigned generation = ~0u;
    int value = 0;
  } votes[2]; // __syncthreads_or's, by the barrier's generation % 2
  std::vector<Warp> warps;
  struct NamedBarrier {
    unsigned arrived = 0, generation = 0;
  } named[16]; // bar.sync ids (0 is __syncthreads')
  std::function<void()> body;
  unsigned long long events = 0; // barrier releases and finished fibers
};

inline Cta *&cta() {
  static Cta *current = nullptr;
  return current;
}
inline Fiber &self() { return cta()->fibers[cta()->current]; }
inline int threadLinear() {
  const Dim3 &t = self().thread;
  return int(t.x + cta()->dim.x * (t.y + cta()->dim.y * t.z));
}
void landSomeCopies();
inline void yield() {
  landSomeCopies();
  swapcontext(&self().context, &cta()->scheduler);
}

inline void fail(const char *what) {
  std::fprintf(stderr, "device emulator: %s\n", what);
  std::abort();
}

/// One barrier's arrival: the `count`-th arrival releases the others.
inline void arriveAndWait(unsigned &arrived, unsigned &generation, unsigned count) {
  unsigned mine = generation;
  if (++arrived == count) {
    arrived = 0;
    ++generation;
    ++cta()->events;
    return;
  }
  while (generation == mine)
    yield();
}

inline void blockBarrier() {
  Cta &c = *cta();
  arriveAndWait(c.arrived, c.generation, unsigned(c.fibers.size()));
}

inline void warpBarrier() {
  Warp &w = cta()->warps[threadLinear() / 32];
  arriveAndWait(w.arrived, w.generation, 32);
}

/// bar.sync id, count: the first `count` threads to arrive release each other.
inline void namedBarrier(unsigned id, unsigned count) {
  if (id == 0 || id >= 16 || count % 32 || count == 0)
    fail("bar.sync with a bad id or count");
  Cta::NamedBarrier &b = cta()->named[id];
  arriveAndWait(b.arrived, b.generation, count);
}

inline int lane() { return threadLinear() % 32; }
inline uint32_t (&mySlot())[12] { return cta()->warps[threadLinear() / 32].slots[lane()]; }
inline uint32_t (&slotOf(int l))[12] { return cta()->warps[threadLinear() / 32].slots[l]; }

inline unsigned short smemHalf(unsigned address) {
  if (address + 2 > cta()->smemBytes)
    fail("shared-memory read out of range");
  if (address % 2)
    fail("misaligned 16-bit shared-memory read");
  unsigned short v;
  std::memcpy(&v, cta()->smem + address, 2);
  return v;
}

/// Performs the copies of one committed cp.async group (the oldest).
inline void landOldestGroup(Fiber &f) {
  if (f.groups.empty())
    return;
  for (const Copy &c : f.groups.front()) {
    if (c.dst + c.fill > cta()->smemBytes)
      fail("cp.async past the end of shared memory");
    std::memset(cta()->smem + c.dst, 0, c.fill);
    if (c.bytes)
      std::memcpy(cta()->smem + c.dst, c.src, c.bytes);
  }
  f.groups.erase(f.groups.begin());
}

/// Copies may land early: now and then at a yield.
inline void landSomeCopies() {
  static std::mt19937 rng(3);
  if (rng() % 8 == 0)
    landOldestGroup(self());
}

inline void trampoline() {
  cta()->body();
  self().done = true;
  ++cta()->events;
  swapcontext(&self().context, &cta()->scheduler);
}

/// Runs `body` as every thread of every CTA of `grid` x `block`, CTAs one
/// after another, with `smemBytes` of dynamic shared memory at `smem`.
inline void launch(Dim3 grid, Dim3 block, unsigned char *smem, size_t smemBytes,
                   std::function<void()> body) {
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        Cta c;
        c.block = {bx, by, bz};
        c.grid = grid;
        c.dim = block;
        c.smem = smem;
        c.smemBytes = smemBytes;
        c.body = body;
        unsigned threads = block.x * block.y * block.z;
        if (threads % 32)
          fail("block size not a multiple of 32");
        c.warps.resize(threads / 32);
        c.fibers.resize(threads);
        // Garbage, not zeros: a read before any write shows.
        for (size_t i = 0; i < smemBytes; ++i)
          smem[i] = static_cast<unsigned char>(0xA5 ^ (i * 7));
        cta() = &c;
        for (unsigned i = 0; i < threads; ++i) {
          Fiber &f = c.fibers[i];
          f.thread = {i % block.x, (i / block.x) % block.y, i / (block.x * block.y)};
          f.stack.resize(256 * 1024);
          getcontext(&f.context);
          f.context.uc_stack.ss_sp = f.stack.data();
          f.context.uc_stack.ss_size = f.stack.size();
          f.context.uc_link = nullptr;
          makecontext(&f.context, trampoline, 0);
        }
        std::mt19937 rng(bx * 131 + by * 17 + bz);
        for (;;) {
          bool all = true, everyone = true;
          unsigned long long before = c.events;
          // Warps are scheduled with different probabilities per pass.
          for (unsigned i = 0; i < threads; ++i) {
            if (c.fibers[i].done)
              continue;
            all = false;
            if (rng() % 4 == 0) {
              everyone = false;
              continue;
            }
            c.current = int(i);
            swapcontext(&c.scheduler, &c.fibers[i].context);
          }
          if (all)
            break;
          // A pass where every live fiber ran, waited, and nothing was released.
          if (everyone && c.events == before)
            fail("deadlock: threads wait at different barriers");
        }
        cta() = nullptr;
      }
}

inline unsigned short floatToBf16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    return 0x7fc0;
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<unsigned short>(bits >> 16);
}
inline unsigned short floatToF16(float f) {
  _Float16 h = static_cast<_Float16>(f);
  unsigned short bits;
  std::memcpy(&bits, &h, 2);
  return bits;
}
inline float bf16ToFloat(unsigned short b) {
  uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}
inline float f16ToFloat(unsigned short b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

} // namespace emu

// --- CUDA built-ins the device code calls ---
#define threadIdx (emu::self().thread)
#define blockIdx (emu::cta()->block)
#define gridDim (emu::cta()->grid)
#define blockDim (emu::cta()->dim)

inline void __syncthreads() { emu::blockBarrier(); }
/// Every thread enters with the same generation g and votes in slot g % 2
/// (the first voter of g resets it). No thread reaches generation g + 2,
/// the slot's next user, before every thread has read it.
inline int __syncthreads_or(int predicate) {
  emu::Cta &c = *emu::cta();
  const unsigned g = c.generation;
  emu::Cta::Vote &vote = c.votes[g % 2];
  if (vote.generation != g)
    vote = {g, 0};
  vote.value |= predicate != 0;
  emu::blockBarrier();
  return vote.value;
}
inline void __threadfence() {} // CTAs run one after another
inline float __shfl_xor_sync(unsigned, float v, int mask) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  emu::mySlot()[0] = bits;
  emu::warpBarrier();
  uint32_t other = emu::slotOf(emu::lane() ^ mask)[0];
  emu::warpBarrier();
  float r;
  std::memcpy(&r, &other, 4);
  return r;
}
inline float atomicAdd(float *address, float value) { // fibers never interleave inside
  float old = *address;
  *address = old + value;
  return old;
}
inline long long atomicMin(long long *address, long long value) {
  long long old = *address;
  *address = value < old ? value : old;
  return old;
}
inline long long atomicMax(long long *address, long long value) {
  long long old = *address;
  *address = value > old ? value : old;
  return old;
}
inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
inline float __uint_as_float(unsigned i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
/// PRMT's default mode: byte i of the result is byte (s >> 4i) & 7 of
/// {y, x} (x holds bytes 0-3).
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  uint64_t both = (uint64_t(y) << 32) | x;
  unsigned r = 0;
  for (int i = 0; i < 4; ++i)
    r |= unsigned((both >> (8 * ((s >> (4 * i)) & 7))) & 0xffu) << (8 * i);
  return r;
}
inline unsigned __umulhi(unsigned a, unsigned b) {
  return static_cast<unsigned>((static_cast<uint64_t>(a) * b) >> 32);
}
inline unsigned long long __cvta_generic_to_shared(const void *p) {
  const unsigned char *c = static_cast<const unsigned char *>(p);
  if (c < emu::cta()->smem || c > emu::cta()->smem + emu::cta()->smemBytes)
    emu::fail("__cvta_generic_to_shared of a pointer outside shared memory");
  return static_cast<unsigned long long>(c - emu::cta()->smem);
}

// --- ptx.cuh's functions ---
namespace tg::device {

inline unsigned cvt_pack_bf16x2(float lo, float hi) {
  return unsigned(emu::floatToBf16(lo)) | (unsigned(emu::floatToBf16(hi)) << 16);
}
inline unsigned cvt_pack_f16x2(float lo, float hi) {
  return unsigned(emu::floatToF16(lo)) | (unsigned(emu::floatToF16(hi)) << 16);
}
inline float cvt_f16_to_f32(unsigned short bits) { return emu::f16ToFloat(bits); }
/// A packed 16-bit operation: each half through f32 and rounded once. The
/// product of two 16-bit values is exact in f32, and so is the sum or
/// difference of two whose exponents are within 16 of each other (the
/// kernels' conversions and the tests' zero points), so this is the
/// instruction's single rounding.
template <bool kBf16, class Op>
inline unsigned packed16(unsigned a, unsigned b, Op op) {
  auto lane = [&](int half) {
    auto value = [&](unsigned pair) {
      unsigned short bits = static_cast<unsigned short>(half ? pair >> 16 : pair & 0xffffu);
      return kBf16 ? emu::bf16ToFloat(bits) : emu::f16ToFloat(bits);
    };
    float r = op(value(a), value(b));
    return unsigned(kBf16 ? emu::floatToBf16(r) : emu::floatToF16(r));
  };
  return lane(0) | (lane(1) << 16);
}
inline unsigned mul_bf16x2(unsigned a, unsigned b) {
  return packed16<true>(a, b, [](float x, float y) { return x * y; });
}
inline unsigned mul_f16x2(unsigned a, unsigned b) {
  return packed16<false>(a, b, [](float x, float y) { return x * y; });
}
inline unsigned sub_f16x2(unsigned a, unsigned b) {
  return packed16<false>(a, b, [](float x, float y) { return x - y; });
}
inline unsigned sub_bf16x2(unsigned a, unsigned b) {
  return packed16<true>(a, b, [](float x, float y) { return x - y; });
}
inline unsigned add_f16x2(unsigned a, unsigned b) {
  return packed16<false>(a, b, [](float x, float y) { return x + y; });
}
inline unsigned add_bf16x2(unsigned a, unsigned b) {
  return packed16<true>(a, b, [](float x, float y) { return x + y; });
}
inline float fast_exp2(float x) { return std::exp2(x); }

template <bool kPrefetchL2 = false>  // (the L2 prefetch hint changes nothing here)
inline void cp_async_16(unsigned dst, const void *src, bool valid) {
  if (dst % 16)
    emu::fail("misaligned 16-byte cp.async destination");
  if (valid && reinterpret_cast<uintptr_t>(src) % 16)
    emu::fail("misaligned 16-byte cp.async source");
  emu::self().open.push_back({dst, src, valid ? 16u : 0u, 16u});
}
inline void cp_async_4(unsigned dst, const void *src, bool valid) {
  if (dst % 4)
    emu::fail("misaligned 4-byte cp.async destination");
  emu::self().open.push_back({dst, src, valid ? 4u : 0u, 4u});
}
inline void cp_async_commit() {
  emu::self().groups.push_back(std::move(emu::self().open));
  emu::self().open.clear();
}
template <int kPending>
inline void cp_async_wait() {
  while (emu::self().groups.size() > size_t(kPending))
    emu::landOldestGroup(emu::self());
}

/// ldmatrix: lane l addresses row l % 8 of matrix l / 8.
inline void ldmatrix(unsigned address, unsigned *r, int matrices, bool trans) {
  emu::mySlot()[0] = address;
  emu::warpBarrier();
  int t = emu::lane();
  for (int i = 0; i < matrices; ++i) {
    auto element = [&](int row, int col) {
      unsigned rowAddress = emu::slotOf(8 * i + row)[0];
      if (rowAddress % 16)
        emu::fail("ldmatrix row address not 16-byte aligned");
      return emu::smemHalf(rowAddress + 2 * col);
    };
    unsigned short lo, hi;
    if (!trans) {
      lo = element(t / 4, 2 * (t % 4));
      hi = element(t / 4, 2 * (t % 4) + 1);
    } else {
      lo = element(2 * (t % 4), t / 4);
      hi = element(2 * (t % 4) + 1, t / 4);
    }
    r[i] = unsigned(lo) | (unsigned(hi) << 16);
  }
  emu::warpBarrier();
}
inline void ldmatrix_x4(unsigned a, unsigned (&r)[4]) { ldmatrix(a, r, 4, false); }
inline void ldmatrix_x4_trans(unsigned a, unsigned (&r)[4]) { ldmatrix(a, r, 4, true); }
inline void ldmatrix_x2(unsigned a, unsigned (&r)[2]) { ldmatrix(a, r, 2, false); }
inline void ldmatrix_x2_trans(unsigned a, unsigned (&r)[2]) { ldmatrix(a, r, 2, true); }

/// mma.m16n8k16 row.col with the PTX ISA's fragment layouts.
inline void mma(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1, bool bf16) {
  uint32_t(&slot)[12] = emu::mySlot();
  for (int i = 0; i < 4; ++i) {
    slot[i] = a[i];
    std::memcpy(&slot[6 + i], &acc[i], 4);
  }
  slot[4] = b0;
  slot[5] = b1;
  emu::warpBarrier();
  auto value = [&](unsigned pair, int half) {
    unsigned short bits = static_cast<unsigned short>(half ? pair >> 16 : pair & 0xffffu);
    return bf16 ? emu::bf16ToFloat(bits) : emu::f16ToFloat(bits);
  };
  float A[16][16], B[16][8], C[16][8];
  for (int l = 0; l < 32; ++l) {
    const uint32_t(&s)[12] = emu::slotOf(l);
    int g = l / 4, c = l % 4;
    for (int h = 0; h < 2; ++h) {
      A[g][2 * c + h] = value(s[0], h);
      A[g + 8][2 * c + h] = value(s[1], h);
      A[g][2 * c + 8 + h] = value(s[2], h);
      A[g + 8][2 * c + 8 + h] = value(s[3], h);
      B[2 * c + h][g] = value(s[4], h);
      B[2 * c + 8 + h][g] = value(s[5], h);
    }
    float cv[4];
    std::memcpy(cv, &s[6], 16);
    C[g][2 * c] = cv[0];
    C[g][2 * c + 1] = cv[1];
    C[g + 8][2 * c] = cv[2];
    C[g + 8][2 * c + 1] = cv[3];
  }
  int t = emu::lane(), g = t / 4, c = t % 4;
  int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * c, 2 * c + 1, 2 * c, 2 * c + 1};
  for (int e = 0; e < 4; ++e) {
    float d = C[rows[e]][cols[e]];
    for (int k = 0; k < 16; ++k)
      d += A[rows[e]][k] * B[k][cols[e]];
    acc[e] = d;
  }
  emu::warpBarrier();
}
inline void mma_bf16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  mma(acc, a, b0, b1, true);
}
inline void mma_f16_16x8x16(float (&acc)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  mma(acc, a, b0, b1, false);
}
/// A spin on a semaphore yields, so that the other threads run. CTAs run
/// one after another, so a wait for earlier CTAs ends at once; a long spin
/// is a wait that can never end.
inline int ld_acquire_gpu(const int *address) {
  static const int *last = nullptr;
  static int spins = 0;
  spins = address == last ? spins + 1 : 0;
  last = address;
  if (spins > 1000)
    emu::fail("a semaphore never reached the value waited for");
  emu::yield();
  return *address;
}
inline void red_release_gpu_add(int *address, int value) { *address += value; }
template <class T>
inline void opaque(T &) {}
// One emulated grid runs at a time: nothing before it is still running.
inline void wait_for_earlier_grids() {}

// --- sm_90a: wgmma is computed when issued (its reads of shared memory
// happen at once, so the fences and waits order nothing here); the
// descriptors are decoded as the PTX ISA defines them for the 128-byte
// swizzle (the only mode the device library uses).
inline void wgmma_fence() {}
inline void wgmma_commit() {}
template <int kPending>
inline void wgmma_wait() {}
inline void fence_proxy_async() {}
inline void fence_operand(float (&)[4]) {}
inline void fence_operand(unsigned (&)[4]) {}
inline void named_barrier_sync(unsigned id, unsigned count) { emu::namedBarrier(id, count); }

struct EmuDescriptor {
  unsigned start, leading, stride;
};
inline EmuDescriptor decode_descriptor(unsigned long long d) {
  if ((d >> 62) != 1)
    emu::fail("wgmma descriptor without the 128-byte swizzle");
  return {unsigned(d & 0x3FFF) << 4, unsigned((d >> 16) & 0x3FFF) << 4, unsigned((d >> 32) & 0x3FFF) << 4};
}
/// The element (i, k) of a K-major operand (i: its M or N index, rows 128
/// bytes apart, 8-row groups `stride` apart) or (k, i) of an MN-major one
/// (64-element blocks of i `leading` apart, 8-row groups of k `stride`
/// apart), through the swizzle: 16-byte chunk c of an address's 128-byte
/// row r (r = address bits 7-9) lies at chunk c ^ r.
inline float operand_element(const EmuDescriptor &d, bool mn_major, int i, int k, bool bf16) {
  unsigned address;
  if (!mn_major) {
    if ((d.start % 128) + 2 * k >= 128)
      emu::fail("K-major wgmma operand past its 128-byte row");
    address = d.start + (i / 8) * d.stride + (i % 8) * 128 + 2 * k;
  } else {
    address = d.start + (i / 64) * d.leading + (k / 8) * d.stride + (k % 8) * 128 + 2 * (i % 64);
  }
  address ^= ((address >> 7) & 7) << 4;
  unsigned short bits = emu::smemHalf(address);
  return bf16 ? emu::bf16ToFloat(bits) : emu::f16ToFloat(bits);
}
/// This thread's accumulator elements of m64nNk16 (warp w of the
/// warpgroup holds rows 16 w .. +15 in the mma.sync layout) from A(row, k)
/// and the B operand.
template <class A>
inline void wgmma_accumulate(float *d, int n, bool bf16, const A &a, const EmuDescriptor &b, bool trans_b,
                             bool accumulate) {
  const int w = (emu::threadLinear() / 32) % 4, l = emu::lane();
  for (int t = 0; t < n / 8; ++t)
    for (int e = 0; e < 4; ++e) {
      const int row = 16 * w + l / 4 + 8 * (e / 2), col = 8 * t + 2 * (l % 4) + e % 2;
      float acc = accumulate ? d[4 * t + e] : 0.0f;
      for (int k = 0; k < 16; ++k)
        acc += a(row, k) * operand_element(b, trans_b, col, k, bf16);
      d[4 * t + e] = acc;
    }
}
inline void emulate_wgmma_ss(float *d, int n, bool bf16, unsigned long long desc_a, unsigned long long desc_b,
                             bool accumulate, bool trans_a, bool trans_b) {
  const EmuDescriptor a = decode_descriptor(desc_a), b = decode_descriptor(desc_b);
  wgmma_accumulate(
      d, n, bf16, [&](int row, int k) { return operand_element(a, trans_a, row, k, bf16); }, b, trans_b,
      accumulate);
}
/// A from registers: each row's 16 elements lie with the 4 lanes of the
/// quad that holds it (the mma.sync A fragment).
inline void emulate_wgmma_rs(float *d, int n, bool bf16, const unsigned (&frag)[4], unsigned long long desc_b) {
  uint32_t(&slot)[12] = emu::mySlot();
  for (int i = 0; i < 4; ++i)
    slot[i] = frag[i];
  emu::warpBarrier();
  const int l = emu::lane(), w = (emu::threadLinear() / 32) % 4;
  float rows[2][16];
  for (int c = 0; c < 4; ++c) {
    const uint32_t(&s)[12] = emu::slotOf(4 * (l / 4) + c);
    auto value = [&](unsigned pair, int half) {
      unsigned short bits = static_cast<unsigned short>(half ? pair >> 16 : pair & 0xffffu);
      return bf16 ? emu::bf16ToFloat(bits) : emu::f16ToFloat(bits);
    };
    for (int h = 0; h < 2; ++h) {
      rows[0][2 * c + h] = value(s[0], h);
      rows[1][2 * c + h] = value(s[1], h);
      rows[0][2 * c + 8 + h] = value(s[2], h);
      rows[1][2 * c + 8 + h] = value(s[3], h);
    }
  }
  emu::warpBarrier();
  const int row0 = 16 * w + l / 4;
  wgmma_accumulate(
      d, n, bf16, [&](int row, int k) { return rows[row == row0 ? 0 : 1][k]; }, decode_descriptor(desc_b), true,
      true);
}

/// Bulk reductions add at once.
inline void bulk_reduce_add_f32(float *gmem, unsigned smem, unsigned bytes) {
  if (smem % 16 || bytes % 16 || reinterpret_cast<uintptr_t>(gmem) % 16)
    emu::fail("misaligned bulk reduction");
  if (smem + bytes > emu::cta()->smemBytes)
    emu::fail("bulk reduction past the end of shared memory");
  for (unsigned i = 0; i < bytes / 4; ++i) {
    float v;
    std::memcpy(&v, emu::cta()->smem + smem + 4 * i, 4);
    gmem[i] += v;
  }
}
inline void bulk_commit() {}
template <int kPending>
inline void bulk_wait_read() {}
template <int kPending>
inline void bulk_wait() {}

} // namespace tg::device

#endif // TG_TEST_DEVICEEMULATOR_H
