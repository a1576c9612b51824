// Emits the fused attention forward kernel for one AttentionForwardSpec: one
// translation unit of the device library's headers (device/attention_fwd.cuh
// and what it includes, where the kernel and its stages are), then what
// depends on the spec: a configuration struct whose constants select the
// variant (masks, dropout, score modifier, tile, mma.sync or wgmma), the
// score modifier from the tg.attention region, and the entry point.

#include "tg/Codegen/AttentionKernel.h"

#include "AttentionLayout.h"
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

//===----------------------------------------------------------------------===//
// Names and validation
//===----------------------------------------------------------------------===//

const char *toString(AttentionElementType type) {
  switch (type) {
  case AttentionElementType::BF16:
    return "bf16";
  case AttentionElementType::F16:
    return "f16";
  case AttentionElementType::E4M3:
    return "e4m3";
  case AttentionElementType::E5M2:
    return "e5m2";
  }
  return "?";
}

const char *toString(AttentionCausalMode mode) {
  switch (mode) {
  case AttentionCausalMode::None:
    return "none";
  case AttentionCausalMode::TopLeft:
    return "top_left";
  case AttentionCausalMode::BottomRight:
    return "bottom_right";
  }
  return "?";
}

const char *toString(CaptureType type) {
  switch (type) {
  case CaptureType::F32:
    return "f32";
  case CaptureType::F16:
    return "f16";
  case CaptureType::BF16:
    return "bf16";
  case CaptureType::I32:
    return "i32";
  case CaptureType::I64:
    return "i64";
  case CaptureType::I8:
    return "i8";
  case CaptureType::Bool:
    return "i1";
  }
  return "?";
}

namespace {

/// Names the score modifier's scope already defines.
bool isReservedName(const std::string &name) {
  static const char *reserved[] = {"s",         "b",         "h",    "q_idx", "kv_idx",
                                   "scores",    "captures",  "m",    "n",     "j",
                                   "half",      "lane",      "n0",   "warp_row0", "h_tile",
                                   "seq_len_q", "seq_len_kv"};
  for (const char *r : reserved)
    if (name == r)
      return true;
  // __x is the implementation's; kX is the configuration's.
  return name.rfind("__", 0) == 0 ||
         (name.size() > 1 && name[0] == 'k' && std::isupper((unsigned char)name[1]));
}

constexpr double kLog2e = 1.4426950408889634;

/// The decode kernel's packed query rows fit one tile of at most 4 warps.
constexpr int kMaxDecodeRows = 64;

/// The options the decode kernel has (attention_fwd.cuh: its static_assert).
/// A score modifier is one of them: its rows are mapped back to their
/// heads and queries (ScoreMod::apply).
/// FP8 attention's rules (device/attention_fwd_fp8.cuh): the sm_90a
/// warp-specialised kernel with fp8 wgmma, 128-byte rows of Q, K and V^T,
/// none of the options it lacks.
std::string fp8SpecProblem(const AttentionForwardSpec &spec) {
  const AttentionElementType out = spec.outputElementType();
  if (!isFp8(spec.elementType))
    return out == spec.elementType ? "" : "a bf16 or f16 kernel writes its output in its element type";
  std::ostringstream err;
  if (spec.target.arch != 90 || !spec.target.archSpecific) {
    err << "fp8 attention needs target sm_90a (fp8 wgmma), got sm_" << spec.target.arch
        << (spec.target.archSpecific ? "a" : "");
    return err.str();
  }
  if (spec.headDimQK % 128 != 0 || spec.headDimV % 128 != 0) {
    err << "fp8 attention needs head dims that are multiples of 128 (128-byte rows), got " << spec.headDimQK
        << " and " << spec.headDimV;
    return err.str();
  }
  if (!spec.scoreModifier.empty() || !spec.captures.empty() || spec.dropoutProbability != 0.0 ||
      spec.decode || spec.paged || spec.ragged || spec.documentMask)
    return "fp8 attention takes no score modifier, captures, dropout, decode, paged or ragged layout";
  if (spec.tileOverride &&
      (!spec.tileOverride->warpSpecialized || spec.tileOverride->blockN % 128 != 0)) {
    err << "the fp8 tile is warp-specialised with key tiles of a multiple of 128, got " << spec.tileOverride->blockN
        << " keys" << (spec.tileOverride->warpSpecialized ? "" : " without warp specialisation");
    return err.str();
  }
  return "";
}

bool decodeOptionsFit(const AttentionForwardSpec &spec) {
  return !isFp8(spec.elementType) && spec.dropoutProbability == 0.0 && !spec.training && !spec.documentMask && !spec.ragged &&
         !spec.hasSeqLenQ;
}

} // namespace

bool decodeKernelApplies(const AttentionForwardSpec &spec, int64_t seqQ, int64_t seqKv) {
  const int64_t group = spec.numHeadsQ / std::max(spec.numHeadsKV, 1);
  return decodeOptionsFit(spec) && seqQ <= 16 && group * seqQ <= kMaxDecodeRows && seqKv >= 256;
}

