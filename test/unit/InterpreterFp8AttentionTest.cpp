// FP8 attention on the reference interpreter: small cases checked by hand
// (P quantized to q's fp8 format, the descales, amax_s/amax_o, saturation of
// the output), and the same results before and after tg-decompose-sdpa
// (FP8 tg.sdpa -> tg.attention) and tg-expand-attention (-> primitive ops).
#include "InterpreterFixture.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Transforms/Passes.h"

#include "tgc/Numerics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

using namespace mlir;
using namespace mlir::tg;
using ref::HostTensor;

namespace {
class Fp8AttentionTest : public InterpreterFixture {
protected:
  HostTensor scalar(double value) {
    return tensor({}, Float32Type::get(&context), {value});
  }
};

double f32(double x) { return tgc::roundTo(tgc::Format::F32, x); }

// The six scales in operand order, all the same type.
const char *kScaleTypes =
    "tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, "
    "tensor<f32>";
} // namespace

// Three equal scores: p = 1/3 in every column. In e4m3 (3 mantissa bits)
// 1/3 = 1.0101..b * 2^-2 rounds up to 1.011b * 2^-2 = 0.34375, so with
// v = 1 everywhere o_acc = 3 * 0.34375 = 1.03125 = 1 + 2^-5: exact in bf16,
// 1.0 in e4m3 (nearest even), and 1031.25 -> 448 (saturated) with
// scale_o = 1000.
TEST_F(Fp8AttentionTest, UniformRowQuantizesPInE4M3) {
  std::string s = kScaleTypes;
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x1x1x1xf8E4M3FN>, %k: tensor<1x1x3x1xf8E4M3FN>, %v: tensor<1x1x3x1xf8E4M3FN>,
                 %one: tensor<f32>, %big: tensor<f32>)
        -> (tensor<1x1x1x1xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1x1x1x1xbf16>, tensor<1x1x1x1xf8E4M3FN>) {
      %o, %as, %ao = tg.sdpa %q, %k, %v fp8_scales(%one, %one, %one, %one, %one, %one : )" + s + R"()
          : tensor<1x1x1x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN>
          -> tensor<1x1x1x1xf8E4M3FN> amax(tensor<f32>, tensor<f32>)
      %o16 = tg.sdpa %q, %k, %v fp8_scales(%one, %one, %one, %one, %one, %one : )" + s + R"()
          : tensor<1x1x1x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN> -> tensor<1x1x1x1xbf16>
      %sat = tg.sdpa %q, %k, %v fp8_scales(%one, %one, %one, %one, %one, %big : )" + s + R"()
          : tensor<1x1x1x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN>, tensor<1x1x3x1xf8E4M3FN> -> tensor<1x1x1x1xf8E4M3FN>
      return %o, %as, %ao, %o16, %sat : tensor<1x1x1x1xf8E4M3FN>, tensor<f32>, tensor<f32>, tensor<1x1x1x1xbf16>, tensor<1x1x1x1xf8E4M3FN>
    })");
  Type e4m3 = Float8E4M3FNType::get(&context);
  auto out = run(fn, {tensor({1, 1, 1, 1}, e4m3, {1.0}),
                      tensor({1, 1, 3, 1}, e4m3, {0.0, 0.0, 0.0}),
                      tensor({1, 1, 3, 1}, e4m3, {1.0, 1.0, 1.0}),
                      scalar(1.0), scalar(1000.0)});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(out[0].values[0], 1.0);          // o, e4m3
  EXPECT_EQ(out[1].values[0], f32(1.0 / 3)); // amax_s: max |p| before scale_s
  EXPECT_EQ(out[2].values[0], 1.03125);      // amax_o: |o_acc|
  EXPECT_EQ(out[3].values[0], 1.03125);      // o, bf16
  EXPECT_EQ(out[4].values[0], 448.0);        // o * 1000, saturated
}

