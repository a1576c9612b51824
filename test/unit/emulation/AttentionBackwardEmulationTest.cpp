// The generated attention backward kernels run on the device emulator
// (DeviceEmulator.h) against a float64 backward written from tg's semantics:
// every case of BackwardCases.h (head dims with pad columns, Dqk != Dv,
// causal top-left/bottom-right, windows, padding with empty sequences, GQA,
// dropout, a score modifier with its gradient and a captured bias, two Q/dO
// buffers, [B,S,H,D] strides, a small tile override). Outputs start as NaN;
// padded rows and keys must come out exactly zero.

#include "BackwardCases.h"
#include "Registry.h"

#include "../DeviceEmulator.h"

#include "philox.cuh" // the documented keep bit (checked in PhiloxTest.cpp)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace tg::device {
// The dynamic shared memory every emulated CTA uses (one CTA at a time).
alignas(1024) unsigned char smem_raw[232448];
} // namespace tg::device

namespace {

using namespace emu_cases;
using tg::codegen::AttentionCausalMode;
using tg::codegen::AttentionElementType;

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A 16-bit tensor [B, H, S, D] stored at given strides, with its values as
/// doubles (exactly the stored elements).
struct Tensor16 {
  std::vector<unsigned short> bits;
  std::vector<double> values; // row-major [B, H, S, D]
  int64_t dims[4];
  int64_t strides[4];
  bool bf16;

  Tensor16(int64_t b, int64_t h, int64_t s, int64_t d, bool bf16, bool bshd) : bf16(bf16) {
    dims[0] = b, dims[1] = h, dims[2] = s, dims[3] = d;
    if (bshd) {
      strides[0] = s * h * d, strides[1] = d, strides[2] = h * d, strides[3] = 1;
    } else {
      strides[0] = h * s * d, strides[1] = s * d, strides[2] = d, strides[3] = 1;
    }
    bits.assign(size_t(b * h * s * d), 0);
    values.assign(bits.size(), 0.0);
  }
  size_t at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return size_t(b * strides[0] + h * strides[1] + s * strides[2] + d);
  }
  size_t flat(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return size_t(((b * dims[1] + h) * dims[2] + s) * dims[3] + d);
  }
  double get(int64_t b, int64_t h, int64_t s, int64_t d) const { return values[flat(b, h, s, d)]; }
  void set(int64_t b, int64_t h, int64_t s, int64_t d, double v) {
    unsigned short x = bf16 ? emu::floatToBf16(float(v)) : emu::floatToF16(float(v));
    bits[at(b, h, s, d)] = x;
    values[flat(b, h, s, d)] = bf16 ? emu::bf16ToFloat(x) : emu::f16ToFloat(x);
  }
  double read(int64_t b, int64_t h, int64_t s, int64_t d) const {
    unsigned short x = bits[at(b, h, s, d)];
    return bf16 ? emu::bf16ToFloat(x) : emu::f16ToFloat(x);
  }
  void poison() { std::fill(bits.begin(), bits.end(), bf16 ? 0x7fc0 : 0x7e00); }
  uint64_t address() const { return uint64_t(uintptr_t(bits.data())); }
};

struct Problem {
  const Case &c;
  int64_t B, Hq, Hkv, Sq, Skv, Dqk, Dv;
  std::vector<int> lenQ, lenKv;
  std::vector<float> bias; // [Hq, Sq, Skv] (softcapBias)
  // relBiasDocMask: rel [Hq, relLen] (bf16 bits and their values), doc [B, Skv].
  int64_t relLen = 0;
  std::vector<unsigned short> relBits;
  std::vector<double> rel;
  std::vector<long long> doc;
  uint64_t seed = 0x1234567887654321ull, offset = 77;

