// tg.matmul and tg.fused_matmul -> cuDNN matmul graphs.
//
// One graph per op, for cuDNN's runtime-fusion engines:
//   operand (bound) -> [prologue, pointwise op per tg op]
//                   -> [identity conversion to the 16-bit matmul type]
//   matmul (f32 compute) -> [epilogue, pointwise op per tg op] -> result
// Without an epilogue the matmul writes the bound result itself. Operands
// of rank 2 become [1, M, K]. The identity conversion is how cuDNN runs
// mixed-input matmuls (shared/cudnn.md: i8 x f16 ran this way); it is only
// used where it is exact (i8 and fp8 into f16/bf16).
#include "Lowerings.h"
#include "RegionToPointwise.h"
#include "TensorLayout.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::cudnn;

namespace {
/// tg.matmul and tg.fused_matmul seen alike (plain matmuls have no regions).
struct MatmulParts {
  Value operands[2], result;
  Region *prologues[2] = {nullptr, nullptr};
  ValueRange captures[2];
  Region *epilogue = nullptr;
  ValueRange epilogueCaptures;
  Type matmulTypes[2]; // element types entering the product

  explicit MatmulParts(Operation *op) {
    if (auto fused = dyn_cast<FusedMatmulOp>(op)) {
      operands[0] = fused.getA();
      operands[1] = fused.getB();
      result = fused.getResult();
      if (!fused.getPrologueA().empty())
        prologues[0] = &fused.getPrologueA();
      if (!fused.getPrologueB().empty())
        prologues[1] = &fused.getPrologueB();
      captures[0] = fused.getACaptures();
      captures[1] = fused.getBCaptures();
      if (!fused.getEpilogue().empty())
        epilogue = &fused.getEpilogue();
      epilogueCaptures = fused.getEpilogueCaptures();
      matmulTypes[0] = fused.getPrologueResultType(0);
      matmulTypes[1] = fused.getPrologueResultType(1);
      return;
    }
    auto plain = cast<MatmulOp>(op);
    operands[0] = plain.getA();
    operands[1] = plain.getB();
    result = plain.getResult();
    for (unsigned i = 0; i < 2; ++i)
      matmulTypes[i] = cast<ShapedType>(operands[i].getType()).getElementType();
  }
};
} // namespace

static bool is16Bit(Type t) { return t.isF16() || t.isBF16(); }
static bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }
/// Types exact in both f16 and bf16.
static bool isNarrow(Type t) { return t.isInteger(8) || isFp8(t); }

/// How the two operand types reach one 16-bit matmul type: `convert[i]` is
/// the type operand i is converted to (null: used as it is). Returns why
/// cuDNN cannot multiply them exactly, or "".
static std::string planTypes(Type a, Type b, Type convert[2]) {
  convert[0] = convert[1] = Type();
  if (a.isF32() || b.isF32())
    return "an f32 operand (cuDNN may run f32 matmuls on TF32 tensor "
           "cores, rounding inputs to 10 mantissa bits; tg multiplies f32 "
           "values exactly)";
  if (isa<IntegerType>(a) && isa<IntegerType>(b))
    return "integer operands (" + typeText(a) + " x " + typeText(b) +
           ", i32 accumulation) are not lowered to cuDNN";
  for (Type t : {a, b})
    if (!is16Bit(t) && !isNarrow(t))
      return withArticle(t) + " operand (not exact in a 16-bit matmul type)";
  if (is16Bit(a) && is16Bit(b)) {
    if (a != b)
      return "operands of different 16-bit types (" + typeText(a) + " x " +
             typeText(b) + "; neither converts exactly into the other)";
    return "";
  }
  Builder builder(a.getContext());
  if (is16Bit(a)) {
    convert[1] = a;
    return "";
  }
  if (is16Bit(b)) {
    convert[0] = b;
    return "";
  }
  // Both narrow: equal fp8 types may multiply natively (decided with the
  // layout); otherwise both widen to f16, which holds i8 and fp8 exactly.
  if (a == b && isFp8(a))
    return "";
  convert[0] = convert[1] = builder.getF16Type();
  return "";
}

