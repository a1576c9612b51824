//===- LayoutAbsorption.cpp - layout ops around tg.attention -> strides ---===//
//
// A graph argument that reaches q, k or v only through transposes and
// reshapes (e.g. a [B,S,H*D] buffer viewed as [B,S,H,D] and transposed to
// [B,H,S,D]) is given the logical shape the attention reads and a
// `tg.strides` layout that describes the same memory, so no copy is made.
// Likewise an attention output that is only transposed/reshaped and
// returned becomes the returned value with `tg.strides` on the result.
//
// A transpose permutes the strides; a reshape is absorbed only while the
// buffer is row-major contiguous (then the new shape is contiguous too). A
// value is absorbed only when the layout op is its single use, so no other
// reader sees a different shape. The function is taken to be a graph entry
// point (tg graphs do not call each other): a function pass may not look at
// its callers, so a called function needs absorb-layout=false.
//
//===----------------------------------------------------------------------===//
#include "LayoutAbsorption.h"
#include "FusionUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::fusion;

static constexpr StringLiteral kStrides = "tg.strides";

/// The physical strides of a buffer of `shape` described by `attr`
/// (row-major when absent).
static SmallVector<int64_t> stridesOf(Attribute attr, ArrayRef<int64_t> shape) {
  if (auto strides = dyn_cast_or_null<DenseI64ArrayAttr>(attr))
    return llvm::to_vector(strides.asArrayRef());
  return rowMajorStrides(shape);
}

static bool isContiguous(ArrayRef<int64_t> strides, ArrayRef<int64_t> shape) {
  SmallVector<int64_t> rowMajor = rowMajorStrides(shape);
  for (auto [i, extent] : llvm::enumerate(shape))
    if (extent > 1 && strides[i] != rowMajor[i])
      return false;
  return true;
}

/// The strides that describe `layout`'s result in terms of its input's
/// buffer, or nullopt when not expressible.
static std::optional<SmallVector<int64_t>>
stridesThrough(Operation *layout, ArrayRef<int64_t> inputStrides,
               ArrayRef<int64_t> inputShape) {
  if (auto transpose = dyn_cast<TransposeOp>(layout)) {
    SmallVector<int64_t> strides;
    for (int64_t p : transpose.getPerm())
      strides.push_back(inputStrides[p]);
    return strides;
  }
  if (auto reshape = dyn_cast<ReshapeOp>(layout)) {
    if (!isContiguous(inputStrides, inputShape))
      return std::nullopt;
    return rowMajorStrides(shapeOf(reshape.getResult()));
  }
  return std::nullopt;
}

static void setStrides(func::FuncOp fn, bool isArg, unsigned index,
                       ArrayRef<int64_t> strides, ArrayRef<int64_t> shape) {
  Builder builder(fn.getContext());
  bool contiguous = isContiguous(strides, shape);
  if (isArg) {
    if (contiguous)
      fn.removeArgAttr(index, kStrides);
    else
      fn.setArgAttr(index, kStrides, builder.getDenseI64ArrayAttr(strides));
  } else {
    if (contiguous)
      fn.removeResultAttr(index, builder.getStringAttr(kStrides));
    else
      fn.setResultAttr(index, kStrides, builder.getDenseI64ArrayAttr(strides));
  }
}

