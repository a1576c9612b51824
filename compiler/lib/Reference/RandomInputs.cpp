// Seeded random graph inputs. The generator and the mappings to normal and
// uniform values are written out here (not std:: distributions, whose
// output differs between standard libraries) so that a seed gives the same
// inputs everywhere.
#include <type_traits>
#include "tg/Reference/Interpreter.h"

#include "Elements.h"

#include "tg/Dialect/TG/IR/TGOps.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

namespace {
constexpr double kPi = 3.14159265358979323846;

/// splitmix64: turns (seed, argument index) into independent stream seeds.
uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Stream {
public:
  explicit Stream(uint64_t seed) : engine(seed) {}
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine() >> 11) * 0x1p-53; }
  /// Standard normal by Box-Muller (one value per pair of uniforms).
  double normal() {
    double u1 = 1.0 - uniform(); // (0, 1]: log stays finite
    double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * kPi * u2);
  }
  /// Uniform integer in [lo, hi].
  int64_t integer(int64_t lo, int64_t hi) {
    auto span = static_cast<double>(hi - lo + 1);
    auto offset = static_cast<int64_t>(std::floor(uniform() * span));
    return lo + std::min<int64_t>(offset, hi - lo);
  }

private:
  std::mt19937_64 engine;
};

enum class ArgRole { Plain, SeqLen, CuSeqlens, PageTable, RngScalar, Fp8Scale };

struct ArgPlan {
  ArgRole role = ArgRole::Plain;
  int64_t maxLength = 0; // for SeqLen and CuSeqlens
  int64_t tokens = 0;    // for CuSeqlens: the packed tensor's token count;
                         // for PageTable: the number of pages
  double value = 0.0;    // for Fp8Scale
};

/// The value of fp8_scales[index] of an FP8 tg.sdpa / tg.attention for
/// random inputs: q, k, v are already in fp8 range (descales 1), P in [0, 1]
/// is scaled to the largest finite value of q's format (as cudnn-frontend's
/// tests scale it), o is unscaled.
template <typename OpTy> double fp8ScaleValue(OpTy op, unsigned index) {
  Type q = cast<RankedTensorType>(op.getQ().getType()).getElementType();
  double pMax = tgc::formatSpec(classifyElement(q).format).maxFinite;
  if (index == 3) // descale_s
    return 1.0 / pMax;
  if (index == 4) // scale_s
    return pMax;
  return 1.0;
}

/// The logical key length of a paged K/V cache (max_pages * page_size), 0
/// for other ops.
template <typename OpTy> int64_t pagedKeys(OpTy op) {
  if constexpr (std::is_same_v<OpTy, SdpaOp> || std::is_same_v<OpTy, AttentionOp>) {
    if (Value table = op.getPageTable())
      return cast<RankedTensorType>(table.getType()).getShape()[1] *
             cast<RankedTensorType>(op.getK().getType()).getShape()[1];
  }
  return 0;
}

