// The reference interpreter on small cases whose answers are known by hand
// or by an independent route (finite differences, a broadcast-expanded
// graph, the decomposed graph).
#include "InterpreterFixture.h"

#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Reference/Npy.h"
#include "tg/Transforms/Passes.h"

#include "tgc/Numerics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace mlir;
using namespace mlir::tg;
using ref::HostTensor;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

class InterpreterTest : public InterpreterFixture {
protected:
  Type f32() { return Float32Type::get(&context); }
};

} // namespace

TEST_F(InterpreterTest, EveryTgOpIsInterpreted) {
  int count = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "tg")
      continue;
    ++count;
    EXPECT_TRUE(ref::canInterpret(name.getStringRef())) << name.getStringRef().str();
  }
  EXPECT_GE(count, 30);
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, SoftmaxOfKnownVector) {
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x1xf32>) {
      %p, %s = tg.softmax %x axis = 1 : tensor<1x4xf32> stats tensor<1x1xf32>
      return %p, %s : tensor<1x4xf32>, tensor<1x1xf32>
    })");
  // x = [0, ln 2, ln 3, ln 4]: exp(x) = [1, 2, 3, 4], sum 10.
  auto out = run(fn, {tensor({1, 4}, f32(),
                             {0.0, std::log(2.0), std::log(3.0),
                              std::log(4.0)})});
  ASSERT_EQ(out.size(), 2u);
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(out[0].values[i], (i + 1) / 10.0, 1e-7);
  EXPECT_NEAR(out[1].values[0], std::log(10.0), 1e-6);
}

TEST_F(InterpreterTest, SoftmaxMaskedRowsAndDecomposition) {
  const char *source = R"(
    func.func @f(%x: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x1xf32>) {
      %p, %s = tg.softmax %x axis = 1 : tensor<3x4xf32> stats tensor<3x1xf32>
      return %p, %s : tensor<3x4xf32>, tensor<3x1xf32>
    })";
  func::FuncOp fn = parse(source);
  // Row 0 partly masked, row 1 fully masked, row 2 ordinary.
  HostTensor x = tensor({3, 4}, f32(),
                        {1.0, -kInf, 1.0, -kInf, -kInf, -kInf, -kInf, -kInf,
                         0.5, -1.0, 2.0, 0.0});
  auto direct = run(fn, {x});
  EXPECT_EQ(direct[0].values[0], 0.5f);
  EXPECT_EQ(direct[0].values[1], 0.0);
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(direct[0].values[4 + j], 0.0);
  EXPECT_NEAR(direct[1].values[0], 1.0 + std::log(2.0), 1e-6);
  EXPECT_EQ(direct[1].values[1], -kInf);

  // The decomposed graph (reduce/sub/exp/reduce/div) agrees.
  PassManager pm(&context);
  pm.addNestedPass<func::FuncOp>(tg::createDecomposeSoftmax());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  fn = *module->getOps<func::FuncOp>().begin();
  auto decomposed = run(fn, {x});
  for (int t = 0; t < 2; ++t) {
    ref::Comparison c = ref::compare(decomposed[t], direct[t], 1e-6, 1e-6);
    EXPECT_TRUE(c.ok()) << "result " << t << " max abs " << c.maxAbsError;
  }
}

//===----------------------------------------------------------------------===//
// Masks: q = 0 makes every visible score equal, and v = identity makes
// o[i][j] = 1 / |visible(i)| for visible j, else 0, so the output spells
// out the mask.
//===----------------------------------------------------------------------===//

namespace {
struct MaskCase {
  std::string attrs;    // attribute dictionary of tg.sdpa
  std::string operands; // e.g. seq_len operands
  std::vector<std::string> visible; // per query row, '1' = visible kv
};
} // namespace

