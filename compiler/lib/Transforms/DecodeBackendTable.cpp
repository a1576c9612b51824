// The measured decode figures (DecodeBackendTable.h).
#include "tg/Transforms/DecodeBackendTable.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;

// H200, driver 580, cuDNN 9.19, 2026-12-02, commit 6d67313's kernels
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
  auto distance = [](int64_t a, int64_t b) {
    return std::fabs(std::log2(double(std::max<int64_t>(a, 1))) -
                     std::log2(double(std::max<int64_t>(b, 1))));
  };
  const DecodeMeasurement *best = &kRows[0];
  for (const DecodeMeasurement &row : kRows) {
    double sq = distance(row.seqQ, seqQ), bestSq = distance(best->seqQ, seqQ);
    if (sq < bestSq ||
        (sq == bestSq && distance(row.batch, batch) < distance(best->batch, batch)))
      best = &row;
  }
  return *best;
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
