// Emits the fused attention backward (AttentionBackward.h): three
// translation units, each the device library's headers it uses, then what
// depends on the spec: a configuration struct, the score modifier and its
// gradient, and the entry point that calls the library's kernel template.

#include "tg/Codegen/AttentionBackward.h"

#include "DeviceLibrary.h"
#include "MaskDropoutConfig.h"
#include "SourceTemplate.h"
#include "TableCaptures.h"
#include "tgc/Plan.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace tg::codegen {

std::array<unsigned, 3> AttentionBackwardLaunch::gridFor(int64_t batch, int64_t numHeadsQ,
                                                         int64_t numHeadsKV, int64_t seqLenQ,
                                                         int64_t seqLenKV) const {
  int64_t rows = overKvHeads ? seqLenKV : seqLenQ;
  int64_t blocks = (rows + rowsPerBlockX - 1) / rowsPerBlockX;
  return {static_cast<unsigned>(std::max<int64_t>(blocks, 1)),
          static_cast<unsigned>(overKvHeads ? numHeadsKV : numHeadsQ), static_cast<unsigned>(batch)};
}

namespace {

/// Rows per CTA of the preprocess and convert kernels
/// (device/attention_bwd_preprocess.cuh: kRowKernelRows, kRowKernelThreads).
constexpr int kRowKernelRows = 16;
constexpr unsigned kRowKernelThreads = 128;

/// Names the score modifier's and gradient's scope already defines.
bool isReservedName(const std::string &name) {
  for (const char *r : {"s", "b", "h", "q_idx", "kv_idx", "dz", "ds", "tg", "raw", "captures"})
    if (name == r)
      return true;
  return name.rfind("__", 0) == 0 || name.rfind("ptr_", 0) == 0 || name.rfind("grad_", 0) == 0 ||
         (name.size() > 1 && name[0] == 'k' && std::isupper((unsigned char)name[1]));
}


const char *elemName(AttentionElementType type) {
  return type == AttentionElementType::BF16 ? "tg::device::Elem::BF16" : "tg::device::Elem::F16";
}

/// FNV-1a: distinct entry names for distinct variants (logs, profiles).
uint32_t fnv1a(const std::string &text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text)
    hash = (hash ^ c) * 16777619u;
  return hash;
}

std::string indent(const std::string &statements, const std::string &prefix) {
  std::ostringstream os;
  std::istringstream lines(statements);
  for (std::string line; std::getline(lines, line);)
    os << prefix << line << "\n";
  return os.str();
}

class BackwardEmitter {
public:
  BackwardEmitter(const AttentionBackwardSpec &spec, AttentionBackwardTile tile)
      : spec(spec), tile(tile), distanceTable(backwardTabulatesDistances(spec, tile)),
        // A region that only masks (s or -inf) commutes with a positive
        // scale: the probability keeps the scale in its one FMA.
        masksOnly(!spec.scoreModifier.empty() && spec.scoreModifierMasksOnly && spec.scale > 0.0),
        keyLimit(spec.keyBound && !spec.scoreModifier.empty() && !spec.keyBound->limit.empty()),
        keyBoundRows(spec.keyBound && !spec.scoreModifier.empty() && spec.keyBound->rowOffset) {}

  AttentionBackwardKernels emit() const;

private:
  std::string summary() const;
  std::string configuration() const;
  std::string scoreMod() const;
  AttentionBackwardLaunch preprocess() const;
  AttentionBackwardLaunch main() const;
  AttentionBackwardLaunch convert() const;

  const AttentionBackwardSpec &spec;
  AttentionBackwardTile tile;
  bool distanceTable = false;
  bool masksOnly = false;
  bool keyLimit = false, keyBoundRows = false;
};