TEST_F(InterpreterTest, MaskKinds) {
  // Sq = 4, Skv = 6. diag = i (top_left) or i + 2 (bottom_right).
  std::vector<MaskCase> cases = {
      {"", "", {"111111", "111111", "111111", "111111"}},
      {"{causal = #tg<causal top_left>}",
       "",
       {"100000", "110000", "111000", "111100"}},
      {"{causal = #tg<causal bottom_right>}",
       "",
       {"111000", "111100", "111110", "111111"}},
      // Sliding window around the bottom-right diagonal: i+1 <= j <= i+2.
      {"{causal = #tg<causal bottom_right>, window_left = 1 : i64}",
       "",
       {"011000", "001100", "000110", "000011"}},
      // Window without causal (top-left diagonal): i-1 <= j <= i+1.
      {"{window_left = 1 : i64, window_right = 1 : i64}",
       "",
       {"110000", "111000", "011100", "001110"}},
      // Padding Lq = 3, Lkv = 4; bottom-right diag = i + 1; row 3 is padding.
      {"{causal = #tg<causal bottom_right>}",
       "seq_len_q(%lq : tensor<1xi32>) seq_len_kv(%lkv : tensor<1xi32>)",
       {"1100", "1110", "1111", "0000"}},
  };
  for (const MaskCase &mc : cases) {
    std::string source =
        "func.func @f(%q: tensor<1x1x4x2xf32>, %k: tensor<1x1x6x2xf32>, "
        "%v: tensor<1x1x6x6xf32>, %lq: tensor<1xi32>, %lkv: tensor<1xi32>) "
        "-> tensor<1x1x4x6xf32> {\n"
        "  %o = tg.sdpa %q, %k, %v " +
        mc.operands + " " + mc.attrs +
        " : tensor<1x1x4x2xf32>, tensor<1x1x6x2xf32>, tensor<1x1x6x6xf32> "
        "-> tensor<1x1x4x6xf32>\n"
        "  return %o : tensor<1x1x4x6xf32>\n}";
    func::FuncOp fn = parse(source);
    ASSERT_TRUE(fn);
    std::vector<double> identity(36, 0.0);
    for (int j = 0; j < 6; ++j)
      identity[j * 6 + j] = 1.0;
    Type i32 = IntegerType::get(&context, 32);
    auto out = run(fn, {tensor({1, 1, 4, 2}, f32(), std::vector<double>(8, 0.0)),
                        tensor({1, 1, 6, 2}, f32(), std::vector<double>(12, 0.5)),
                        tensor({1, 1, 6, 6}, f32(), identity),
                        tensor({1}, i32, {3}), tensor({1}, i32, {4})});
    ASSERT_EQ(out.size(), 1u);
    for (int i = 0; i < 4; ++i) {
      std::string row = mc.visible[i];
      row.resize(6, '0');
      int count = static_cast<int>(std::count(row.begin(), row.end(), '1'));
      for (int j = 0; j < 6; ++j) {
        double expected =
            row[j] == '1' ? tgc::roundTo(tgc::Format::F32, 1.0 / count) : 0.0;
        EXPECT_EQ(out[0].values[i * 6 + j], expected)
            << mc.attrs << " " << mc.operands << " row " << i << " kv " << j;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// GQA: sdpa with Hkv < Hq equals sdpa on k/v with each head repeated.
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, GqaEqualsRepeatedHeads) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<2x6x5x4xbf16>, %k: tensor<2x2x7x4xbf16>, %v: tensor<2x2x7x3xbf16>)
        -> (tensor<2x6x5x3xbf16>, tensor<2x6x5x3xbf16>, tensor<2x6x5x1xf32>, tensor<2x6x5x1xf32>) {
      %o, %l = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>, alibi, training}
          : tensor<2x6x5x4xbf16>, tensor<2x2x7x4xbf16>, tensor<2x2x7x3xbf16> -> tensor<2x6x5x3xbf16>, tensor<2x6x5x1xf32>
      %k5 = tg.reshape %k : tensor<2x2x7x4xbf16> -> tensor<2x2x1x7x4xbf16>
      %kb = tg.broadcast %k5 : tensor<2x2x1x7x4xbf16> -> tensor<2x2x3x7x4xbf16>
      %kr = tg.reshape %kb : tensor<2x2x3x7x4xbf16> -> tensor<2x6x7x4xbf16>
      %v5 = tg.reshape %v : tensor<2x2x7x3xbf16> -> tensor<2x2x1x7x3xbf16>
      %vb = tg.broadcast %v5 : tensor<2x2x1x7x3xbf16> -> tensor<2x2x3x7x3xbf16>
      %vr = tg.reshape %vb : tensor<2x2x3x7x3xbf16> -> tensor<2x6x7x3xbf16>
      %o2, %l2 = tg.sdpa %q, %kr, %vr {causal = #tg<causal bottom_right>, alibi, training}
          : tensor<2x6x5x4xbf16>, tensor<2x6x7x4xbf16>, tensor<2x6x7x3xbf16> -> tensor<2x6x5x3xbf16>, tensor<2x6x5x1xf32>
      return %o, %o2, %l, %l2 : tensor<2x6x5x3xbf16>, tensor<2x6x5x3xbf16>, tensor<2x6x5x1xf32>, tensor<2x6x5x1xf32>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/4, /*stddev=*/1.0});
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].values, out[1].values);
  EXPECT_EQ(out[2].values, out[3].values);
}

