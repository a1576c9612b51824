// The measured attention figures (AttentionBackendTable.h).
#include "tg/Transforms/AttentionBackendTable.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <utility>

using namespace mlir;
using namespace mlir::tg;

static double log2Distance(int64_t a, int64_t b) {
  return std::fabs(std::log2(double(std::max<int64_t>(a, 1))) -
                   std::log2(double(std::max<int64_t>(b, 1))));
}

/// The row nearest by `distances` (the first key's distance, then the
/// second's; the first such row on ties) among the rows it gives one for.
template <typename Row, typename Distances>
static const Row &nearestRow(llvm::ArrayRef<Row> rows, Distances distances) {
  const Row *best = nullptr;
  std::pair<double, double> bestDistance;
  for (const Row &row : rows) {
    std::optional<std::pair<double, double>> d = distances(row);
    if (d && (!best || *d < bestDistance)) {
      best = &row;
      bestDistance = *d;
    }
  }
  return *best;
}

// Forward: H200, cuDNN 9.19, 2026-12-02, the warp-specialised sm_90a
// kernels (bench/results/2026-12-02_ws/forward/bench.json; hd 64 at f246d25's
// 192-row tile, forward_hd64/bench.json).
static const PrefillMeasurement kForward[] = {
    {64, false, 2048, 448.3, 453.9},  {64, false, 8192, 517.5, 483.8},
    {64, true, 2048, 339.0, 355.7},   {64, true, 8192, 447.0, 438.7},
    {128, false, 2048, 591.1, 633.5}, {128, false, 8192, 630.1, 670.7},
    {128, true, 2048, 476.9, 493.9},  {128, true, 8192, 617.3, 600.3},
    {256, false, 2048, 620.3, 675.5}, {256, false, 8192, 679.1, 731.1},
    {256, true, 2048, 484.2, 524.0},  {256, true, 8192, 600.7, 621.6},
};

// Backward (the fused NVRTC backward's three kernels against cuDNN's):
// H200, cuDNN 9.19: head dims 64 and 128 at S 2048 and 8192 from the sm_90a
// kernel at 6c5077e (2026-12-03, bench/results/2026-12-03_bwd_bulk/
// final_grid_train_gather.md), the other rows from commit 2f381a5's
// kernels (2026-12-02, bench/results/2026-12-02_2f381a5/bench_backward.json;
// the mma.sync kernel, which hd 256 still runs).
static const char kBwdBulk[] = "2026-12-03_bwd_bulk";
static const PrefillMeasurement kBackward[] = {
    {64, false, 512, 147.5, 216.3},
    {64, false, 2048, 317.4, 371.8, kBwdBulk},
    {64, false, 8192, 349.2, 445.7, kBwdBulk},
    {64, false, 16384, 183.8, 438.5},
    {64, true, 512, 99.4, 135.9},
    {64, true, 2048, 262.3, 267.3, kBwdBulk},
    {64, true, 8192, 327.5, 384.1, kBwdBulk},
    {64, true, 16384, 176.8, 436.9},
    {128, false, 512, 158.3, 242.8},
    {128, false, 2048, 364.3, 427.6, kBwdBulk},
    {128, false, 8192, 398.0, 550.7, kBwdBulk},
    {128, false, 16384, 200.3, 537.2},
    {128, true, 512, 111.1, 163.2},
    {128, true, 2048, 297.3, 344.9, kBwdBulk},
    {128, true, 8192, 370.2, 486.1, kBwdBulk},
    {128, true, 16384, 192.3, 538.4},
    {256, false, 512, 120.2, 196.1},
    {256, false, 2048, 134.4, 317.4},
    {256, false, 8192, 137.5, 352.0},
    {256, false, 16384, 141.1, 350.6},
    {256, true, 512, 92.8, 139.4},
    {256, true, 2048, 119.6, 274.7},
    {256, true, 8192, 137.7, 377.5},
    {256, true, 16384, 141.4, 376.4},
};

// FP8 forward (e4m3 in and out, the fused sm_90a FP8 kernel against cuDNN's
// FP8 graph): H200, cuDNN 9.19, 2026-12-03, B = 16k / S, H = 2048 / hd
// (bench/results/2026-12-03_fp8/bench_fp8.json).
static const PrefillMeasurement kFp8Forward[] = {
    {128, false, 4096, 685.1, 938.8},   {128, false, 8192, 750.8, 952.7},
    {128, false, 16384, 791.1, 1013.3}, {128, true, 4096, 575.5, 783.8},
    {128, true, 8192, 673.6, 844.0},    {128, true, 16384, 757.0, 895.9},
    {256, false, 4096, 1006.0, 1006.2}, {256, false, 8192, 1076.9, 1105.7},
    {256, false, 16384, 1136.3, 1136.0}, {256, true, 4096, 782.0, 930.9},
    {256, true, 8192, 933.4, 1027.7},   {256, true, 16384, 1114.9, 982.9},
};

