// Plans are a trust boundary: a plan that passes its checksum is still
// validated (docs/plan.md, Validation). Each case is one way a plan can be
// wrong and the message that says so.

#include "TestUtil.h"
#include "tgc/Plan.h"

#include <gtest/gtest.h>

using namespace tgc;
using namespace tgc::test;

namespace {
std::string invalid(const Plan &plan) {
  Status status = plan.validate();
  EXPECT_EQ(status.code(), StatusCode::InvalidPlan) << status.message();
  return status.message();
}

/// The elementwise plan's text with one line edited and the checksum
/// recomputed, as the corrupted plans were.
std::string parseError(const std::string &from, const std::string &to) {
  std::string text = serializePlan(elementwisePlan(1000));
  size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  text.replace(at, from.size(), to);
  Expected<Plan> plan = parsePlan(resignPlanText(text), "p.plan");
  EXPECT_FALSE(plan.hasValue());
  return plan ? "" : plan.status().message();
}

Buffer &output(Plan &plan) { return plan.buffers[1]; }
} // namespace

TEST(PlanValidation, BufferLargerThanTheLimit) {
  // The issue's [4294967296,2,128,64] bf16: 128 TiB.
  EXPECT_EQ(parseError("buffer \"y\" output f32 shape [1000] strides [1]",
                       "buffer \"y\" output bf16 shape [4294967296,2,128,64] "
                       "strides [16384,8192,64,1]"),
            "p.plan: invalid plan 'elementwise': buffer 'y' spans 140737488355328 bytes "
            "(shape [4294967296,2,128,64]), more than the limit of 1099511627776");
  Plan plan = elementwisePlan(1000);
  output(plan).shape = {int64_t(1) << 41};
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 'y' has shape "
                           "[2199023255552] and strides [1], beyond the "
                           "1099511627776-byte limit");
  // A zero dim makes the span 0, but the other dims still count.
  output(plan).shape = {0, int64_t(1) << 62};
  output(plan).strides = {1, 1};
  EXPECT_NE(invalid(plan).find("beyond the 1099511627776-byte limit"), std::string::npos);
  EXPECT_EQ(output(plan).numElements(), 0);
}

TEST(PlanValidation, RankAndAlignmentLimits) {
  Plan plan = elementwisePlan(1000);
  output(plan).shape.assign(33, 1);
  output(plan).strides.assign(33, 1);
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 'y' has 33 dims (at most 32)");
  plan = elementwisePlan(1000);
  output(plan).alignment = uint32_t(1) << 21;
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer 'y' alignment 2097152 is "
                           "not a power of two up to 1048576");
  plan = elementwisePlan(1000);
  plan.workspaceAlignment = uint32_t(1) << 31;
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': workspace alignment 2147483648 is "
                           "not a power of two up to 1048576");
  plan = elementwisePlan(1000);
  plan.workspaceBytes = (uint64_t(1) << 40) + 256;
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': the workspace of 1099511628032 "
                           "bytes is larger than the limit of 1099511627776");
}

TEST(PlanValidation, WrittenBuffersMustNotOverlap) {
  EXPECT_EQ(parseError("buffer \"y\" output f32 shape [1000] strides [1]",
                       "buffer \"y\" output f32 shape [10,100] strides [10,1]"),
            "p.plan: invalid plan 'elementwise': buffer 'y' (output) has strides "
            "[10,1] for shape [10,100] under which distinct elements share memory; "
            "written buffers must not overlap");
  Plan plan = elementwisePlan(1000);
  output(plan).shape = {2, 500};
  output(plan).strides = {0, 1};
  EXPECT_NE(invalid(plan).find("buffer 'y' (output) has strides [0,1]"), std::string::npos);
  plan = elementwisePlan(1000);
  plan.buffers[2].shape = {4, 250};
  plan.buffers[2].strides = {1, 1};
  EXPECT_NE(invalid(plan).find("buffer 't' (intermediate) has strides [1,1]"),
            std::string::npos);
  // Inputs are only read: a broadcast (stride 0) input is fine, as are
  // padded and transposed outputs.
  plan = elementwisePlan(1000);
  plan.buffers[0].shape = {4, 250};
  plan.buffers[0].strides = {0, 1};
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
  output(plan).shape = {10, 100};
  output(plan).strides = {1, 10};
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
  output(plan).strides = {128, 1};
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
  output(plan).shape = {1, 1000};
  output(plan).strides = {0, 1}; // a size-1 dim's stride addresses nothing
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
}

TEST(PlanValidation, PlanWithoutOutputs) {
  Plan plan = elementwisePlan(1000);
  output(plan).role = BufferRole::Intermediate;
  output(plan).alignment = 256;
  output(plan).offset = 0;
  EXPECT_EQ(invalid(plan),
            "invalid plan 'elementwise': it has no outputs (a plan computes at least one)");
}

TEST(PlanValidation, EntryMustNameAFunctionOfTheSource) {
  EXPECT_EQ(parseError("kernel \"axpb\" entry \"axpb\"", "kernel \"axpb\" entry \"axpc\""),
            "p.plan: invalid plan 'elementwise': kernel 'axpb' entry 'axpc' names no "
            "function of its source");
  Plan plan = elementwisePlan(1000);
  plan.kernels[0].entry = "axp"; // a prefix of a name is not the name
  EXPECT_NE(invalid(plan).find("entry 'axp' names no function"), std::string::npos);
  plan.kernels[0].entry = "axpb; int x";
  EXPECT_NE(invalid(plan).find("entry 'axpb; int x' names no function"), std::string::npos);
  plan.kernels[0].entry = "<128>";
  EXPECT_NE(invalid(plan).find("entry '<128>' names no function"), std::string::npos);
  // Name expressions: templates and namespaces.
  plan.kernels[0].source = "namespace tg { template <int N> __global__ void axpb() {} }";
  plan.kernels[0].entry = "tg::axpb<128>";
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
}

TEST(PlanValidation, LaunchSizes) {
  Plan plan = elementwisePlan(1000);
  auto &variant = std::get<LaunchStep>(plan.steps[1]).variants[0];
  variant.grid = {0x7fffffffu, 65535, 65535};
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 1 (launch) variant 0 grid "
                           "[2147483647,65535,65535] x block [128,1,1] launches more than "
                           "1099511627776 threads");
  variant.grid = {8, 1, 65536};
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': step 1 (launch) variant 0 grid "
                           "[8,1,65536] exceeds CUDA's limits");
}

TEST(PlanValidation, NamesAreText) {
  EXPECT_EQ(parseError("buffer \"y\"", "buffer \"y\\x00z\""),
            "p.plan: invalid plan 'elementwise': buffer name 'y\\x00z' is not UTF-8 "
            "text without control characters");
  Plan plan = elementwisePlan(1000);
  output(plan).name = "y\xff";
  std::get<LaunchStep>(plan.steps[2]).variants[0].args[1] = KernelArg::buf("y\xff");
  EXPECT_EQ(invalid(plan), "invalid plan 'elementwise': buffer name 'y\\xff' is not "
                           "UTF-8 text without control characters");
  output(plan).name = "y\xc0\xaf"; // overlong '/'
  std::get<LaunchStep>(plan.steps[2]).variants[0].args[1] = KernelArg::buf("y\xc0\xaf");
  EXPECT_NE(invalid(plan).find("is not UTF-8 text"), std::string::npos);
  output(plan).name = "y\xc3\xa9"; // é
  std::get<LaunchStep>(plan.steps[2]).variants[0].args[1] = KernelArg::buf("y\xc3\xa9");
  EXPECT_TRUE(plan.validate().isOk()) << plan.validate().message();
}