std::string validateAttentionSpec(const AttentionForwardSpec &spec) {
  std::ostringstream err;
  for (auto [name, d] : {std::pair{"QK", spec.headDimQK}, {"V", spec.headDimV}})
    if (!headDimFits(d)) {
      err << "head dim " << name << " is " << d
          << "; expected a multiple of 8 in [8, 256]";
      return err.str();
    }
  if (spec.numHeadsQ <= 0 || spec.numHeadsKV <= 0 ||
      spec.numHeadsQ % spec.numHeadsKV != 0) {
    err << "query heads (" << spec.numHeadsQ
        << ") must be a positive multiple of kv heads (" << spec.numHeadsKV << ")";
    return err.str();
  }
  if (!(spec.dropoutProbability >= 0.0 && spec.dropoutProbability < 1.0)) {
    err << "dropout probability is " << spec.dropoutProbability
        << "; expected a value in [0, 1)";
    return err.str();
  }
  if (spec.ragged && (spec.hasSeqLenQ || spec.hasSeqLenKv))
    return "the ragged layout takes its lengths from cu_seqlens, not from seq_lens";
  if (std::string problem = fp8SpecProblem(spec); !problem.empty())
    return problem;
  if (spec.decode) {
    if (!decodeOptionsFit(spec) || spec.decodeRows < 1 || spec.decodeRows > kMaxDecodeRows) {
      err << "the decode kernel takes 1 to 64 packed query rows (got " << spec.decodeRows
          << ") and no dropout, training, document mask, ragged layout or "
             "seq_len_q";
      return err.str();
    }
  }
  if (spec.paged && (spec.ragged || !spec.hasSeqLenKv || spec.pageSize < 1)) {
    err << "a paged K/V cache needs the kv lengths (hasSeqLenKv), a page size >= 1 (got "
        << spec.pageSize << ") and not the ragged layout";
    return err.str();
  }
  if (!std::isfinite(spec.scale) || spec.scale == 0.0) {
    err << "scale is " << spec.scale << "; expected a finite non-zero value";
    return err.str();
  }
  if (spec.target.arch < 80) {
    err << "target sm_" << spec.target.arch
        << " is not supported; the kernel needs sm_80 or newer (mma.sync bf16, cp.async)";
    return err.str();
  }
  if (std::string problem =
          captureSpecProblem(spec.captures, isReservedName, "s, b, h, q_idx, kv_idx");
      !problem.empty())
    return problem;
  if (!spec.captures.empty() && spec.scoreModifier.empty())
    return "captures are given but the score modifier is empty";
  if (spec.documentMask && (spec.scoreModifier.empty() || spec.documentMask->queryId.empty() ||
                            spec.documentMask->keyId.empty()))
    return "a document mask needs a score modifier (which masks the keys of other documents) "
           "and both id expressions";
  if (spec.tileOverride) {
    const AttentionTileConfig &t = *spec.tileOverride;
    if (t.keyWarps < 1 || t.warps % t.keyWarps != 0 ||
        (t.keyWarps > 1 && (!spec.decode || t.blockN % (16 * t.keyWarps) != 0))) {
      err << "tile with " << t.keyWarps << " key warps of " << t.warps
          << ": key warps divide the warps and blockN / 16, and only the decode kernel has them";
      return err.str();
    }
    if (t.warps <= 0 || t.blockM <= 0 || t.blockM % (16 * t.warps / t.keyWarps) != 0) {
      err << "tile " << t.blockM << "x" << t.blockN << " with " << t.warps
          << " warps: blockM must be a multiple of 16 * warps / key warps";
      return err.str();
    }
    if (t.blockN < 16 || t.blockN % 16 != 0 || t.blockN > 256) {
      err << "tile blockN " << t.blockN << " must be a multiple of 16 in [16, 256]";
      return err.str();
    }
    if (t.wgmma) {
      if (spec.target.arch != 90 || !spec.target.archSpecific) {
        err << "the wgmma tile needs target sm_90a (the arch-specific sm_90 "
               "features), got sm_"
            << spec.target.arch << (spec.target.archSpecific ? "a" : "");
        return err.str();
      }
      if (spec.headDimQK % 64 != 0 || spec.headDimV % 64 != 0) {
        err << "the wgmma tile needs head dims that are multiples of 64 (128-byte swizzle), got "
            << spec.headDimQK << " and " << spec.headDimV;
        return err.str();
      }
      if (t.warps % 4 != 0 || t.blockM != 16 * t.warps) {
        err << "the wgmma tile needs whole warpgroups of 64 rows: blockM = 16 * warps, warps a "
               "multiple of 4 (got "
            << t.blockM << " rows, " << t.warps << " warps)";
        return err.str();
      }
    }
    if (t.warpSpecialized && (!t.wgmma || spec.decode || spec.paged || spec.ragged))
      return "warp specialisation needs the wgmma tile, and is not for decode, paged or packed kernels";
    if (t.warpSpecialized && t.warps > 12)
      return "a warp-specialised tile has at most 12 compute warps (and one copying warpgroup)";
    if (t.pingPong && (!t.warpSpecialized || t.warps != 8))
      return "ping-pong needs a warp-specialised tile with 8 warps (two compute warpgroups)";
    if (t.prefetch < 1 || t.prefetch > 4 || t.prefetch > t.blockN / 16) {
      err << "fragment prefetch " << t.prefetch << " must be in [1, min(4, blockN / 16)]";
      return err.str();
    }
    if (t.stages < 1 || t.stages > 4) {
      err << "tile with " << t.stages << " K/V stages: expected 1 to 4";
      return err.str();
    }
    if (t.warps > 16 || t.minBlocksPerSM < 1) {
      err << "tile with " << t.warps << " warps and " << t.minBlocksPerSM
          << " blocks per SM is out of range";
      return err.str();
    }
    if (unsigned bytes = attentionFootprintBytes(spec, t); bytes > maxSharedBytesPerBlock(spec.target.arch)) {
      err << "tile " << t.blockM << "x" << t.blockN << " with " << t.stages << " K/V buffers needs " << bytes
          << " bytes of shared memory; sm_" << spec.target.arch << " allows "
          << maxSharedBytesPerBlock(spec.target.arch) << " per CTA";
      return err.str();
    }
  }
  return "";
}