//===----------------------------------------------------------------------===//
// Matmul rounding
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, MatmulRoundsOnceToBf16) {
  func::FuncOp fn = parse(R"(
    func.func @f(%a: tensor<1x3xf32>, %b: tensor<3x4xf32>) -> (tensor<1x4xbf16>, tensor<1x4xf32>) {
      %r = tg.matmul %a, %b : tensor<1x3xf32>, tensor<3x4xf32> -> tensor<1x4xbf16>
      %s = tg.matmul %a, %b : tensor<1x3xf32>, tensor<3x4xf32> -> tensor<1x4xf32>
      return %r, %s : tensor<1x4xbf16>, tensor<1x4xf32>
    })");
  double t = std::ldexp(1.0, -9);
  // Column sums near 2, where bf16 values are 2^-6 apart: 2 + 2^-7 is a
  // tie -> 2 (even); 2 + 3 * 2^-7 is a tie -> 2 + 2^-5 (even);
  // 2 + 2^-7 + 2^-20 rounds up to 2 + 2^-6; 3 - 2^-7 is a tie -> 3.
  auto out = run(fn, {tensor({1, 3}, f32(), {1.0, 1.0, 1.0}),
                      tensor({3, 4}, f32(),
                             {1.0, 1.0, 1.0, 1.0,                    //
                              1.0, 1.0, 1.0, 2.0 - 4 * t,            //
                              4 * t, 12 * t, 4 * t + std::ldexp(1.0, -20),
                              0.0})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values[0], 2.0);
  EXPECT_EQ(out[0].values[1], 2.0 + std::ldexp(1.0, -5));
  EXPECT_EQ(out[0].values[2], 2.0 + std::ldexp(1.0, -6));
  EXPECT_EQ(out[0].values[3], 3.0);
  EXPECT_EQ(out[1].values[2], 2.0 + std::ldexp(1.0, -7) + std::ldexp(1.0, -20));
}

TEST_F(InterpreterTest, I4WeightsConvertExactly) {
  // i4 holds [-8, 7]: casts and a mixed matmul read the values exactly; a
  // value outside the range wraps as the element type says.
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<1x4xbf16>, %w: tensor<4x2xi4>) -> (tensor<4x2xf32>, tensor<1x2xf32>) {
      %c = tg.cast %w : tensor<4x2xi4> to tensor<4x2xf32>
      %y = tg.matmul %x, %w : tensor<1x4xbf16>, tensor<4x2xi4> -> tensor<1x2xf32>
      return %c, %y : tensor<4x2xf32>, tensor<1x2xf32>
    })");
  Type i4 = IntegerType::get(&context, 4);
  auto out = run(fn, {tensor({1, 4}, BFloat16Type::get(&context), {1.0, 2.0, 0.5, -1.0}),
                      tensor({4, 2}, i4, {-8, 7, -1, 0, 3, -4, 5, 6})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, (std::vector<double>{-8, 7, -1, 0, 3, -4, 5, 6}));
  EXPECT_EQ(out[1].values[0], -8.0 - 2.0 + 1.5 - 5.0);
  EXPECT_EQ(out[1].values[1], 7.0 + 0.0 - 2.0 - 6.0);
  EXPECT_EQ(ref::roundToElementType(8.0, i4), -8.0);
  EXPECT_EQ(ref::roundToElementType(-9.0, i4), 7.0);
}

