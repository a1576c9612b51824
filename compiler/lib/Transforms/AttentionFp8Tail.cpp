// The second half of FP8 attention as primitive tg ops, shared by
// tg-expand-attention: amax of P, P scaled and quantized, the fp8 matmul
// with f32 accumulation, the descales, amax of O and the output scale.
#include "AttentionScores.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::detail;

/// max |x| over every element, as a rank-0 f32 tensor.
static Value amaxOf(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> dims =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value magnitude = AbsOp::create(b, loc, x);
  return ReduceOp::create(b, loc,
                          RankedTensorType::get({}, type.getElementType()),
                          ReduceKind::max, magnitude, dims,
                          /*keepdim=*/false);
}

Fp8Tail mlir::tg::detail::buildFp8Tail(OpBuilder &b, Location loc, Value p,
                                       Value vHeads,
                                       RankedTensorType outputType,
                                       Type pElementType, ValueRange scales) {
  assert(scales.size() == 6 && "fp8 attention takes six scales");
  Value descaleV = scales[2], descaleS = scales[3], scaleS = scales[4],
        scaleO = scales[5];
  Fp8Tail tail;
  tail.amaxS = amaxOf(b, loc, p);
  Value pScaled = MulOp::create(b, loc, p, scaleS);
  Value p8 = castElements(b, loc, pScaled, pElementType);
  // fp8 x fp8 with f32 accumulation, as cuDNN's second matmul.
  Value pv = MatmulOp::create(
      b, loc, outputType.clone(b.getF32Type()), p8, vHeads, TypeAttr());
  Value unscaled = MulOp::create(b, loc, MulOp::create(b, loc, pv, descaleS),
                                 descaleV);
  tail.amaxO = amaxOf(b, loc, unscaled);
  Value scaled = MulOp::create(b, loc, unscaled, scaleO);
  tail.output = castElements(b, loc, scaled, outputType.getElementType());
  return tail;
}