std::string BackwardEmitter::summary() const {
  std::ostringstream os;
  os << "// spec:  " << toString(spec.elementType) << ", head dim qk " << spec.headDimQK << " / v "
     << spec.headDimV << ", " << spec.numHeadsQ << " query heads / " << spec.numHeadsKV
     << " kv heads\n";
  os << "//        causal " << toString(spec.causal) << ", window left "
     << (spec.windowLeft ? std::to_string(*spec.windowLeft) : "none") << " right "
     << (spec.windowRight ? std::to_string(*spec.windowRight) : "none") << ", padding q "
     << (spec.hasSeqLenQ ? "yes" : "no") << " kv " << (spec.hasSeqLenKv ? "yes" : "no")
     << (spec.ragged ? ", ragged (cu_seqlens)" : "") << "\n";
  os << "//        dropout " << spec.dropoutProbability << ", scale " << spec.scale
     << ", score modifier "
     << (spec.scoreModifier.empty() ? "no" : masksOnly ? "yes (masks only, scale folded)" : "yes")
     << ", score gradient "
     << (spec.scoreGradient.empty() ? "identity" : "yes") << ", " << spec.captures.size()
     << " captures, " << spec.captureGradients.size() << " capture gradients"
     << (spec.deterministic ? ", deterministic" : "")
     << (spec.documentMask ? ", document mask" : "") << (keyLimit || keyBoundRows ? ", key bound" : "")
     << "\n";
  if (tile.wgmma) {
    os << "// tile:  wgmma (sm_90a), " << tile.blockN << " keys per CTA (two warpgroups) x query tiles of "
       << tile.blockM << " rows, 2 Q/dO buffers, " << attentionBackwardSharedBytes(spec, tile)
       << " bytes of shared memory\n";
    return os.str();
  }
  os << "// tile:  " << tile.blockN << " keys per CTA x query tiles of " << tile.blockM << " rows, "
     << tile.warps << " warps (S^T " << tile.warpsKeysS << "x" << tile.warps / tile.warpsKeysS
     << ", dK/dV " << tile.warpsKeysKV << "x" << tile.warps / tile.warpsKeysKV << ", dQ "
     << tile.warpsRowsQ << "x" << tile.warps / tile.warpsRowsQ << "), " << tile.qStages
     << " Q/dO buffer" << (tile.qStages > 1 ? "s" : "") << ", "
     << attentionBackwardSharedBytes(spec, tile) << " bytes of shared memory\n";
  return os.str();
}

std::string BackwardEmitter::configuration() const {
  SourceTemplate t;
  t.set("ELEM", elemName(spec.elementType))
      .set("HEAD_DIM_QK", spec.headDimQK)
      .set("HEAD_DIM_V", spec.headDimV)
      .set("BLOCK_M", tile.blockM)
      .set("BLOCK_N", tile.blockN)
      .set("WARPS", tile.warps)
      .set("KEYS_S", tile.warpsKeysS)
      .set("KEYS_KV", tile.warpsKeysKV)
      .set("ROWS_Q", tile.warpsRowsQ)
      .set("Q_STAGES", tile.qStages)
      .set("WGMMA", tile.wgmma ? "true" : "false")
      .set("DQ_SWIZZLED", *spec.dqAccumSwizzled ? "true" : "false")
      .set("MIN_BLOCKS", tile.minBlocksPerSM)
      .set("GROUP", spec.numHeadsQ / spec.numHeadsKV)
      .set("MASKS_AND_DROPOUT", maskAndDropoutConstants(spec.masks(), spec.dropoutProbability))
      .set("SCORE_MOD", spec.scoreModifier.empty() ? "false" : "true")
      .set("MASKS_ONLY", masksOnly ? "true" : "false")
      .set("SCORE_GRAD", spec.scoreGradient.empty() ? "false" : "true")
      .set("CAPTURE_GRADS", spec.captureGradients.empty() ? "false" : "true")
      .set("DETERMINISTIC", spec.deterministic ? "true" : "false")
      .set("DOCUMENT_MASK", spec.documentMask ? "true" : "false")
      .set("KEY_LIMIT", keyLimit ? "true" : "false")
      .set("KEY_BOUND_ROWS", keyBoundRows ? "true" : "false")
      .set("KEY_BOUND_ROW_OFFSET", keyBoundRows ? *spec.keyBound->rowOffset : 0)
      .set("DISTANCE_TABLE", distanceTable ? "true" : "false")
      .set("RAGGED", spec.ragged ? "true" : "false")
      .set("SCALE", floatLiteral(spec.scale))
      .set("SMEM", attentionBackwardSharedBytes(spec, tile));
  return t.expand(R"cuda(
// ---------------------------------------------------------------------------
// Configuration (device/attention_bwd.cuh: BackwardLayout, attention_backward;
// device/attention_bwd_wgmma.cuh with kWgmma)
// ---------------------------------------------------------------------------
struct BackwardConfig {
  static constexpr tg::device::Elem kElem = $(ELEM);
  static constexpr int kHeadDimQK = $(HEAD_DIM_QK), kHeadDimV = $(HEAD_DIM_V);
  static constexpr int kBlockM = $(BLOCK_M);  // query rows per iteration
  static constexpr int kBlockN = $(BLOCK_N);  // keys per CTA
  static constexpr int kWarps = $(WARPS), kMinBlocksPerSM = $(MIN_BLOCKS);
  static constexpr int kWarpsKeysS = $(KEYS_S);   // S^T, dP^T: warps over keys
  static constexpr int kWarpsKeysKV = $(KEYS_KV); // dK, dV: warps over keys
  static constexpr int kWarpsRowsQ = $(ROWS_Q);   // dQ: warps over query rows
  static constexpr int kQStages = $(Q_STAGES);    // Q/dO buffers
  static constexpr bool kWgmma = $(WGMMA);        // sm_90a kernel (attention_bwd_wgmma.cuh)
  static constexpr bool kDQAccumSwizzled = $(DQ_SWIZZLED); // dq_accumulator.cuh's layout
  static constexpr long long kGroup = $(GROUP);   // query heads per kv head
$(MASKS_AND_DROPOUT)
  static constexpr bool kScoreMod = $(SCORE_MOD);   // ScoreMod::apply
  static constexpr bool kScoreMasksOnly = $(MASKS_ONLY); // apply keeps its score or gives -inf
  static constexpr bool kScoreGrad = $(SCORE_GRAD); // ScoreMod::gradient (else ds = dz)
  static constexpr bool kCaptureGrads = $(CAPTURE_GRADS); // ScoreMod::add_capture_gradients
  static constexpr bool kDeterministic = $(DETERMINISTIC); // dQ added in kv-tile order (semaphores)
  static constexpr bool kDocumentMask = $(DOCUMENT_MASK); // ScoreMod::document_of_query/_key
  // Key bound (device/key_bounds.cuh): the modifier masks the keys of row q at
  // or past max(ScoreMod::key_limit(b, h), q + kKeyBoundRowOffset).
  static constexpr bool kKeyLimit = $(KEY_LIMIT);
  static constexpr bool kKeyBoundRows = $(KEY_BOUND_ROWS);
  static constexpr int kKeyBoundRowOffset = $(KEY_BOUND_ROW_OFFSET);
  static constexpr bool kDistanceTable = $(DISTANCE_TABLE); // ScoreMod::distance_term, tabulated per tile
  static constexpr bool kRagged = $(RAGGED);  // packed sequences: seq_lens_* are cu_seqlens
  static constexpr float kScale = $(SCALE);         // s = kScale * (q . k)
  static constexpr unsigned kSharedBytes = $(SMEM);
};
)cuda");
}

