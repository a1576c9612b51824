// tg-mixed-matmul-plan: the dequant plan (prologue_b applied to the whole
// weight as graph ops, then a 16-bit matmul with the same epilogue) gives
// the same values as the fused op on the reference interpreter, bit for bit:
// region ops round like graph ops, so every dequantised weight element is
// the value the region yields for it, and the matmul and epilogue then see
// the same numbers. And the table rule: the plan faster at a measured shape,
// the ratio interpolated in log M between measured ones.
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Plan/LowerToPlan.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Transforms/MixedMatmulTable.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

using namespace mlir;

namespace {

struct MixedCase {
  const char *name;
  const char *source;
};

// Small shapes (M not a multiple of anything, K and N odd too) with every
// form the pass rewrites: per-channel and per-row scales, a scale chain in
// bf16 with a constant, f16 activations, fp8 weights, a plain tg.matmul,
// prologue_a and epilogue regions that must survive, a batched weight.
const MixedCase kCases[] = {
    {"per_channel_bias_residual", R"mlir(
func.func @f(%x: tensor<5x24xbf16>, %w: tensor<24x17xi8>, %s: tensor<1x17xbf16>,
             %bias: tensor<1x17xf32>, %r: tensor<5x17xbf16>) -> tensor<5x17xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x17xbf16>)
      epilogue_captures(%bias, %r : tensor<1x17xf32>, tensor<5x17xbf16>)
      : tensor<5x24xbf16>, tensor<24x17xi8> -> tensor<5x17xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      %u = tg.constant dense<7.812500e-03> : tensor<bf16>
      %v = tg.mul %d, %u : tensor<bf16>, tensor<bf16>
      tg.yield %v : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>, %res: tensor<bf16>):
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %rf = tg.cast %res : tensor<bf16> to tensor<f32>
      %t = tg.add %sum, %rf : tensor<f32>, tensor<f32>
      %out = tg.cast %t : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<5x17xbf16>
}
)mlir"},
    {"f16_per_row_scale_and_zero_point", R"mlir(
func.func @f(%x: tensor<3x9xf16>, %w: tensor<9x7xi8>, %s: tensor<9x1xf16>,
             %z: tensor<1x7xf16>) -> tensor<3x7xf32> {
  %y = tg.fused_matmul %x, %w b_captures(%s, %z : tensor<9x1xf16>, tensor<1x7xf16>)
      : tensor<3x9xf16>, tensor<9x7xi8> -> tensor<3x7xf32>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %c: tensor<f16>, %zp: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %c0 = tg.sub %h, %zp : tensor<f16>, tensor<f16>
      %d = tg.mul %c0, %c : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {}
  return %y : tensor<3x7xf32>
}
)mlir"},
    {"fp8_weight_prologue_a", R"mlir(
func.func @f(%x: tensor<6x16xbf16>, %w: tensor<16x8xf8E4M3FN>, %s: tensor<bf16>,
             %ax: tensor<6x1xbf16>) -> tensor<6x8xbf16> {
  %y = tg.fused_matmul %x, %w a_captures(%ax : tensor<6x1xbf16>)
      b_captures(%s : tensor<bf16>)
      : tensor<6x16xbf16>, tensor<16x8xf8E4M3FN> -> tensor<6x8xbf16>
    prologue_a {
    ^bb0(%e: tensor<bf16>, %a: tensor<bf16>):
      %m = tg.mul %e, %a : tensor<bf16>, tensor<bf16>
      tg.yield %m : tensor<bf16>
    }
    prologue_b {
    ^bb0(%e: tensor<f8E4M3FN>, %c: tensor<bf16>):
      %h = tg.cast %e : tensor<f8E4M3FN> to tensor<bf16>
      %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<6x8xbf16>
}
)mlir"},
    {"plain_matmul_i8", R"mlir(
func.func @f(%x: tensor<4x12xbf16>, %w: tensor<12x5xi8>) -> tensor<4x5xf32> {
  %y = tg.matmul %x, %w : tensor<4x12xbf16>, tensor<12x5xi8> -> tensor<4x5xf32>
  return %y : tensor<4x5xf32>
}
)mlir"},
    {"batched_weight_f8e5m2", R"mlir(
func.func @f(%x: tensor<2x3x8xf16>, %w: tensor<2x8x4xf8E5M2>) -> tensor<2x3x4xf16> {
  %y = tg.matmul %x, %w : tensor<2x3x8xf16>, tensor<2x8x4xf8E5M2> -> tensor<2x3x4xf16>
  return %y : tensor<2x3x4xf16>
}
)mlir"},
};

