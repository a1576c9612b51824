#ifndef TGC_TEST_RUNTIME_TESTUTIL_H
#define TGC_TEST_RUNTIME_TESTUTIL_H

#include "tgc/Plan.h"

#include <string>

namespace tgc::test {

/// A fresh directory under $TMPDIR, removed by the caller via removeTree.
std::string makeTempDir(const std::string &prefix);
void removeTree(const std::string &path);
std::string readText(const std::string &path);
void writeText(const std::string &path, const std::string &text);

/// Re-signs edited plan text (a fresh "end sha256" line), so that tests
/// reach the parser's and the validator's own checks.
std::string resignPlanText(const std::string &text);

/// y = (a*x + b)^2 over n floats via an intermediate: two launches
/// ("axpb" with f32/f32/i64 scalars, then "square" with an i32), plus a
/// memset of the intermediate first. Portable kernels (min arch 80).
Plan elementwisePlan(int64_t n = 1000, uint32_t alignment = 16);
/// Runs kernel `name` of elementwisePlan() ("axpb" or "square") on the host
/// with its launch parameters (for the mock driver's launch hook).
void emulateElementwiseKernel(const char *name, void **params);

/// A plan that uses every feature of the format (for round trips).
Plan everythingPlan();
/// A one-graph cuDNN step (pointwise, f32 [1,1,1]) reading `input` and
/// writing `output`.
CudnnStep scaleCudnnStep(const std::string &input, const std::string &output);

extern const char *kAxpbSource;
extern const char *kSquareSource;

} // namespace tgc::test

#endif