/// Records how `use` of an argument by an attention op constrains it.
void noteAttentionUse(OpOperand &use, ArgPlan &plan) {
  Operation *user = use.getOwner();
  auto visit = [&](auto op) {
    auto seqOf = [](Value v, unsigned dim) {
      return cast<RankedTensorType>(v.getType()).getShape()[dim];
    };
    auto noteLength = [&](int64_t limit) {
      plan.role = ArgRole::SeqLen;
      plan.maxLength =
          plan.maxLength == 0 ? limit : std::min(plan.maxLength, limit);
    };
    if (op.getSeqLenQ() == use.get())
      noteLength(seqOf(op.getQ(), 2));
    if (op.getSeqLenKv() == use.get())
      noteLength(pagedKeys(op) ? pagedKeys(op) : seqOf(op.getK(), 2));
    if (op.getSeed() == use.get() || op.getOffset() == use.get())
      plan.role = ArgRole::RngScalar;
  };
  // The ragged layout's offsets: sequences that fill the packed tensor
  // exactly, none longer than max_seqlen.
  auto visitRagged = [&](auto op) {
    auto note = [&](Value tensor, std::optional<uint64_t> max) {
      plan.role = ArgRole::CuSeqlens;
      plan.tokens = cast<RankedTensorType>(tensor.getType()).getShape()[0];
      plan.maxLength = max ? static_cast<int64_t>(*max) : plan.tokens;
    };
    if (op.getCuSeqlensQ() == use.get())
      note(op.getQ(), op.getMaxSeqlenQ());
    if (op.getCuSeqlensKv() == use.get())
      note(op.getK(), op.getMaxSeqlenKv());
  };
  // A paged cache's page table: indices of existing pages.
  auto visitPaged = [&](auto op) {
    if (op.getPageTable() == use.get()) {
      plan.role = ArgRole::PageTable;
      plan.tokens = cast<RankedTensorType>(op.getK().getType()).getShape()[0];
    }
  };
  if (auto op = dyn_cast<SdpaOp>(user))
    visitPaged(op);
  else if (auto op = dyn_cast<AttentionOp>(user))
    visitPaged(op);
  if (auto op = dyn_cast<SdpaOp>(user))
    visitRagged(op);
  else if (auto op = dyn_cast<AttentionOp>(user))
    visitRagged(op);
  else if (auto op = dyn_cast<SdpaGradOp>(user))
    visitRagged(op);
  else if (auto op = dyn_cast<AttentionGradOp>(user))
    visitRagged(op);
  auto visitFp8 = [&](auto op) {
    for (auto [index, scale] : llvm::enumerate(op.getFp8Scales()))
      if (scale == use.get() && plan.role == ArgRole::Plain) {
        plan.role = ArgRole::Fp8Scale;
        plan.value = fp8ScaleValue(op, index);
      }
  };
  if (auto op = dyn_cast<SdpaOp>(user))
    visitFp8(op);
  else if (auto op = dyn_cast<AttentionOp>(user))
    visitFp8(op);
  if (auto op = dyn_cast<SdpaOp>(user))
    visit(op);
  else if (auto op = dyn_cast<SdpaGradOp>(user))
    visit(op);
  else if (auto op = dyn_cast<AttentionOp>(user))
    visit(op);
  else if (auto op = dyn_cast<AttentionGradOp>(user))
    visit(op);
  else if (auto op = dyn_cast<DropoutOp>(user))
    if (op.getSeed() == use.get() || op.getOffset() == use.get())
      plan.role = ArgRole::RngScalar;
}

/// The smallest dim 2 of the function's rank-4 float arguments: a sequence
/// length valid for both q and kv (0 when there are none).
int64_t smallestSequence(func::FuncOp fn) {
  int64_t length = 0;
  for (Type other : fn.getArgumentTypes()) {
    auto t = cast<RankedTensorType>(other);
    if (t.getRank() == 4 && isa<FloatType>(t.getElementType()))
      length = length == 0 ? t.getShape()[2] : std::min(length, t.getShape()[2]);
  }
  return length;
}

/// Offsets [0, ..., T] of B = size - 1 sequences of random lengths in
/// [1, max] that together fill the T tokens (when B <= T <= B * max; else
/// the lengths are clamped and the last tokens left over).
void fillCuSeqlens(HostTensor &tensor, const ArgPlan &plan, Stream &stream) {
  int64_t batch = static_cast<int64_t>(tensor.values.size()) - 1;
  int64_t max = std::max<int64_t>(1, plan.maxLength);
  SmallVector<int64_t> lengths(batch, 1);
  int64_t spare = std::max<int64_t>(0, std::min(plan.tokens, batch * max) - batch);
  // Hand out the spare tokens in random chunks to sequences with room.
  while (spare > 0) {
    int64_t b = stream.integer(0, batch - 1);
    int64_t room = max - lengths[b];
    if (room == 0)
      continue;
    int64_t add = std::min(spare, stream.integer(1, room));
    lengths[b] += add;
    spare -= add;
  }
  int64_t offset = 0;
  tensor.values[0] = 0.0;
  for (int64_t b = 0; b < batch; ++b) {
    offset = std::min(plan.tokens, offset + lengths[b]);
    tensor.values[b + 1] = static_cast<double>(offset);
  }
}

