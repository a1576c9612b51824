#ifndef TG_TRANSFORMS_ATTENTIONBACKENDTABLE_H
#define TG_TRANSFORMS_ATTENTIONBACKENDTABLE_H

// The measured choice between the generated attention kernels (NVRTC) and
// cuDNN (tg-select-backend): the committed H200 figures and the rules that
// read them. Prefill forward and backward: TFLOP/s of the plain (no score
// region) kernels; decode: time per step of the split-KV decode kernel.

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::tg {

/// One measured prefill shape (bench/bench_attention.py,
/// bench/bench_backward.py: bf16, 16k tokens, H = 2048 / hd, [B, H, S, D]):
/// TFLOP/s of the fused NVRTC kernel(s) and of cuDNN in the same process.
struct PrefillMeasurement {
  int64_t headDim;
  bool causal;
  int64_t seqLen;
  double nvrtcTflops, cudnnTflops;
  /// The results folder under bench/results/ of a row measured apart from
  /// its table's (null: the table's).
  const char *source = nullptr;
};

/// Fp8Forward: FP8 attention forward (e4m3, fp8 output), the fused sm_90a
/// FP8 kernel against cuDNN's FP8 graph.
enum class AttentionPass { Forward, Backward, Fp8Forward };

/// The committed rows of each pass.
llvm::ArrayRef<PrefillMeasurement> prefillMeasurements(AttentionPass pass);

/// The row of `pass` with the same `causal` nearest to (headDim, seqLen):
/// the nearest head dim (in log2), then the nearest length (in log2).
const PrefillMeasurement &nearestPrefillMeasurement(AttentionPass pass,
                                                    int64_t headDim,
                                                    bool causal,
                                                    int64_t seqLen);

/// The figures of `row` for --explain-backend.
std::string describePrefillMeasurement(AttentionPass pass,
                                       const PrefillMeasurement &row);

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

/// Where the committed decode figures came from.
llvm::StringRef decodeMeasurementsSource();

/// The row nearest to (batch, seqQ): the nearest measured Sq (in log2), then
/// the nearest batch (in log2).
const DecodeMeasurement &nearestDecodeMeasurement(int64_t batch, int64_t seqQ);

/// The figures of `row` for --explain-backend.
std::string describeDecodeMeasurement(const DecodeMeasurement &row);

} // namespace mlir::tg

#endif // TG_TRANSFORMS_ATTENTIONBACKENDTABLE_H