bool hasTables(const AttentionBackwardSpec &spec) {
  return std::any_of(spec.captures.begin(), spec.captures.end(),
                     [](const AttentionCapture &c) { return c.tableRank > 0; });
}

const AttentionCapture &captureNamed(const AttentionBackwardSpec &spec, const std::string &name) {
  return *std::find_if(spec.captures.begin(), spec.captures.end(),
                       [&](const AttentionCapture &c) { return c.name == name; });
}

std::string BackwardEmitter::scoreMod() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Score modifier (tg.attention_grad's score region) and its gradient
// (score_grad). Captured tensors broadcast to [B, Hq, Sq, Skv] through
// their strides (0 along broadcast dimensions); table captures (tg.gather)
// are read at indices the region computes, each clamped to its dimension.
// ---------------------------------------------------------------------------
)cuda";
  if (hasTables(spec)) {
    os << "struct Captures {\n";
    for (const AttentionCapture &c : spec.captures)
      if (c.tableRank > 0)
        os << tableCaptureFields(c, captureAccess(c.type));
    os << "};\n";
    for (const AttentionCapture &c : spec.captures)
      if (c.tableRank > 0)
        os << tableCaptureReaders(c, captureAccess(c.type));
    os << "\n";
  }
  os << "struct ScoreMod {\n";
  for (const AttentionCapture &c : spec.captures)
    if (c.tableRank == 0)
      os << "  const " << captureAccess(c.type).pointerType << " *ptr_" << c.name << ";  // "
         << toString(c.type) << "\n  long long " << c.name << "_stride_b, " << c.name
         << "_stride_h, " << c.name << "_stride_q, " << c.name << "_stride_kv;\n";
  for (const AttentionCaptureGradient &g : spec.captureGradients) {
    os << "  float *grad_" << g.capture << ";  // f32 accumulator of " << g.capture << "'s gradient\n";
    if (int rank = captureNamed(spec, g.capture).tableRank)
      os << "  long long " << g.capture << "_grad_stride[" << rank << "];\n";
    else
      os << "  long long " << g.capture << "_grad_stride_b, " << g.capture << "_grad_stride_h, "
         << g.capture << "_grad_stride_q, " << g.capture << "_grad_stride_kv;\n";
  }
  if (hasTables(spec))
    os << "  Captures captures;  // the tables\n";
  for (const AttentionCapture &c : spec.captures) {
    if (c.tableRank > 0)
      continue;
    CaptureAccess a = captureAccess(c.type);
    os << "  __device__ __forceinline__ " << a.valueType << " " << c.name
       << "_at(long long b, long long h, long long q_idx, long long kv_idx) const {\n"
       << "    const " << a.pointerType << " raw = ptr_" << c.name << "[" << captureOffset(c, c.name + "_")
       << "];\n"
       << "    return " << a.convert << ";\n  }\n";
  }
  // A table's gradient is added where a gather read, at the clamped indices.
  for (const AttentionCaptureGradient &g : spec.captureGradients)
    if (int rank = captureNamed(spec, g.capture).tableRank)
      os << "  __device__ __forceinline__ void " << g.capture << "_grad_add(float value"
         << tableIndexParams(rank) << ") const {\n"
         << "    atomicAdd(grad_" << g.capture << " + " << g.capture << "_offset(captures, "
         << g.capture << "_grad_stride, " << tableIndexArgs(rank) << "), value);\n  }\n";
  std::string loads;
  for (const AttentionCapture &c : spec.captures)
    if (c.tableRank == 0)
      loads += "    [[maybe_unused]] const " + std::string(captureAccess(c.type).valueType) + " " +
               c.name + " = " + c.name + "_at(b, h, q_idx, kv_idx);\n";
  if (keyLimit)
    os << "  // The key bound's limit (device/key_bounds.cuh).\n"
       << "  __device__ __forceinline__ long long key_limit(long long b, long long h) const {\n"
       << "    return " << spec.keyBound->limit << ";\n  }\n";
  if (spec.documentMask)
    os << "  // The document ids of the document mask (the modifier masks keys of another\n"
       << "  // document; these reads are the same as its own).\n"
       << "  __device__ __forceinline__ long long document_of_query(long long b, long long h,\n"
       << "                                                     long long q_idx) const {\n"
       << "    return " << spec.documentMask->queryId << ";\n  }\n"
       << "  __device__ __forceinline__ long long document_of_key(long long b, long long h,\n"
       << "                                                   long long kv_idx) const {\n"
       << "    return " << spec.documentMask->keyId << ";\n  }\n";
  // kSameDocument: the element lies in one document with its row (a tile
  // in the CTA's one document, device/documents.cuh), so the document test
  // of the region is known true.
  // `distance`: the tile's distance terms where kDistanceTable (else unread).
  os << "  template <bool kSameDocument = false>\n"
     << "  __device__ __forceinline__ float apply(float s, long long b, long long h, long long q_idx,\n"
     << "                                        long long kv_idx,\n"
     << "                                        const tg::device::DistanceTable &distance) const {\n"
     << loads << "    {  // --- score modifier ---\n"
     << indent(distanceTable ? spec.scoreModifierTabulated : spec.scoreModifier, "      ")
     << "    }\n    return s;\n  }\n";
  if (distanceTable)
    os << distanceTermMember(spec.distanceTerm, "attention_bwd_wgmma.cuh");
  os << "  __device__ __forceinline__ float gradient(float s, long long b, long long h, long long q_idx,\n"
     << "                                           long long kv_idx, float dz) const {\n"
     << loads << "    float ds = dz;\n    {  // --- gradient of the score modifier ---\n"
     << indent(spec.scoreGradient, "      ") << "    }\n    return ds;\n  }\n";
  os << "  __device__ __forceinline__ void add_capture_gradients(float s, long long b, long long h,\n"
     << "                                                      long long q_idx, long long kv_idx,\n"
     << "                                                      float dz) const {\n"
     << loads;
  for (const AttentionCaptureGradient &g : spec.captureGradients) {
    if (captureNamed(spec, g.capture).tableRank > 0) {
      os << "    {  // --- gradient of table " << g.capture << " (through " << g.capture
         << "_grad_add) ---\n"
         << indent(g.statements, "      ") << "    }\n";
      continue;
    }
    os << "    {  // --- gradient of " << g.capture << " ---\n      float dcap = dz;\n"
       << indent(g.statements, "      ") << "      atomicAdd(grad_" << g.capture << " + b * " << g.capture
       << "_grad_stride_b + h * " << g.capture << "_grad_stride_h + q_idx * " << g.capture
       << "_grad_stride_q + kv_idx * " << g.capture << "_grad_stride_kv, dcap);\n    }\n";
  }
  os << "  }\n};\n";
  return os.str();
}

