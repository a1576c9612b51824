// The cuDNN descriptor layer (runtime/lib/CudnnDescriptors.h,
// CudnnContext.h) against the fake libcudnn, which checks every attribute's
// type and descriptor kind and records the calls.

#include "CudnnContext.h"
#include "CudnnExecutor.h"
#include "MockDriver.h"
#include "tgc/Testing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

using namespace tgc;
using namespace tgc::cudnn;
using namespace tgc::test;

namespace {

Tensor tensor(int64_t uid, DType dtype, std::vector<int64_t> dims,
              TensorKind kind = TensorKind::Virtual, std::string buffer = "",
              double value = 0.0) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;)
    strides[i - 1] = strides[i] * dims[i];
  return {uid, dtype, dims, strides, kind, buffer, value};
}

Op op(OpKind kind, std::string mode, std::vector<Port> ports) {
  Op o;
  o.kind = kind;
  o.mode = std::move(mode);
  o.ports = std::move(ports);
  return o;
}

class CudnnDescriptorTest : public ::testing::Test {
protected:
  void SetUp() override {
    mock = &MockCudnn::install();
    Expected<const CudnnLibrary *> loaded = CudnnLibrary::get();
    ASSERT_TRUE(loaded.hasValue()) << loaded.status().message();
    lib = *loaded;
    ASSERT_EQ(lib->cudnnCreate(&handle), CUDNN_STATUS_SUCCESS);
    mock->clearTrace();
  }
  void TearDown() override {
    lib->cudnnDestroy(handle);
    tgc::testing::setCudnnLibrary("");
  }
  std::string trace() const { return mock->trace(); }
  bool has(const std::string &line) const {
    return trace().find(line + "\n") != std::string::npos;
  }
  MockCudnn *mock = nullptr;
  const CudnnLibrary *lib = nullptr;
  cudnnHandle_t handle = nullptr;
};

Graph scaleGraph() {
  Graph g;
  g.name = "scale";
  g.tensors = {tensor(1, DType::F32, {1, 4, 8}, TensorKind::Bound, "x"),
               tensor(2, DType::F32, {1, 1, 1}, TensorKind::ByValue, "", 0.5),
               tensor(3, DType::F32, {1, 4, 8}),
               tensor(4, DType::BF16, {1, 4, 8}, TensorKind::Bound, "y")};
  g.ops = {op(OpKind::Pointwise, "mul", {{"x", 1}, {"b", 2}, {"y", 3}}),
           op(OpKind::Pointwise, "identity", {{"x", 3}, {"y", 4}})};
  return g;
}

} // namespace

TEST(CudnnTables, DataTypes) {
  EXPECT_EQ(dataTypeOf(DType::BF16), CUDNN_DATA_BFLOAT16);
  EXPECT_EQ(dataTypeOf(DType::F16), CUDNN_DATA_HALF);
  EXPECT_EQ(dataTypeOf(DType::F32), CUDNN_DATA_FLOAT);
  EXPECT_EQ(dataTypeOf(DType::F8E4M3FN), CUDNN_DATA_FP8_E4M3);
  EXPECT_EQ(dataTypeOf(DType::F8E5M2), CUDNN_DATA_FP8_E5M2);
  EXPECT_EQ(dataTypeOf(DType::I8), CUDNN_DATA_INT8);
  EXPECT_EQ(dataTypeOf(DType::I32), CUDNN_DATA_INT32);
  EXPECT_EQ(dataTypeOf(DType::I64), CUDNN_DATA_INT64);
  EXPECT_EQ(dataTypeOf(DType::I1), CUDNN_DATA_BOOLEAN);
}