/// Why cuDNN's matmul kernels cannot read or write `dims`/`strides` (the
/// last two dims being the matrix), or "". They load 16-byte vectors along
/// one contiguous matrix dimension; our H200 runs found no engine for
/// attention head dims that break this (shared/cudnn.md), and the same is
/// assumed for plain matmuls.
static std::string layoutProblem(StringRef what, const tgc::cudnn::Tensor &t) {
  size_t rank = t.dims.size();
  int64_t rows = t.dims[rank - 2], cols = t.dims[rank - 1];
  int64_t rowStride = t.strides[rank - 2], colStride = t.strides[rank - 1];
  int64_t contiguous, leading;
  if (colStride == 1 || cols == 1) {
    contiguous = cols;
    leading = rows > 1 ? rowStride : 0;
  } else if (rowStride == 1 || rows == 1) {
    contiguous = rows;
    leading = cols > 1 ? colStride : 0;
  } else {
    return (what + " has neither of its last two dimensions contiguous "
                   "(cuDNN matmul tensors are row- or column-major)")
        .str();
  }
  unsigned bytes = tgc::dtypeSize(t.dtype);
  auto misaligned = [&](int64_t elements) {
    return elements * bytes % 16 != 0;
  };
  if (contiguous > 1 && misaligned(contiguous))
    return (what + " has a contiguous dimension of " + Twine(contiguous) +
            " elements (" + Twine(contiguous * bytes) +
            " bytes); cuDNN's matmul kernels need a multiple of 16 bytes")
        .str();
  if (leading && misaligned(leading))
    return (what + " has a leading stride of " + Twine(leading) +
            " elements, not a multiple of 16 bytes")
        .str();
  for (size_t i = 0; i + 2 < rank; ++i)
    if (t.dims[i] > 1 && misaligned(t.strides[i]))
      return (what + " has a batch stride of " + Twine(t.strides[i]) +
              " elements, not a multiple of 16 bytes")
          .str();
  return "";
}

/// y = identity(x) as a virtual `dtype` tensor laid out like x (packed).
static int64_t convertLike(GraphBuilder &g, int64_t x, DType dtype) {
  const tgc::cudnn::Tensor &t = g.tensor(x);
  SmallVector<int64_t> dims(t.dims.begin(), t.dims.end());
  SmallVector<int64_t> strides = packedStridesLike(t.dims, t.strides);
  int64_t y = g.virtualTensor(dtype, dims, strides);
  tgc::cudnn::Op op;
  op.kind = tgc::cudnn::OpKind::Pointwise;
  op.mode = "identity";
  op.ports = {{"x", x}, {"y", y}};
  g.addOp(std::move(op));
  return y;
}

/// Appends to `args` the tensors of the captures of a region: bound
/// buffers for the captures the region reads, 0 for the others (a tensor no
/// op uses must not be in a cuDNN graph).
static bool bindCaptures(GraphBuilder &g, Block &block, ValueRange captures,
                         unsigned rank, StridesFn stridesOf,
                         SmallVectorImpl<int64_t> &args, std::string &reason) {
  for (auto [index, capture] : llvm::enumerate(captures)) {
    if (block.getArgument(1 + index).use_empty()) {
      args.push_back(0);
      continue;
    }
    int64_t uid = bindPadded(g, capture, rank, stridesOf, reason);
    if (!uid)
      return false;
    args.push_back(uid);
  }
  return true;
}

