// The generic kernels' vector access (elementwise.cuh: tg_load_vec and
// tg_store_vec, 8 elements at a time) against the per-element tg_load and
// tg_store it stands for, for every storage type, compiled for the host:
// the same values from the same bytes, the same bytes from the same values.

#include <cmath>
#include <cstring>
#include <vector_types.h>

// What elementwise.cuh uses from the CUDA device environment, on the host
// (the vector helpers use none of it; the rest of the header must compile).
using std::signbit;
inline float __int_as_float(int i) {
  float f;
  std::memcpy(&f, &i, sizeof f);
  return f;
}
inline void __syncthreads() {}
[[maybe_unused]] static uint3 threadIdx, blockIdx;
[[maybe_unused]] static dim3 blockDim, gridDim;

#include "device/elementwise.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace {

constexpr int kV = 8;
constexpr int kElements = 64; // 8 vectors

/// Storage bytes of `count` elements of T (i4: two per byte).
template <class T>
size_t storageBytes(size_t count) {
  return count / tg_elements_per_unit<T>::value * sizeof(T);
}

/// Random storage bytes that every type reads as a valid value (no fp8
/// NaN, bools 0 or 1).
template <class T>
std::vector<unsigned char> randomBytes(std::mt19937 &rng) {
  std::vector<unsigned char> bytes(storageBytes<T>(kElements));
  for (unsigned char &b : bytes)
    b = static_cast<unsigned char>(rng());
  if constexpr (std::is_same_v<T, unsigned char>)
    for (unsigned char &b : bytes)
      b &= 1;
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>)
    for (unsigned char &b : bytes)
      if ((b & 0x7f) == 0x7f)
        b ^= 1;
  if constexpr (std::is_same_v<T, __nv_fp8_e5m2>)
    for (unsigned char &b : bytes)
      if ((b & 0x7c) == 0x7c)
        b &= 0xfb;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, __half> ||
                std::is_same_v<T, __nv_bfloat16>) {
    // Finite values: clear one exponent bit of each element.
    constexpr size_t kSize = sizeof(T);
    for (size_t i = kSize - 1; i < bytes.size(); i += kSize)
      bytes[i] &= 0xbf;
  }
  return bytes;
}

/// A 16-byte aligned buffer of randomBytes<T>, room to spare.
template <class T>
struct RandomBuffer {
  alignas(16) unsigned char bytes[512];
  explicit RandomBuffer(unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<unsigned char> random = randomBytes<T>(rng);
    std::memcpy(bytes, random.data(), random.size());
  }
  const T *elements() const { return reinterpret_cast<const T *>(bytes); }
};

template <class R>
bool same(R a, R b) {
  if constexpr (std::is_floating_point_v<R>)
    return std::memcmp(&a, &b, sizeof a) == 0;
  else
    return a == b;
}

template <class T>
void checkLoads(unsigned seed) {
  RandomBuffer<T> buffer(seed);
  const T *p = buffer.elements();
  using R = decltype(tg_load(p, 0));
  for (long long i0 = 0; i0 < kElements; i0 += kV) {
    R got[kV];
    tg_load_vec<kV>(p, i0, got);
    for (int v = 0; v < kV; ++v)
      EXPECT_TRUE(same(got[v], tg_load(p, i0 + v))) << "element " << i0 + v;
  }
}

template <class T>
void checkStores(unsigned seed) {
  // Values every type stores exactly: those it loads.
  RandomBuffer<T> source(seed);
  const T *values = source.elements();
  using R = decltype(tg_load(values, 0));
  alignas(16) unsigned char vectorOut[512], scalarOut[512];
  std::memset(vectorOut, 0xa5, sizeof vectorOut);
  std::memset(scalarOut, 0xa5, sizeof scalarOut);
  for (long long i0 = 0; i0 < kElements; i0 += kV) {
    R in[kV];
    for (int v = 0; v < kV; ++v) {
      in[v] = tg_load(values, i0 + v);
      tg_store(reinterpret_cast<T *>(scalarOut), i0 + v, in[v]);
    }
    tg_store_vec<kV>(reinterpret_cast<T *>(vectorOut), i0, in);
  }
  EXPECT_EQ(std::memcmp(vectorOut, scalarOut, sizeof vectorOut), 0);
  EXPECT_EQ(std::memcmp(vectorOut, source.bytes, storageBytes<T>(kElements)), 0)
      << "loaded values store back to their bytes";
}

TEST(ElementwiseVector, LoadsMatchPerElementLoads) {
  checkLoads<float>(1);
  checkLoads<__half>(2);
  checkLoads<__nv_bfloat16>(3);
  checkLoads<__nv_fp8_e4m3>(4);
  checkLoads<__nv_fp8_e5m2>(5);
  checkLoads<signed char>(6);
  checkLoads<tg_i4x2>(7); // 4 bytes per 8 elements, the low nibble first
  checkLoads<int>(8);
  checkLoads<long long>(9);
  checkLoads<unsigned char>(10);
}

TEST(ElementwiseVector, StoresMatchPerElementStores) {
  checkStores<float>(11);
  checkStores<__half>(12);
  checkStores<__nv_bfloat16>(13);
  checkStores<__nv_fp8_e4m3>(14);
  checkStores<__nv_fp8_e5m2>(15);
  checkStores<signed char>(16);
  checkStores<int>(17);
  checkStores<long long>(18);
  checkStores<unsigned char>(19);
}

TEST(ElementwiseVector, I4ElementsFromAnOffsetInsideTheBuffer) {
  // Element i of tg_i4x2 storage is nibble i % 2 of byte i / 2: a vector
  // from element 8 reads bytes 4-7.
  alignas(16) tg_i4x2 w[8];
  for (int b = 0; b < 8; ++b)
    w[b].bits = static_cast<unsigned char>(0x10 * ((2 * b + 1) & 15) + (2 * b & 15));
  long long got[kV];
  tg_load_vec<kV>(w, 8, got);
  for (int v = 0; v < kV; ++v) {
    long long nibble = (8 + v) & 15;
    EXPECT_EQ(got[v], nibble >= 8 ? nibble - 16 : nibble) << v;
  }
}

} // namespace