AttentionBackwardLaunch BackwardEmitter::preprocess() const {
  const std::string elem = toString(spec.elementType);
  char entry[96];
  std::snprintf(entry, sizeof(entry), "tg_attention_bwd_preprocess_%s_dqk%d_dv%d%s", elem.c_str(),
                spec.headDimQK, spec.headDimV, spec.ragged ? "_ragged" : "");
  std::ostringstream os;
  os << "// tgc fused attention backward: preprocess (delta = rowsum(dO * O), dQ accumulator = 0)\n"
     << "// (generated by tg::codegen; the kernel is device/attention_bwd_preprocess.cuh)\n";
  os << deviceLibrarySource({"attention_bwd_preprocess.cuh"});
  os << "\nextern \"C\" __global__ void __launch_bounds__(tg::device::kRowKernelThreads)\n"
     << entry << "(const unsigned short *__restrict__ o, const unsigned short *__restrict__ d_o,\n"
     << "    float *__restrict__ delta, float *__restrict__ dq_accum, long long num_heads_q,\n"
     << "    long long seq_len_q, long long o_stride_b, long long o_stride_h, long long o_stride_s,\n"
     << "    long long do_stride_b, long long do_stride_h, long long do_stride_s"
     << (spec.ragged ? ",\n    const int *__restrict__ cu_seqlens_q, long long tokens_q,\n"
                       "    const float *__restrict__ lse, float *__restrict__ lse_rows"
                     : "")
     << ") {\n"
     << "  " << tgc::kEarlyLaunchWait << ";\n"
     << "  tg::device::attention_bwd_preprocess<" << elemName(spec.elementType) << ", "
     << spec.headDimQK << ", " << spec.headDimV << (spec.ragged ? ", true" : "") << ">(\n"
     << "      o, d_o, delta, dq_accum, num_heads_q, seq_len_q, o_stride_b, o_stride_h, o_stride_s,\n"
     << "      do_stride_b, do_stride_h, do_stride_s"
     << (spec.ragged ? ", {cu_seqlens_q, tokens_q, lse, lse_rows}" : "") << ");\n}\n";
  AttentionBackwardLaunch l;
  l.source = os.str();
  l.entry = entry;
  l.threads = kRowKernelThreads;
  l.numParams = spec.ragged ? 14 : 10;
  l.rowsPerBlockX = kRowKernelRows;
  return l;
}

