// The builder helpers and shape utilities of the tg dialect, used by the
// passes: what they build must verify and hold the intended values.
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;

namespace {

class DialectApi : public ::testing::Test {
protected:
  DialectApi() : builder(&context), loc(builder.getUnknownLoc()) {
    context.loadDialect<TGDialect, func::FuncDialect>();
    module = ModuleOp::create(loc);
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function with arguments of `types` whose body the test fills; the
  /// builder is left inside the body.
  func::FuncOp makeFunction(TypeRange types) {
    auto fn = func::FuncOp::create(builder, loc, "f",
                                   builder.getFunctionType(types, {}));
    Block *body = fn.addEntryBlock();
    builder.setInsertionPointToStart(body);
    func::ReturnOp::create(builder, loc);
    builder.setInsertionPointToStart(body);
    return fn;
  }

  MLIRContext context;
  OpBuilder builder;
  Location loc;
  OwningOpRef<ModuleOp> module;
};

double splatValue(ConstantOp op) {
  auto attr = cast<DenseElementsAttr>(op.getValue());
  return attr.getSplatValue<APFloat>().convertToDouble();
}

TEST_F(DialectApi, CreateSplatRoundsToTheElementType) {
  auto f8 = RankedTensorType::get({2}, builder.getType<Float8E4M3FNType>());
  // 0.3 lies between the E4M3 values 0.28125 and 0.3125; nearest is 0.3125.
  EXPECT_EQ(splatValue(ConstantOp::createSplat(builder, loc, f8, 0.3)),
            0.3125);
  auto bf16 = RankedTensorType::get({1, 1}, builder.getBF16Type());
  // 1 + 2^-9 is below half an ulp of bf16 (2^-8): rounds to 1.
  EXPECT_EQ(splatValue(ConstantOp::createSplat(builder, loc, bf16,
                                               1.0 + std::ldexp(1.0, -9))),
            1.0);
}

TEST_F(DialectApi, CreateScalarKeepsInfinities) {
  ConstantOp ninf = ConstantOp::createScalar(
      builder, loc, builder.getF32Type(),
      -std::numeric_limits<double>::infinity());
  EXPECT_EQ(cast<RankedTensorType>(ninf.getType()).getRank(), 0);
  EXPECT_TRUE(std::isinf(splatValue(ninf)));
  EXPECT_LT(splatValue(ninf), 0);
  EXPECT_TRUE(succeeded(verify(ninf)));
}

TEST_F(DialectApi, CreateScalarIntegers) {
  ConstantOp c = ConstantOp::createScalar(builder, loc, builder.getI64Type(),
                                          -7.0);
  auto attr = cast<DenseElementsAttr>(c.getValue());
  EXPECT_EQ(attr.getSplatValue<APInt>().getSExtValue(), -7);
}

TEST_F(DialectApi, AttentionBuilderMakesAnIdentityScoreRegion) {
  auto qkv = RankedTensorType::get({1, 4, 8, 16}, builder.getF16Type());
  auto stats = RankedTensorType::get({1, 4, 8, 1}, builder.getF32Type());
  auto bias = RankedTensorType::get({1, 1, 8, 8}, builder.getF32Type());
  func::FuncOp fn = makeFunction({qkv, bias});
  Value q = fn.getArgument(0), capture = fn.getArgument(1);
  auto op = AttentionOp::create(builder, loc, qkv, stats, q, q, q, Value(),
                                Value(), Value(), Value(),
                                ValueRange{capture});
  ASSERT_TRUE(succeeded(verify(*module)));
  EXPECT_TRUE(op.getTraining());
  Block &block = op.getScoreBlock();
  EXPECT_EQ(block.getNumArguments(), AttentionOp::kNumIndexArgs + 1);
  auto yield = cast<YieldOp>(block.getTerminator());
  EXPECT_EQ(yield.getValues()[0], block.getArgument(0));
}

TEST_F(DialectApi, BroadcastShapes) {
  SmallVector<int64_t> a{2, 1, 4}, b{1, 3, 4}, scalar{}, bad{3, 1, 4};
  std::optional<SmallVector<int64_t>> ab = broadcastShapes({a, b});
  ASSERT_TRUE(ab.has_value());
  EXPECT_EQ(*ab, (SmallVector<int64_t>{2, 3, 4}));
  EXPECT_EQ(*broadcastShapes({scalar, a}), a);
  EXPECT_FALSE(broadcastShapes({a, bad}).has_value());
  EXPECT_FALSE(broadcastShapes({a, SmallVector<int64_t>{4}}).has_value());
  EXPECT_TRUE(isBroadcastableTo(scalar, a));
  EXPECT_FALSE(isBroadcastableTo(a, b));
  EXPECT_EQ(rowMajorStrides(a), (SmallVector<int64_t>{4, 4, 1}));
  EXPECT_EQ(formatShape(b), "[1, 3, 4]");
}

TEST_F(DialectApi, ParsedGraphsExposeTheOptions) {
  const char *text = R"mlir(
    func.func @f(%q: tensor<1x8x16x64xbf16>, %k: tensor<1x2x16x64xbf16>) -> tensor<1x8x16x64xbf16> {
      %o = tg.sdpa %q, %k, %k {causal = #tg<causal bottom_right>, window_left = 4 : i64}
          : tensor<1x8x16x64xbf16>, tensor<1x2x16x64xbf16>, tensor<1x2x16x64xbf16> -> tensor<1x8x16x64xbf16>
      return %o : tensor<1x8x16x64xbf16>
    }
  )mlir";
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, &context);
  ASSERT_TRUE(parsed);
  SdpaOp sdpa;
  parsed->walk([&](SdpaOp op) { sdpa = op; });
  ASSERT_TRUE(sdpa);
  EXPECT_EQ(sdpa.getCausal(), CausalMode::bottom_right);
  EXPECT_EQ(sdpa.getWindowLeft(), 4u);
  EXPECT_FALSE(sdpa.getWindowRight().has_value());
  EXPECT_DOUBLE_EQ(sdpa.getScaleOrDefault(), 0.125);
  EXPECT_EQ(sdpa.getDropout().convertToDouble(), 0.0);
}

TEST_F(DialectApi, MatmulAccumulatorDefaults) {
  auto i8 = RankedTensorType::get({4, 4}, builder.getIntegerType(8));
  auto f16 = RankedTensorType::get({4, 4}, builder.getF16Type());
  auto i32 = RankedTensorType::get({4, 4}, builder.getI32Type());
  auto f32 = RankedTensorType::get({4, 4}, builder.getF32Type());
  func::FuncOp fn = makeFunction({i8, f16});
  Value a = fn.getArgument(0), b = fn.getArgument(1);
  auto ints = MatmulOp::create(builder, loc, i32, a, a, TypeAttr());
  auto mixed = MatmulOp::create(builder, loc, f32, a, b, TypeAttr());
  EXPECT_TRUE(ints.getAccumulatorType().isInteger(32));
  EXPECT_TRUE(mixed.getAccumulatorType().isF32());
  EXPECT_TRUE(succeeded(verify(*module)));
}

} // namespace
