// The interpreter's driver: walks a function body in order, evaluates each
// op on host tensors and returns the values of func.return.
#include "tg/Reference/Interpreter.h"

#include "Elements.h"
#include "Ops.h"
#include "Pointwise.h"

#include "tg/Dialect/TG/IR/TGOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tg;
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir::tg::ref;

//===----------------------------------------------------------------------===//
// HostTensor and names
//===----------------------------------------------------------------------===//

int64_t HostTensor::numElements() const { return elementCount(shape); }

int64_t mlir::tg::ref::elementCount(ArrayRef<int64_t> shape) {
  // Saturates: checkInterpretable rejects such tensors before any is made.
  if (llvm::is_contained(shape, 0))
    return 0;
  int64_t n = 1;
  for (int64_t d : shape)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::numeric_limits<int64_t>::max();
  return n;
}

RankedTensorType HostTensor::getType() const {
  return RankedTensorType::get(shape, elementType);
}

HostTensor HostTensor::zeros(RankedTensorType type) {
  HostTensor t;
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  t.elementType = type.getElementType();
  t.values.assign(t.numElements(), 0.0);
  return t;
}

std::string mlir::tg::ref::elementTypeName(Type type) {
  ElementInfo info = classifyElement(type);
  switch (info.kind) {
  case ElementInfo::Float:
    return tgc::formatName(info.format);
  case ElementInfo::Int:
  case ElementInfo::Bool:
    return "i" + std::to_string(info.bits);
  case ElementInfo::Unsupported:
    break;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

std::string mlir::tg::ref::argumentName(func::FuncOp fn, unsigned index) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(index, "tg.name"))
    return name.str();
  return "arg" + std::to_string(index);
}

std::string mlir::tg::ref::resultName(func::FuncOp fn, unsigned index) {
  if (auto name = fn.getResultAttrOfType<StringAttr>(index, "tg.name"))
    return name.str();
  return "result" + std::to_string(index);
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

bool mlir::tg::ref::canInterpret(StringRef name) {
  static const llvm::StringSet<> names = {
      // Pointwise.
      "tg.constant", "tg.add", "tg.sub", "tg.mul", "tg.div", "tg.max",
      "tg.min", "tg.pow", "tg.exp", "tg.log", "tg.tanh", "tg.neg", "tg.abs",
      "tg.sqrt", "tg.rsqrt", "tg.recip", "tg.sigmoid", "tg.cmp", "tg.select",
      "tg.cast",
      // Everything else; tg.yield is evaluated as part of its region.
      "tg.reduce", "tg.gen_index", "tg.gather", "tg.transpose", "tg.reshape",
      "tg.broadcast", "tg.matmul", "tg.fused_matmul", "tg.softmax",
      "tg.dropout", "tg.sdpa", "tg.sdpa_grad", "tg.attention",
      "tg.attention_grad", "tg.yield",
      "func.return"};
  return names.contains(name);
}

static Results evalOp(Operation *op, ValueLookup lookup) {
  return llvm::TypeSwitch<Operation *, Results>(op)
      .Case([&](ConstantOp c) -> Results {
        FailureOr<HostTensor> value = readConstant(op, c.getValue());
        if (failed(value))
          return failure();
        SmallVector<HostTensor> results;
        results.push_back(std::move(*value));
        return results;
      })
      .Case([&](ReduceOp o) { return evalReduce(o, lookup); })
      .Case([&](GenIndexOp o) { return evalGenIndex(o, lookup); })
      .Case([&](GatherOp o) { return evalGather(o, lookup); })
      .Case([&](TransposeOp o) { return evalTranspose(o, lookup); })
      .Case([&](ReshapeOp o) { return evalReshape(o, lookup); })
      .Case([&](BroadcastOp o) { return evalBroadcast(o, lookup); })
      .Case([&](SoftmaxOp o) { return evalSoftmax(o, lookup); })
      .Case([&](DropoutOp o) { return evalDropout(o, lookup); })
      .Case([&](MatmulOp o) { return evalMatmul(o, lookup); })
      .Case([&](FusedMatmulOp o) { return evalFusedMatmul(o, lookup); })
      .Case([&](SdpaOp o) { return evalSdpa(o, lookup); })
      .Case([&](SdpaGradOp o) { return evalSdpaGrad(o, lookup); })
      .Case([&](AttentionOp o) { return evalAttention(o, lookup); })
      .Case([&](AttentionGradOp o) { return evalAttentionGrad(o, lookup); })
      .Default([&](Operation *) -> Results {
        if (!op->hasTrait<PointwiseTrait>())
          return op->emitOpError("is not supported by the reference "
                                 "interpreter (expected tg ops and "
                                 "func.return)");
        FailureOr<PointwiseFn> fn = decodePointwise(op);
        if (failed(fn))
          return failure();
        SmallVector<const HostTensor *> operands;
        for (Value operand : op->getOperands())
          operands.push_back(&lookup(operand));
        SmallVector<HostTensor> results;
        results.push_back(evalPointwise(
            *fn, operands, cast<RankedTensorType>(op->getResult(0).getType())));
        return results;
      });
}

LogicalResult mlir::tg::ref::checkInterpretable(func::FuncOp fn) {
  WalkResult walk = fn.walk([&](Operation *op) -> WalkResult {
    auto check = [&](Type type, StringRef what) -> LogicalResult {
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor)
        return op->emitOpError("has a ")
               << what << " of type " << type
               << "; the reference interpreter handles ranked tensors only";
      if (classifyElement(tensor.getElementType()).kind ==
          ElementInfo::Unsupported)
        return op->emitOpError("has a ")
               << what << " with element type " << tensor.getElementType()
               << " (expected bf16, f16, f32, f8E4M3FN, f8E5M2, i1, i4, i8, i32 "
                  "or i64)";
      if (tensor.hasStaticShape() &&
          uint64_t(elementCount(tensor.getShape())) > kMaxHostElements)
        return op->emitOpError("has a ")
               << what << " of type " << type
               << "; the reference interpreter holds at most "
               << kMaxHostElements << " elements per tensor";
      return success();
    };
    if (op == fn.getOperation())
      return WalkResult::advance();
    for (Type type : op->getResultTypes())
      if (failed(check(type, "result")))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor ||
        classifyElement(tensor.getElementType()).kind ==
            ElementInfo::Unsupported)
      return fn.emitOpError("argument ")
             << i << " has type " << type
             << "; the reference interpreter expects ranked tensors of bf16, "
                "f16, f32, f8E4M3FN, f8E5M2, i1, i4, i8, i32 or i64";
    if (tensor.hasStaticShape() &&
        uint64_t(elementCount(tensor.getShape())) > kMaxHostElements)
      return fn.emitOpError("argument ")
             << i << " has type " << type
             << "; the reference interpreter holds at most "
             << kMaxHostElements << " elements per tensor";
  }
  return success();
}

