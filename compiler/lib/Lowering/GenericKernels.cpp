//===- GenericKernels.cpp - Splitting a tg function into kernel launches --===//
//
// Walks the function once, in order:
//  - every result a kernel writes is a dense buffer; graph arguments are
//    buffers read through their tg.strides (row-major without);
//  - splat constants and tg.gen_index are never materialised: their readers
//    inline a literal or the coordinate;
//  - transpose/broadcast (and reshapes expressible by strides) only change
//    the view their readers index through; other reshapes are copied;
//  - pointwise ops (and tg.dropout, tg.gather) are grouped: an op joins the group of
//    its users when all of them are pointwise ops of the same result shape
//    in one group, so a chain (or a DAG such as x * x) becomes one kernel
//    that stores only its last op's result;
//  - reduce, softmax, matmul, fused_matmul and non-splat constants get one
//    kernel each; tg.attention and tg.attention_grad go to the attention
//    generators;
//  - a returned value that is not a dense buffer of its own (a view, a
//    splat, indices) is copied into its buffer at the end.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitters.h"

#include "tg/Dialect/TG/IR/Backend.h"
#include "tg/Lowering/MixedMatmulKernel.h"
#include "tg/Lowering/ScalarExpr.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

/// Ops that fuse into pointwise kernels (tg.gather is pointwise in its
/// indices; its table is read from memory at the computed coordinates).
static bool isFusible(Operation *op) {
  if (isa<DropoutOp, GatherOp>(op))
    return true;
  return op->hasTrait<PointwiseTrait>() && !isa<ConstantOp>(op);
}

/// Maps each fusible op to the last op of its group (itself for a root).
static llvm::DenseMap<Operation *, Operation *> groupPointwise(Block &block) {
  llvm::DenseMap<Operation *, Operation *> rootOf;
  for (Operation &op : llvm::reverse(block)) {
    if (!isFusible(&op))
      continue;
    Value result = op.getResult(0);
    Operation *root = nullptr;
    bool joins = !result.use_empty();
    for (Operation *user : result.getUsers()) {
      // A gather's table is read at other coordinates: it needs a buffer.
      auto gather = dyn_cast<GatherOp>(user);
      if (!isFusible(user) || (gather && gather.getTable() == result) ||
          shapeOf(user->getResult(0)) != shapeOf(result) ||
          (root && rootOf.lookup(user) != root)) {
        joins = false;
        break;
      }
      root = rootOf.lookup(user);
    }
    rootOf[&op] = joins ? root : &op;
  }
  return rootOf;
}

static LogicalResult checkStaticTypes(Operation *op) {
  for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                      op->getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return op->emitOpError("cannot be lowered to CUDA: expected ranked "
                             "tensors, got ")
             << type;
    if (!tensor.hasStaticShape())
      return op->emitOpError("cannot be lowered to CUDA: dynamic shape ")
             << type << " (tg shapes must be static)";
  }
  return success();
}

/// Gives `value` a dense buffer of its own unless it already is one. Graph
/// arguments are left as they are: their buffers belong to the caller, and
/// their layout (tg.strides) is known to whoever reads them.
static void materialize(Value value, StringRef reason, LoweringState &state) {
  const TensorView &view = state.view(value);
  if (view.isDenseBufferOf(value) || isa<BlockArgument>(value))
    return;
  TensorView source = view; // emitCopyKernel replaces the map entry
  emitCopyKernel(value, source, reason, state);
}

static LogicalResult emitLayoutOp(Operation *op, LoweringState &state) {
  Value result = op->getResult(0);
  const TensorView &input = state.view(op->getOperand(0));
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    state.views[result] = transposeView(input, transpose.getPerm());
    return success();
  }
  if (isa<BroadcastOp>(op)) {
    state.views[result] = broadcastView(input, shapeOf(result));
    return success();
  }
  if (std::optional<TensorView> view = reshapeView(input, shapeOf(result))) {
    state.views[result] = *view;
    return success();
  }
  TensorView source = input;
  emitCopyKernel(result, source, "reshape", state);
  return success();
}