//===----------------------------------------------------------------------===//
// Dropout
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, DropoutKeepsAboutOneMinusPAndScales) {
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<256x256xf32>, %seed: tensor<i64>, %offset: tensor<i64>) -> tensor<256x256xf32> {
      %d = tg.dropout %x, %seed, %offset prob = 3.000000e-01 : tensor<256x256xf32>
      return %d : tensor<256x256xf32>
    })");
  Type i64 = IntegerType::get(&context, 64);
  HostTensor ones = tensor({256, 256}, f32(), std::vector<double>(65536, 1.0));
  auto a = run(fn, {ones, tensor({}, i64, {1234}), tensor({}, i64, {0})});
  auto b = run(fn, {ones, tensor({}, i64, {1234}), tensor({}, i64, {0})});
  auto c = run(fn, {ones, tensor({}, i64, {1234}), tensor({}, i64, {1})});
  double scaled = tgc::roundTo(tgc::Format::F32, 1.0 / 0.7);
  int64_t kept = 0, differ = 0;
  for (size_t i = 0; i < a[0].values.size(); ++i) {
    double v = a[0].values[i];
    ASSERT_TRUE(v == 0.0 || v == scaled) << v;
    kept += v != 0.0;
    differ += v != c[0].values[i];
  }
  double fraction = static_cast<double>(kept) / 65536.0;
  EXPECT_NEAR(fraction, 0.7, 0.01); // ~5 standard deviations
  EXPECT_EQ(a[0].values, b[0].values);
  EXPECT_GT(differ, 10000); // another offset gives another mask
}

// sdpa's dropout indexes the mask over [B, Hq, Sq, Skv]: the same as
// tg.dropout applied to the probabilities of the explicit graph.
TEST_F(InterpreterTest, SdpaDropoutMatchesExplicitGraph) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<2x2x3x4xf32>, %k: tensor<2x2x5x4xf32>, %v: tensor<2x2x5x3xf32>,
                 %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) {
      %o = tg.sdpa %q, %k, %v seed(%seed) offset(%offset) {dropout = 0.4 : f64, scale = 0.5 : f64}
          : tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>, tensor<2x2x5x3xf32> -> tensor<2x2x3x3xf32>
      %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x2x5x4xf32> -> tensor<2x2x4x5xf32>
      %s = tg.matmul %q, %kt : tensor<2x2x3x4xf32>, tensor<2x2x4x5xf32> -> tensor<2x2x3x5xf32>
      %half = tg.constant dense<0.5> : tensor<f32>
      %ss = tg.mul %s, %half : tensor<2x2x3x5xf32>, tensor<f32>
      %p = tg.softmax %ss axis = 3 : tensor<2x2x3x5xf32>
      %pd = tg.dropout %p, %seed, %offset prob = 4.000000e-01 : tensor<2x2x3x5xf32>
      %o2 = tg.matmul %pd, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x3xf32> -> tensor<2x2x3x3xf32>
      return %o, %o2 : tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/9, /*stddev=*/1.0});
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  ref::Comparison c = ref::compare(out[1], out[0], 1e-5, 1e-5);
  EXPECT_TRUE(c.ok()) << c.maxAbsError;
}