llvm::ArrayRef<PrefillMeasurement> tg::prefillMeasurements(AttentionPass pass) {
  switch (pass) {
  case AttentionPass::Forward:
    return kForward;
  case AttentionPass::Backward:
    return kBackward;
  case AttentionPass::Fp8Forward:
    return kFp8Forward;
  }
  return kForward;
}

const PrefillMeasurement &
tg::nearestPrefillMeasurement(AttentionPass pass, int64_t headDim, bool causal,
                              int64_t seqLen) {
  return nearestRow(
      prefillMeasurements(pass),
      [&](const PrefillMeasurement &row)
          -> std::optional<std::pair<double, double>> {
        if (row.causal != causal)
          return std::nullopt;
        return std::pair(log2Distance(row.headDim, headDim),
                         log2Distance(row.seqLen, seqLen));
      });
}

std::string tg::describePrefillMeasurement(AttentionPass pass,
                                           const PrefillMeasurement &row) {
  std::string text;
  llvm::raw_string_ostream os(text);
  const char *what = "plain attention forward", *kernel = "the generated kernel ",
             *source = "2026-12-02_ws/forward";
  if (pass == AttentionPass::Backward)
    what = "plain attention backward", kernel = "the fused NVRTC backward ",
    source = "2026-12-02_2f381a5/bench_backward";
  if (pass == AttentionPass::Fp8Forward)
    what = "FP8 attention forward", kernel = "the fused FP8 kernel ", source = "2026-12-03_fp8/bench_fp8";
  if (row.source)
    source = row.source;
  os << "measured on H200 (" << what << "): cuDNN " << llvm::format("%.1f", row.cudnnTflops)
     << " TFLOP/s, " << kernel << llvm::format("%.1f", row.nvrtcTflops) << " (nearest measured: hd "
     << row.headDim << ", " << (row.causal ? "causal" : "no mask") << ", S " << row.seqLen
     << "; bench/results/" << source << ")";
  return text;
}

// Decode: H200, driver 580, cuDNN 9.19, 2026-12-02, commit 6d67313's kernels
// (bench/results/2026-12-02_issue10/decode_backends/bench_decode.json):
// microseconds per step. At Sq 16 the GQA group (8 x 16 = 128 rows) is too
// large for the decode kernel: those rows time the prefill kernel.
static const DecodeMeasurement kRows[] = {
    {1, 1, 19.0, 13.9},    {1, 2, 19.3, 102.8},   {1, 4, 19.4, 102.9},
    {1, 8, 28.5, 102.8},   {1, 16, 155.7, 103.6}, {8, 1, 77.8, 71.6},
    {8, 2, 78.3, 395.9},   {8, 4, 79.1, 399.4},   {8, 8, 105.8, 408.5},
    {8, 16, 610.1, 403.4}, {32, 1, 265.2, 247.5}, {32, 2, 268.6, 1701.3},
    {32, 4, 273.6, 1704.7}, {32, 8, 380.7, 1712.4}, {32, 16, 2419.9, 1725.7},
};

llvm::ArrayRef<DecodeMeasurement> tg::decodeMeasurements() { return kRows; }

llvm::StringRef tg::decodeMeasurementsSource() {
  return "bench/results/2026-12-02_issue10/decode_backends (H200, GQA 64/8, "
         "hd 128, 8192 cached keys, bf16)";
}

const DecodeMeasurement &tg::nearestDecodeMeasurement(int64_t batch,
                                                       int64_t seqQ) {
  return nearestRow(decodeMeasurements(), [&](const DecodeMeasurement &row) {
    return std::optional(std::pair(log2Distance(row.seqQ, seqQ),
                                   log2Distance(row.batch, batch)));
  });
}

std::string tg::describeDecodeMeasurement(const DecodeMeasurement &row) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "measured per decode step: the NVRTC decode kernel "
     << llvm::format("%.1f", row.nvrtcUs) << " us, cuDNN "
     << llvm::format("%.1f", row.cudnnUs) << " us (nearest measured: B "
     << row.batch << ", Sq " << row.seqQ << "; " << decodeMeasurementsSource()
     << ")";
  return text;
}