FailureOr<SmallVector<KernelStep, 0>>
tg::emitGenericKernels(func::FuncOp fn, AttentionEmitter emitAttention,
                       AttentionGradEmitter emitAttentionGrad) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("cannot be lowered to CUDA: expected a body of "
                          "one block");
  Block &block = fn.getBody().front();
  LoweringState state;
  for (BlockArgument arg : block.getArguments()) {
    auto tensor = dyn_cast<RankedTensorType>(arg.getType());
    if (!tensor || !tensor.hasStaticShape())
      return fn.emitOpError("cannot be lowered to CUDA: argument ")
             << arg.getArgNumber() << " has type " << arg.getType()
             << "; expected a statically shaped tensor";
    // An argument's buffer may have a layout of its own (tg.strides, in
    // elements): kernels read it through those strides.
    TensorView view = TensorView::ofBuffer(arg);
    if (auto strides = fn.getArgAttrOfType<DenseI64ArrayAttr>(
            arg.getArgNumber(), "tg.strides"))
      view.strides.assign(strides.asArrayRef().begin(),
                          strides.asArrayRef().end());
    state.views[arg] = view;
  }

  llvm::DenseMap<Operation *, Operation *> rootOf = groupPointwise(block);
  llvm::DenseMap<Operation *, SmallVector<Operation *>> groups;

  for (Operation &op : block) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      for (Value value : ret.getOperands())
        materialize(value, "result", state);
      continue;
    }
    if (failed(checkStaticTypes(&op)))
      return failure();
    if (isFusible(&op)) {
      Operation *root = rootOf.lookup(&op);
      groups[root].push_back(&op);
      if (root == &op && !op.getResult(0).use_empty() &&
          failed(emitPointwiseKernel(groups[root], state)))
        return failure();
      continue;
    }
    if (op.getNumResults() != 0 &&
        llvm::all_of(op.getResults(),
                     [](Value v) { return v.use_empty(); }) &&
        !isa<AttentionOp, AttentionGradOp>(op))
      continue; // dead

    // cuDNN reads tensors from buffers (described by the buffer's strides),
    // not from folded views.
    bool onCudnn = getBackend(&op) == Backend::cudnn;
    if (onCudnn)
      for (Value operand : op.getOperands())
        materialize(operand, "cuDNN operand", state);
    size_t stepsBefore = state.steps.size();

    LogicalResult result =
        llvm::TypeSwitch<Operation *, LogicalResult>(&op)
            .Case([&](ConstantOp constant) {
              auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
              if (elements && elements.isSplat()) {
                Type type = elements.getElementType();
                std::string literal =
                    isa<FloatType>(type)
                        ? cudaLiteral(elements.getSplatValue<APFloat>())
                        : cudaLiteral(elements.getSplatValue<APInt>(), type);
                state.views[constant.getResult()] =
                    TensorView::ofSplat(constant.getResult(), literal);
                return success();
              }
              return emitConstantKernel(constant, state);
            })
            .Case([&](GenIndexOp index) {
              state.views[index.getResult()] = TensorView::ofIndex(index);
              return success();
            })
            .Case<TransposeOp, BroadcastOp, ReshapeOp>(
                [&](Operation *layout) { return emitLayoutOp(layout, state); })
            .Case([&](ReduceOp reduce) {
              return emitReduceKernel(reduce, state);
            })
            .Case([&](SoftmaxOp softmax) {
              return emitSoftmaxKernel(softmax, state);
            })
            .Case<MatmulOp, FusedMatmulOp>([&](Operation *matmul) {
              // The mixed-input kernel (for ops not on cuDNN, which keep the
              // one-launch generic kernel as their fallback) copies its
              // operands with cp.async: row-major buffers, not folded views.
              bool mixedKernel =
                  !onCudnn && mixedMatmulKernelRefusal(matmul).empty();
              if (mixedKernel)
                for (Value operand : matmul->getOperands().take_front(2))
                  materialize(operand, "mixed-input matmul operand", state);
              return emitMatmulKernel(matmul, mixedKernel, state);
            })
            .Case([&](AttentionOp attention) -> LogicalResult {
              // The attention generator reads buffers (graph arguments
              // with their tg.strides), not folded views.
              for (Value operand : attention->getOperands())
                materialize(operand, "attention operand", state);
              // The generated kernel has no fp8 form: FP8 attention on
              // cuDNN is a step without source (and without fallback).
              if (onCudnn && attention.isFp8()) {
                KernelStep step;
                step.name = "attention fp8 (cuDNN)";
                for (Value result : attention->getResults()) {
                  step.outputs.push_back(result);
                  state.views[result] = TensorView::ofBuffer(result);
                }
                state.steps.push_back(std::move(step));
                return success();
              }
              FailureOr<SmallVector<KernelStep, 0>> steps =
                  emitAttention(attention);
              if (failed(steps))
                return failure();
              // On cuDNN the op is one cuDNN step, and the NVRTC kernel its
              // fallback. A lowering of several launches (the split-KV
              // decode and its combine) cannot be a step's one fallback
              // launch: one cuDNN step without fallback, as for
              // tg.attention_grad (each launch would otherwise become a
              // cuDNN step that runs the whole graph again).
              if (onCudnn && steps->size() > 1) {
                KernelStep step;
                step.name = "attention (cuDNN)";
                steps->assign(1, std::move(step));
                for (Value result : attention->getResults())
                  (*steps)[0].outputs.push_back(result);
              }
              for (KernelStep &step : *steps)
                state.steps.push_back(std::move(step));
              for (Value result : attention->getResults())
                state.views[result] = TensorView::ofBuffer(result);
              return success();
            })
            .Case([&](AttentionGradOp grad) -> LogicalResult {
              if (!onCudnn && !emitAttentionGrad)
                return grad.emitOpError(
                    "has no CUDA kernel generator here: it needs the fused "
                    "backward (the plan lowering) or cuDNN "
                    "(tg.backend = #tg<backend cudnn>)");
              if (!onCudnn) {
                // The fused backward kernels read buffers, as the forward.
                for (Value operand : grad->getOperands())
                  materialize(operand, "attention_grad operand", state);
                FailureOr<SmallVector<KernelStep, 0>> steps =
                    emitAttentionGrad(grad);
                if (failed(steps))
                  return failure();
                for (KernelStep &step : *steps)
                  state.steps.push_back(std::move(step));
                for (Value result : grad->getResults())
                  state.views[result] = TensorView::ofBuffer(result);
                return success();
              }
              // A step without source: the plan builder lowers it to cuDNN.
              KernelStep step;
              step.name = "attention_grad (cuDNN)";
              step.op = grad;
              for (Value result : grad->getResults()) {
                step.outputs.push_back(result);
                state.views[result] = TensorView::ofBuffer(result);
              }
              state.steps.push_back(std::move(step));
              return success();
            })
            .Case<SdpaOp, SdpaGradOp>([&](Operation *sdpa) {
              return sdpa->emitOpError(
                  "cannot be lowered to CUDA kernels directly; run "
                  "tg-decompose-sdpa or tg-fuse-attention first");
            })
            .Default([&](Operation *other) {
              return other->emitOpError(
                  "has no CUDA kernel generator (unsupported op)");
            });
    if (failed(result))
      return failure();
    if (isa<AttentionOp, AttentionGradOp, MatmulOp, FusedMatmulOp, ReduceOp,
            SoftmaxOp>(op) &&
        state.steps.size() > stepsBefore)
      for (size_t i = stepsBefore; i < state.steps.size(); ++i)
        state.steps[i].op = &op;
  }
  return std::move(state.steps);
}
