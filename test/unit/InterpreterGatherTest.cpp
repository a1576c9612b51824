// tg.gather on the reference interpreter: graph-level gathers with known
// answers (clamp and fill out of range), score regions with table captures
// against the same scores given as materialised element captures (relative
// bias, T5 buckets, document masks), and tg.attention_grad's table gradient
// against central finite differences of the forward.
#include "InterpreterFixture.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::tg;
using ref::HostTensor;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

class GatherTest : public InterpreterFixture {
protected:
  Type f32() { return Float32Type::get(&context); }
  Type i64() { return IntegerType::get(&context, 64); }
};
} // namespace

TEST_F(GatherTest, GraphLevelClampAndFill) {
  func::FuncOp fn = parse(R"(
    func.func @f(%t: tensor<2x3xf32>, %i: tensor<4x1xi64>, %j: tensor<1x2xi64>)
        -> (tensor<4x2xf32>, tensor<4x2xf32>) {
      %c = tg.gather %t[%i, %j] : tensor<2x3xf32>[tensor<4x1xi64>, tensor<1x2xi64>]
      %f = tg.gather %t[%i, %j] fill(-inf) : tensor<2x3xf32>[tensor<4x1xi64>, tensor<1x2xi64>]
      return %c, %f : tensor<4x2xf32>, tensor<4x2xf32>
    })");
  // t = [[10, 11, 12], [20, 21, 22]]; rows -1, 0, 1, 5; columns 2, 3.
  auto out = run(fn, {tensor({2, 3}, f32(), {10, 11, 12, 20, 21, 22}),
                      tensor({4, 1}, i64(), {-1, 0, 1, 5}),
                      tensor({1, 2}, i64(), {2, 3})});
  ASSERT_EQ(out.size(), 2u);
  // Clamp: each index on its own (row -1 -> 0, row 5 -> 1, column 3 -> 2).
  std::vector<double> clamp{12, 12, 12, 12, 22, 22, 22, 22};
  std::vector<double> fill{-kInf, -kInf, 12, -kInf, 22, -kInf, -kInf, -kInf};
  EXPECT_EQ(out[0].values, clamp);
  EXPECT_EQ(out[1].values, fill);
}

TEST_F(GatherTest, GraphLevelIntegerTableAndHugeIndices) {
  func::FuncOp fn = parse(R"(
    func.func @f(%t: tensor<3xi32>, %i: tensor<4xi64>) -> (tensor<4xi32>, tensor<4xi32>) {
      %c = tg.gather %t[%i] : tensor<3xi32>[tensor<4xi64>]
      %f = tg.gather %t[%i] fill(-7) : tensor<3xi32>[tensor<4xi64>]
      return %c, %f : tensor<4xi32>, tensor<4xi32>
    })");
  Type i32 = IntegerType::get(&context, 32);
  double big = std::ldexp(1.0, 52);
  auto out = run(fn, {tensor({3}, i32, {5, 6, 7}),
                      tensor({4}, i64(), {-big, 2, big, 1})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, (std::vector<double>{5, 7, 7, 6}));
  EXPECT_EQ(out[1].values, (std::vector<double>{-7, 7, -7, 6}));
}

// The same attention twice: the relative bias read from a [H, 2S-1] table in
// the region, and the bias materialised outside (computed here) as an element
// capture. Both must agree bit for bit.
TEST_F(GatherTest, RelativeBiasTableEqualsMaterialisedBias) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<2x2x5x8xbf16>, %k: tensor<2x2x6x8xbf16>, %v: tensor<2x2x6x8xbf16>,
                 %table: tensor<2x9xf32>, %bias: tensor<1x2x5x6xf32>)
        -> (tensor<2x2x5x8xbf16>, tensor<2x2x5x8xbf16>) {
      %o1 = tg.attention %q, %k, %v captures(%table : tensor<2x9xf32>) {scale = 0.3 : f64}
          : tensor<2x2x5x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16> -> tensor<2x2x5x8xbf16> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x9xf32>):
        %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
        %c = tg.constant dense<5> : tensor<i64>
        %r = tg.add %d, %c : tensor<i64>, tensor<i64>
        %e = tg.gather %t[%h, %r] : tensor<2x9xf32>[tensor<i64>, tensor<i64>]
        %z = tg.add %s, %e : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      %o2 = tg.attention %q, %k, %v captures(%bias : tensor<1x2x5x6xf32>) {scale = 0.3 : f64}
          : tensor<2x2x5x8xbf16>, tensor<2x2x6x8xbf16>, tensor<2x2x6x8xbf16> -> tensor<2x2x5x8xbf16> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %be: tensor<f32>):
        %z = tg.add %s, %be : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      return %o1, %o2 : tensor<2x2x5x8xbf16>, tensor<2x2x5x8xbf16>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/3, /*stddev=*/1.0});
  const HostTensor &table = inputs[3];
  HostTensor &bias = inputs[4];
  // q - kv + 5 runs over [0, 9]: index 9 is past the table, clamped to 8.
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 6; ++j)
        bias.values[(h * 5 + i) * 6 + j] =
            table.values[h * 9 + std::min(i - j + 5, 8)];
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, out[1].values);
}