//===----------------------------------------------------------------------===//
// tg.attention's region against tg.sdpa's built-in modifiers.
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, AttentionRegionMatchesSdpaModifiers) {
  func::FuncOp fn = parse(R"(
    func.func @f(%q: tensor<1x4x5x8xf16>, %k: tensor<1x2x6x8xf16>, %v: tensor<1x2x6x8xf16>,
                 %bias: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x8xf16>, tensor<1x4x5x8xf16>) {
      %o = tg.sdpa %q, %k, %v bias(%bias : tensor<1x4x5x6xf32>)
          {softcap = 3.0 : f64, alibi, causal = #tg<causal top_left>, scale = 0.35 : f64}
          : tensor<1x4x5x8xf16>, tensor<1x2x6x8xf16>, tensor<1x2x6x8xf16> -> tensor<1x4x5x8xf16>
      %o2 = tg.attention %q, %k, %v captures(%bias : tensor<1x4x5x6xf32>)
          {causal = #tg<causal top_left>, scale = 0.35 : f64}
          : tensor<1x4x5x8xf16>, tensor<1x2x6x8xf16>, tensor<1x2x6x8xf16> -> tensor<1x4x5x8xf16>
        score {
      ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %be: tensor<f32>):
        %cap = tg.constant dense<3.0> : tensor<f32>
        %d = tg.div %s, %cap : tensor<f32>, tensor<f32>
        %t = tg.tanh %d : tensor<f32>
        %c = tg.mul %t, %cap : tensor<f32>, tensor<f32>
        %biased = tg.add %c, %be : tensor<f32>, tensor<f32>
        %one = tg.constant dense<1> : tensor<i64>
        %h1 = tg.add %h, %one : tensor<i64>, tensor<i64>
        %hf = tg.cast %h1 : tensor<i64> to tensor<f32>
        %m = tg.constant dense<-2.0> : tensor<f32>
        %e = tg.mul %hf, %m : tensor<f32>, tensor<f32>
        %two = tg.constant dense<2.0> : tensor<f32>
        %slope = tg.pow %two, %e : tensor<f32>, tensor<f32>
        %dist = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
        %df = tg.cast %dist : tensor<i64> to tensor<f32>
        %a = tg.mul %slope, %df : tensor<f32>, tensor<f32>
        %r = tg.add %biased, %a : tensor<f32>, tensor<f32>
        tg.yield %r : tensor<f32>
      }
      return %o, %o2 : tensor<1x4x5x8xf16>, tensor<1x4x5x8xf16>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/21, /*stddev=*/1.0});
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  // The region rounds to f32 after every op; sdpa keeps doubles until the
  // output. Both are f16 outputs, so allow an f16 ulp.
  ref::Comparison c = ref::compare(out[1], out[0], 2e-3, 2e-3);
  EXPECT_TRUE(c.ok()) << c.maxAbsError << " " << c.mismatches;
}

//===----------------------------------------------------------------------===//
// sdpa_grad against central finite differences of the forward.
//===----------------------------------------------------------------------===//

namespace {
struct GradCase {
  std::string name;
  std::string attrs;
  bool bias = false;
  bool padding = false;
  bool dropout = false;
  bool dbias = false; // also the bias's gradient (sdpa_grad's dbias result)
};
void PrintTo(const GradCase &gc, std::ostream *os) { *os << gc.name; }
} // namespace

class SdpaGradTest : public InterpreterTest,
                     public ::testing::WithParamInterface<GradCase> {};

TEST_P(SdpaGradTest, MatchesFiniteDifferences) {
  const GradCase &gc = GetParam();
  // B = 1, Hq = 2, Hkv = 1 (GQA), Sq = 3, Skv = 4, D = 3, Dv = 2.
  std::string qt = "tensor<1x2x3x3xf32>", kt = "tensor<1x1x4x3xf32>",
              vt = "tensor<1x1x4x2xf32>", ot = "tensor<1x2x3x2xf32>",
              st = "tensor<1x2x3x1xf32>";
  std::string extra, sig;
  if (gc.bias)
    extra += " bias(%bias : tensor<1x2x3x4xf32>)";
  if (gc.padding)
    extra += " seq_len_q(%lq : tensor<1xi32>) seq_len_kv(%lkv : tensor<1xi32>)";
  if (gc.dropout)
    extra += " seed(%seed) offset(%offset)";
  std::string args = "%q: " + qt + ", %k: " + kt + ", %v: " + vt +
                     ", %do: " + ot +
                     ", %bias: tensor<1x2x3x4xf32>, %lq: tensor<1xi32>, "
                     "%lkv: tensor<1xi32>, %seed: tensor<i64>, %offset: "
                     "tensor<i64>";
  std::string attrs = gc.attrs;
  std::string source =
      "func.func @forward(" + args + ") -> (" + ot + ", " + st + ") {\n"
      "  %o, %l = tg.sdpa %q, %k, %v" + extra + " {training" + attrs +
      "} : " + qt + ", " + kt + ", " + vt + " -> " + ot + ", " + st +
      "\n  return %o, %l : " + ot + ", " + st + "\n}\n"
      "func.func @backward(" + args + ", %o: " + ot + ", %l: " + st +
      ") -> (" + qt + ", " + kt + ", " + vt +
      (gc.dbias ? ", tensor<1x2x3x4xf32>" : "") + ") {\n"
      "  %dq, %dk, %dv" + (gc.dbias ? ", %db" : "") +
      " = tg.sdpa_grad %q, %k, %v, %o, %do, %l" + extra +
      " {" + (attrs.empty() ? "" : attrs.substr(2)) + "} : " + qt + ", " +
      kt + ", " + vt + ", " + ot + ", " + ot + ", " + st +
      (gc.dbias ? " -> dbias tensor<1x2x3x4xf32>" : "") +
      "\n  return %dq, %dk, %dv" + (gc.dbias ? ", %db" : "") + " : " + qt +
      ", " + kt + ", " + vt + (gc.dbias ? ", tensor<1x2x3x4xf32>" : "") +
      "\n}\n";
  parse(source);
  ASSERT_TRUE(module);
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  auto backward = module->lookupSymbol<func::FuncOp>("backward");
  auto inputs = ref::makeRandomInputs(forward, {/*seed=*/17, /*stddev=*/1.0});
  Type i32 = IntegerType::get(&context, 32);
  inputs[5] = tensor({1}, i32, {2});  // Lq = 2: row 2 is padding
  inputs[6] = tensor({1}, i32, {3});  // Lkv = 3
  auto fwd = run(forward, inputs);
  ASSERT_EQ(fwd.size(), 2u);
  SmallVector<HostTensor> bwdInputs(inputs.begin(), inputs.end());
  bwdInputs.push_back(fwd[0]);
  bwdInputs.push_back(fwd[1]);
  auto grads = run(backward, bwdInputs);
  ASSERT_EQ(grads.size(), gc.dbias ? 4u : 3u);

  // loss = sum(o * dO) in double, on f32-rounded outputs.
  auto loss = [&](SmallVector<HostTensor> &in) {
    auto o = run(forward, in);
    double sum = 0.0;
    for (size_t i = 0; i < o[0].values.size(); ++i)
      sum += o[0].values[i] * in[3].values[i];
    return sum;
  };
  const double h = 1e-2;
  int checked = 0;
  // q, k, v, and the bias (input 4, gradient 3) with dbias.
  for (int which : gc.dbias ? std::vector<int>{0, 1, 2, 4} : std::vector<int>{0, 1, 2}) {
    for (size_t e = 0; e < inputs[which].values.size(); ++e) {
      SmallVector<HostTensor> plus(inputs.begin(), inputs.end());
      SmallVector<HostTensor> minus(inputs.begin(), inputs.end());
      // Inputs are f32: perturb by exactly representable steps.
      plus[which].values[e] += h;
      minus[which].values[e] -= h;
      double numeric = (loss(plus) - loss(minus)) / (2 * h);
      double analytic = grads[which == 4 ? 3 : which].values[e];
      EXPECT_NEAR(analytic, numeric, 3e-3 + 1e-2 * std::fabs(numeric))
          << gc.name << " input " << which << " element " << e;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 18 + 12 + 8 + (gc.dbias ? 24 : 0));
}

INSTANTIATE_TEST_SUITE_P(
    Options, SdpaGradTest,
    ::testing::Values(
        GradCase{"plain", "", false, false, false},
        GradCase{"causal_bottom_right", ", causal = #tg<causal bottom_right>"},
        GradCase{"window", ", window_left = 1 : i64, window_right = 0 : i64"},
        GradCase{"softcap_scale", ", softcap = 1.5 : f64, scale = 0.9 : f64"},
        GradCase{"bias_alibi", ", alibi", true},
        GradCase{"padding", ", causal = #tg<causal top_left>", false, true},
        GradCase{"dropout", ", dropout = 0.3 : f64", false, false, true},
        GradCase{"everything",
                 ", causal = #tg<causal bottom_right>, softcap = 2.0 : f64, "
                 "alibi, dropout = 0.2 : f64",
                 true, true, true},
        GradCase{"dbias_softcap_causal", ", softcap = 1.5 : f64, causal = #tg<causal top_left>",
                 true, false, false, true},
        GradCase{"dbias_everything",
                 ", causal = #tg<causal bottom_right>, softcap = 2.0 : f64, "
                 "alibi, dropout = 0.2 : f64",
                 true, true, true, true}),
    [](const ::testing::TestParamInfo<GradCase> &info) {
      return info.param.name;
    });

//===----------------------------------------------------------------------===//
// fused_matmul equals its prologues, a matmul and its epilogue as ops.
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, FusedMatmulEqualsUnfusedOps) {
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<3x5xbf16>, %w: tensor<5x4xi8>, %scale: tensor<1x4xbf16>, %bias: tensor<3x1xf32>)
        -> (tensor<3x4xbf16>, tensor<3x4xbf16>) {
      %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x4xbf16>) epilogue_captures(%bias : tensor<3x1xf32>)
          : tensor<3x5xbf16>, tensor<5x4xi8> -> tensor<3x4xbf16>
        prologue_a {}
        prologue_b {
        ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
          %h = tg.cast %e : tensor<i8> to tensor<bf16>
          %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
          tg.yield %d : tensor<bf16>
        }
        epilogue {
        ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
          %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
          %act = tg.sigmoid %sum : tensor<f32>
          %out = tg.cast %act : tensor<f32> to tensor<bf16>
          tg.yield %out : tensor<bf16>
        }
      %wh = tg.cast %w : tensor<5x4xi8> to tensor<5x4xbf16>
      %ws = tg.mul %wh, %scale : tensor<5x4xbf16>, tensor<1x4xbf16>
      %acc = tg.matmul %x, %ws : tensor<3x5xbf16>, tensor<5x4xbf16> -> tensor<3x4xf32>
      %sum = tg.add %acc, %bias : tensor<3x4xf32>, tensor<3x1xf32>
      %act = tg.sigmoid %sum : tensor<3x4xf32>
      %y2 = tg.cast %act : tensor<3x4xf32> to tensor<3x4xbf16>
      return %y, %y2 : tensor<3x4xbf16>, tensor<3x4xbf16>
    })");
  auto inputs = ref::makeRandomInputs(fn, {/*seed=*/5, /*stddev=*/0.1});
  auto out = run(fn, inputs);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].values, out[1].values);
}