AttentionBackwardLaunch BackwardEmitter::convert() const {
  const std::string elem = toString(spec.elementType);
  std::string scale = floatLiteral(spec.scale);
  char entry[96];
  std::snprintf(entry, sizeof(entry), "tg_attention_bwd_convert_%s_dqk%d_%08x%s%s", elem.c_str(),
                spec.headDimQK, fnv1a(scale), spec.ragged ? "_ragged" : "",
                *spec.dqAccumSwizzled ? "_swizzled" : "");
  std::ostringstream os;
  os << "// tgc fused attention backward: dQ = scale * accumulator, rounded\n"
     << "// (generated by tg::codegen; the kernel is device/attention_bwd_convert.cuh)\n";
  os << deviceLibrarySource({"attention_bwd_convert.cuh"});
  os << "\nextern \"C\" __global__ void __launch_bounds__(tg::device::kRowKernelThreads)\n"
     << entry << "(const float *__restrict__ dq_accum, unsigned short *__restrict__ dq,\n"
     << "    long long num_heads_q, long long seq_len_q, long long dq_stride_b, long long dq_stride_h,\n"
     << "    long long dq_stride_s"
     << (spec.ragged ? ", const int *__restrict__ cu_seqlens_q, long long tokens_q" : "") << ") {\n"
     << "  " << tgc::kEarlyLaunchWait << ";\n"
     << "  tg::device::attention_bwd_convert<" << elemName(spec.elementType) << ", " << spec.headDimQK
     << ", " << (*spec.dqAccumSwizzled ? "true" : "false") << (spec.ragged ? ", true" : "")
     << ">(dq_accum, dq, num_heads_q, seq_len_q,\n"
     << "      dq_stride_b, dq_stride_h, dq_stride_s, " << scale
     << (spec.ragged ? ", cu_seqlens_q, tokens_q" : "") << ");\n}\n";
  AttentionBackwardLaunch l;
  l.source = os.str();
  l.entry = entry;
  l.threads = kRowKernelThreads;
  l.numParams = spec.ragged ? 9 : 7;
  l.rowsPerBlockX = kRowKernelRows;
  return l;
}