TEST(CudnnTables, EveryPointwiseModeOfTheHeader) {
  // All 51 enumerators of cudnnPointwiseMode_t in cuDNN 9.19.
  const std::pair<const char *, cudnnPointwiseMode_t> expected[] = {
      {"add", CUDNN_POINTWISE_ADD}, {"add_square", CUDNN_POINTWISE_ADD_SQUARE},
      {"div", CUDNN_POINTWISE_DIV}, {"max", CUDNN_POINTWISE_MAX},
      {"min", CUDNN_POINTWISE_MIN}, {"mod", CUDNN_POINTWISE_MOD},
      {"mul", CUDNN_POINTWISE_MUL}, {"pow", CUDNN_POINTWISE_POW},
      {"sub", CUDNN_POINTWISE_SUB}, {"abs", CUDNN_POINTWISE_ABS},
      {"ceil", CUDNN_POINTWISE_CEIL}, {"cos", CUDNN_POINTWISE_COS},
      {"exp", CUDNN_POINTWISE_EXP}, {"floor", CUDNN_POINTWISE_FLOOR},
      {"log", CUDNN_POINTWISE_LOG}, {"neg", CUDNN_POINTWISE_NEG},
      {"rsqrt", CUDNN_POINTWISE_RSQRT}, {"sin", CUDNN_POINTWISE_SIN},
      {"sqrt", CUDNN_POINTWISE_SQRT}, {"tan", CUDNN_POINTWISE_TAN},
      {"erf", CUDNN_POINTWISE_ERF}, {"identity", CUDNN_POINTWISE_IDENTITY},
      {"reciprocal", CUDNN_POINTWISE_RECIPROCAL}, {"atan2", CUDNN_POINTWISE_ATAN2},
      {"relu_fwd", CUDNN_POINTWISE_RELU_FWD}, {"tanh_fwd", CUDNN_POINTWISE_TANH_FWD},
      {"sigmoid_fwd", CUDNN_POINTWISE_SIGMOID_FWD}, {"elu_fwd", CUDNN_POINTWISE_ELU_FWD},
      {"gelu_fwd", CUDNN_POINTWISE_GELU_FWD},
      {"softplus_fwd", CUDNN_POINTWISE_SOFTPLUS_FWD},
      {"swish_fwd", CUDNN_POINTWISE_SWISH_FWD},
      {"gelu_approx_tanh_fwd", CUDNN_POINTWISE_GELU_APPROX_TANH_FWD},
      {"relu_bwd", CUDNN_POINTWISE_RELU_BWD}, {"tanh_bwd", CUDNN_POINTWISE_TANH_BWD},
      {"sigmoid_bwd", CUDNN_POINTWISE_SIGMOID_BWD}, {"elu_bwd", CUDNN_POINTWISE_ELU_BWD},
      {"gelu_bwd", CUDNN_POINTWISE_GELU_BWD},
      {"softplus_bwd", CUDNN_POINTWISE_SOFTPLUS_BWD},
      {"swish_bwd", CUDNN_POINTWISE_SWISH_BWD},
      {"gelu_approx_tanh_bwd", CUDNN_POINTWISE_GELU_APPROX_TANH_BWD},
      {"cmp_eq", CUDNN_POINTWISE_CMP_EQ}, {"cmp_neq", CUDNN_POINTWISE_CMP_NEQ},
      {"cmp_gt", CUDNN_POINTWISE_CMP_GT}, {"cmp_ge", CUDNN_POINTWISE_CMP_GE},
      {"cmp_lt", CUDNN_POINTWISE_CMP_LT}, {"cmp_le", CUDNN_POINTWISE_CMP_LE},
      {"logical_and", CUDNN_POINTWISE_LOGICAL_AND},
      {"logical_or", CUDNN_POINTWISE_LOGICAL_OR},
      {"logical_not", CUDNN_POINTWISE_LOGICAL_NOT},
      {"gen_index", CUDNN_POINTWISE_GEN_INDEX},
      {"binary_select", CUDNN_POINTWISE_BINARY_SELECT},
  };
  EXPECT_EQ(std::size(expected), 51u);
  for (const auto &[name, mode] : expected) {
    std::optional<cudnnPointwiseMode_t> found = pointwiseMode(name);
    ASSERT_TRUE(found.has_value()) << name;
    EXPECT_EQ(*found, mode) << name;
  }
  EXPECT_FALSE(pointwiseMode("tanh").has_value());
  EXPECT_FALSE(pointwiseMode("ADD").has_value());
}

TEST(CudnnTables, ReductionOperators) {
  EXPECT_EQ(reductionOperator("add"), CUDNN_REDUCE_TENSOR_ADD);
  EXPECT_EQ(reductionOperator("max"), CUDNN_REDUCE_TENSOR_MAX);
  EXPECT_EQ(reductionOperator("min"), CUDNN_REDUCE_TENSOR_MIN);
  EXPECT_EQ(reductionOperator("amax"), CUDNN_REDUCE_TENSOR_AMAX);
  EXPECT_EQ(reductionOperator("mul_no_zeros"), CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS);
  EXPECT_FALSE(reductionOperator("sum").has_value());
}