//===----------------------------------------------------------------------===//
// Inputs, errors, comparison
//===----------------------------------------------------------------------===//

TEST_F(InterpreterTest, RandomInputsAreDeterministicAndPerArgument) {
  func::FuncOp a = parse(R"(
    func.func @f(%x: tensor<8xf32>, %y: tensor<16xbf16>) -> tensor<8xf32> {
      return %x : tensor<8xf32>
    })");
  auto first = ref::makeRandomInputs(a, {3, 1.0});
  auto again = ref::makeRandomInputs(a, {3, 1.0});
  auto other = ref::makeRandomInputs(a, {4, 1.0});
  EXPECT_EQ(first[0].values, again[0].values);
  EXPECT_NE(first[0].values, other[0].values);
  for (double v : first[1].values)
    EXPECT_EQ(v, tgc::roundTo(tgc::Format::BF16, v));
  // Changing argument 1's shape leaves argument 0's values alone.
  func::FuncOp b = parse(R"(
    func.func @f(%x: tensor<8xf32>, %y: tensor<3xi8>) -> tensor<8xf32> {
      return %x : tensor<8xf32>
    })");
  auto changed = ref::makeRandomInputs(b, {3, 1.0});
  EXPECT_EQ(first[0].values, changed[0].values);
}

TEST_F(InterpreterTest, BadInputsAreDiagnosed) {
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
      return %x : tensor<2xf32>
    })");
  std::string messages;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    messages += diag.str() + "\n";
    return success();
  });
  EXPECT_TRUE(failed(ref::interpret(fn, {})));
  EXPECT_TRUE(failed(
      ref::interpret(fn, {tensor({3}, f32(), {1.0, 2.0, 3.0})})));
  EXPECT_NE(messages.find("was given 0 inputs; expected 1"), std::string::npos)
      << messages;
  EXPECT_NE(messages.find("input 0 ('arg0') is 'tensor<3xf32>'"),
            std::string::npos)
      << messages;
}