/// How each argument is drawn: see docs/reference.md, "Random inputs". The
/// name-based rules come first because they depend on the signature only,
/// so a graph and its decomposition (same signature, different uses) get
/// the same inputs.
ArgPlan planArgument(func::FuncOp fn, unsigned index) {
  ArgPlan plan;
  BlockArgument arg = fn.getArgument(index);
  auto type = cast<RankedTensorType>(arg.getType());
  std::string lowered = llvm::StringRef(argumentName(fn, index)).lower();
  llvm::StringRef name(lowered);
  bool intType = isa<IntegerType>(type.getElementType()) &&
                 !type.getElementType().isInteger(1);
  // cu_seqlens are offsets, not lengths, and a paged cache's lengths run to
  // its pages' capacity: their uses decide them below.
  bool pagedUse = llvm::any_of(arg.getUses(), [](OpOperand &use) {
    if (auto op = dyn_cast<SdpaOp>(use.getOwner()))
      return op.isPaged();
    if (auto op = dyn_cast<AttentionOp>(use.getOwner()))
      return op.isPaged();
    return false;
  });
  if (intType && type.getRank() == 1 && !name.contains("cu_seqlen") && !pagedUse &&
      (name.contains("seq_len") || name.contains("seqlen"))) {
    plan.maxLength = smallestSequence(fn);
    if (plan.maxLength > 0) {
      plan.role = ArgRole::SeqLen;
      return plan;
    }
  }
  if (type.getRank() == 0 && type.getElementType().isInteger(64) &&
      (name == "seed" || name == "offset" || name.ends_with("_seed") ||
       name.ends_with("_offset"))) {
    plan.role = ArgRole::RngScalar;
    return plan;
  }
  for (OpOperand &use : arg.getUses())
    noteAttentionUse(use, plan);
  return plan;
}
} // namespace

SmallVector<HostTensor>
mlir::tg::ref::makeRandomInputs(func::FuncOp fn,
                                const RandomInputOptions &options) {
  SmallVector<HostTensor> inputs;
  for (unsigned i = 0; i < fn.getNumArguments(); ++i) {
    auto type = cast<RankedTensorType>(fn.getArgument(i).getType());
    HostTensor tensor = HostTensor::zeros(type);
    ElementInfo info = classifyElement(type.getElementType());
    ArgPlan plan = planArgument(fn, i);
    Stream stream(splitmix64(options.seed ^ splitmix64(i + 1)));
    if (plan.role == ArgRole::CuSeqlens) {
      fillCuSeqlens(tensor, plan, stream);
      inputs.push_back(std::move(tensor));
      continue;
    }
    for (double &value : tensor.values) {
      switch (plan.role) {
      case ArgRole::SeqLen:
        value = static_cast<double>(stream.integer(1, plan.maxLength));
        continue;
      case ArgRole::PageTable:
        value = static_cast<double>(stream.integer(0, std::max<int64_t>(plan.tokens, 1) - 1));
        continue;
      case ArgRole::RngScalar:
        value = static_cast<double>(stream.integer(0, (int64_t{1} << 53) - 1));
        continue;
      case ArgRole::Fp8Scale:
        value = roundValue(info, plan.value);
        continue;
      case ArgRole::Plain:
        break;
      }
      if (info.isFloat())
        value = roundValue(info, options.stddev * stream.normal());
      else if (info.isBool())
        value = static_cast<double>(stream.integer(0, 1));
      else if (info.bits == 4)
        value = static_cast<double>(stream.integer(-8, 7));
      else if (info.bits == 8)
        value = static_cast<double>(stream.integer(-128, 127));
      else
        value = static_cast<double>(stream.integer(-1024, 1024));
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}