TEST(CudnnTables, ByValueConversion) {
  EXPECT_EQ(byValueBits(DType::F32, 0.1), 0x3DCCCCCDu);
  EXPECT_EQ(byValueBits(DType::F32, -1.0), 0xBF800000u);
  EXPECT_EQ(byValueBits(DType::F16, 0.1), 0x2E66u);
  EXPECT_EQ(byValueBits(DType::F16, -2.0), 0xC000u);
  EXPECT_EQ(byValueBits(DType::BF16, 0.1), 0x3DCDu);
  EXPECT_EQ(byValueBits(DType::BF16, -INFINITY), 0xFF80u);
  EXPECT_EQ(byValueBits(DType::F8E4M3FN, 1.0), 0x38u);
  EXPECT_EQ(byValueBits(DType::F8E5M2, 1.0), 0x3Cu);
  EXPECT_EQ(byValueBits(DType::I32, 3.7), 3u);
  EXPECT_EQ(byValueBits(DType::I32, -2.5), 0xFFFFFFFEu);
  EXPECT_EQ(byValueBits(DType::I64, -2.5), 0xFFFFFFFFFFFFFFFEull);
  EXPECT_EQ(byValueBits(DType::I64, 1e12), 1000000000000ull);
  EXPECT_EQ(byValueBits(DType::I8, 300.0), 127u); // saturates
  EXPECT_EQ(byValueBits(DType::I8, -1.0), 0xFFu);
  EXPECT_EQ(byValueBits(DType::I1, 0.0), 0u);
  EXPECT_EQ(byValueBits(DType::I1, -3.0), 1u);
}

TEST_F(CudnnDescriptorTest, TensorsAndPointwiseOps) {
  Expected<BuiltGraph> built = buildOperationGraph(*lib, handle, scaleGraph());
  ASSERT_TRUE(built.hasValue()) << built.status().message();
  EXPECT_EQ(built->tensors.size(), 4u);
  EXPECT_EQ(built->parts.size(), 2u);
  EXPECT_EQ(built->ops.size(), 2u);
  // Tensors: type, dims, strides, uid, alignment, virtual / by-value.
  EXPECT_TRUE(has("set TENSOR TENSOR_DATA_TYPE 0")) << trace();
  EXPECT_TRUE(has("set TENSOR TENSOR_DATA_TYPE 9")) << trace(); // bf16
  EXPECT_TRUE(has("set TENSOR TENSOR_DIMENSIONS 1,4,8"));
  EXPECT_TRUE(has("set TENSOR TENSOR_STRIDES 32,8,1"));
  EXPECT_TRUE(has("set TENSOR TENSOR_UNIQUE_ID 3"));
  EXPECT_EQ(countLines(trace(), "set TENSOR TENSOR_BYTE_ALIGNMENT 16"), 4);
  EXPECT_EQ(countLines(trace(), "set TENSOR TENSOR_IS_VIRTUAL 1"), 1);
  EXPECT_EQ(countLines(trace(), "set TENSOR TENSOR_IS_VIRTUAL 0"), 3);
  EXPECT_EQ(countLines(trace(), "set TENSOR TENSOR_IS_BY_VALUE 1"), 1);
  EXPECT_EQ(countLines(trace(), "finalize TENSOR tensor:"), 4);
  // Pointwise: mode and precision, then the op with its ports.
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 1"));  // mul
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 21")); // identity
  EXPECT_EQ(countLines(trace(), "set POINTWISE POINTWISE_MATH_PREC 0"), 2);
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_PW_DESCRIPTOR POINTWISE"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_XDESC tensor:1"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_BDESC tensor:2"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_YDESC tensor:3"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_YDESC tensor:4"));
  // The graph carries its ops and the handle.
  EXPECT_TRUE(has("set OPERATIONGRAPH OPERATIONGRAPH_OPS OPERATION_POINTWISE,OPERATION_POINTWISE"));
  EXPECT_TRUE(has("set OPERATIONGRAPH OPERATIONGRAPH_HANDLE handle"));
  EXPECT_TRUE(has("finalize OPERATIONGRAPH -> 0"));
}