AttentionBackwardLaunch BackwardEmitter::main() const {
  std::string variant = summary() + spec.scoreModifier + "\n" + spec.scoreGradient;
  for (const AttentionCapture &c : spec.captures)
    variant += c.name + toString(c.type) + std::to_string(c.tableRank);
  for (const AttentionCaptureGradient &g : spec.captureGradients)
    variant += "grad " + g.capture + "\n" + g.statements;
  char entry[96];
  std::snprintf(entry, sizeof(entry), "tg_attention_bwd_%s_dqk%d_dv%d_%08x", toString(spec.elementType),
                spec.headDimQK, spec.headDimV, fnv1a(variant));
  std::ostringstream os;
  os << "// tgc fused attention backward: main kernel (generated by tg::codegen; the kernel is\n"
     << "// device/attention_bwd.cuh, this file adds its configuration and entry point).\n//\n"
     << summary();
  os << (tile.wgmma ? deviceLibrarySource({"attention_bwd_wgmma.cuh"})
                    : deviceLibrarySource({"attention_bwd.cuh"}));
  os << configuration();
  os << scoreMod();
  os << R"cuda(
// ---------------------------------------------------------------------------
// Entry point: one CTA per (kv tile, kv head, batch)
// ---------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(BackwardConfig::kWarps * 32, BackwardConfig::kMinBlocksPerSM)
)cuda";
  os << entry << "(\n";
  os << R"cuda(    const unsigned short *__restrict__ q, const unsigned short *__restrict__ k,
    const unsigned short *__restrict__ v, const unsigned short *__restrict__ d_o,
    const float *__restrict__ lse, const float *__restrict__ delta, float *__restrict__ dq_accum,
    int *__restrict__ dq_semaphore, unsigned short *__restrict__ dk, unsigned short *__restrict__ dv,
    const int *__restrict__ seq_lens_q, const int *__restrict__ seq_lens_kv,
    const long long *__restrict__ dropout_seed, const long long *__restrict__ dropout_offset,
    long long batch, long long num_heads_q, long long seq_len_q, long long seq_len_kv,)cuda";
  if (spec.ragged)
    os << "\n    long long tokens_q, long long tokens_kv,";
  os << R"cuda(
    long long q_stride_b, long long q_stride_h, long long q_stride_s,
    long long k_stride_b, long long k_stride_h, long long k_stride_s,
    long long v_stride_b, long long v_stride_h, long long v_stride_s,
    long long do_stride_b, long long do_stride_h, long long do_stride_s,
    long long dk_stride_b, long long dk_stride_h, long long dk_stride_s,
    long long dv_stride_b, long long dv_stride_h, long long dv_stride_s)cuda";
  for (const AttentionCapture &c : spec.captures) {
    if (c.tableRank > 0) {
      os << tableCaptureParams(c, captureAccess(c.type));
      continue;
    }
    os << ",\n    const " << captureAccess(c.type).pointerType << " *__restrict__ capture_" << c.name
       << ", long long " << c.name << "_stride_b, long long " << c.name << "_stride_h, long long "
       << c.name << "_stride_q, long long " << c.name << "_stride_kv";
  }
  for (const AttentionCaptureGradient &g : spec.captureGradients) {
    os << ",\n    float *__restrict__ grad_" << g.capture;
    if (int rank = captureNamed(spec, g.capture).tableRank) {
      for (int d = 0; d < rank; ++d)
        os << ", long long " << g.capture << "_grad_stride" << d;
      continue;
    }
    os << ", long long " << g.capture << "_grad_stride_b, long long " << g.capture
       << "_grad_stride_h, long long " << g.capture << "_grad_stride_q, long long " << g.capture
       << "_grad_stride_kv";
  }
  os << ") {\n  " << tgc::kEarlyLaunchWait << R"cuda(;
  const tg::device::BackwardParams params{
      q, k, v, d_o, lse, delta, dq_accum, dq_semaphore, dk, dv, seq_lens_q, seq_lens_kv, dropout_seed,
      dropout_offset,
      batch, num_heads_q, seq_len_q, seq_len_kv,
      q_stride_b, q_stride_h, q_stride_s, k_stride_b, k_stride_h, k_stride_s,
      v_stride_b, v_stride_h, v_stride_s, do_stride_b, do_stride_h, do_stride_s,
      dk_stride_b, dk_stride_h, dk_stride_s, dv_stride_b, dv_stride_h, dv_stride_s,
      )cuda" << (spec.ragged ? "tokens_q, tokens_kv" : "0, 0") << R"cuda(};
  const ScoreMod score_mod{)cuda";
  // Fields in ScoreMod's order: element captures, gradients, the tables.
  const char *separator = "";
  auto next = [&]() -> std::ostringstream & {
    os << separator;
    separator = ",\n                           ";
    return os;
  };
  for (const AttentionCapture &c : spec.captures)
    if (c.tableRank == 0)
      next() << "capture_" << c.name << ", " << c.name << "_stride_b, " << c.name << "_stride_h, "
             << c.name << "_stride_q, " << c.name << "_stride_kv";
  for (const AttentionCaptureGradient &g : spec.captureGradients) {
    const std::string &n = g.capture;
    if (int rank = captureNamed(spec, n).tableRank) {
      next() << "grad_" << n << ", {";
      for (int d = 0; d < rank; ++d)
        os << (d ? ", " : "") << n << "_grad_stride" << d;
      os << "}";
      continue;
    }
    next() << "grad_" << n << ", " << n << "_grad_stride_b, " << n << "_grad_stride_h, " << n
           << "_grad_stride_q, " << n << "_grad_stride_kv";
  }
  if (hasTables(spec)) {
    next() << "Captures{";
    const char *inner = "";
    for (const AttentionCapture &c : spec.captures)
      if (c.tableRank > 0) {
        os << inner << tableCaptureInitializer(c);
        inner = ", ";
      }
    os << "}";
  }
  os << "};\n  tg::device::" << (tile.wgmma ? "attention_backward_wgmma" : "attention_backward")
     << "<BackwardConfig>(params, score_mod);\n}\n";

  AttentionBackwardLaunch l;
  l.source = os.str();
  l.entry = entry;
  l.threads = unsigned(tile.warps) * 32;
  l.sharedBytes = attentionBackwardSharedBytes(spec, tile);
  l.numParams = spec.ragged ? 38 : 36;
  for (const AttentionCapture &c : spec.captures)
    l.numParams += c.tableRank > 0 ? tableCaptureParamCount(c) : 5;
  for (const AttentionCaptureGradient &g : spec.captureGradients) {
    int rank = captureNamed(spec, g.capture).tableRank;
    l.numParams += rank > 0 ? 1 + unsigned(rank) : 5;
  }
  l.rowsPerBlockX = tile.blockN;
  l.overKvHeads = true;
  return l;
}

