#ifndef TG_TRANSFORMS_DECODEBACKENDTABLE_H
#define TG_TRANSFORMS_DECODEBACKENDTABLE_H

// The measured choice between the NVRTC split-KV decode kernel and cuDNN
// for a decode step (tg-select-backend): the committed H200 figures and the
// rule that reads them.

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tg {

/// One measured decode step (bench/bench_decode.py: GQA 64/8, hd 128, 8192
/// cached keys, bf16, a dense cache, bottom-right causal): GPU time per
/// step, steps queued back to back, of the NVRTC decode kernel (with its
/// combine) and of cuDNN's plan of the same graph.
struct DecodeMeasurement {
  int64_t batch, seqQ;
  double nvrtcUs, cudnnUs;
};

/// The committed rows.
llvm::ArrayRef<DecodeMeasurement> decodeMeasurements();

/// Where the committed figures came from.
llvm::StringRef decodeMeasurementsSource();

/// The row nearest to (batch, seqQ): the nearest measured Sq (in log2), then
/// the nearest batch (in log2).
const DecodeMeasurement &nearestDecodeMeasurement(int64_t batch, int64_t seqQ);

/// The figures of `row` for --explain-backend.
std::string describeDecodeMeasurement(const DecodeMeasurement &row);

} // namespace mlir::tg

#endif // TG_TRANSFORMS_DECODEBACKENDTABLE_H