TEST_F(CudnnDescriptorTest, EveryOpKind) {
  Graph g;
  g.name = "kinds";
  g.tensors = {
      tensor(1, DType::I8, {1, 64, 32}, TensorKind::Bound, "a"),
      tensor(2, DType::F16, {1, 64, 32}),
      tensor(3, DType::F16, {1, 32, 16}, TensorKind::Bound, "b"),
      tensor(4, DType::F32, {1, 64, 16}),
      tensor(5, DType::I32, {1, 1, 1}, TensorKind::Bound, "m"),
      tensor(6, DType::F32, {1, 64, 1}),
      tensor(7, DType::F32, {1, 64, 16}),
      tensor(8, DType::I64, {1, 1, 1}, TensorKind::Bound, "seed"),
      tensor(9, DType::I64, {1, 1, 1}, TensorKind::Bound, "offset"),
      tensor(10, DType::F32, {1, 64, 16}),
      tensor(11, DType::I1, {1, 64, 16}),
      tensor(12, DType::F32, {1, 1, 1}, TensorKind::ByValue, "", -INFINITY),
      tensor(13, DType::F32, {1, 64, 16}, TensorKind::Bound, "out"),
      tensor(14, DType::F32, {1, 64, 16}),
      tensor(15, DType::F32, {1, 16, 64}, TensorKind::Virtual, "", 0.0),
  };
  Op convert = op(OpKind::Pointwise, "identity", {{"x", 1}, {"y", 2}});
  Op matmul = op(OpKind::Matmul, "", {{"a", 2}, {"b", 3}, {"c", 4}, {"m_override", 5}});
  Op reduce = op(OpKind::Reduction, "max", {{"x", 4}, {"y", 6}});
  Op rng = op(OpKind::Rng, "bernoulli", {{"y", 7}, {"seed", 8}, {"offset", 9}});
  rng.probability = 0.9;
  Op index = op(OpKind::Pointwise, "gen_index", {{"x", 4}, {"y", 10}});
  index.axis = 2;
  Op compare = op(OpKind::Pointwise, "cmp_lt", {{"x", 10}, {"b", 7}, {"y", 11}});
  Op select = op(OpKind::Pointwise, "binary_select", {{"x", 4}, {"b", 12}, {"t", 11}, {"y", 14}});
  Op backward = op(OpKind::Pointwise, "relu_bwd", {{"x", 14}, {"b", 4}, {"y", 13}});
  Op reshape = op(OpKind::Reshape, "", {{"x", 14}, {"y", 15}});
  g.ops = {convert, matmul, reduce, rng, index, compare, select, backward, reshape};
  ASSERT_TRUE(g.validate().isOk()) << g.validate().message();

  Expected<BuiltGraph> built = buildOperationGraph(*lib, handle, g);
  ASSERT_TRUE(built.hasValue()) << built.status().message();
  EXPECT_TRUE(has("set TENSOR TENSOR_DATA_TYPE 3"));  // i8
  EXPECT_TRUE(has("set TENSOR TENSOR_DATA_TYPE 11")); // i1 -> boolean
  EXPECT_TRUE(has("set TENSOR TENSOR_DATA_TYPE 10")); // i64
  // Matmul: compute type and the optional override.
  EXPECT_TRUE(has("set MATMUL MATMUL_COMP_TYPE 0"));
  EXPECT_TRUE(has("set OPERATION_MATMUL OPERATION_MATMUL_DESC MATMUL"));
  EXPECT_TRUE(has("set OPERATION_MATMUL OPERATION_MATMUL_ADESC tensor:2"));
  EXPECT_TRUE(has("set OPERATION_MATMUL OPERATION_MATMUL_BDESC tensor:3"));
  EXPECT_TRUE(has("set OPERATION_MATMUL OPERATION_MATMUL_CDESC tensor:4"));
  EXPECT_TRUE(has("set OPERATION_MATMUL OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC tensor:5"));
  // Reduction: operator and compute type.
  EXPECT_TRUE(has("set REDUCTION REDUCTION_COMP_TYPE 0"));
  EXPECT_TRUE(has("set REDUCTION REDUCTION_OPERATOR 3"));
  EXPECT_TRUE(has("set OPERATION_REDUCTION OPERATION_REDUCTION_XDESC tensor:4"));
  EXPECT_TRUE(has("set OPERATION_REDUCTION OPERATION_REDUCTION_YDESC tensor:6"));
  // Rng: Bernoulli with its probability; seed and offset tensors.
  EXPECT_TRUE(has("set RNG RNG_DISTRIBUTION 0"));
  EXPECT_TRUE(has("set RNG RNG_BERNOULLI_DIST_PROBABILITY 0.9"));
  EXPECT_TRUE(has("set OPERATION_RNG OPERATION_RNG_DESC RNG"));
  EXPECT_TRUE(has("set OPERATION_RNG OPERATION_RNG_YDESC tensor:7"));
  EXPECT_TRUE(has("set OPERATION_RNG OPERATION_RNG_SEED tensor:8"));
  EXPECT_TRUE(has("set OPERATION_RNG OPERATION_RNG_OFFSET_DESC tensor:9"));
  // gen_index's axis; binary_select's condition in TDESC.
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 501"));
  EXPECT_TRUE(has("set POINTWISE POINTWISE_AXIS 2"));
  EXPECT_EQ(countLines(trace(), "set POINTWISE POINTWISE_AXIS"), 1);
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 304"));
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 601"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_TDESC tensor:11"));
  // Activation backward: dy in port b, dx through port y.
  EXPECT_TRUE(has("set POINTWISE POINTWISE_MODE 200"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_DYDESC tensor:4"));
  EXPECT_TRUE(has("set OPERATION_POINTWISE OPERATION_POINTWISE_DXDESC tensor:13"));
  // Reshape: no settings descriptor, just x and y.
  EXPECT_TRUE(has("set OPERATION_RESHAPE OPERATION_RESHAPE_XDESC tensor:14"));
  EXPECT_TRUE(has("set OPERATION_RESHAPE OPERATION_RESHAPE_YDESC tensor:15"));
  EXPECT_EQ(countLines(trace(), "finalize OPERATIONGRAPH -> 0"), 1);
}

TEST_F(CudnnDescriptorTest, SdpaOps) {
  Graph g;
  g.name = "sdpa";
  for (int64_t uid = 1; uid <= 10; ++uid)
    g.tensors.push_back(tensor(uid, DType::BF16, {1, 2, 128, 64}, TensorKind::Bound,
                               "t" + std::to_string(uid)));
  g.tensors.push_back(tensor(11, DType::F32, {1, 2, 128, 1}, TensorKind::Bound, "stats"));
  g.tensors.push_back(tensor(12, DType::F32, {1, 1, 1, 1}, TensorKind::ByValue, "", 0.125));
  g.ops = {op(OpKind::SdpaForward, "",
              {{"q", 1}, {"k", 2}, {"v", 3}, {"o", 4}, {"stats", 11}, {"scale", 12}}),
           op(OpKind::SdpaBackward, "",
              {{"q", 1}, {"k", 2}, {"v", 3}, {"o", 4}, {"do", 5}, {"stats", 11},
               {"scale", 12}, {"dq", 6}, {"dk", 7}, {"dv", 8}})};
  Expected<BuiltGraph> built = buildOperationGraph(*lib, handle, g);
  ASSERT_TRUE(built.hasValue()) << built.status().message();
  EXPECT_TRUE(built->parts.empty());
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_QDESC tensor:1"));
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_KDESC tensor:2"));
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_VDESC tensor:3"));
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_ODESC tensor:4"));
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_STATSDESC tensor:11"));
  EXPECT_TRUE(has("set OPERATION_SDPA_FWD OPERATION_SDPA_FWD_SCALEDESC tensor:12"));
  EXPECT_TRUE(has("set OPERATION_SDPA_BWD OPERATION_SDPA_BWD_DODDESC tensor:5"));
  EXPECT_TRUE(has("set OPERATION_SDPA_BWD OPERATION_SDPA_BWD_DQDESC tensor:6"));
  EXPECT_TRUE(has("set OPERATION_SDPA_BWD OPERATION_SDPA_BWD_DKDESC tensor:7"));
  EXPECT_TRUE(has("set OPERATION_SDPA_BWD OPERATION_SDPA_BWD_DVDESC tensor:8"));
  EXPECT_TRUE(has("set OPERATION_SDPA_BWD OPERATION_SDPA_BWD_STATSDESC tensor:11"));
}

TEST_F(CudnnDescriptorTest, UnknownModeIsUnsupported) {
  Graph g = scaleGraph();
  g.ops[0].mode = "fused_multiply";
  long before = mock->liveDescriptors();
  Expected<BuiltGraph> built = buildOperationGraph(*lib, handle, g);
  ASSERT_FALSE(built.hasValue());
  EXPECT_EQ(built.status().code(), StatusCode::Unsupported);
  EXPECT_EQ(built.status().message(), "op 0 (pointwise fused_multiply): unknown "
                                      "pointwise mode 'fused_multiply'");
  // Every descriptor made before the failure is destroyed.
  EXPECT_EQ(mock->liveDescriptors(), before);
}

TEST_F(CudnnDescriptorTest, HeuristicsModeAThenFallback) {
  mock->setHeuristics(0, 2);
  Expected<std::unique_ptr<ExecutionPlan>> plan =
      buildExecutionPlan(*lib, handle, scaleGraph());
  ASSERT_TRUE(plan.hasValue()) << plan.status().message();
  EXPECT_EQ((*plan)->source, "heuristics mode FALLBACK, config 0 of 2");
  EXPECT_EQ((*plan)->engine, 20);
  std::string t = trace();
  EXPECT_TRUE(has("set ENGINEHEUR ENGINEHEUR_MODE 3")) << t;
  EXPECT_TRUE(has("set ENGINEHEUR ENGINEHEUR_MODE 2")) << t;
  EXPECT_LT(t.find("ENGINEHEUR_MODE 3"), t.find("ENGINEHEUR_MODE 2"));
  EXPECT_TRUE(has("heuristics mode=3 available=0 requested=0")) << t;
  EXPECT_TRUE(has("heuristics mode=2 available=2 requested=2")) << t;
  EXPECT_TRUE(has("finalize EXECUTION_PLAN mode=2 config=0 -> 0")) << t;
}

TEST_F(CudnnDescriptorTest, ConfigsAreTriedUntilOneFinalises) {
  mock->setHeuristics(3, 1);
  mock->setWorkspace(4096);
  mock->setPlanFailures(2, "mock: needs more shared memory");
  Expected<std::unique_ptr<ExecutionPlan>> plan =
      buildExecutionPlan(*lib, handle, scaleGraph());
  ASSERT_TRUE(plan.hasValue()) << plan.status().message();
  EXPECT_EQ((*plan)->source, "heuristics mode A, config 2 of 3");
  EXPECT_EQ((*plan)->engine, 12);
  EXPECT_EQ((*plan)->workspaceBytes, 4096);
  EXPECT_TRUE(has("finalize EXECUTION_PLAN mode=3 config=0 -> 3000")) << trace();
  EXPECT_TRUE(has("finalize EXECUTION_PLAN mode=3 config=1 -> 3000"));
  EXPECT_TRUE(has("finalize EXECUTION_PLAN mode=3 config=2 -> 0"));
  EXPECT_EQ(countLines(trace(), "set ENGINEHEUR ENGINEHEUR_MODE 2"), 0);
}

TEST_F(CudnnDescriptorTest, NoConfigFinalisesCarriesCudnnText) {
  mock->setHeuristics(2, 1);
  mock->setPlanFailures(3, "mock: needs more shared memory");
  long before = mock->liveDescriptors();
  Expected<std::unique_ptr<ExecutionPlan>> plan =
      buildExecutionPlan(*lib, handle, scaleGraph());
  ASSERT_FALSE(plan.hasValue());
  EXPECT_EQ(plan.status().code(), StatusCode::Unsupported);
  EXPECT_EQ(plan.status().message(),
            "heuristics mode A: none of 2 engine configs finalised (first: cannot "
            "finalise the execution plan of heuristics mode A config 0: "
            "CUDNN_STATUS_NOT_SUPPORTED: mock: needs more shared memory); "
            "heuristics mode FALLBACK: its engine config did not finalise (cannot "
            "finalise the execution plan of heuristics mode FALLBACK config 0: "
            "CUDNN_STATUS_NOT_SUPPORTED: mock: needs more shared memory)");
  EXPECT_EQ(mock->liveDescriptors(), before);
}

TEST_F(CudnnDescriptorTest, NoHeuristicsResults) {
  mock->setHeuristics(0, 0);
  Expected<std::unique_ptr<ExecutionPlan>> plan =
      buildExecutionPlan(*lib, handle, scaleGraph());
  ASSERT_FALSE(plan.hasValue());
  EXPECT_EQ(plan.status().message(),
            "heuristics mode A: no engine config (mock: no engine supports this "
            "graph); heuristics mode FALLBACK: no engine config (mock: no engine "
            "supports this graph)");
}

TEST_F(CudnnDescriptorTest, AttributeErrorsNameTheAttribute) {
  // cuDNN's refusal (here: strides of another rank, which Graph::validate
  // would catch first) comes back with the call, descriptor and cuDNN text.
  Graph g = scaleGraph();
  g.tensors[0].strides = {8, 1};
  Expected<BuiltGraph> built = buildOperationGraph(*lib, handle, g);
  ASSERT_FALSE(built.hasValue());
  EXPECT_EQ(built.status().message(),
            "cannot finalise tensor 1: CUDNN_STATUS_BAD_PARAM: mock: tensor dims "
            "and strides differ in rank");
}
