// tg-mixed-matmul-plan: run each mixed-input matmul (16-bit activations x
// i4/i8/fp8 weights) as it is (cuDNN's mixed-input graph), as a dequantise
// step into a 16-bit tensor followed by a 16-bit matmul, whichever the
// committed H200 measurements say is faster, or as forced; or on the
// generated mixed-input kernel (NVRTC), when asked for.
#include "FusionUtils.h"

#include "tg/Backend/Backend.h"
#include "tg/Dialect/TG/IR/Backend.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/MixedMatmulKernel.h"
#include "tg/Transforms/MixedMatmulTable.h"
#include "tg/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::tg {
#define GEN_PASS_DEF_MIXEDMATMULPLAN
#include "tg/Transforms/Passes.h.inc"
} // namespace mlir::tg

using namespace mlir;
using namespace mlir::tg;
using fusion::elementTypeOf;
using fusion::shapeOf;

static bool is16Bit(Type t) { return t.isF16() || t.isBF16(); }

namespace {
/// A tg.matmul or tg.fused_matmul seen as x . w with a narrow w.
struct MixedMatmul {
  Operation *op;
  Type activation;   // the 16-bit type a enters the product as
  Type weightMatmul; // the type w enters the product as (after prologue_b)

  Value a() const { return op->getOperand(0); }
  Value w() const { return op->getOperand(1); }
  Region *prologueB() const {
    auto fused = dyn_cast<FusedMatmulOp>(op);
    return fused && !fused.getPrologueB().empty() ? &fused.getPrologueB()
                                                  : nullptr;
  }
  ValueRange weightCaptures() const {
    if (auto fused = dyn_cast<FusedMatmulOp>(op))
      return fused.getBCaptures();
    return {};
  }
};
} // namespace

/// `op` as a mixed-input matmul: a enters the product as bf16/f16, b is i8
/// or fp8 and enters it as a 16-bit type or as it is (then converted to a's
/// type, exactly, as tg.matmul defines).
static std::optional<MixedMatmul> asMixed(Operation *op) {
  MixedMatmul m{op, Type(), Type()};
  if (auto fused = dyn_cast<FusedMatmulOp>(op)) {
    m.activation = fused.getPrologueResultType(0);
    m.weightMatmul = fused.getPrologueResultType(1);
  } else if (auto plain = dyn_cast<MatmulOp>(op)) {
    m.activation = elementTypeOf(plain.getA());
    m.weightMatmul = elementTypeOf(plain.getB());
  } else {
    return std::nullopt;
  }
  if (!is16Bit(m.activation) || !isNarrowWeightType(elementTypeOf(m.w())))
    return std::nullopt;
  if (!is16Bit(m.weightMatmul) && !isNarrowWeightType(m.weightMatmul))
    return std::nullopt;
  return m;
}

static MixedMatmulShape shapeFor(const MixedMatmul &m) {
  ArrayRef<int64_t> result = shapeOf(m.op->getResult(0));
  MixedMatmulShape shape;
  shape.weight = fusion::typeName(elementTypeOf(m.w()));
  // "Scaled": the dequantisation reads a tensor besides the weight (a
  // per-channel or per-tensor scale); the table measures both kinds.
  shape.scaled = !m.weightCaptures().empty();
  shape.m = 1;
  for (int64_t dim : result.drop_back())
    shape.m *= dim;
  shape.k = shapeOf(m.a()).back();
  shape.n = result.back();
  return shape;
}

/// The dequant plan: prologue_b applied to the whole weight as graph-level
/// ops (region ops round like graph ops, so every element is the value the
/// region yields for it), a cast to the activation type where the weight
/// still enters the product narrow, and the op reading that tensor with an
/// empty prologue_b.
static void dequantise(const MixedMatmul &m) {
  OpBuilder b(m.op);
  Location loc = m.op->getLoc();
  auto weightType = cast<RankedTensorType>(m.w().getType());
  Value weight = m.w();
  if (Region *prologue = m.prologueB()) {
    Block &block = prologue->front();
    IRMapping mapping;
    mapping.map(block.getArgument(0), weight);
    for (auto [index, capture] : llvm::enumerate(m.weightCaptures()))
      mapping.map(block.getArgument(1 + index), capture);
    for (Operation &inner : block.without_terminator())
      fusion::rebuildOnTensors(b, inner, mapping);
    weight = mapping.lookup(block.getTerminator()->getOperand(0));
    // A region whose value does not depend on the element still gives one
    // value per weight element.
    if (shapeOf(weight) != weightType.getShape())
      weight = BroadcastOp::create(
          b, loc, weightType.clone(elementTypeOf(weight)), weight);
  }
  if (!is16Bit(elementTypeOf(weight)))
    weight = CastOp::create(b, loc, weightType.clone(m.activation), weight);

  m.op->setOperand(1, weight);
  if (auto fused = dyn_cast<FusedMatmulOp>(m.op)) {
    fused.getBCapturesMutable().clear();
    fused.getPrologueB().getBlocks().clear();
  }
}