std::string captureOffset(const AttentionCapture &capture, const std::string &prefix) {
  static const char *const kIndex[] = {"b", "h", "q_idx", "kv_idx"};
  static const char *const kStride[] = {"stride_b", "stride_h", "stride_q", "stride_kv"};
  std::string offset;
  for (int d = 0; d < 4; ++d) {
    if (capture.broadcast[d])
      continue;
    offset += (offset.empty() ? "" : " + ") + std::string(kIndex[d]) + " * " + prefix + kStride[d];
  }
  return offset.empty() ? "0" : offset;
}

int decodeCtasPerSM(const AttentionForwardSpec &spec) {
  AttentionTileConfig tile = defaultAttentionTile(spec);
  // The runtime reserves 1 KB per CTA; the paged kernel adds its page cache.
  unsigned perCta = attentionFootprintBytes(spec, tile) + 1024;
  int bySmem = int(maxSharedBytesPerSM(spec.target.arch) / perCta);
  int byThreads = 2048 / (32 * tile.warps);
  return std::max(1, std::min({bySmem, byThreads, 32}));
}

int64_t decodeSplits(int64_t ctas, int64_t keyTiles, int ctasPerSM, int64_t numSMs) {
  // One full wave: a second, partial one would run at a fraction of the
  // bandwidth while taking as long as the first.
  int64_t wanted = ctasPerSM * numSMs / std::max<int64_t>(ctas, 1);
  return std::max<int64_t>(1, std::min(wanted, keyTiles / 2));
}

std::array<unsigned, 3> AttentionKernel::grid(int64_t batch, int64_t numHeadsQ,
                                              int64_t seqLenQ) const {
  int64_t tiles = (seqLenQ + tile.blockM - 1) / tile.blockM;
  return {static_cast<unsigned>(std::max<int64_t>(tiles, 1)),
          static_cast<unsigned>(numHeadsQ), static_cast<unsigned>(batch)};
}

namespace {

//===----------------------------------------------------------------------===//
// Emitter
//===----------------------------------------------------------------------===//


const char *boolName(bool b) { return b ? "true" : "false"; }

const char *deviceElem(AttentionElementType type) {
  switch (type) {
  case AttentionElementType::BF16:
    return "tg::device::Elem::BF16";
  case AttentionElementType::F16:
    return "tg::device::Elem::F16";
  case AttentionElementType::E4M3:
    return "tg::device::Elem::E4M3";
  case AttentionElementType::E5M2:
    return "tg::device::Elem::E5M2";
  }
  return "?";
}

std::string indent(const std::string &statements, const std::string &prefix) {
  std::ostringstream os;
  std::istringstream lines(statements);
  for (std::string line; std::getline(lines, line);)
    os << prefix << line << "\n";
  return os.str();
}

class AttentionEmitter {
public:
  AttentionEmitter(const AttentionForwardSpec &spec, AttentionTileConfig tile)
      : spec(spec), tile(tile), layout(attentionLayout(spec, tile)) {
    upper = spec.masks().hasUpper();
    left = spec.masks().hasLeft();
    dropout = spec.dropoutProbability > 0.0;
    // Folding the scale into the exp2 argument needs max(scale * x) =
    // scale * max(x): a positive scale and no modifier in between but one
    // that only masks (x or -inf either way). Otherwise a score pass
    // computes s = scale * x (and runs the modifier, if any).
    foldScale = spec.scale > 0.0 && (spec.scoreModifier.empty() || spec.scoreModifierMasksOnly);
    modifier = !spec.scoreModifier.empty() || !foldScale;
    // The distance table: two buffers per compute warpgroup of one tile's
    // distances (4 warps of rows + the tile's keys), static shared memory
    // beside the launch's (and the barriers' kilobyte).
    const unsigned tableBytes =
        unsigned(tile.warps / 4) * 2 * unsigned(4 * tile.blockM / tile.warps + tile.blockN) * 4;
    // A key bound narrows the prefill kernels' key ranges; decode ignores it.
    keyBound = spec.keyBound.has_value() && !spec.scoreModifier.empty() && !spec.decode;
    distanceTable = modifier && !spec.distanceTerm.empty() && tile.warpSpecialized && !spec.decode &&
                    layout.totalBytes + tableBytes + 1024 <= maxSharedBytesPerBlock(spec.target.arch);
  }

  AttentionKernel emit();

private:
  std::string headerComment() const;
  std::string configuration() const;
  std::string scoreMod() const;
  std::string entryPoint() const;
  std::string entryName() const;