TEST_F(InterpreterTest, InputsAreRoundedToTheirType) {
  func::FuncOp fn = parse(R"(
    func.func @f(%x: tensor<2xbf16>) -> tensor<2xbf16> {
      return %x : tensor<2xbf16>
    })");
  auto out = run(fn, {tensor({2}, BFloat16Type::get(&context),
                             {1.0 + std::ldexp(1.0, -8), 0.1})});
  EXPECT_EQ(out[0].values[0], 1.0);
  EXPECT_EQ(out[0].values[1], tgc::roundTo(tgc::Format::BF16, 0.1));
}

TEST_F(InterpreterTest, CompareCountsMismatchesAndNaNs) {
  HostTensor a = tensor({3}, f32(), {1.0, 2.0, kInf});
  HostTensor b = tensor({3}, f32(), {1.0, 2.1, kInf});
  ref::Comparison c = ref::compare(a, b, 0.0, 0.01);
  EXPECT_EQ(c.mismatches, 1);
  EXPECT_NEAR(c.maxAbsError, 0.1, 1e-12);
  EXPECT_TRUE(ref::compare(a, b, 0.0, 0.1).ok());
  HostTensor n = tensor({3}, f32(), {1.0, std::nan(""), kInf});
  EXPECT_TRUE(ref::compare(n, b, 1.0, 1.0).nanOrShapeMismatch);
  EXPECT_TRUE(ref::compare(n, n, 0.0, 0.0).ok());
  EXPECT_TRUE(ref::compare(a, tensor({2}, f32(), {1.0, 2.0}), 1, 1)
                  .nanOrShapeMismatch);
}

TEST_F(InterpreterTest, NpyRoundTrip) {
  Type f16 = Float16Type::get(&context);
  HostTensor t = tensor({2, 3}, f16, {1.5, -2.0, 0.0999755859375, 65504, -0.0, 3});
  llvm::Expected<ref::NpyArray> back = ref::parseNpy(ref::serializeNpy(t));
  ASSERT_TRUE(static_cast<bool>(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->descr, "<f2");
  EXPECT_EQ(back->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(back->values, t.values);
  llvm::Expected<HostTensor> again =
      ref::npyToTensor(*back, RankedTensorType::get({2, 3}, f16));
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(again->values, t.values);
  // Truncations of a valid file are errors, never crashes.
  std::string bytes = ref::serializeNpy(t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    llvm::Expected<ref::NpyArray> cut = ref::parseNpy(StringRef(bytes).take_front(n));
    EXPECT_FALSE(static_cast<bool>(cut)) << n;
    llvm::consumeError(cut.takeError());
  }
}
