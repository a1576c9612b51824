// The derived gradient of tg.attention score regions (ScoreGradient.h)
// against central finite differences, per element on the interpreter's
// scalar programs and for whole tg.attention_grad ops (empty score_grad)
// against finite differences of the tg.attention forward; plus the shape of
// the derived block for the regions whose gradient is dz itself.
#include "../../compiler/lib/Reference/Pointwise.h"

#include "tg/Dialect/TG/IR/ScoreGradient.h"
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

using namespace mlir;
using namespace mlir::tg;
using ref::HostTensor;

namespace {

class ScoreGradientTest : public ::testing::Test {
protected:
  ScoreGradientTest() {
    DialectRegistry registry;
    registry.insert<TGDialect, func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// A tg.attention whose score region has `captures` (rank-0 element types
  /// after the indices) and body `body` (ending in tg.yield).
  AttentionOp attention(const std::string &captureTypes, const std::string &body) {
    std::string captureArgs, captureOperands, captureTensorTypes, argList;
    std::vector<std::string> types;
    for (size_t start = 0; start < captureTypes.size();) {
      size_t end = captureTypes.find(',', start);
      if (end == std::string::npos)
        end = captureTypes.size();
      types.push_back(captureTypes.substr(start, end - start));
      start = end + 1;
    }
    for (size_t i = 0; i < types.size(); ++i) {
      std::string t = "tensor<1x1x4x4x" + types[i] + ">";
      argList += ", %c" + std::to_string(i) + ": " + t;
      captureOperands += (i ? ", %c" : "%c") + std::to_string(i);
      captureTensorTypes += (i ? ", " : "") + t;
      captureArgs += ", %e" + std::to_string(i) + ": tensor<" + types[i] + ">";
    }
    std::string qt = "tensor<1x1x4x8xf32>";
    std::string source = "func.func @f(%q: " + qt + ", %k: " + qt + ", %v: " + qt + argList +
                         ") -> " + qt + " {\n  %o = tg.attention %q, %k, %v" +
                         (types.empty() ? "" : " captures(" + captureOperands + " : " + captureTensorTypes + ")") +
                         " : " + qt + ", " + qt + ", " + qt + " -> " + qt +
                         " score {\n  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: "
                         "tensor<i64>, %ki: tensor<i64>" +
                         captureArgs + "):\n" + body + "\n  }\n  return %o : " + qt + "\n}\n";
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return nullptr;
    AttentionOp op;
    module->walk([&](AttentionOp a) { op = a; });
    return op;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

struct RegionCase {
  const char *name;
  const char *captures; // comma-separated element types of the captures
  const char *body;
  double sMin = -4.0, sMax = 4.0;
};

void PrintTo(const RegionCase &c, std::ostream *os) { *os << c.name; }

class RegionGradient : public ScoreGradientTest, public ::testing::WithParamInterface<RegionCase> {};

/// d region / d s at random points against central differences (the
/// interpreter evaluates in f32, rounding each op: steps of 1e-3 relative).
TEST_P(RegionGradient, MatchesFiniteDifferences) {
  const RegionCase &rc = GetParam();
  AttentionOp op = attention(rc.captures, rc.body);
  ASSERT_TRUE(op);
  Block &score = op.getScoreBlock();
  std::string whyNot;
  FailureOr<std::unique_ptr<Block>> derived = deriveScoreGradient(score, 0, &whyNot);
  ASSERT_TRUE(succeeded(derived)) << whyNot;
  // The derived block has the region's arguments and dz, and yields f32.
  ASSERT_EQ((*derived)->getNumArguments(), score.getNumArguments() + 1);
  FailureOr<ref::ScalarProgram> forward = ref::ScalarProgram::compile(score);
  FailureOr<ref::ScalarProgram> gradient = ref::ScalarProgram::compile(**derived);
  ASSERT_TRUE(succeeded(forward) && succeeded(gradient));
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> sDist(rc.sMin, rc.sMax), cap(-2.0, 2.0);
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> args(score.getNumArguments());
    args[0] = double(float(sDist(rng)));
    args[1] = 0;
    args[2] = double(rng() % 3);
    args[3] = double(rng() % 8);
    args[4] = double(rng() % 8);
    for (unsigned i = 5; i < args.size(); ++i) {
      Type t = cast<RankedTensorType>(score.getArgument(i).getType()).getElementType();
      args[i] = isa<FloatType>(t) ? double(float(cap(rng))) : double(int(rng() % 5) - 2);
    }
    double h = 1e-3 * std::max(1.0, std::fabs(args[0]));
    std::vector<double> plus = args, minus = args;
    plus[0] += h;
    minus[0] -= h;
    double fp = forward->run(plus), fm = forward->run(minus);
    if (!std::isfinite(fp) || !std::isfinite(fm))
      continue; // a masked score
    double numeric = (fp - fm) / (2 * h);
    std::vector<double> gargs = args;
    gargs.push_back(1.0); // dz
    double analytic = gradient->run(gargs);
    // Near a kink (max, select, abs) the difference straddles it: skip.
    double left = (forward->run(args) - fm) / h, right = (fp - forward->run(args)) / h;
    if (std::fabs(left - right) > 1e-2 * (1.0 + std::fabs(left)))
      continue;
    EXPECT_NEAR(analytic, numeric, 2e-3 * (1.0 + std::fabs(numeric)))
        << rc.name << " at s = " << args[0] << " (q " << args[3] << ", kv " << args[4] << ")";
    ++checked;
    // dz scales the gradient linearly.
    gargs.back() = -2.5;
    EXPECT_NEAR(gradient->run(gargs), -2.5 * analytic, 1e-5 * (1.0 + std::fabs(analytic))) << rc.name;
  }
  EXPECT_GT(checked, 100) << rc.name << ": too few points away from kinks and masks";
}

INSTANTIATE_TEST_SUITE_P(
    Regions, RegionGradient,
    ::testing::Values(
        RegionCase{"softcap", "",
                   "    %c = tg.constant dense<30.0> : tensor<f32>\n"
                   "    %d = tg.div %s, %c : tensor<f32>, tensor<f32>\n"
                   "    %t = tg.tanh %d : tensor<f32>\n"
                   "    %r = tg.mul %t, %c : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>",
                   -60.0, 60.0},
        RegionCase{"alibi_index_arithmetic", "f32",
                   "    %rel = tg.sub %ki, %qi : tensor<i64>, tensor<i64>\n"
                   "    %relf = tg.cast %rel : tensor<i64> to tensor<f32>\n"
                   "    %a = tg.mul %e0, %relf : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.add %s, %a : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"bias_bf16_capture", "bf16",
                   "    %bf = tg.cast %e0 : tensor<bf16> to tensor<f32>\n"
                   "    %r = tg.add %s, %bf : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"relative_position_log_bias", "",
                   "    %rel = tg.sub %ki, %qi : tensor<i64>, tensor<i64>\n"
                   "    %a = tg.abs %rel : tensor<i64>\n"
                   "    %af = tg.cast %a : tensor<i64> to tensor<f32>\n"
                   "    %one = tg.constant dense<1.0> : tensor<f32>\n"
                   "    %l = tg.add %af, %one : tensor<f32>, tensor<f32>\n"
                   "    %lg = tg.log %l : tensor<f32>\n"
                   "    %w = tg.constant dense<-0.3> : tensor<f32>\n"
                   "    %b2 = tg.mul %lg, %w : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.add %s, %b2 : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"softcap_bias_causal_select", "f32",
                   "    %c = tg.constant dense<5.0> : tensor<f32>\n"
                   "    %d = tg.div %s, %c : tensor<f32>, tensor<f32>\n"
                   "    %t = tg.tanh %d : tensor<f32>\n"
                   "    %m = tg.mul %t, %c : tensor<f32>, tensor<f32>\n"
                   "    %z = tg.add %m, %e0 : tensor<f32>, tensor<f32>\n"
                   "    %keep = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>\n"
                   "    %ninf = tg.constant dense<0xFF800000> : tensor<f32>\n"
                   "    %r = tg.select %keep, %z, %ninf : tensor<i1>, tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>",
                   -12.0, 12.0},
        RegionCase{"clamp_max_min", "",
                   "    %lo = tg.constant dense<-1.5> : tensor<f32>\n"
                   "    %hi = tg.constant dense<2.0> : tensor<f32>\n"
                   "    %a = tg.max %s, %lo : tensor<f32>, tensor<f32>\n"
                   "    %b2 = tg.min %a, %hi : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.mul %b2, %s : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"leaky_select_on_score", "",
                   "    %zero = tg.constant dense<0.0> : tensor<f32>\n"
                   "    %pos = tg.cmp gt, %s, %zero : tensor<f32>, tensor<f32>\n"
                   "    %slope = tg.constant dense<0.1> : tensor<f32>\n"
                   "    %small = tg.mul %s, %slope : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.select %pos, %s, %small : tensor<i1>, tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"exp_pow_sigmoid", "",
                   "    %w = tg.constant dense<0.2> : tensor<f32>\n"
                   "    %a = tg.mul %s, %w : tensor<f32>, tensor<f32>\n"
                   "    %e = tg.exp %a : tensor<f32>\n"
                   "    %two = tg.constant dense<2.0> : tensor<f32>\n"
                   "    %p = tg.pow %e, %two : tensor<f32>, tensor<f32>\n"
                   "    %g = tg.sigmoid %s : tensor<f32>\n"
                   "    %m = tg.mul %p, %g : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.sub %m, %s : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"pow_score_exponent", "",
                   "    %base = tg.constant dense<1.5> : tensor<f32>\n"
                   "    %w = tg.constant dense<0.25> : tensor<f32>\n"
                   "    %a = tg.mul %s, %w : tensor<f32>, tensor<f32>\n"
                   "    %p = tg.pow %base, %a : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %p : tensor<f32>"},
        RegionCase{"sqrt_rsqrt_recip_abs_neg", "",
                   "    %one = tg.constant dense<1.0> : tensor<f32>\n"
                   "    %sq = tg.mul %s, %s : tensor<f32>, tensor<f32>\n"
                   "    %u = tg.add %sq, %one : tensor<f32>, tensor<f32>\n"
                   "    %r1 = tg.sqrt %u : tensor<f32>\n"
                   "    %r2 = tg.rsqrt %u : tensor<f32>\n"
                   "    %r3 = tg.recip %u : tensor<f32>\n"
                   "    %a = tg.abs %s : tensor<f32>\n"
                   "    %n = tg.neg %a : tensor<f32>\n"
                   "    %x1 = tg.add %r1, %r2 : tensor<f32>, tensor<f32>\n"
                   "    %x2 = tg.sub %x1, %r3 : tensor<f32>, tensor<f32>\n"
                   "    %x3 = tg.div %x2, %u : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.add %x3, %n : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"},
        RegionCase{"capture_scales_score_f16", "f16,i32",
                   "    %cf = tg.cast %e0 : tensor<f16> to tensor<f32>\n"
                   "    %m = tg.mul %s, %cf : tensor<f32>, tensor<f32>\n"
                   "    %i = tg.cast %e1 : tensor<i32> to tensor<f32>\n"
                   "    %d = tg.div %m, %i : tensor<f32>, tensor<f32>\n"
                   "    %r = tg.add %d, %s : tensor<f32>, tensor<f32>\n"
                   "    tg.yield %r : tensor<f32>"}),
    [](const ::testing::TestParamInfo<RegionCase> &info) { return std::string(info.param.name); });

/// Regions that only add to the score or mask it have gradient dz itself
/// (or a select of dz and 0): what the fused kernel then leaves out.
TEST_F(ScoreGradientTest, AdditiveRegionsPassDzThrough) {
  AttentionOp identity = attention("", "    tg.yield %s : tensor<f32>");
  ASSERT_TRUE(identity);
  auto d = deriveScoreGradient(identity.getScoreBlock(), 0);
  ASSERT_TRUE(succeeded(d));
  Block &block = **d;
  EXPECT_EQ(block.getTerminator()->getOperand(0), block.getArguments().back());
  EXPECT_EQ(&block.front(), block.getTerminator()); // no ops

  AttentionOp bias = attention("f32", "    %r = tg.add %s, %e0 : tensor<f32>, tensor<f32>\n"
                                      "    tg.yield %r : tensor<f32>");
  ASSERT_TRUE(bias);
  d = deriveScoreGradient(bias.getScoreBlock(), 0);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ((*d)->getTerminator()->getOperand(0), (*d)->getArguments().back());
  EXPECT_TRUE(scoreDependsOn(bias.getScoreBlock(), 5)); // the bias's own gradient is dz too
  d = deriveScoreGradient(bias.getScoreBlock(), 5);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ((*d)->getTerminator()->getOperand(0), (*d)->getArguments().back());

  // A mask to -inf yielded last passes dz unmasked (where it masks, P = 0
  // and tg.attention_grad's dS is 0 anyway).
  AttentionOp masked = attention("f32", "    %r = tg.add %s, %e0 : tensor<f32>, tensor<f32>\n"
                                        "    %keep = tg.cmp le, %ki, %qi : tensor<i64>, tensor<i64>\n"
                                        "    %ninf = tg.constant dense<0xFF800000> : tensor<f32>\n"
                                        "    %m = tg.select %keep, %r, %ninf : tensor<i1>, tensor<f32>, tensor<f32>\n"
                                        "    tg.yield %m : tensor<f32>");
  ASSERT_TRUE(masked);
  d = deriveScoreGradient(masked.getScoreBlock(), 0);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ((*d)->getTerminator()->getOperand(0), (*d)->getArguments().back());

  // A constant score: no dependence, gradient 0.
  AttentionOp constant = attention("", "    %c = tg.constant dense<1.0> : tensor<f32>\n"
                                       "    tg.yield %c : tensor<f32>");
  ASSERT_TRUE(constant);
  EXPECT_FALSE(scoreDependsOn(constant.getScoreBlock(), 0));
  d = deriveScoreGradient(constant.getScoreBlock(), 0);
  ASSERT_TRUE(succeeded(d));
  auto zero = (*d)->getTerminator()->getOperand(0).getDefiningOp<ConstantOp>();
  ASSERT_TRUE(zero);
  // A float -> bf16 -> float round trip passes the gradient (straight through).
  AttentionOp roundTrip = attention("", "    %half = tg.cast %s : tensor<f32> to tensor<bf16>\n"
                                        "    %r = tg.cast %half : tensor<bf16> to tensor<f32>\n"
                                        "    tg.yield %r : tensor<f32>");
  ASSERT_TRUE(roundTrip);
  d = deriveScoreGradient(roundTrip.getScoreBlock(), 0);
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ((*d)->getTerminator()->getOperand(0), (*d)->getArguments().back());
}

//===----------------------------------------------------------------------===//
// Whole ops: tg.attention_grad with an empty score_grad against finite
// differences of tg.attention.
//===----------------------------------------------------------------------===//

struct OpCase {
  const char *name;
  const char *attrs;    // attention attributes (besides training)
  const char *captures; // "" or ", %bias" etc. (operands of captures(...))
  const char *region;   // region arguments after %ki and the body
};

void PrintTo(const OpCase &c, std::ostream *os) { *os << c.name; }

class DerivedAttentionGrad : public ScoreGradientTest, public ::testing::WithParamInterface<OpCase> {};

TEST_P(DerivedAttentionGrad, MatchesFiniteDifferences) {
  const OpCase &oc = GetParam();
  // B = 1, Hq = 2, Hkv = 1 (GQA), Sq = 3, Skv = 4, D = 3, Dv = 2.
  std::string qt = "tensor<1x2x3x3xf32>", kt = "tensor<1x1x4x3xf32>", vt = "tensor<1x1x4x2xf32>",
              ot = "tensor<1x2x3x2xf32>", st = "tensor<1x2x3x1xf32>", bt = "tensor<1x2x3x4xf32>",
              slt = "tensor<1x2x1x1xf32>";
  bool captures = std::string(oc.captures).size() > 0;
  std::string capture = captures ? " captures(%bias, %slope : " + bt + ", " + slt + ")" : "";
  std::string region = std::string(" score {\n  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, "
                                    "%qi: tensor<i64>, %ki: tensor<i64>") +
                       (captures ? ", %be: tensor<f32>, %sl: tensor<f32>" : "") + "):\n" + oc.region + "\n  }";
  std::string args = "%q: " + qt + ", %k: " + kt + ", %v: " + vt + ", %do: " + ot + ", %bias: " + bt +
                     ", %slope: " + slt;
  std::string attrs = oc.attrs;
  std::string source =
      "func.func @forward(" + args + ") -> (" + ot + ", " + st + ") {\n" + "  %o, %l = tg.attention %q, %k, %v" +
      capture + " {training" + attrs + "} : " + qt + ", " + kt + ", " + vt + " -> " + ot + ", " + st + region +
      "\n  return %o, %l : " + ot + ", " + st + "\n}\n" + "func.func @backward(" + args + ", %o: " + ot +
      ", %l: " + st + ") -> (" + qt + ", " + kt + ", " + vt + (captures ? ", " + bt : "") + ") {\n" +
      "  %dq, %dk, %dv" + std::string(captures ? ", %db" : "") +
      " = tg.attention_grad %q, %k, %v, %o, %do, %l" + capture + " {" +
      (captures ? std::string("grad_captures = array<i64: 0>") + (attrs.empty() ? "" : ", ") : std::string()) +
      (attrs.empty() ? "" : attrs.substr(2)) + "} : " + qt + ", " + kt + ", " + vt + ", " + ot + ", " + ot + ", " +
      st + region + " score_grad {\n  }" + (captures ? " capture_grads(" + bt + ")" : "") +
      "\n  return %dq, %dk, %dv" + (captures ? ", %db" : "") + " : " + qt + ", " + kt + ", " + vt +
      (captures ? ", " + bt : "") + "\n}\n";
  module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module) << source;
  auto forward = module->lookupSymbol<func::FuncOp>("forward");
  auto backward = module->lookupSymbol<func::FuncOp>("backward");
  auto inputs = ref::makeRandomInputs(forward, {/*seed=*/23, /*stddev=*/1.0});
  auto fwd = ref::interpret(forward, inputs);
  ASSERT_TRUE(succeeded(fwd));
  SmallVector<HostTensor> bwdInputs(inputs.begin(), inputs.end());
  bwdInputs.push_back((*fwd)[0]);
  bwdInputs.push_back((*fwd)[1]);
  auto grads = ref::interpret(backward, bwdInputs);
  ASSERT_TRUE(succeeded(grads));
  auto loss = [&](SmallVector<HostTensor> &in) {
    auto o = ref::interpret(forward, in);
    double sum = 0.0;
    for (size_t i = 0; i < (*o)[0].values.size(); ++i)
      sum += (*o)[0].values[i] * in[3].values[i];
    return sum;
  };
  const double h = 1e-2;
  // q, k, v, and the captured bias (argument 4) when the op returns its
  // gradient (result 3).
  for (int which : captures ? std::vector<int>{0, 1, 2, 4} : std::vector<int>{0, 1, 2})
    for (size_t e = 0; e < inputs[which].values.size(); ++e) {
      SmallVector<HostTensor> plus(inputs.begin(), inputs.end()), minus(inputs.begin(), inputs.end());
      plus[which].values[e] += h;
      minus[which].values[e] -= h;
      double numeric = (loss(plus) - loss(minus)) / (2 * h);
      double analytic = (*grads)[which == 4 ? 3 : which].values[e];
      EXPECT_NEAR(analytic, numeric, 3e-3 + 1e-2 * std::fabs(numeric))
          << oc.name << " input " << which << " element " << e;
    }
}

INSTANTIATE_TEST_SUITE_P(
    Regions, DerivedAttentionGrad,
    ::testing::Values(
        OpCase{"softcap_causal", ", causal = #tg<causal bottom_right>", "",
               "    %c = tg.constant dense<1.5> : tensor<f32>\n"
               "    %d = tg.div %s, %c : tensor<f32>, tensor<f32>\n"
               "    %t = tg.tanh %d : tensor<f32>\n"
               "    %r = tg.mul %t, %c : tensor<f32>, tensor<f32>\n"
               "    tg.yield %r : tensor<f32>"},
        OpCase{"softcap_bias_alibi_slopes", "", "bias",
               "    %c = tg.constant dense<2.0> : tensor<f32>\n"
               "    %d = tg.div %s, %c : tensor<f32>, tensor<f32>\n"
               "    %t = tg.tanh %d : tensor<f32>\n"
               "    %m = tg.mul %t, %c : tensor<f32>, tensor<f32>\n"
               "    %z = tg.add %m, %be : tensor<f32>, tensor<f32>\n"
               "    %rel = tg.sub %ki, %qi : tensor<i64>, tensor<i64>\n"
               "    %relf = tg.cast %rel : tensor<i64> to tensor<f32>\n"
               "    %a = tg.mul %sl, %relf : tensor<f32>, tensor<f32>\n"
               "    %r = tg.add %z, %a : tensor<f32>, tensor<f32>\n"
               "    tg.yield %r : tensor<f32>"},
        OpCase{"score_times_capture_with_mask", ", scale = 0.7 : f64", "bias",
               "    %m = tg.mul %s, %sl : tensor<f32>, tensor<f32>\n"
               "    %e = tg.exp %be : tensor<f32>\n"
               "    %z = tg.mul %m, %e : tensor<f32>, tensor<f32>\n"
               "    %keep = tg.cmp ne, %ki, %qi : tensor<i64>, tensor<i64>\n"
               "    %ninf = tg.constant dense<0xFF800000> : tensor<f32>\n"
               "    %r = tg.select %keep, %z, %ninf : tensor<i1>, tensor<f32>, tensor<f32>\n"
               "    tg.yield %r : tensor<f32>"}),
    [](const ::testing::TestParamInfo<OpCase> &info) { return std::string(info.param.name); });

} // namespace