  const AttentionForwardSpec &spec;
  AttentionTileConfig tile;
  AttentionSmemLayout layout;
  bool upper, left, dropout, modifier, foldScale, distanceTable, keyBound;
};

std::string AttentionEmitter::headerComment() const {
  std::ostringstream os;
  os << "// tgc fused attention forward (generated by tg::codegen; edit the generator,\n"
     << "// not this file).\n//\n";
  os << "// spec:  " << toString(spec.elementType) << ", head dim qk " << spec.headDimQK
     << " / v " << spec.headDimV << ", " << spec.numHeadsQ << " query heads / "
     << spec.numHeadsKV << " kv heads\n";
  os << "//        causal " << toString(spec.causal) << ", window left "
     << (spec.windowLeft ? std::to_string(*spec.windowLeft) : "none") << " right "
     << (spec.windowRight ? std::to_string(*spec.windowRight) : "none") << ", padding q "
     << (spec.hasSeqLenQ ? "yes" : "no") << " kv " << (spec.hasSeqLenKv ? "yes" : "no")
     << (spec.ragged ? ", ragged (cu_seqlens)" : "")
     << (spec.paged ? ", paged K/V (" + std::to_string(spec.pageSize) + " keys per page)" : "")
     << (spec.decode ? ", decode (" + std::to_string(spec.decodeRows) + " packed rows, split KV)" : "")
     << (keyBound ? ", key bound" : "") << "\n";
  os << "//        dropout " << spec.dropoutProbability << ", training "
     << (spec.training ? "yes" : "no") << ", scale " << spec.scale
     << ", score modifier "
     << (!modifier ? "no" : foldScale ? "yes (masks only, scale folded)" : "yes") << ", "
     << spec.captures.size() << " captures\n";
  os << "// tile:  " << tile.blockM << " query rows x " << tile.blockN << " keys, "
     << tile.warps << " warps of " << tile.blockM * tile.keyWarps / tile.warps << " rows"
     << (tile.keyWarps > 1 ? " x " + std::to_string(tile.blockN / tile.keyWarps) + " keys" : "")
     << ", Q in "
     << (tile.qInRegisters ? "registers" : "shared memory") << ", "
     << (tile.stages > 2   ? "a ring of " + std::to_string(tile.stages) + " K/V buffers"
         : tile.stages == 2 ? std::string("K/V double-buffered")
                            : std::string("single K and V buffers (split loads)"))
     << ", "
     << (tile.wgmma ? "wgmma (sm_90a), " : "mma.sync, ")
     << (tile.warpSpecialized ? tile.pingPong ? "a copying warpgroup, ping-pong, "
                                              : "a copying warpgroup, "
                              : "")
     << layout.totalBytes << " bytes of shared memory\n";
  os << "//\n// Stages per CTA: load Q -> for each visible K/V tile (the next one in flight):\n"
     << "// S = Q K^T -> "
     << (modifier ? "score modifier -> " : "") << "masks (boundary tiles only) -> online softmax -> "
     << (dropout ? "dropout -> " : "") << "O += P V -> epilogue: O / rowsum"
     << (spec.training ? ", log-sum-exp" : "") << ".\n";
  return os.str();
}

std::string AttentionEmitter::configuration() const {
  SourceTemplate t;
  t.set("ELEM", deviceElem(spec.elementType))
      .set("OUT_ELEM", deviceElem(spec.outputElementType()))
      .set("HEAD_DIM_QK", spec.headDimQK)
      .set("HEAD_DIM_V", spec.headDimV)
      .set("BLOCK_M", tile.blockM)
      .set("BLOCK_N", tile.blockN)
      .set("WARPS", tile.warps)
      .set("KEY_WARPS", tile.keyWarps)
      .set("MIN_BLOCKS", tile.minBlocksPerSM)
      .set("STAGES", tile.stages)
      .set("PREFETCH", tile.prefetch)
      .set("Q_IN_REGISTERS", boolName(tile.qInRegisters))
      .set("WGMMA", boolName(tile.wgmma))
      .set("WARP_SPECIALIZED", boolName(tile.warpSpecialized))
      .set("PING_PONG", boolName(tile.pingPong))
      .set("SMEM", layout.totalBytes)
      .set("GROUP", spec.numHeadsQ / spec.numHeadsKV)
      .set("MASKS_AND_DROPOUT", maskAndDropoutConstants(spec.masks(), spec.dropoutProbability))
      .set("SCORE_MOD", boolName(modifier))
      .set("SCORE_SCALE", floatLiteral(foldScale ? 1.0 : spec.scale))
      .set("SOFTMAX_SCALE_LOG2", floatLiteral(foldScale ? spec.scale * kLog2e : kLog2e))
      .set("SOFTMAX_SCALE", floatLiteral(foldScale ? spec.scale : 1.0))
      .set("SOFTMAX_SCALE_NOTE", !foldScale ? "x is the score after scaling and the score modifier"
                                 : modifier ? "x is the raw dot product q.k, masked: the score scale is folded in"
                                            : "x is the raw dot product q.k: the score scale is folded in")
      .set("SUBTRACT_MAX_FIRST", boolName(!foldScale))
      .set("TRAINING", boolName(spec.training))
      .set("RAGGED", boolName(spec.ragged))
      .set("PAGED", boolName(spec.paged))
      .set("PAGE_SIZE", spec.paged ? spec.pageSize : 1)
      .set("PAGE_CACHE", spec.paged && spec.decode ? kDecodePageCacheEntries : 0)
      .set("DECODE", boolName(spec.decode))
      .set("DOCUMENT_MASK", boolName(spec.documentMask.has_value()))
      .set("KEY_LIMIT", boolName(keyBound && !spec.keyBound->limit.empty()))
      .set("KEY_BOUND_ROWS", boolName(keyBound && spec.keyBound->rowOffset))
      .set("KEY_BOUND_ROW_OFFSET", keyBound && spec.keyBound->rowOffset ? *spec.keyBound->rowOffset : 0)
      .set("DISTANCE_TABLE", boolName(distanceTable));
  return t.expand(R"cuda(
// ---------------------------------------------------------------------------
// Configuration (device/attention_fwd.cuh: ForwardTraits, attention_forward)
// ---------------------------------------------------------------------------
struct ForwardConfig {
  static constexpr tg::device::Elem kElem = $(ELEM);
  static constexpr tg::device::Elem kOutElem = $(OUT_ELEM);  // o's type (fp8 inputs: fp8, bf16 or f16)
  static constexpr int kHeadDimQK = $(HEAD_DIM_QK), kHeadDimV = $(HEAD_DIM_V);
  static constexpr int kBlockM = $(BLOCK_M);  // query rows per CTA
  static constexpr int kBlockN = $(BLOCK_N);  // keys per K/V tile
  static constexpr int kWarps = $(WARPS);
  static constexpr int kKeyWarps = $(KEY_WARPS);  // warps that split a key tile (decode)
  static constexpr int kMinBlocksPerSM = $(MIN_BLOCKS);  // occupancy the register budget is sized for
  static constexpr int kStages = $(STAGES);              // K and V buffers in shared memory
  static constexpr int kFragmentPrefetch = $(PREFETCH);  // mma.sync: ldmatrix this many steps ahead
  static constexpr bool kQInRegisters = $(Q_IN_REGISTERS);  // mma.sync: Q fragments loaded once
  static constexpr bool kWgmma = $(WGMMA);                  // sm_90a warpgroup mma (else mma.sync)
  static constexpr bool kWarpSpecialized = $(WARP_SPECIALIZED);  // wgmma: a warpgroup copies, kWarps compute
  static constexpr bool kPingPong = $(PING_PONG);                // the compute warpgroups take turns
  static constexpr unsigned kSharedBytes = $(SMEM);      // dynamic shared memory of the launch
  static constexpr long long kQueryHeadsPerKvHead = $(GROUP);  // GQA: kv head = h / this
  // Score modifier: s = kScoreScale * (q . k), then ScoreMod::apply.
  static constexpr bool kScoreMod = $(SCORE_MOD);
  static constexpr float kScoreScale = $(SCORE_SCALE);
  // Softmax in base 2: exp(s - max s) = exp2(x * kSoftmaxScaleLog2 - max_x * kSoftmaxScaleLog2),
  // where $(SOFTMAX_SCALE_NOTE).
  static constexpr float kSoftmaxScaleLog2 = $(SOFTMAX_SCALE_LOG2);
  // Scores may be huge finite values (additive finfo.min masks): the online
  // softmax subtracts the max before scaling (softmax.cuh). Raw dot products,
  // masked or not, need no such care.
  static constexpr bool kSubtractMaxFirst = $(SUBTRACT_MAX_FIRST);
  static constexpr bool kTraining = $(TRAINING);  // also write the log-sum-exp
  static constexpr float kSoftmaxScale = $(SOFTMAX_SCALE);  // kSoftmaxScaleLog2 in natural units
$(MASKS_AND_DROPOUT)
  // Document mask: each CTA's keys narrowed to its rows' documents
  // (ScoreMod::document_of_query, document_of_key).
  static constexpr bool kDocumentMask = $(DOCUMENT_MASK);
  // Key bound (prefix-LM): the modifier masks the keys of row q at or past
  // max(ScoreMod::key_limit(b, h) if kKeyLimit, q + kKeyBoundRowOffset if
  // kKeyBoundRows); each CTA's keys end at its last row's bound.
  static constexpr bool kKeyLimit = $(KEY_LIMIT);
  static constexpr bool kKeyBoundRows = $(KEY_BOUND_ROWS);
  static constexpr int kKeyBoundRowOffset = $(KEY_BOUND_ROW_OFFSET);
  // Distance table: the modifier's term of q_idx - kv_idx tabulated per tile
  // and warpgroup (ScoreMod::distance_term, read as distance.at).
  static constexpr bool kDistanceTable = $(DISTANCE_TABLE);
  // Packed sequences: seq_lens_* are the cu_seqlens offsets (ForwardParams).
  static constexpr bool kRagged = $(RAGGED);
  // Paged K/V cache: keys read through the page table (ForwardParams).
  static constexpr bool kPaged = $(PAGED);
  static constexpr int kPageSize = $(PAGE_SIZE);
  static constexpr int kPageCacheEntries = $(PAGE_CACHE);  // decode: a split's page indices in shared memory
  // Decode: the GQA group's query rows packed in one tile, split KV.
  static constexpr bool kDecode = $(DECODE);
};
)cuda");
}

std::string AttentionEmitter::scoreMod() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Score modifier (tg.attention's score region). Captured tensors broadcast
// to [B, Hq, Sq, Skv] through their strides (0 along broadcast dimensions);
// table captures (tg.gather) are read at indices the modifier computes, each
// clamped to its dimension.
// ---------------------------------------------------------------------------
struct Captures {
)cuda";
  for (const AttentionCapture &c : spec.captures) {
    CaptureAccess info = captureAccess(c.type);
    if (c.tableRank > 0) {
      os << tableCaptureFields(c, info);
      continue;
    }
    os << "  const " << info.pointerType << " *" << c.name << ";  // " << toString(c.type)
       << "\n  long long " << c.name << "_stride_b, " << c.name << "_stride_h, " << c.name
       << "_stride_q, " << c.name << "_stride_kv;\n";
  }
  if (spec.captures.empty())
    os << "  int unused;  // no captured tensors\n";
  os << "};\n";
  for (const AttentionCapture &c : spec.captures) {
    CaptureAccess info = captureAccess(c.type);
    if (c.tableRank > 0) {
      os << tableCaptureReaders(c, info);
      continue;
    }
    os << "\n__device__ __forceinline__ " << info.valueType << " load_capture_" << c.name
       << "(const Captures &captures, long long b, long long h, long long q_idx,\n"
       << "                                                long long kv_idx) {\n"
       << "  const " << info.pointerType << " raw = captures." << c.name << "["
       << captureOffset(c, "captures." + c.name + "_") << "];\n"
       << "  return " << info.convert << ";\n}\n";
  }
  // The modifier's statements see s, b, h, q_idx, kv_idx, the captures (by
  // name for element captures, through `captures` for tables) and the
  // device library's helpers (neg_inf, ...). The loop over a tile's scores
  // is written here, around the statements, rather than calling a
  // per-element function from the library: measured with
  // tgc-kernel-fingerprint, a per-element call lets the optimiser turn the
  // modifier's branches into selects first and spills up to 4x more
  // (d64_f16_document_prefix_tables_fill_training).
  os << R"cuda(
struct ScoreMod {
  Captures captures;
  // Rewrites each score s = kScoreScale * (q . k) of one tile (the mma
  // accumulator layout, device/mma.cuh: rows warp_row0 + 16 m + lane / 4 + 8 half,
  // keys n0 + 8 n + 2 (lane % 4) + j). Rows and keys past the end of the
  // tensors are clamped to the last one: their scores are never used (rows
  // are not stored, keys are masked) and captures are never read out of bounds.
  // (Decode, K::kDecode: h is the GQA group's first query head and tile row
  // r is query r % Sq of head h + r / Sq, rows past the group clamped.)
  // kSameDocument: the tile lies in the CTA's one document (device/documents.cuh),
  // so the region's document test is known true.
  // `distance`: the region's term of q_idx - kv_idx for the tile where
  // kDistanceTable (ScoreMod::distance_term), else unread.
  template <class K, bool kSameDocument = false>
  __device__ __forceinline__ void apply(float (&scores)[K::kMTiles][K::kNTiles][4], long long b,
                                        long long h_tile, int warp_row0, int n0, int lane,
                                        long long seq_len_q, long long seq_len_kv,
                                        const tg::device::DistanceTable &distance) const {
    using namespace tg::device;
#pragma unroll
    for (int m = 0; m < K::kMTiles; ++m) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        long long q_idx = warp_row0 + m * 16 + lane / 4 + 8 * half;
        long long h = h_tile;
        if constexpr (K::kDecode) {
          const long long rows = K::kQueryHeadsPerKvHead * seq_len_q;
          const long long row = q_idx < rows ? q_idx : rows - 1;
          h = h_tile + row / seq_len_q;
          q_idx = row % seq_len_q;
        }
        q_idx = q_idx < seq_len_q ? q_idx : seq_len_q - 1;
#pragma unroll
        for (int n = 0; n < K::kNTiles; ++n) {
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            // (in int: sizes are below 2^31, and the region's index
            // arithmetic narrows to 32 bits where it can, ScalarExpr.h)
            const long long kv_idx = imin(n0 + n * 8 + 2 * (lane % 4) + j, static_cast<int>(seq_len_kv) - 1);
            float s = scores[m][n][2 * half + j] * K::kScoreScale;
)cuda";
  for (const AttentionCapture &c : spec.captures)
    if (c.tableRank == 0)
      os << "            const " << captureAccess(c.type).valueType << " " << c.name
         << " = load_capture_" << c.name << "(captures, b, h, q_idx, kv_idx);\n";
  os << "            {  // --- score modifier ---\n"
     << indent(distanceTable ? spec.scoreModifierTabulated : spec.scoreModifier, "              ")
     << "            }  // --- end of score modifier ---\n"
     << R"cuda(            scores[m][n][2 * half + j] = s;
          }
        }
      }
    }
  }
)cuda";
  if (distanceTable)
    os << distanceTermMember(spec.distanceTerm, "attention_fwd_ws.cuh");
  if (keyBound && !spec.keyBound->limit.empty())
    os << "  // The key bound's limit (the modifier masks the keys of row q at or past\n"
       << "  // max(limit, q + kKeyBoundRowOffset); device/key_bounds.cuh).\n"
       << "  __device__ __forceinline__ long long key_limit(long long b, long long h) const {\n"
       << "    using namespace tg::device;\n"
       << "    return " << spec.keyBound->limit << ";\n  }\n";
  if (spec.documentMask)
    os << "  // The document ids of the document mask (the modifier masks keys of another\n"
       << "  // document; these reads are the same as its own).\n"
       << "  __device__ __forceinline__ long long document_of_query(long long b, long long h,\n"
       << "                                                       long long q_idx) const {\n"
       << "    using namespace tg::device;\n"
       << "    return " << spec.documentMask->queryId << ";\n  }\n"
       << "  __device__ __forceinline__ long long document_of_key(long long b, long long h,\n"
       << "                                                     long long kv_idx) const {\n"
       << "    using namespace tg::device;\n"
       << "    return " << spec.documentMask->keyId << ";\n  }\n";
  os << "};\n";
  return os.str();
}