// With e5m2 inputs P takes e5m2 (2 mantissa bits): 1/3 rounds down to
// 1.01b * 2^-2 = 0.3125, so o_acc = 0.9375.
TEST_F(Fp8AttentionTest, PTakesTheFormatOfQ) {
  std::string s = kScaleTypes;
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x1x1x1xf8E5M2>, %k: tensor<1x1x3x1xf8E5M2>, %v: tensor<1x1x3x1xf8E5M2>,
                 %one: tensor<f32>) -> tensor<1x1x1x1xbf16> {
      %o = tg.sdpa %q, %k, %v fp8_scales(%one, %one, %one, %one, %one, %one : )" + s + R"()
          : tensor<1x1x1x1xf8E5M2>, tensor<1x1x3x1xf8E5M2>, tensor<1x1x3x1xf8E5M2> -> tensor<1x1x1x1xbf16>
      return %o : tensor<1x1x1x1xbf16>
    })");
  Type e5m2 = Float8E5M2Type::get(&context);
  auto out = run(fn, {tensor({1, 1, 1, 1}, e5m2, {1.0}),
                      tensor({1, 1, 3, 1}, e5m2, {0.0, 0.0, 0.0}),
                      tensor({1, 1, 3, 1}, e5m2, {1.0, 1.0, 1.0}),
                      scalar(1.0)});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].values[0], 0.9375);
}

// Every scale in play. q = 2, k = (1, 0), scale 1, descale_q 0.5,
// descale_k 0.25: s = (0.25, 0), p = (0.5622, 0.4378). scale_s = 448:
// p * 448 = (251.9, 196.1) -> e4m3 (step 16 in [128, 256)) (256, 192).
// v = (4, -2), descale_s = 1/448, descale_v = 0.5:
// o_acc = (256 * 4 - 192 * 2) / 448 * 0.5 = 5/7; scale_o = 2 -> bf16(10/7).
TEST_F(Fp8AttentionTest, DescalesAndScales) {
  std::string s = kScaleTypes;
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x1x1x1xf8E4M3FN>, %k: tensor<1x1x2x1xf8E4M3FN>, %v: tensor<1x1x2x1xf8E4M3FN>,
                 %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
        -> (tensor<1x1x1x1xbf16>, tensor<f32>, tensor<f32>) {
      %o, %as, %ao = tg.sdpa %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : )" + s + R"() {scale = 1.0 : f64}
          : tensor<1x1x1x1xf8E4M3FN>, tensor<1x1x2x1xf8E4M3FN>, tensor<1x1x2x1xf8E4M3FN>
          -> tensor<1x1x1x1xbf16> amax(tensor<f32>, tensor<f32>)
      return %o, %as, %ao : tensor<1x1x1x1xbf16>, tensor<f32>, tensor<f32>
    })");
  Type e4m3 = Float8E4M3FNType::get(&context);
  auto out = run(fn, {tensor({1, 1, 1, 1}, e4m3, {2.0}),
                      tensor({1, 1, 2, 1}, e4m3, {1.0, 0.0}),
                      tensor({1, 1, 2, 1}, e4m3, {4.0, -2.0}), scalar(0.5),
                      scalar(0.25), scalar(0.5), scalar(f32(1.0 / 448)),
                      scalar(448.0), scalar(2.0)});
  ASSERT_EQ(out.size(), 3u);
  double p0 = std::exp(0.25) / (std::exp(0.25) + 1.0);
  EXPECT_EQ(out[1].values[0], f32(p0));
  // The descale of s is the f32 nearest 1/448, so o_acc is 640 * that / 2.
  double oAcc = f32(640.0 * f32(1.0 / 448) * 0.5);
  EXPECT_NEAR(oAcc, 5.0 / 7.0, 1e-7);
  EXPECT_EQ(out[2].values[0], oAcc);
  EXPECT_EQ(out[0].values[0],
            tgc::roundTo(tgc::Format::BF16, f32(oAcc * 2.0)));
}