/// Absorbs the layout ops between a graph argument and `operand`.
static void absorbInput(RewriterBase &rewriter, func::FuncOp fn,
                        Value operand) {
  // Collect layout ops back to a graph argument.
  SmallVector<Operation *> layouts;
  Value v = operand;
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<TransposeOp, ReshapeOp>(def))
      return;
    layouts.push_back(def);
    v = def->getOperand(0);
  }
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != &fn.getBody().front())
    return;
  // The kernels need the head dim contiguous (stride 1). When the whole
  // chain would leave it strided (Bloom's pre-transposed [B·H, D, S] keys),
  // only the leading reshapes are absorbed; the transpose after them stays
  // and is materialised once, contiguous.
  bool contiguousHeadDim = true;
  {
    SmallVector<int64_t> strides =
        stridesOf(fn.getArgAttr(arg.getArgNumber(), kStrides), shapeOf(arg));
    SmallVector<int64_t> shape(shapeOf(arg));
    for (Operation *layout : llvm::reverse(layouts)) {
      std::optional<SmallVector<int64_t>> next =
          stridesThrough(layout, strides, shape);
      if (!next)
        break;
      strides = *next;
      shape.assign(shapeOf(layout->getResult(0)).begin(),
                   shapeOf(layout->getResult(0)).end());
    }
    contiguousHeadDim = shape.empty() || shape.back() == 1 || strides.back() == 1;
  }
  // Absorb from the argument outwards while each step is the only use.
  for (Operation *layout : llvm::reverse(layouts)) {
    if (!contiguousHeadDim && !isa<ReshapeOp>(layout))
      return;
    if (!arg.hasOneUse() || *arg.getUsers().begin() != layout)
      return;
    unsigned index = arg.getArgNumber();
    SmallVector<int64_t> strides =
        stridesOf(fn.getArgAttr(index, kStrides), shapeOf(arg));
    std::optional<SmallVector<int64_t>> next =
        stridesThrough(layout, strides, shapeOf(arg));
    if (!next)
      return;
    Value result = layout->getResult(0);
    arg.setType(result.getType());
    setStrides(fn, /*isArg=*/true, index, *next, shapeOf(result));
    rewriter.replaceAllUsesWith(result, arg);
    rewriter.eraseOp(layout);
  }
}

/// Absorbs the layout ops between an attention output and the return.
static void absorbOutput(RewriterBase &rewriter, func::FuncOp fn,
                         func::ReturnOp ret, unsigned index) {
  SmallVector<Operation *> layouts; // from the return inwards
  Value v = ret.getOperand(index);
  while (Operation *def = v.getDefiningOp()) {
    if (isa<AttentionOp>(def))
      break;
    if (!isa<TransposeOp, ReshapeOp>(def))
      return;
    layouts.push_back(def);
    v = def->getOperand(0);
  }
  if (!v.getDefiningOp<AttentionOp>() || layouts.empty())
    return;
  if (llvm::count(ret.getOperands(), ret.getOperand(index)) != 1)
    return;
  for (Operation *layout : layouts) {
    Value result = layout->getResult(0);
    if (!result.hasOneUse())
      return;
    Value input = layout->getOperand(0);
    // Result strides describe the returned buffer; find the input's.
    SmallVector<int64_t> resultStrides =
        stridesOf(fn.getResultAttr(index, kStrides), shapeOf(result));
    SmallVector<int64_t> inputStrides;
    if (auto transpose = dyn_cast<TransposeOp>(layout)) {
      inputStrides.assign(rankOf(input), 0);
      for (auto [i, p] : llvm::enumerate(transpose.getPerm()))
        inputStrides[p] = resultStrides[i];
    } else {
      if (!isContiguous(resultStrides, shapeOf(result)))
        return;
      inputStrides = rowMajorStrides(shapeOf(input));
    }
    SmallVector<Type> results(fn.getResultTypes());
    results[index] = input.getType();
    fn.setFunctionType(
        FunctionType::get(fn.getContext(), fn.getArgumentTypes(), results));
    setStrides(fn, /*isArg=*/false, index, inputStrides, shapeOf(input));
    rewriter.modifyOpInPlace(ret, [&] { ret->setOperand(index, input); });
    rewriter.eraseOp(layout);
  }
}

void mlir::tg::fusion::absorbLayouts(RewriterBase &rewriter, func::FuncOp fn,
                                     ArrayRef<AttentionOp> attentions) {
  for (AttentionOp op : attentions)
    for (Value operand : {op.getQ(), op.getK(), op.getV()})
      absorbInput(rewriter, fn, operand);
  fn.walk([&](func::ReturnOp ret) {
    for (unsigned i = 0; i < ret.getNumOperands(); ++i)
      absorbOutput(rewriter, fn, ret, i);
  });
  SmallVector<Type> args;
  for (BlockArgument arg : fn.getArguments())
    args.push_back(arg.getType());
  fn.setFunctionType(
      FunctionType::get(fn.getContext(), args, fn.getResultTypes()));
}