std::string AttentionEmitter::entryName() const {
  // FNV-1a over the spec summary keeps names of different variants distinct
  // in logs and profiles.
  std::string summary = headerComment() + spec.scoreModifier;
  uint32_t hash = 2166136261u;
  for (unsigned char c : summary)
    hash = (hash ^ c) * 16777619u;
  char buf[96];
  std::snprintf(buf, sizeof(buf), "tg_attention_fwd_%s_d%d_%08x", toString(spec.elementType),
                spec.headDimQK, hash);
  return buf;
}

std::string AttentionEmitter::entryPoint() const {
  std::ostringstream os;
  os << R"cuda(
// ---------------------------------------------------------------------------
// Entry point: one CTA per (query tile, query head, batch)
// ---------------------------------------------------------------------------
extern "C" __global__ void __launch_bounds__(tg::device::ForwardTraits<ForwardConfig>::kThreads,
                                             ForwardConfig::kMinBlocksPerSM)
)cuda";
  os << entryName() << "(\n";
  // (fp8: q, k, v and an fp8 o are bytes, seen by the kernel as 16-bit words)
  const bool fp8 = isFp8(spec.elementType);
  const char *in = fp8 ? "unsigned char" : "unsigned short";
  const char *out = isFp8(spec.outputElementType()) ? "unsigned char" : "unsigned short";
  os << "    const " << in << " *__restrict__ q, const " << in << " *__restrict__ k,\n"
     << "    const " << in << " *__restrict__ v, " << out << " *__restrict__ o,";
  os << R"cuda( float *__restrict__ lse,
    const int *__restrict__ seq_lens_q, const int *__restrict__ seq_lens_kv,
    const long long *__restrict__ dropout_seed, const long long *__restrict__ dropout_offset,
    long long batch, long long num_heads_q, long long seq_len_q, long long seq_len_kv,)cuda";
  if (spec.ragged)
    os << "\n    long long tokens_q, long long tokens_kv,";
  if (spec.paged)
    os << "\n    const int *__restrict__ page_table, long long page_table_stride, long long num_pages,";
  if (spec.decode)
    os << "\n    float *__restrict__ o_partial, float *__restrict__ lse_partial,";
  os << R"cuda(
    long long q_stride_b, long long q_stride_h, long long q_stride_s,
    long long k_stride_b, long long k_stride_h, long long k_stride_s,
    long long v_stride_b, long long v_stride_h, long long v_stride_s,
    long long o_stride_b, long long o_stride_h, long long o_stride_s)cuda";
  if (fp8)
    os << R"cuda(,
    const float *__restrict__ descale_q, const float *__restrict__ descale_k,
    const float *__restrict__ descale_v, const float *__restrict__ descale_s,
    const float *__restrict__ scale_s, const float *__restrict__ scale_o, float *__restrict__ amax_s,
    float *__restrict__ amax_o, const unsigned char *__restrict__ v_t, long long v_t_pitch)cuda";
  for (const AttentionCapture &c : spec.captures) {
    if (c.tableRank > 0) {
      os << tableCaptureParams(c, captureAccess(c.type));
      continue;
    }
    os << ",\n    const " << captureAccess(c.type).pointerType << " *__restrict__ capture_" << c.name
       << ", long long " << c.name << "_stride_b, long long " << c.name << "_stride_h, long long "
       << c.name << "_stride_q, long long " << c.name << "_stride_kv";
  }
  if (fp8) {
    // Bytes as 16-bit words: pointers cast, strides halved (they are
    // multiples of 16 elements).
    const std::string o = isFp8(spec.outputElementType()) ? "reinterpret_cast<unsigned short *>(o)" : "o";
    const char *oHalf = isFp8(spec.outputElementType()) ? " / 2" : "";
    os << ") {\n  " << tgc::kEarlyLaunchWait << R"cuda(;
  using words = const unsigned short *;
  const tg::device::ForwardParams params{
      reinterpret_cast<words>(q), reinterpret_cast<words>(k), reinterpret_cast<words>(v), )cuda"
       << o << R"cuda(, lse,
      seq_lens_q, seq_lens_kv, dropout_seed, dropout_offset, batch, num_heads_q, seq_len_q, seq_len_kv,
      q_stride_b / 2, q_stride_h / 2, q_stride_s / 2, k_stride_b / 2, k_stride_h / 2, k_stride_s / 2,
      v_stride_b / 2, v_stride_h / 2, v_stride_s / 2, )cuda"
       << "o_stride_b" << oHalf << ", o_stride_h" << oHalf << ", o_stride_s" << oHalf << R"cuda(,
      0, 0, nullptr, 0, 0, nullptr, nullptr,
      descale_q, descale_k, descale_v, descale_s, scale_s, scale_o, amax_s, amax_o,
      reinterpret_cast<words>(v_t), v_t_pitch / 2};
)cuda";
  } else {
    os << ") {\n  " << tgc::kEarlyLaunchWait << R"cuda(;
  const tg::device::ForwardParams params{
      q, k, v, o, lse, seq_lens_q, seq_lens_kv, dropout_seed, dropout_offset,
      batch, num_heads_q, seq_len_q, seq_len_kv,
      q_stride_b, q_stride_h, q_stride_s, k_stride_b, k_stride_h, k_stride_s,
      v_stride_b, v_stride_h, v_stride_s, o_stride_b, o_stride_h, o_stride_s,
      )cuda" << (spec.ragged ? "tokens_q, tokens_kv" : "0, 0")
       << (spec.paged ? ", page_table, page_table_stride, num_pages" : ", nullptr, 0, 0")
       << (spec.decode ? ", o_partial, lse_partial" : ", nullptr, nullptr") << R"cuda(};
)cuda";
  }
  if (!modifier) {
    os << "  tg::device::attention_forward<ForwardConfig>(params, tg::device::NoScoreMod{});\n}\n";
    return os.str();
  }
  os << "  const Captures captures{";
  if (spec.captures.empty())
    os << "0";
  for (size_t i = 0; i < spec.captures.size(); ++i) {
    const std::string &n = spec.captures[i].name;
    os << (i ? ",\n                          " : "");
    if (spec.captures[i].tableRank > 0) {
      os << tableCaptureInitializer(spec.captures[i]);
      continue;
    }
    os << "capture_" << n << ", " << n << "_stride_b, " << n << "_stride_h, " << n
       << "_stride_q, " << n << "_stride_kv";
  }
  os << "};\n  tg::device::attention_forward<ForwardConfig>(params, ScoreMod{captures});\n}\n";
  return os.str();
}