AttentionBackwardKernels BackwardEmitter::emit() const {
  AttentionBackwardKernels k;
  k.preprocess = preprocess();
  k.main = main();
  k.convert = convert();
  k.tile = tile;
  k.requiredTarget = tile.wgmma ? "sm_90a" : "";
  return k;
}

} // namespace

std::string validateAttentionBackwardSpec(const AttentionBackwardSpec &spec) {
  std::ostringstream err;
  for (auto [name, d] : {std::pair{"QK", spec.headDimQK}, {"V", spec.headDimV}})
    if (!headDimFits(d)) {
      err << "head dim " << name << " is " << d << "; expected a multiple of 8 in [8, 256]";
      return err.str();
    }
  if (spec.ragged && (spec.hasSeqLenQ || spec.hasSeqLenKv))
    return "the ragged layout takes its lengths from cu_seqlens, not from seq_lens";
  if (spec.numHeadsQ <= 0 || spec.numHeadsKV <= 0 || spec.numHeadsQ % spec.numHeadsKV != 0) {
    err << "query heads (" << spec.numHeadsQ << ") must be a positive multiple of kv heads ("
        << spec.numHeadsKV << ")";
    return err.str();
  }
  if (!(spec.dropoutProbability >= 0.0 && spec.dropoutProbability < 1.0)) {
    err << "dropout probability is " << spec.dropoutProbability << "; expected a value in [0, 1)";
    return err.str();
  }
  if (!std::isfinite(spec.scale) || spec.scale == 0.0 ||
      !std::isfinite(static_cast<float>(spec.scale))) {
    err << "scale is " << spec.scale << "; expected a finite non-zero f32 value";
    return err.str();
  }
  if (spec.target.arch < 80) {
    err << "target sm_" << spec.target.arch
        << " is not supported; the backward needs sm_80 or newer (mma.sync bf16, cp.async)";
    return err.str();
  }
  if (spec.dqAccumSwizzled.value_or(false) && spec.headDimQK % 64 != 0) {
    err << "the swizzled dQ accumulator needs a head dim QK that is a multiple of 64 (here "
        << spec.headDimQK << ")";
    return err.str();
  }
  if (std::string problem = captureSpecProblem(spec.captures, isReservedName,
                                                "s, b, h, q_idx, kv_idx, dz, ds");
      !problem.empty())
    return problem;
  if (!spec.captures.empty() && spec.scoreModifier.empty() && spec.scoreGradient.empty() &&
      spec.captureGradients.empty())
    return "captures are given but the score modifier and its gradient are empty";
  if (spec.documentMask && (spec.scoreModifier.empty() || spec.documentMask->queryId.empty() ||
                            spec.documentMask->keyId.empty()))
    return "a document mask needs a score modifier (which masks the keys of other documents) "
           "and both id expressions";
  for (size_t i = 0; i < spec.captureGradients.size(); ++i) {
    const std::string &name = spec.captureGradients[i].capture;
    auto capture = std::find_if(spec.captures.begin(), spec.captures.end(),
                                [&](const AttentionCapture &c) { return c.name == name; });
    if (capture == spec.captures.end()) {
      err << "capture gradient #" << i << " names '" << name << "', which is not a capture";
      return err.str();
    }
    if (capture->type != CaptureType::F32 && capture->type != CaptureType::BF16 &&
        capture->type != CaptureType::F16) {
      err << "capture '" << name << "' of type " << toString(capture->type)
          << " has no gradient (expected f32, bf16 or f16)";
      return err.str();
    }
    for (size_t j = 0; j < i; ++j)
      if (spec.captureGradients[j].capture == name) {
        err << "the gradient of capture '" << name << "' is asked for twice";
        return err.str();
      }
  }
  if (spec.tileOverride)
    return validateAttentionBackwardTile(spec, *spec.tileOverride);
  return "";
}