  explicit Problem(const Case &c)
      : c(c), B(c.batch), Hq(c.spec.numHeadsQ), Hkv(c.spec.numHeadsKV), Sq(c.seqQ), Skv(c.seqKv),
        Dqk(c.spec.headDimQK), Dv(c.spec.headDimV) {
    for (int b = 0; b < B; ++b) {
      lenQ.push_back(c.spec.hasSeqLenQ ? c.lenQ[b] : int(Sq));
      lenKv.push_back(c.spec.hasSeqLenKv ? c.lenKv[b] : int(Skv));
    }
  }
  int64_t lq(int64_t b) const { return c.spec.hasSeqLenQ ? std::clamp<int64_t>(lenQ[b], 0, Sq) : Sq; }
  int64_t lkv(int64_t b) const { return c.spec.hasSeqLenKv ? std::clamp<int64_t>(lenKv[b], 0, Skv) : Skv; }
  bool masked(int64_t b, int64_t i, int64_t j) const {
    if (i >= lq(b) || j >= lkv(b))
      return true;
    int64_t diag = c.spec.causal == AttentionCausalMode::BottomRight ? i + lkv(b) - lq(b) : i;
    if (c.spec.causal != AttentionCausalMode::None && j > diag)
      return true;
    if (c.spec.windowLeft && j < diag - *c.spec.windowLeft)
      return true;
    if (c.spec.windowRight && j > diag + *c.spec.windowRight)
      return true;
    return false;
  }
  int64_t relColumn(int64_t i, int64_t j) const {
    return std::clamp<int64_t>(i - j + Skv - 1, 0, relLen - 1);
  }
  bool outsidePrefix(int64_t b, int64_t i, int64_t j) const {
    return !c.prefix.empty() && !(j < c.prefix[size_t(b)] || j <= i);
  }
  bool otherDocument(int64_t b, int64_t i, int64_t j) const {
    return c.relBiasDocMask && doc[size_t(b * Skv + i)] != doc[size_t(b * Skv + j)];
  }
  double modify(int64_t h, int64_t i, int64_t j, double s) const {
    if (c.relBiasDocMask)
      return c.docMaskOnly ? s : s + rel[size_t(h * relLen + relColumn(i, j))];
    if (!c.softcapBias)
      return s;
    return 20.0 * std::tanh(s / 20.0) + bias[size_t((h * Sq + i) * Skv + j)];
  }
  double gradThrough(double s, double dz) const {
    if (!c.softcapBias)
      return dz;
    double t = std::tanh(s / 20.0);
    return dz * (1.0 - t * t);
  }
  double dropoutFactor(int64_t b, int64_t h, int64_t i, int64_t j) const {
    double p = c.spec.dropoutProbability;
    if (p == 0.0)
      return 1.0;
    uint64_t index = uint64_t(((b * Hq + h) * Sq + i) * Skv + j);
    return dropout_keep(seed, offset, index, dropout_threshold(p)) ? 1.0 / (1.0 - p) : 0.0;
  }
};

double dot(const Tensor16 &a, int64_t b, int64_t ha, int64_t i, const Tensor16 &k, int64_t hk, int64_t j,
           int64_t d) {
  double sum = 0.0;
  for (int64_t x = 0; x < d; ++x)
    sum += a.get(b, ha, i, x) * k.get(b, hk, j, x);
  return sum;
}