namespace {
struct MixedMatmulPlanPass
    : tg::impl::MixedMatmulPlanBase<MixedMatmulPlanPass> {
  using MixedMatmulPlanBase::MixedMatmulPlanBase;

  /// The plan for `m` and why.
  MixedMatmulChoice choose(const MixedMatmul &m,
                           const BackendsDialectInterface &backends) {
    if (plan == "fused")
      return {MixedMatmulPlan::Fused, "requested (fused)"};
    if (plan == "dequant")
      return {MixedMatmulPlan::Dequant, "requested (dequant)"};
    std::optional<Backend> requested = getBackend(m.op);
    if (!requested)
      requested = symbolizeBackend(backend);
    if (requested == Backend::nvrtc)
      return {MixedMatmulPlan::Fused,
              "bound for nvrtc; the op stays as it is (the NVRTC lowering "
              "gives it the mixed-input kernel where that kernel runs it)"};
    // cuDNN binds no 4-bit tensors, so for i4 weights the choice is between
    // dequantising (into a 16-bit weight cuDNN's matmul reads) and the
    // generated kernel.
    bool packedWeight = elementTypeOf(m.w()).isInteger(4);
    if (!packedWeight) {
      std::string unsupported =
          backends.get(Backend::cudnn).unsupportedReason(m.op);
      if (!unsupported.empty())
        return {MixedMatmulPlan::Fused,
                "cuDNN cannot run it (" + unsupported +
                    "); the table measures cuDNN plans, so the op stays as "
                    "it is"};
    }
    MixedMatmulShape shape = shapeFor(m);
    // The generated kernel is NVRTC: an option only when no one asked for
    // cuDNN.
    shape.generatedRuns = requested != Backend::cudnn &&
                          mixedMatmulKernelRefusal(m.op).empty();
    shape.fusedRuns = !packedWeight;
    // A tensor of the prologue that varies along K (group-wise scales or
    // zero points, seen as [K, N]) would reach cuDNN as a copy the size of
    // the weight at 16 bits: more bytes than dequantising.
    if (shape.fusedRuns &&
        llvm::any_of(m.weightCaptures(), [](Value capture) {
          ArrayRef<int64_t> dims = shapeOf(capture);
          return dims.size() >= 2 && dims[dims.size() - 2] != 1;
        })) {
      shape.fusedRuns = false;
      shape.fusedRefusal = "the prologue reads a tensor that varies along K "
                           "(group-wise scales); cuDNN would read it expanded "
                           "to the weight's shape";
    }
    return chooseMixedMatmulPlan(shape);
  }

  void runOnOperation() override {
    if (plan != "auto" && plan != "fused" && plan != "dequant" &&
        plan != "generated") {
      getOperation().emitError("unknown mixed-matmul plan '")
          << plan << "' (expected auto, fused, dequant or generated)";
      return signalPassFailure();
    }
    FailureOr<const BackendsDialectInterface *> backends =
        backendsFor(getOperation(), getArgument());
    if (failed(backends))
      return signalPassFailure();
    SmallVector<MixedMatmul> mixed;
    getOperation().walk([&](Operation *op) {
      if (std::optional<MixedMatmul> m = asMixed(op))
        mixed.push_back(*m);
    });
    if (plan == "generated") {
      // The op stays as it is, on NVRTC, where the lowering gives it the
      // mixed-input kernel; an op that kernel cannot run is an error (the
      // request would otherwise be ignored).
      for (const MixedMatmul &m : mixed) {
        std::string refusal = mixedMatmulKernelRefusal(m.op);
        if (!refusal.empty()) {
          m.op->emitError("--mixed-matmul=generated: the generated "
                          "mixed-input kernel cannot run this matmul (")
              << refusal << ")";
          return signalPassFailure();
        }
        setBackend(m.op, Backend::nvrtc);
        if (explain)
          m.op->emitRemark("mixed-input matmul plan generated: requested "
                           "(the NVRTC mixed-input kernel)");
      }
      return;
    }
    for (const MixedMatmul &m : mixed) {
      MixedMatmulChoice choice = choose(m, **backends);
      StringRef name = choice.plan == MixedMatmulPlan::Dequant     ? "dequant"
                       : choice.plan == MixedMatmulPlan::Generated ? "generated"
                                                                   : "fused";
      if (explain)
        m.op->emitRemark("mixed-input matmul plan ") << name << ": " << choice.why;
      if (choice.plan == MixedMatmulPlan::Dequant)
        dequantise(m);
      else if (choice.plan == MixedMatmulPlan::Generated)
        setBackend(m.op, Backend::nvrtc); // the lowering's mixed-input kernel
    }
  }
};
} // namespace