/// Builds the graph of `op` into `g`; returns why it cannot, or "".
static std::string buildMatmul(Operation *op, StridesFn stridesOf,
                               GraphBuilder &g) {
  MatmulParts m(op);
  for (Value operand : op->getOperands().take_front(2))
    if (cast<ShapedType>(operand.getType()).getElementType().isInteger(4))
      return "an i4 operand (packed 4-bit weights run on the generated "
             "kernels; the cuDNN lowering binds no 4-bit tensors)";
  auto resultType = cast<RankedTensorType>(m.result.getType());
  if (resultType.getRank() > 4)
    return "rank " + std::to_string(resultType.getRank()) +
           " (the cuDNN matmul lowering takes ranks 2 to 4)";
  unsigned rank = std::max<unsigned>(3, resultType.getRank());
  Type convert[2];
  std::string reason = planTypes(m.matmulTypes[0], m.matmulTypes[1], convert);
  if (!reason.empty())
    return reason;
  Type resultElement = resultType.getElementType();
  if (!m.epilogue && !is16Bit(resultElement) && !resultElement.isF32())
    return withArticle(resultElement) +
           " result (cuDNN's conversion of the f32 accumulator is not "
           "specified to saturate as tg's does)";

  static const char *names[2] = {"operand a", "operand b"};
  static const char *prologueNames[2] = {"prologue_a", "prologue_b"};
  int64_t bound[2], inputs[2];
  for (unsigned i = 0; i < 2; ++i) {
    bound[i] = bindPadded(g, m.operands[i], rank, stridesOf, reason);
    if (!bound[i])
      return reason;
    reason = layoutProblem(names[i], g.tensor(bound[i]));
    if (!reason.empty())
      return reason;
  }
  // Equal fp8 operands multiply natively in the layout cuDNN's fp8 kernels
  // take (both K-contiguous, "TN"); otherwise they widen to f16.
  Type a = m.matmulTypes[0];
  if (!convert[0] && isFp8(a) && a == m.matmulTypes[1]) {
    const tgc::cudnn::Tensor &ta = g.tensor(bound[0]), &tb = g.tensor(bound[1]);
    bool tn = !m.prologues[0] && !m.prologues[1] && ta.strides[rank - 1] == 1 &&
              tb.strides[rank - 2] == 1;
    if (!tn)
      convert[0] = convert[1] = Builder(op->getContext()).getF16Type();
  }
  for (unsigned i = 0; i < 2; ++i) {
    int64_t value = bound[i];
    if (m.prologues[i]) {
      Block &block = m.prologues[i]->front();
      SmallVector<int64_t> args{bound[i]};
      if (!bindCaptures(g, block, m.captures[i], rank, stridesOf, args, reason))
        return reason;
      value = translateRegion(g, block, args, 0, reason);
      if (!value)
        return std::string(prologueNames[i]) + ": " + reason;
      if (block.getArgument(0).use_empty() || g.dims(value) != g.dims(bound[i]))
        return std::string(prologueNames[i]) +
               ": the region's result does not depend on its element";
    }
    if (convert[i])
      value = convertLike(g, value, *dtypeOf(convert[i]));
    inputs[i] = value;
  }

  int64_t out = bindPadded(g, m.result, rank, stridesOf, reason);
  if (!out)
    return reason;
  reason = layoutProblem("the result", g.tensor(out));
  if (!reason.empty())
    return reason;
  if (!m.epilogue) {
    g.matmulInto(inputs[0], inputs[1], out);
    return "";
  }
  Block &epilogue = m.epilogue->front();
  if (epilogue.getArgument(0).use_empty())
    return "epilogue: the region's result does not depend on the "
           "accumulator";
  SmallVector<int64_t> args{g.matmul(inputs[0], inputs[1], DType::F32)};
  if (!bindCaptures(g, epilogue, m.epilogueCaptures, rank, stridesOf, args,
                    reason))
    return reason;
  if (!translateRegion(g, epilogue, args, out, reason))
    return "epilogue: " + reason;
  return "";
}

static std::string graphName(Operation *op) {
  MatmulParts m(op);
  auto elem = [](Value v) {
    return typeText(cast<ShapedType>(v.getType()).getElementType());
  };
  return op->getName().getStringRef().str() + " " + elem(m.operands[0]) +
         " x " + elem(m.operands[1]) + " -> " + elem(m.result);
}

std::string cudnn::matmulUnsupportedReason(Operation *op) {
  GraphBuilder scratch(graphName(op));
  return buildMatmul(op, staticStridesOf, scratch);
}

FailureOr<Lowering> cudnn::lowerMatmul(Operation *op, StridesFn stridesOf) {
  Lowering lowering;
  lowering.graphs.emplace_back(graphName(op));
  std::string reason = buildMatmul(op, stridesOf, lowering.graphs.back());
  if (!reason.empty())
    return op->emitOpError("cannot be lowered to cuDNN: ") << reason;
  return lowering;
}