void runCase(const Case &c) {
  auto it = registry().find(c.name);
  ASSERT_NE(it, registry().end()) << "no emulated kernels for " << c.name;
  const Kernels &kernels = it->second;
  Problem p(c);
  bool bf16 = c.spec.elementType == AttentionElementType::BF16;
  const int64_t B = p.B, Hq = p.Hq, Hkv = p.Hkv, Sq = p.Sq, Skv = p.Skv, Dqk = p.Dqk, Dv = p.Dv;
  const int64_t group = Hq / Hkv;
  std::mt19937 rng(std::hash<std::string>{}(c.name) & 0xffff);
  std::normal_distribution<double> normal(0.0, 1.0);
  Tensor16 q(B, Hq, Sq, Dqk, bf16, c.bshd), k(B, Hkv, Skv, Dqk, bf16, c.bshd), v(B, Hkv, Skv, Dv, bf16, c.bshd),
      o(B, Hq, Sq, Dv, bf16, c.bshd), dO(B, Hq, Sq, Dv, bf16, c.bshd);
  for (Tensor16 *t : {&q, &k, &v, &dO})
    for (int64_t b = 0; b < t->dims[0]; ++b)
      for (int64_t h = 0; h < t->dims[1]; ++h)
        for (int64_t s = 0; s < t->dims[2]; ++s)
          for (int64_t d = 0; d < t->dims[3]; ++d)
            t->set(b, h, s, d, normal(rng) * (t == &q ? 1.5 : 1.0));
  // Padding holds anything: NaN in the rows of q and dO past each batch's
  // query length and of k and v past its key length (their gradients are
  // zero, and nothing they touch may be NaN).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (Tensor16 *t : {&q, &k, &v, &dO})
    for (int64_t b = 0; b < t->dims[0]; ++b)
      for (int64_t h = 0; h < t->dims[1]; ++h)
        for (int64_t s = (t == &q || t == &dO) ? p.lq(b) : p.lkv(b); s < t->dims[2]; ++s)
          for (int64_t d = 0; d < t->dims[3]; ++d)
            t->set(b, h, s, d, nan);
  if (c.softcapBias) {
    p.bias.resize(size_t(Hq * Sq * Skv));
    for (float &x : p.bias)
      x = float(normal(rng));
  }
  if (c.relBiasDocMask) {
    p.relLen = Sq + Skv - 1 - c.relShortBy;
    for (int64_t x = 0; x < Hq * p.relLen; ++x) {
      unsigned short bits = emu::floatToBf16(float(normal(rng)));
      p.relBits.push_back(bits);
      p.rel.push_back(emu::bf16ToFloat(bits));
    }
    // Documents of random lengths (about 4 per sequence), ids not in order.
    std::uniform_int_distribution<int> cut(0, c.docLength - 1);
    for (int64_t b = 0; b < B; ++b) {
      const long long first = 7 * b + 3;
      long long id = first;
      int documents = 1;
      for (int64_t j = 0; j < Skv; ++j) {
        if (j > 0 && cut(rng) == 0)
          id = c.docIdsReturn && b % 2 == 1 && ++documents % 2 == 1 ? first : (id * 5 + 11) % 101;
        p.doc.push_back(id);
      }
    }
  }
  const double scale = c.spec.scale;

  // --- The reference: forward (o, lse), then the backward, in float64 ---
  std::vector<float> lse(size_t(B * Hq * Sq));
  std::vector<double> dq(size_t(B * Hq * Sq * Dqk)), dk(size_t(B * Hkv * Skv * Dqk)),
      dv(size_t(B * Hkv * Skv * Dv));
  std::vector<double> dbias(c.softcapBias ? size_t(Hq * Sq * Skv) : 0); // summed over the batch
  std::vector<double> drel(p.rel.size()); // scatter-added where each score read
  std::vector<double> raw(static_cast<size_t>(Skv)), z(static_cast<size_t>(Skv));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < Hq; ++h) {
      int64_t hk = h / group;
      for (int64_t i = 0; i < Sq; ++i) {
        double mx = -kInf;
        for (int64_t j = 0; j < Skv; ++j) {
          raw[j] = double(float(scale * dot(q, b, h, i, k, hk, j, Dqk)));
          z[j] = p.masked(b, i, j) || p.otherDocument(b, i, j) || p.outsidePrefix(b, i, j)
                     ? -kInf
                     : p.modify(h, i, j, raw[j]);
          mx = std::max(mx, z[j]);
        }
        size_t row = size_t((b * Hq + h) * Sq + i);
        if (mx == -kInf) {
          lse[row] = -INFINITY;
          for (int64_t d = 0; d < Dv; ++d)
            o.set(b, h, i, d, 0.0);
          continue;
        }
        double sum = 0.0;
        for (int64_t j = 0; j < Skv; ++j)
          sum += std::exp(z[j] - mx);
        lse[row] = float(mx + std::log(sum));
        for (int64_t d = 0; d < Dv; ++d) {
          double acc = 0.0;
          for (int64_t j = 0; j < Skv; ++j)
            if (z[j] != -kInf) // (padded keys' v may be NaN)
              acc += std::exp(z[j] - mx) / sum * p.dropoutFactor(b, h, i, j) * v.get(b, hk, j, d);
          o.set(b, h, i, d, acc);
        }
        // Backward of this row.
        double rowDot = 0.0;
        for (int64_t d = 0; d < Dv; ++d)
          rowDot += dO.get(b, h, i, d) * o.get(b, h, i, d);
        for (int64_t j = 0; j < Skv; ++j) {
          if (z[j] == -kInf)
            continue;
          double prob = std::exp(z[j] - double(lse[row]));
          double factor = p.dropoutFactor(b, h, i, j);
          double dPd = 0.0;
          for (int64_t d = 0; d < Dv; ++d) {
            dPd += dO.get(b, h, i, d) * v.get(b, hk, j, d);
            dv[size_t(((b * Hkv + hk) * Skv + j) * Dv + d)] += prob * factor * dO.get(b, h, i, d);
          }
          double dZ = prob * (factor * dPd - rowDot);
          if (c.softcapBias)
            dbias[size_t((h * Sq + i) * Skv + j)] += dZ; // d z / d bias = 1
          if (c.relBiasDocMask && !c.docMaskOnly)
            drel[size_t(h * p.relLen + p.relColumn(i, j))] += dZ;
          double dS = p.gradThrough(raw[j], dZ) * scale;
          for (int64_t d = 0; d < Dqk; ++d) {
            dq[size_t(row * Dqk + d)] += dS * k.get(b, hk, j, d);
            dk[size_t(((b * Hkv + hk) * Skv + j) * Dqk + d)] += dS * q.get(b, h, i, d);
          }
        }
      }
    }

  // --- The emulated kernels ---
  Tensor16 gq(B, Hq, Sq, Dqk, bf16, c.bshd), gk(B, Hkv, Skv, Dqk, bf16, c.bshd),
      gv(B, Hkv, Skv, Dv, bf16, c.bshd);
  gq.poison();
  gk.poison();
  gv.poison();
  std::vector<float> delta(size_t(B * Hq * Sq), NAN), dqAccum(size_t(B * Hq * Sq * Dqk), NAN);
  long long seed = (long long)p.seed, offset = (long long)p.offset;
  auto addr = [](const void *x) { return uint64_t(uintptr_t(x)); };
  auto strides3 = [](Args &a, const Tensor16 &t) {
    for (int d = 0; d < 3; ++d)
      a.push_back(uint64_t(t.strides[d]));
  };
  auto gen = tg::codegen::generateAttentionBackward(c.spec);
  ASSERT_TRUE(gen);
  auto grid = [&](const tg::codegen::AttentionBackwardLaunch &l) {
    auto g = l.gridFor(B, Hq, Hkv, Sq, Skv);
    return emu::Dim3{g[0], g[1], g[2]};
  };
  Args pre = {o.address(), dO.address(), addr(delta.data()), addr(dqAccum.data()), uint64_t(Hq), uint64_t(Sq)};
  strides3(pre, o);
  strides3(pre, dO);
  emu::launch(grid(gen->preprocess), {gen->preprocess.threads, 1, 1}, tg::device::smem_raw, 0,
              [&] { kernels.preprocess(pre); });
  // The deterministic kernel's semaphores: one per (b, h, query tile).
  const int64_t qTiles = (Sq + gen->tile.blockM - 1) / gen->tile.blockM;
  std::vector<int> semaphores(c.spec.deterministic ? size_t(B * Hq * qTiles) : 0, 0);
  Args main = {q.address(),
               k.address(),
               v.address(),
               dO.address(),
               addr(lse.data()),
               addr(delta.data()),
               addr(dqAccum.data()),
               c.spec.deterministic ? addr(semaphores.data()) : 0,
               gk.address(),
               gv.address(),
               c.spec.hasSeqLenQ ? addr(p.lenQ.data()) : 0,
               c.spec.hasSeqLenKv ? addr(p.lenKv.data()) : 0,
               c.spec.dropoutProbability > 0 ? addr(&seed) : 0,
               c.spec.dropoutProbability > 0 ? addr(&offset) : 0,
               uint64_t(B),
               uint64_t(Hq),
               uint64_t(Sq),
               uint64_t(Skv)};
  for (const Tensor16 *t : {&q, &k, &v, &dO, &gk, &gv})
    strides3(main, *t);
  std::vector<float> dbiasAccum(dbias.size(), 0.0f);
  if (c.softcapBias) {
    for (uint64_t x : {addr(p.bias.data()), uint64_t(0), uint64_t(Sq * Skv), uint64_t(Skv), uint64_t(1)})
      main.push_back(x);
    // Its gradient: the same broadcast strides (stride_b 0 sums the batch).
    for (uint64_t x : {addr(dbiasAccum.data()), uint64_t(0), uint64_t(Sq * Skv), uint64_t(Skv), uint64_t(1)})
      main.push_back(x);
  }
  std::vector<float> drelAccum(drel.size(), 0.0f);
  if (!c.prefix.empty()) {
    // The prefix lengths [B]: pointer, size, stride.
    for (uint64_t x : {addr(c.prefix.data()), uint64_t(B), uint64_t(1)})
      main.push_back(x);
  } else if (c.docMaskOnly) {
    // The one table: pointer, sizes, strides.
    for (uint64_t x : {addr(p.doc.data()), uint64_t(B), uint64_t(Skv), uint64_t(Skv), uint64_t(1)})
      main.push_back(x);
  } else if (c.relBiasDocMask) {
    // Tables: pointer, sizes, strides (rel, then doc); rel's gradient: pointer, strides.
    for (uint64_t x : {addr(p.relBits.data()), uint64_t(Hq), uint64_t(p.relLen), uint64_t(p.relLen), uint64_t(1),
                       addr(p.doc.data()), uint64_t(B), uint64_t(Skv), uint64_t(Skv), uint64_t(1),
                       addr(drelAccum.data()), uint64_t(p.relLen), uint64_t(1)})
      main.push_back(x);
  }
  emu::launch(grid(gen->main), {gen->main.threads, 1, 1}, tg::device::smem_raw, gen->main.sharedBytes,
              [&] { kernels.main(main); });
  // Every kv tile that sees a query tile passed its semaphore once.
  if (c.spec.deterministic) {
    const int64_t blockN = gen->tile.blockN, blockM = gen->tile.blockM;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < Hq; ++h)
        for (int64_t t = 0; t < qTiles; ++t) {
          int expected = 0;
          for (int64_t j = 0; j * blockN < Skv; ++j) {
            bool sees = false;
            for (int64_t i = t * blockM; i < std::min(Sq, (t + 1) * blockM) && !sees; ++i)
              for (int64_t kv = j * blockN; kv < std::min(Skv, (j + 1) * blockN) && !sees; ++kv)
                // (the key bound narrows the rows to those that see a key;
                // document masks do not narrow a deterministic backward)
                sees = !p.masked(b, i, kv) && !p.outsidePrefix(b, i, kv);
            expected += sees;
          }
          EXPECT_EQ(semaphores[size_t((b * Hq + h) * qTiles + t)], expected)
              << c.name << " semaphore of b " << b << " h " << h << " query tile " << t;
        }
  }
  Args convert = {addr(dqAccum.data()), gq.address(), uint64_t(Hq), uint64_t(Sq)};
  strides3(convert, gq);
  emu::launch(grid(gen->convert), {gen->convert.threads, 1, 1}, tg::device::smem_raw, 0,
              [&] { kernels.convert(convert); });

  // --- Compare ---
  auto check = [&](const char *name, const Tensor16 &got, const std::vector<double> &want, int64_t heads,
                   int64_t rows, int64_t dims, auto isPadding) {
    double maxRef = 0.0, maxErr = 0.0;
    for (double x : want)
      maxRef = std::max(maxRef, std::fabs(x));
    int64_t bad = 0;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t d = 0; d < dims; ++d) {
            double g = got.read(b, h, r, d), w = want[size_t(((b * heads + h) * rows + r) * dims + d)];
            if (isPadding(b, r)) {
              if (g != 0.0 && bad++ < 5)
                ADD_FAILURE() << c.name << " " << name << "[" << b << "," << h << "," << r << "," << d
                              << "] = " << g << " in a padded row (expected exactly 0)";
              continue;
            }
            double err = std::fabs(g - w);
            if (!(err <= 2e-2 * std::max(1.0, maxRef) * (bf16 ? 1.0 : 0.5))) {
              if (bad++ < 5)
                ADD_FAILURE() << c.name << " " << name << "[" << b << "," << h << "," << r << "," << d
                              << "] = " << g << ", reference " << w << " (max |ref| " << maxRef << ")";
            }
            maxErr = std::max(maxErr, std::isnan(err) ? kInf : err);
          }
    EXPECT_EQ(bad, 0) << c.name << " " << name << ": " << bad << " bad elements";
    std::printf("  %-28s %-3s max |err| %.3g, max |ref| %.3g\n", c.name.c_str(), name, maxErr, maxRef);
  };
  check("dq", gq, dq, Hq, Sq, Dqk, [&](int64_t b, int64_t r) { return r >= p.lq(b); });
  check("dk", gk, dk, Hkv, Skv, Dqk, [&](int64_t b, int64_t r) { return r >= p.lkv(b); });
  check("dv", gv, dv, Hkv, Skv, Dv, [&](int64_t b, int64_t r) { return r >= p.lkv(b); });
  if (c.softcapBias) {
    double maxRef = 0.0, maxErr = 0.0;
    for (double x : dbias)
      maxRef = std::max(maxRef, std::fabs(x));
    for (size_t i = 0; i < dbias.size(); ++i)
      maxErr = std::max(maxErr, std::isfinite(dbiasAccum[i]) ? std::fabs(dbiasAccum[i] - dbias[i]) : kInf);
    // f32 atomics of bf16-free values: only the probabilities' rounding.
    EXPECT_LE(maxErr, 1e-2 * std::max(1.0, maxRef)) << c.name << " dbias";
    std::printf("  %-28s %-3s max |err| %.3g, max |ref| %.3g\n", c.name.c_str(), "db", maxErr, maxRef);
  }
  if (c.relBiasDocMask && !c.docMaskOnly) {
    double maxRef = 0.0, maxErr = 0.0;
    for (double x : drel)
      maxRef = std::max(maxRef, std::fabs(x));
    for (size_t i = 0; i < drel.size(); ++i)
      maxErr = std::max(maxErr, std::isfinite(drelAccum[i]) ? std::fabs(drelAccum[i] - drel[i]) : kInf);
    // The last column sums every score at q - kv >= its own (the clamp).
    EXPECT_GT(maxRef, 1.0) << c.name << " drel: the reference is trivial";
    EXPECT_LE(maxErr, 1e-2 * std::max(1.0, maxRef)) << c.name << " drel";
    std::printf("  %-28s %-4s max |err| %.3g, max |ref| %.3g\n", c.name.c_str(), "drel", maxErr, maxRef);
  }
}

} // namespace

namespace emu_cases {
void PrintTo(const Case &c, std::ostream *os) { *os << c.name; }
} // namespace emu_cases

namespace {

class AttentionBackwardEmulation : public ::testing::TestWithParam<Case> {};

TEST_P(AttentionBackwardEmulation, MatchesFloat64Reference) { runCase(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cases, AttentionBackwardEmulation, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case> &info) { return info.param.name; });

} // namespace