class MixedMatmulPlan : public ::testing::TestWithParam<MixedCase> {
protected:
  MixedMatmulPlan() {
    DialectRegistry registry;
    registry.insert<tg::TGDialect, func::FuncDialect>();
    tg::registerBackends(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }
  MLIRContext context;
};

/// True when some op still converts the narrow weight inside the product.
bool hasMixedProduct(ModuleOp module) {
  bool found = false;
  module.walk([&](Operation *op) {
    auto isNarrow = [](Value v) {
      Type t = cast<RankedTensorType>(v.getType()).getElementType();
      return t.isInteger(8) || isa<Float8E4M3FNType, Float8E5M2Type>(t);
    };
    if (isa<tg::MatmulOp, tg::FusedMatmulOp>(op) && isNarrow(op->getOperand(1)))
      found = true;
  });
  return found;
}

TEST_P(MixedMatmulPlan, DequantEqualsFusedOnTheReference) {
  const MixedCase &c = GetParam();
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(c.source, &context);
  ASSERT_TRUE(module);
  OwningOpRef<ModuleOp> dequant = module->clone();
  PassManager pm(&context);
  tg::MixedMatmulPlanOptions options;
  options.plan = "dequant";
  pm.addNestedPass<func::FuncOp>(tg::createMixedMatmulPlan(options));
  ASSERT_TRUE(succeeded(pm.run(*dequant)));
  ASSERT_TRUE(succeeded(dequant->verify()));
  ASSERT_TRUE(hasMixedProduct(*module));
  EXPECT_FALSE(hasMixedProduct(*dequant)) << "the pass did not rewrite";

  auto original = *module->getOps<func::FuncOp>().begin();
  auto rewritten = *dequant->getOps<func::FuncOp>().begin();
  for (uint64_t seed : {1, 2, 3}) {
    tg::ref::RandomInputOptions random;
    random.seed = seed;
    SmallVector<tg::ref::HostTensor> inputs =
        tg::ref::makeRandomInputs(original, random);
    auto expected = tg::ref::interpret(original, inputs);
    auto actual = tg::ref::interpret(rewritten, inputs);
    ASSERT_TRUE(succeeded(expected) && succeeded(actual));
    ASSERT_EQ(expected->size(), actual->size());
    for (size_t r = 0; r < expected->size(); ++r) {
      const auto &e = (*expected)[r].values, &a = (*actual)[r].values;
      ASSERT_EQ(e.size(), a.size());
      // Equal because both are meaningful: random inputs give finite,
      // mostly non-zero results.
      EXPECT_GT(std::count_if(e.begin(), e.end(),
                              [](double v) { return std::isfinite(v) && v != 0; }),
                int64_t(e.size() / 2))
          << c.name;
      size_t differing = 0;
      for (size_t i = 0; i < e.size(); ++i)
        differing += e[i] != a[i] && !(std::isnan(e[i]) && std::isnan(a[i]));
      EXPECT_EQ(differing, 0u) << c.name << " seed " << seed << " result " << r;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, MixedMatmulPlan, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return info.param.name; });

tg::MixedMatmulShape shape(int64_t m, int64_t k = 4096, int64_t n = 4096,
                           bool scaled = false, const char *weight = "i8") {
  tg::MixedMatmulShape s;
  s.weight = weight;
  s.scaled = scaled;
  s.m = m;
  s.k = k;
  s.n = n;
  return s;
}

// At each committed row's own shape, the rule picks the plan that row
// measured faster.
TEST(MixedMatmulTable, CommittedRowsChooseTheirFasterPlan) {
  ASSERT_FALSE(tg::mixedMatmulTable().empty());
  for (const tg::MixedMatmulRow &row : tg::mixedMatmulTable()) {
    tg::MixedMatmulChoice choice = tg::chooseMixedMatmulPlan(
        shape(row.m, row.k, row.n, row.scaled, row.weight.data()));
    EXPECT_EQ(choice.plan, row.fused >= row.dequant
                               ? tg::MixedMatmulPlan::Fused
                               : tg::MixedMatmulPlan::Dequant)
        << choice.why;
  }
}

// Synthetic rows: fused 4x faster at M=16, 4x slower at M=4096, so the
// ratio crosses 1 at M=256 (the geometric midpoint); other (K, N) buckets
// and the other scale kind must not interfere.
TEST(MixedMatmulTable, InterpolatesInLogMAtTheNearestBucket) {
  const tg::MixedMatmulRow rows[] = {
      {"i8", false, 16, 4096, 4096, 40.0, 10.0},
      {"i8", false, 4096, 4096, 4096, 100.0, 400.0},
      {"i8", false, 16, 65536, 65536, 1.0, 100.0},
      {"i8", true, 16, 4096, 4096, 1.0, 100.0},
  };
  auto plan = [&](const tg::MixedMatmulShape &s) {
    return tg::chooseMixedMatmulPlan(s, rows, "test").plan;
  };
  using P = tg::MixedMatmulPlan;
  EXPECT_EQ(plan(shape(1)), P::Fused);     // below the rows: nearest M=16
  EXPECT_EQ(plan(shape(200)), P::Fused);
  EXPECT_EQ(plan(shape(320)), P::Dequant);
  EXPECT_EQ(plan(shape(1 << 20)), P::Dequant);
  EXPECT_EQ(plan(shape(200, 2048, 8192)), P::Fused); // nearest K, N bucket
  EXPECT_EQ(plan(shape(16, 4096, 4096, true)), P::Dequant); // scaled rows
  EXPECT_EQ(plan(shape(16, 4096, 4096, false, "f8E4M3FN")), P::Fused);
  EXPECT_NE(tg::chooseMixedMatmulPlan(shape(200), rows, "test")
                .why.find("interpolated at M=200"),
            std::string::npos);
}

// A generated-kernel column: chosen where it is the fastest and the op may
// take it, interpolated like the others; a row without it never picks it.
TEST(MixedMatmulTable, GeneratedKernelWhereFastestAndAllowed) {
  const tg::MixedMatmulRow rows[] = {
      {"i8", false, 16, 4096, 4096, 40.0, 10.0, 60.0},
      {"i8", false, 1024, 4096, 4096, 300.0, 200.0, 150.0},
      {"i8", false, 4096, 4096, 4096, 100.0, 400.0, 0.0},
  };
  auto choose = [&](int64_t m, bool allowed) {
    tg::MixedMatmulShape s = shape(m);
    s.generatedRuns = allowed;
    return tg::chooseMixedMatmulPlan(s, rows, "test");
  };
  using P = tg::MixedMatmulPlan;
  EXPECT_EQ(choose(16, true).plan, P::Generated);
  EXPECT_EQ(choose(1, true).plan, P::Generated); // nearest row M=16
  EXPECT_EQ(choose(16, false).plan, P::Fused);
  EXPECT_NE(choose(16, false).why.find("the generated kernel cannot take this op"), std::string::npos);
  EXPECT_EQ(choose(512, true).plan, P::Fused);     // interpolated: 106 < 212
  EXPECT_EQ(choose(2048, true).plan, P::Dequant);  // M=4096 has no generated figure
  EXPECT_NE(choose(16, true).why.find("generated 60.0 TFLOP/s"), std::string::npos) << choose(16, true).why;
}

// Weights cuDNN cannot read (i4): fused is never chosen; rows measure it as
// 0, and without rows the generated kernel runs where it can, else dequant.
TEST(MixedMatmulTable, WeightsCudnnCannotRead) {
  const tg::MixedMatmulRow rows[] = {
      {"i4", false, 16, 4096, 4096, 0.0, 10.0, 40.0},
      {"i4", false, 4096, 4096, 4096, 0.0, 600.0, 350.0},
  };
  auto choose = [&](int64_t m, bool allowed, llvm::ArrayRef<tg::MixedMatmulRow> table) {
    tg::MixedMatmulShape s = shape(m, 4096, 4096, false, "i4");
    s.generatedRuns = allowed;
    s.fusedRuns = false;
    return tg::chooseMixedMatmulPlan(s, table, "test");
  };
  using P = tg::MixedMatmulPlan;
  EXPECT_EQ(choose(16, true, rows).plan, P::Generated);
  EXPECT_EQ(choose(4096, true, rows).plan, P::Dequant);
  EXPECT_EQ(choose(16, false, rows).plan, P::Dequant);
  EXPECT_NE(choose(16, true, rows).why.find("cuDNN cannot read i4 weights"), std::string::npos);
  EXPECT_EQ(choose(16, true, {}).plan, P::Generated);
  EXPECT_EQ(choose(16, false, {}).plan, P::Dequant);
  EXPECT_NE(choose(16, false, {}).why.find("no measured row for i4 weights and cuDNN cannot read them"),
            std::string::npos)
      << choose(16, false, {}).why;
}

} // namespace