// T5's relative_position_bucket (bidirectional, 8 buckets, max distance 16)
// written as region math, then an embedding lookup table[bucket, h], against
// the buckets computed here step by step with torch's rounding (f32 after
// each float op, truncation of .to(long)).
TEST_F(GatherTest, T5BucketsEqualMaterialisedBias) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x2x20x8xf32>, %k: tensor<1x2x20x8xf32>, %v: tensor<1x2x20x8xf32>,
                 %emb: tensor<8x2xf32>, %bias: tensor<1x2x20x20xf32>)
        -> (tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>) {
      %o1 = tg.attention %q, %k, %v captures(%emb : tensor<8x2xf32>)
          : tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32> -> tensor<1x2x20x8xf32> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<8x2xf32>):
        // relative_position = memory_position - context_position
        %rel = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
        %zero = tg.constant dense<0> : tensor<i64>
        %pos = tg.cmp gt, %rel, %zero : tensor<i64>, tensor<i64>
        %posi = tg.cast %pos : tensor<i1> to tensor<i64>
        %half = tg.constant dense<4> : tensor<i64>
        %base = tg.mul %posi, %half : tensor<i64>, tensor<i64>
        %n = tg.abs %rel : tensor<i64>
        %maxexact = tg.constant dense<2> : tensor<i64>
        %small = tg.cmp lt, %n, %maxexact : tensor<i64>, tensor<i64>
        %nf = tg.cast %n : tensor<i64> to tensor<f32>
        %mef = tg.constant dense<2.0> : tensor<f32>
        %ratio = tg.div %nf, %mef : tensor<f32>, tensor<f32>
        %l = tg.log %ratio : tensor<f32>
        %den = tg.constant dense<2.07944155> : tensor<f32>
        %l2 = tg.div %l, %den : tensor<f32>, tensor<f32>
        %span = tg.constant dense<2.0> : tensor<f32>
        %l3 = tg.mul %l2, %span : tensor<f32>, tensor<f32>
        %li = tg.cast %l3 : tensor<f32> to tensor<i64>
        %large = tg.add %maxexact, %li : tensor<i64>, tensor<i64>
        %top = tg.constant dense<3> : tensor<i64>
        %largec = tg.min %large, %top : tensor<i64>, tensor<i64>
        %pick = tg.select %small, %n, %largec : tensor<i1>, tensor<i64>, tensor<i64>
        %bucket = tg.add %base, %pick : tensor<i64>, tensor<i64>
        %e = tg.gather %t[%bucket, %h] : tensor<8x2xf32>[tensor<i64>, tensor<i64>]
        %z = tg.add %s, %e : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      %o2 = tg.attention %q, %k, %v captures(%bias : tensor<1x2x20x20xf32>)
          : tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32> -> tensor<1x2x20x8xf32> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %be: tensor<f32>):
        %z = tg.add %s, %be : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      return %o1, %o2 : tensor<1x2x20x8xf32>, tensor<1x2x20x8xf32>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/5, /*stddev=*/1.0});
  const HostTensor &emb = inputs[3];
  HostTensor &bias = inputs[4];
  auto f32r = [](double x) { return static_cast<double>(static_cast<float>(x)); };
  const double den = f32r(2.07944155); // f32(log(16 / 2))
  int buckets[8] = {};
  for (int i = 0; i < 20; ++i) {
    for (int j = 0; j < 20; ++j) {
      int rel = j - i;
      int bucket = rel > 0 ? 4 : 0;
      int n = std::abs(rel);
      if (n < 2) {
        bucket += n;
      } else {
        double l = f32r(std::log(f32r(n / 2.0)));
        int large = 2 + static_cast<int>(f32r(f32r(l / den) * 2.0));
        bucket += std::min(large, 3);
      }
      ++buckets[bucket];
      for (int h = 0; h < 2; ++h)
        bias.values[(h * 20 + i) * 20 + j] = emb.values[bucket * 2 + h];
    }
  }
  // Every bucket is used but 4 (a positive distance of 0), as in T5.
  for (int b = 0; b < 8; ++b)
    EXPECT_EQ(buckets[b] > 0, b != 4) << "bucket " << b;
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, out[1].values);
}