// An FP8 tg.sdpa (GQA, causal, training, amax) gives the same results as
// the tg.attention tg-decompose-sdpa makes of it and as that op expanded
// into primitive ops by tg-expand-attention.
//
// Tolerance: the expansion computes softmax in f32 where the interpreter's
// attention keeps doubles, so p * scale_s can land on the other side of an
// fp8 rounding midpoint; one element of P then moves by one fp8 step
// (2^-4 relative for e4m3, i.e. up to 448/16 = 28 before descale_s = 1/448)
// and o by at most that times |v| (< 8 here) / 448: 0.5 plus the bf16 ulp.
// With these inputs none does: o, amax_o and the fp8 output match exactly,
// the stats within 2.4e-7 (f32 rounding of the expanded softmax).
TEST_F(Fp8AttentionTest, DecomposeAndExpandPreserveSemantics) {
  std::string s = kScaleTypes;
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x4x16x32xf8E4M3FN>, %k: tensor<1x2x24x32xf8E4M3FN>, %v: tensor<1x2x24x32xf8E4M3FN>,
                 %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
        -> (tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>, tensor<1x4x16x32xf8E4M3FN>) {
      %o, %lse, %as, %ao = tg.sdpa %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : )" + s + R"()
          {causal = #tg<causal top_left>, training}
          : tensor<1x4x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>
          -> tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32> amax(tensor<f32>, tensor<f32>)
      %o8 = tg.sdpa %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : )" + s + R"()
          {softcap = 20.0 : f64, alibi}
          : tensor<1x4x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>
          -> tensor<1x4x16x32xf8E4M3FN>
      return %o, %lse, %as, %ao, %o8 : tensor<1x4x16x32xbf16>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>, tensor<1x4x16x32xf8E4M3FN>
    })");
  ASSERT_TRUE(fn);
  SmallVector<HostTensor> inputs = ref::makeRandomInputs(fn, {/*seed=*/5, 1.0});
  // Non-trivial descales (powers of two keep the comparison about P).
  inputs[3].values[0] = 0.5;  // descale_q
  inputs[5].values[0] = 2.0;  // descale_v
  inputs[8].values[0] = 4.0;  // scale_o
  SmallVector<HostTensor> expected = run(fn, inputs);
  ASSERT_EQ(expected.size(), 5u);

  // tg-decompose-sdpa: straight to tg.attention, fp8_scales kept.
  PassManager decompose(&context);
  decompose.addNestedPass<func::FuncOp>(createDecomposeSdpa());
  ASSERT_TRUE(succeeded(decompose.run(*module)));
  int attentions = 0;
  fn.walk([&](AttentionOp op) {
    ++attentions;
    EXPECT_TRUE(op.isFp8());
  });
  EXPECT_EQ(attentions, 2);
  SmallVector<HostTensor> direct = run(fn, inputs);
  ASSERT_EQ(direct.size(), 5u);
  for (unsigned i = 0; i < 5; ++i) {
    // Same interpreter code path; the softcap/ALiBi region rounds to f32
    // after each op, the built-in modifiers do not.
    ref::Comparison c = ref::compare(direct[i], expected[i], 0.5, 0.07);
    EXPECT_TRUE(c.ok()) << "result " << i << ": " << c.maxAbsError;
    if (i < 4) {
      EXPECT_LE(c.maxAbsError, 1e-6) << "result " << i;
    }
  }

  // tg-expand-attention: primitive ops only.
  PassManager expand(&context);
  ExpandAttentionOptions all;
  all.all = true;
  expand.addNestedPass<func::FuncOp>(createExpandAttention(all));
  ASSERT_TRUE(succeeded(expand.run(*module)));
  fn.walk([&](AttentionOp) { ADD_FAILURE() << "attention left"; });
  SmallVector<HostTensor> expanded = run(fn, inputs);
  ASSERT_EQ(expanded.size(), 5u);
  const char *names[] = {"o", "stats", "amax_s", "amax_o", "o8"};
  for (unsigned i = 0; i < 5; ++i) {
    ref::Comparison c = ref::compare(expanded[i], expected[i], 0.5, 0.07);
    EXPECT_TRUE(c.ok()) << names[i] << ": max abs " << c.maxAbsError
                        << ", mismatches " << c.mismatches;
    // Beyond f32 rounding, at most 1% of the elements may take the other
    // fp8 step (seen: none; stats differ by 2.4e-7 in 4 elements).
    ref::Comparison tight = ref::compare(expanded[i], expected[i], 1e-6, 1e-6);
    EXPECT_LE(tight.mismatches,
              static_cast<int64_t>(expected[i].values.size() / 100))
        << names[i];
    // stats and amax_s do not pass through fp8 at all.
    if (i == 1 || i == 2) {
      EXPECT_LE(c.maxAbsError, 1e-5) << names[i];
    }
  }
}