AttentionBackwardLaunch attentionBackwardCaptureGradConvert(AttentionElementType type) {
  std::string entry = std::string("tg_attention_bwd_capture_grad_") + toString(type);
  std::ostringstream os;
  os << "// tgc fused attention backward: a captured tensor's gradient, f32 -> " << toString(type)
     << "\n// (generated by tg::codegen; the kernel is device/attention_bwd_convert.cuh)\n";
  os << deviceLibrarySource({"attention_bwd_convert.cuh"});
  os << "\nextern \"C\" __global__ void __launch_bounds__(256)\n"
     << entry << "(const float *__restrict__ src, unsigned short *__restrict__ dst, long long d0,\n"
     << "    long long d1, long long d2, long long d3, long long stride0, long long stride1,\n"
     << "    long long stride2, long long stride3) {\n"
     << "  " << tgc::kEarlyLaunchWait << ";\n"
     << "  tg::device::capture_grad_convert<" << elemName(type)
     << ">(src, dst, d0, d1, d2, d3, stride0, stride1, stride2, stride3);\n}\n";
  AttentionBackwardLaunch l;
  l.source = os.str();
  l.entry = entry;
  l.threads = 256;
  l.numParams = 10;
  l.rowsPerBlockX = 1024; // elements per CTA: gridFor is not used for it
  return l;
}

std::optional<AttentionBackwardKernels> generateAttentionBackward(const AttentionBackwardSpec &spec,
                                                                  std::string *error) {
  std::string problem = validateAttentionBackwardSpec(spec);
  if (!problem.empty()) {
    if (error)
      *error = problem;
    return std::nullopt;
  }
  AttentionBackwardTile tile = spec.tileOverride ? *spec.tileOverride : defaultAttentionBackwardTile(spec);
  AttentionBackwardSpec resolved = spec;
  resolved.dqAccumSwizzled = spec.dqAccumSwizzled.value_or(backwardSwizzlesDQAccum(spec));
  if (tile.wgmma && !*resolved.dqAccumSwizzled) {
    if (error)
      *error = "the wgmma backward adds dQ in the swizzled accumulator layout (dqAccumSwizzled)";
    return std::nullopt;
  }
  return BackwardEmitter(resolved, tile).emit();
}

bool backwardSwizzlesDQAccum(const AttentionBackwardSpec &spec) {
  // (the tile generateAttentionBackward gives this spec)
  return (spec.tileOverride ? *spec.tileOverride : defaultAttentionBackwardTile(spec)).wgmma;
}

} // namespace tg::codegen