// doc[b, q_idx] == doc[b, kv_idx] and kv_idx < prefix[b] (a prefix-LM mask)
// read from tables, against the same mask as a boolean element capture.
TEST_F(GatherTest, DocumentAndPrefixMasksEqualBooleanMask) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<2x1x12x8xf16>, %k: tensor<2x1x12x8xf16>, %v: tensor<2x1x12x8xf16>,
                 %doc: tensor<2x12xi32>, %prefix: tensor<2xi64>, %mask: tensor<2x1x12x12xi1>)
        -> (tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16>) {
      %o1 = tg.attention %q, %k, %v captures(%doc, %prefix : tensor<2x12xi32>, tensor<2xi64>)
          : tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16> -> tensor<2x1x12x8xf16> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<2x12xi32>, %p: tensor<2xi64>):
        %dq = tg.gather %d[%b, %qi] : tensor<2x12xi32>[tensor<i64>, tensor<i64>]
        %dk = tg.gather %d[%b, %ki] : tensor<2x12xi32>[tensor<i64>, tensor<i64>]
        %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
        %len = tg.gather %p[%b] : tensor<2xi64>[tensor<i64>]
        %inprefix = tg.cmp lt, %ki, %len : tensor<i64>, tensor<i64>
        %causal = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>
        %vis = tg.select %inprefix, %inprefix, %causal : tensor<i1>, tensor<i1>, tensor<i1>
        %false = tg.constant dense<false> : tensor<i1>
        %keep = tg.select %same, %vis, %false : tensor<i1>, tensor<i1>, tensor<i1>
        %ninf = tg.constant dense<0xFF800000> : tensor<f32>
        %z = tg.select %keep, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      %o2 = tg.attention %q, %k, %v captures(%mask : tensor<2x1x12x12xi1>)
          : tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16> -> tensor<2x1x12x8xf16> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %m: tensor<i1>):
        %ninf = tg.constant dense<0xFF800000> : tensor<f32>
        %z = tg.select %m, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      return %o1, %o2 : tensor<2x1x12x8xf16>, tensor<2x1x12x8xf16>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/9, /*stddev=*/1.0});
  Type i32 = IntegerType::get(&context, 32);
  // Batch 0: documents of 5, 4 and 3 tokens; batch 1: one of 12.
  inputs[3] = tensor({2, 12}, i32,
                     {0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                      7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7});
  inputs[4] = tensor({2}, i64(), {3, 0});
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j < 12; ++j) {
        bool same = inputs[3].values[b * 12 + i] == inputs[3].values[b * 12 + j];
        bool visible = j < inputs[4].values[b] || j <= i;
        inputs[5].values[(b * 12 + i) * 12 + j] = same && visible;
      }
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, out[1].values);
}

// fill(-inf) masks the scores whose index leaves the table: a band of
// relative positions |q - kv| <= 2 written as a table of 5 entries.
TEST_F(GatherTest, FillOutsideTheTableMasks) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x1x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>,
                 %table: tensor<5xf32>) -> (tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>) {
      %o1 = tg.attention %q, %k, %v captures(%table : tensor<5xf32>)
          : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<5xf32>):
        %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
        %c = tg.constant dense<2> : tensor<i64>
        %r = tg.add %d, %c : tensor<i64>, tensor<i64>
        %e = tg.gather %t[%r] fill(-inf) : tensor<5xf32>[tensor<i64>]
        %z = tg.add %s, %e : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      %o2 = tg.attention %q, %k, %v captures(%table : tensor<5xf32>) {window_left = 2 : i64, window_right = 2 : i64}
          : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x1x8x8xf32> score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<5xf32>):
        %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
        %c = tg.constant dense<2> : tensor<i64>
        %r = tg.add %d, %c : tensor<i64>, tensor<i64>
        %e = tg.gather %t[%r] : tensor<5xf32>[tensor<i64>]
        %z = tg.add %s, %e : tensor<f32>, tensor<f32>
        tg.yield %z : tensor<f32>
      }
      return %o1, %o2 : tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/4, /*stddev=*/1.0});
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, out[1].values);
}