FailureOr<SmallVector<HostTensor>>
mlir::tg::ref::interpret(func::FuncOp fn, ArrayRef<HostTensor> inputs) {
  if (fn.isExternal())
    return fn.emitOpError("has no body to interpret");
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("has more than one block; the reference "
                          "interpreter runs single-block graphs");
  if (failed(checkInterpretable(fn)))
    return failure();
  Block &block = fn.getBody().front();
  if (inputs.size() != block.getNumArguments())
    return fn.emitOpError("was given ")
           << inputs.size() << " inputs; expected "
           << block.getNumArguments();

  llvm::DenseMap<Value, HostTensor> env;
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    auto type = cast<RankedTensorType>(arg.getType());
    const HostTensor &input = inputs[i];
    if (ArrayRef<int64_t>(input.shape) != type.getShape() ||
        input.elementType != type.getElementType() ||
        static_cast<int64_t>(input.values.size()) != type.getNumElements())
      return fn.emitOpError("input ")
             << i << " ('" << argumentName(fn, i) << "') is "
             << input.getType() << " with " << input.values.size()
             << " values; the argument is " << type;
    HostTensor rounded = input;
    ElementInfo info = classifyElement(type.getElementType());
    for (double &v : rounded.values)
      v = roundValue(info, v);
    env[arg] = std::move(rounded);
  }

  auto lookup = [&](Value value) -> const HostTensor & {
    return env.find(value)->second;
  };
  // Each value is dropped after its last use, so that large decomposed
  // graphs hold only their live tensors.
  llvm::DenseMap<Value, Operation *> lastUser;
  for (Operation &op : block)
    for (Value operand : op.getOperands())
      lastUser[operand] = &op;
  for (Operation &op : block) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      SmallVector<HostTensor> outputs;
      for (Value value : ret.getOperands())
        outputs.push_back(lookup(value));
      return outputs;
    }
    for (Value operand : op.getOperands())
      if (!env.count(operand))
        return op.emitOpError("uses a value the interpreter has not "
                              "computed");
    Results results = evalOp(&op, lookup);
    if (failed(results))
      return failure();
    if (results->size() != op.getNumResults())
      return op.emitOpError("interpreter produced ")
             << results->size() << " results; expected "
             << op.getNumResults();
    for (auto [value, tensor] : llvm::zip(op.getResults(), *results))
      if (!value.use_empty())
        env[value] = std::move(tensor);
    for (Value operand : op.getOperands())
      if (lastUser.lookup(operand) == &op)
        env.erase(operand);
  }
  return fn.emitOpError("body does not end in func.return");
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

Comparison mlir::tg::ref::compare(const HostTensor &actual,
                                  const HostTensor &expected, double atol,
                                  double rtol) {
  Comparison result;
  if (actual.shape != expected.shape ||
      actual.values.size() != expected.values.size()) {
    result.nanOrShapeMismatch = true;
    return result;
  }
  for (size_t i = 0; i < actual.values.size(); ++i) {
    double a = actual.values[i], b = expected.values[i];
    if (std::isnan(a) || std::isnan(b)) {
      if (std::isnan(a) != std::isnan(b))
        result.nanOrShapeMismatch = true;
      continue;
    }
    if (a == b)
      continue; // includes equal infinities
    double diff = std::fabs(a - b);
    result.maxAbsError = std::max(result.maxAbsError, diff);
    result.maxRelError =
        std::max(result.maxRelError, diff / std::max(std::fabs(b), 1e-6));
    if (!(diff <= atol + rtol * std::fabs(b)))
      ++result.mismatches;
  }
  return result;
}