AttentionKernel AttentionEmitter::emit() {
  std::string src = headerComment();
  src += deviceLibrarySource({"attention_fwd.cuh"});
  src += configuration();
  if (modifier)
    src += scoreMod();
  src += entryPoint();

  AttentionKernel k;
  k.source = std::move(src);
  k.entry = entryName();
  k.tile = tile;
  k.threads = unsigned(tile.warps + (tile.warpSpecialized ? 4 : 0)) * 32;
  k.sharedBytes = layout.totalBytes;
  k.numParams = 25 + (spec.ragged ? 2 : 0) + (spec.paged ? 3 : 0) + (spec.decode ? 2 : 0) +
                (isFp8(spec.elementType) ? 10 : 0);
  if (isFp8(spec.elementType)) {
    char entry[96];
    std::snprintf(entry, sizeof(entry), "tg_attention_fp8_prepare_v_dv%d", spec.headDimV);
    constexpr unsigned kPrepareThreads = 256;
    constexpr unsigned kPrepareKeys = 64;
    std::ostringstream os;
    os << "// tgc FP8 attention: V transposed for the forward's P V (generated by\n"
       << "// tg::codegen; the kernel is device/attention_fp8_prepare.cuh)\n";
    os << deviceLibrarySource({"attention_fp8_prepare.cuh"});
    os << "\nextern \"C\" __global__ void __launch_bounds__(" << kPrepareThreads << ")\n"
       << entry << "(const unsigned char *__restrict__ v, long long stride_b, long long stride_h,\n"
       << "    long long stride_s, const int *__restrict__ seq_lens_kv, long long seq_len_kv,\n"
       << "    unsigned char *__restrict__ v_t, long long pitch) {\n"
       << "  " << tgc::kEarlyLaunchWait << ";\n"
       << "  tg::device::prepare_v_fp8<" << spec.headDimV << ", " << kPrepareThreads << ", " << kPrepareKeys
       << ">(v, stride_b, stride_h, stride_s, seq_lens_kv, seq_len_kv, v_t, pitch);\n}\n";
    k.prepareSource = os.str();
    k.prepareEntry = entry;
    k.prepareThreads = kPrepareThreads;
    k.prepareKeysPerBlock = kPrepareKeys;
  }
  if (spec.decode) {
    const char *elem = spec.elementType == AttentionElementType::BF16 ? "BF16" : "F16";
    char entry[96];
    std::snprintf(entry, sizeof(entry), "tg_attention_decode_combine_%s_dv%d", toString(spec.elementType),
                  spec.headDimV);
    std::ostringstream os;
    os << "// tgc split-KV decode: combine (generated by tg::codegen; the kernel is\n"
       << "// device/attention_decode_combine.cuh)\n";
    os << deviceLibrarySource({"attention_decode_combine.cuh"});
    os << "\nextern \"C\" __global__ void __launch_bounds__(" << kDecodeCombineThreads << ")\n"
       << entry << "(const float *__restrict__ o_partial, const float *__restrict__ lse_partial,\n"
       << "    unsigned short *__restrict__ o, long long splits, long long batch, long long num_heads_q,\n"
       << "    long long seq_q, long long o_stride_b, long long o_stride_h, long long o_stride_s) {\n"
       << "  " << tgc::kEarlyLaunchWait << ";\n"
       << "  tg::device::attention_decode_combine<tg::device::Elem::" << elem << ", " << spec.headDimV
       << ", " << kDecodeCombineThreads / 128 << ">(o_partial, lse_partial, o, splits, batch, num_heads_q, seq_q,\n"
       << "      o_stride_b, o_stride_h, o_stride_s);\n}\n";
    k.combineSource = os.str();
    k.combineEntry = entry;
    k.combineRowsPerBlock = 128 / (spec.headDimV / 8);
  }
  for (const AttentionCapture &c : spec.captures)
    k.numParams += c.tableRank > 0 ? tableCaptureParamCount(c) : 5;
  k.requiredTarget = tile.wgmma ? "sm_90a" : "";
  return k;
}

} // namespace

std::optional<AttentionKernel> generateAttentionForward(const AttentionForwardSpec &spec,
                                                        std::string *error) {
  std::string problem = validateAttentionSpec(spec);
  if (!problem.empty()) {
    if (error)
      *error = problem;
    return std::nullopt;
  }
  AttentionTileConfig tile = spec.tileOverride ? *spec.tileOverride : defaultAttentionTile(spec);
  return AttentionEmitter(spec, tile).emit();
}

} // namespace tg::codegen