// The table gradient of tg.attention_grad (grad_captures of a table capture,
// derived from the score region) against central differences of
// sum(o * dO) with respect to each table entry, through a soft-cap (so the
// gathered elements' gradient is not just dz; the second gather is scaled,
// so its gradient differs from the first's), with two gathers of the same
// table (one clamped past its end, one reading the fill value), GQA and a
// causal mask. dQ is checked too.
TEST_F(GatherTest, TableGradientMatchesFiniteDifferences) {
  const std::string region = R"(
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %tt: tensor<2x5xf32>):
        %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
        %c3 = tg.constant dense<3> : tensor<i64>
        %r = tg.add %d, %c3 : tensor<i64>, tensor<i64>
        %e1 = tg.gather %tt[%h, %r] : tensor<2x5xf32>[tensor<i64>, tensor<i64>]
        %c2 = tg.constant dense<2> : tensor<i64>
        %r2 = tg.add %ki, %c2 : tensor<i64>, tensor<i64>
        %e2 = tg.gather %tt[%h, %r2] fill(0.0) : tensor<2x5xf32>[tensor<i64>, tensor<i64>]
        %cap = tg.constant dense<2.0> : tensor<f32>
        %u1 = tg.add %s, %e1 : tensor<f32>, tensor<f32>
        %w2 = tg.mul %e2, %cap : tensor<f32>, tensor<f32>
        %u = tg.add %u1, %w2 : tensor<f32>, tensor<f32>
        %x = tg.div %u, %cap : tensor<f32>, tensor<f32>
        %th = tg.tanh %x : tensor<f32>
        %z = tg.mul %th, %cap : tensor<f32>, tensor<f32>
  )";
  std::string types = "tensor<1x2x3x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x2xf32>";
  std::string source =
      "func.func @forward(%q: tensor<1x2x3x3xf32>, %k: tensor<1x1x4x3xf32>, %v: tensor<1x1x4x2xf32>, "
      "%do: tensor<1x2x3x2xf32>, %t: tensor<2x5xf32>) -> (tensor<1x2x3x2xf32>, tensor<1x2x3x1xf32>) {\n"
      "  %o, %l = tg.attention %q, %k, %v captures(%t : tensor<2x5xf32>) {causal = #tg<causal bottom_right>, training} : " +
      types + " -> tensor<1x2x3x2xf32>, tensor<1x2x3x1xf32> score {" + region +
      "    tg.yield %z : tensor<f32>\n  }\n"
      "  return %o, %l : tensor<1x2x3x2xf32>, tensor<1x2x3x1xf32>\n}\n"
      "func.func @backward(%q: tensor<1x2x3x3xf32>, %k: tensor<1x1x4x3xf32>, %v: tensor<1x1x4x2xf32>, "
      "%do: tensor<1x2x3x2xf32>, %t: tensor<2x5xf32>, %o: tensor<1x2x3x2xf32>, %l: tensor<1x2x3x1xf32>)"
      " -> (tensor<1x2x3x3xf32>, tensor<2x5xf32>) {\n"
      "  %dq, %dk, %dv, %dt = tg.attention_grad %q, %k, %v, %o, %do, %l captures(%t : tensor<2x5xf32>) "
      "{causal = #tg<causal bottom_right>, grad_captures = array<i64: 0>} : " + types +
      ", tensor<1x2x3x2xf32>, tensor<1x2x3x2xf32>, tensor<1x2x3x1xf32> score {" +
      region + "    tg.yield %z : tensor<f32>\n  } score_grad {\n  } capture_grads(tensor<2x5xf32>)\n" +
      R"(
  return %dq, %dt : tensor<1x2x3x3xf32>, tensor<2x5xf32>
}
)";
  parse(source);
  ASSERT_TRUE(module);
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  auto backward = module->lookupSymbol<func::FuncOp>("backward");
  auto inputs = ref::makeRandomInputs(forward, {/*seed=*/23, /*stddev=*/1.0});
  auto fwd = run(forward, inputs);
  ASSERT_EQ(fwd.size(), 2u);
  SmallVector<HostTensor> bwdInputs(inputs.begin(), inputs.end());
  bwdInputs.push_back(fwd[0]);
  bwdInputs.push_back(fwd[1]);
  auto grads = run(backward, bwdInputs);
  ASSERT_EQ(grads.size(), 2u);

  auto loss = [&](SmallVector<HostTensor> &in) {
    auto o = run(forward, in);
    double sum = 0.0;
    for (size_t i = 0; i < o[0].values.size(); ++i)
      sum += o[0].values[i] * in[3].values[i];
    return sum;
  };
  const double h = 1e-2;
  int nonzero = 0;
  for (auto [which, grad] : {std::pair<int, int>{4, 1}, {0, 0}}) {
    for (size_t e = 0; e < inputs[which].values.size(); ++e) {
      SmallVector<HostTensor> plus(inputs.begin(), inputs.end());
      SmallVector<HostTensor> minus(inputs.begin(), inputs.end());
      plus[which].values[e] += h;
      minus[which].values[e] -= h;
      double numeric = (loss(plus) - loss(minus)) / (2 * h);
      double analytic = grads[grad].values[e];
      EXPECT_NEAR(analytic, numeric, 3e-3 + 1e-2 * std::fabs(numeric))
          << "input " << which << " element " << e;
      nonzero += std::fabs(numeric) > 1e-3;
    }
  }
  // Most table entries are read (some only through the clamp), so most
  // gradients are non-zero.
  EXPECT_GE(nonzero, 20);
}
