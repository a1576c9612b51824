#include "Pointwise.h"
#include "Gather.h"
#include "Walker.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::ref;

//===----------------------------------------------------------------------===//
// Applying one op to one element
//===----------------------------------------------------------------------===//

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Integer arithmetic wraps (two's complement): done in uint64 and then
/// reduced to the result width by the caller's rounding.
int64_t wrapAdd(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) +
                              static_cast<uint64_t>(b));
}
int64_t wrapSub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) -
                              static_cast<uint64_t>(b));
}
int64_t wrapMul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) *
                              static_cast<uint64_t>(b));
}
/// Truncating division; x / 0 is defined as 0 (see docs/reference.md) and
/// INT64_MIN / -1 wraps.
int64_t intDiv(int64_t a, int64_t b) {
  if (b == 0)
    return 0;
  if (b == -1)
    return wrapSub(0, a);
  return a / b;
}

double floatMax(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == b)
    return std::signbit(a) ? b : a; // max(-0, +0) = +0
  return a > b ? a : b;
}
double floatMin(double a, double b) {
  if (std::isnan(a) || std::isnan(b))
    return kNaN;
  if (a == b)
    return std::signbit(a) ? a : b;
  return a < b ? a : b;
}

bool holds(CmpPredicate predicate, double a, double b) {
  // Ordered comparisons: with a NaN only `ne` holds, which the C++
  // operators already give.
  switch (predicate) {
  case CmpPredicate::lt:
    return a < b;
  case CmpPredicate::le:
    return a <= b;
  case CmpPredicate::gt:
    return a > b;
  case CmpPredicate::ge:
    return a >= b;
  case CmpPredicate::eq:
    return a == b;
  case CmpPredicate::ne:
    return a != b;
  }
  return false;
}

double applyInt(PointwiseFn::Code code, const double *args) {
  int64_t a = tgc::doubleToInt64Wrapping(args[0]);
  int64_t b = 0;
  switch (code) {
  case PointwiseFn::Add:
  case PointwiseFn::Sub:
  case PointwiseFn::Mul:
  case PointwiseFn::Div:
  case PointwiseFn::Max:
  case PointwiseFn::Min:
    b = tgc::doubleToInt64Wrapping(args[1]);
    break;
  default:
    break;
  }
  switch (code) {
  case PointwiseFn::Add:
    return static_cast<double>(wrapAdd(a, b));
  case PointwiseFn::Sub:
    return static_cast<double>(wrapSub(a, b));
  case PointwiseFn::Mul:
    return static_cast<double>(wrapMul(a, b));
  case PointwiseFn::Div:
    return static_cast<double>(intDiv(a, b));
  case PointwiseFn::Max:
    return static_cast<double>(a > b ? a : b);
  case PointwiseFn::Min:
    return static_cast<double>(a < b ? a : b);
  case PointwiseFn::Neg:
    return static_cast<double>(wrapSub(0, a));
  case PointwiseFn::Abs:
    return static_cast<double>(a < 0 ? wrapSub(0, a) : a);
  default:
    return kNaN; // float-only ops never reach here (verifier)
  }
}

double applyFloat(PointwiseFn::Code code, const double *args) {
  double a = args[0];
  switch (code) {
  case PointwiseFn::Add:
    return a + args[1];
  case PointwiseFn::Sub:
    return a - args[1];
  case PointwiseFn::Mul:
    return a * args[1];
  case PointwiseFn::Div:
    return a / args[1];
  case PointwiseFn::Max:
    return floatMax(a, args[1]);
  case PointwiseFn::Min:
    return floatMin(a, args[1]);
  case PointwiseFn::Pow:
    return std::pow(a, args[1]);
  case PointwiseFn::Exp:
    return std::exp(a);
  case PointwiseFn::Log:
    return std::log(a);
  case PointwiseFn::Tanh:
    return std::tanh(a);
  case PointwiseFn::Neg:
    return -a;
  case PointwiseFn::Abs:
    return std::fabs(a);
  case PointwiseFn::Sqrt:
    return std::sqrt(a);
  case PointwiseFn::Rsqrt:
    return 1.0 / std::sqrt(a);
  case PointwiseFn::Recip:
    return 1.0 / a;
  case PointwiseFn::Sigmoid:
    return 1.0 / (1.0 + std::exp(-a));
  default:
    return kNaN;
  }
}
} // namespace

double PointwiseFn::apply(const double *args) const {
  switch (code) {
  case Cmp:
    return holds(predicate, args[0], args[1]) ? 1.0 : 0.0;
  case Select:
    return args[0] != 0.0 ? args[1] : args[2];
  case Cast:
    return castValue(args[0], operand, result);
  default:
    break;
  }
  double value = operand.isFloat() ? applyFloat(code, args)
                                   : applyInt(code, args);
  return roundValue(result, value);
}

static Type elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

FailureOr<PointwiseFn> mlir::tg::ref::decodePointwise(Operation *op) {
  PointwiseFn fn;
  std::optional<PointwiseFn::Code> code =
      llvm::TypeSwitch<Operation *, std::optional<PointwiseFn::Code>>(op)
          .Case([](AddOp) { return PointwiseFn::Add; })
          .Case([](SubOp) { return PointwiseFn::Sub; })
          .Case([](MulOp) { return PointwiseFn::Mul; })
          .Case([](DivOp) { return PointwiseFn::Div; })
          .Case([](MaxOp) { return PointwiseFn::Max; })
          .Case([](MinOp) { return PointwiseFn::Min; })
          .Case([](PowOp) { return PointwiseFn::Pow; })
          .Case([](ExpOp) { return PointwiseFn::Exp; })
          .Case([](LogOp) { return PointwiseFn::Log; })
          .Case([](TanhOp) { return PointwiseFn::Tanh; })
          .Case([](NegOp) { return PointwiseFn::Neg; })
          .Case([](AbsOp) { return PointwiseFn::Abs; })
          .Case([](SqrtOp) { return PointwiseFn::Sqrt; })
          .Case([](RsqrtOp) { return PointwiseFn::Rsqrt; })
          .Case([](RecipOp) { return PointwiseFn::Recip; })
          .Case([](SigmoidOp) { return PointwiseFn::Sigmoid; })
          .Case([&](CmpOp cmp) {
            fn.predicate = cmp.getPredicate();
            return PointwiseFn::Cmp;
          })
          .Case([](SelectOp) { return PointwiseFn::Select; })
          .Case([](CastOp) { return PointwiseFn::Cast; })
          .Default([](Operation *) { return std::nullopt; });
  if (!code || op->getNumResults() != 1)
    return op->emitOpError("is not a pointwise op the reference interpreter "
                           "can apply per element");
  fn.code = *code;
  Value first = *code == PointwiseFn::Select ? op->getOperand(1)
                                             : op->getOperand(0);
  fn.operand = classifyElement(elementTypeOf(first));
  fn.result = classifyElement(elementTypeOf(op->getResult(0)));
  return fn;
}

HostTensor mlir::tg::ref::evalPointwise(const PointwiseFn &fn,
                                        ArrayRef<const HostTensor *> operands,
                                        RankedTensorType resultType) {
  HostTensor result = HostTensor::zeros(resultType);
  SmallVector<SmallVector<int64_t>> strides;
  for (const HostTensor *operand : operands)
    strides.push_back(broadcastStrides(operand->shape, result.shape));
  StridedWalker walker(result.shape, strides);
  SmallVector<double, 3> args(operands.size());
  for (double &out : result.values) {
    for (unsigned i = 0; i < operands.size(); ++i)
      args[i] = operands[i]->values[walker.offset(i)];
    out = fn.apply(args.data());
    walker.next();
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

FailureOr<ScalarProgram> ScalarProgram::compile(Block &block,
                                                unsigned numYields) {
  ScalarProgram program;
  llvm::DenseMap<Value, unsigned> slotOf;
  std::vector<double> initial;
  for (BlockArgument arg : block.getArguments()) {
    slotOf[arg] = initial.size();
    initial.push_back(0.0);
  }
  program.numArgs = block.getNumArguments();
  program.tables.assign(program.numArgs, nullptr);
  auto slotsOf = [&](Operation &op,
                     ValueRange values) -> FailureOr<SmallVector<unsigned, 3>> {
    SmallVector<unsigned, 3> found;
    for (Value value : values) {
      auto it = slotOf.find(value);
      if (it == slotOf.end())
        return op.emitOpError("uses a value defined outside its region");
      found.push_back(it->second);
    }
    return found;
  };
  for (Operation &op : block) {
    if (auto yield = dyn_cast<YieldOp>(op)) {
      if (yield.getValues().size() != numYields)
        return yield.emitOpError("must yield exactly ")
               << numYields << (numYields == 1 ? " value" : " values");
      FailureOr<SmallVector<unsigned, 3>> yielded =
          slotsOf(op, yield.getValues());
      if (failed(yielded))
        return failure();
      program.yields.assign(yielded->begin(), yielded->end());
      program.slots = std::move(initial);
      program.gatherOffsets.assign(program.gatherTables.size(), 0);
      return program;
    }
    if (auto constant = dyn_cast<ConstantOp>(op)) {
      FailureOr<HostTensor> value = readConstant(&op, constant.getValue());
      if (failed(value))
        return failure();
      if (value->values.size() != 1)
        return op.emitOpError("in a per-element region must be a single "
                              "value");
      slotOf[constant.getResult()] = initial.size();
      initial.push_back(value->values[0]);
      continue;
    }
    Step step;
    if (auto gather = dyn_cast<GatherOp>(op)) {
      auto table = dyn_cast<BlockArgument>(gather.getTable());
      if (!table || table.getOwner() != &block)
        return op.emitOpError("must read a table argument of its region");
      FailureOr<SmallVector<unsigned, 3>> indices =
          slotsOf(op, gather.getIndices());
      if (failed(indices))
        return failure();
      step.operands = *indices;
      step.gather = program.gatherTables.size();
      step.mode = gather.getMode();
      if (auto fill = gather.getFillValue())
        step.fill = fill->convertToDouble();
      program.gatherTables.push_back(table.getArgNumber());
    } else {
      FailureOr<PointwiseFn> fn = decodePointwise(&op);
      if (failed(fn))
        return failure();
      FailureOr<SmallVector<unsigned, 3>> operands =
          slotsOf(op, op.getOperands());
      if (failed(operands))
        return failure();
      step.fn = *fn;
      step.operands = *operands;
    }
    step.result = initial.size();
    slotOf[op.getResult(0)] = step.result;
    initial.push_back(0.0);
    program.steps.push_back(std::move(step));
  }
  return emitError(block.getParent()->getLoc(),
                   "per-element region does not end in tg.yield");
}

void ScalarProgram::bindTable(unsigned arg, const HostTensor *table) {
  tables[arg] = table;
}

double ScalarProgram::run(ArrayRef<double> args) const {
  for (unsigned i = 0; i < numArgs; ++i)
    slots[i] = args[i];
  double operands[8];
  SmallVector<double, 8> indices;
  for (const Step &step : steps) {
    if (step.gather >= 0) {
      indices.clear();
      for (unsigned slot : step.operands)
        indices.push_back(slots[slot]);
      const HostTensor *table = tables[gatherTables[step.gather]];
      int64_t offset = ref::gatherOffset(table->shape, indices.data(),
                                         step.mode);
      gatherOffsets[step.gather] = offset;
      slots[step.result] = offset < 0 ? step.fill : table->values[offset];
      continue;
    }
    for (unsigned i = 0; i < step.operands.size(); ++i)
      operands[i] = slots[step.operands[i]];
    slots[step.result] = step.fn.apply(operands);
  }
  return slots[yields[0]];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

FailureOr<HostTensor> mlir::tg::ref::readConstant(Operation *op,
                                                  ElementsAttr value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return op->emitOpError("constant must be a ranked tensor");
  HostTensor tensor = HostTensor::zeros(type);
  ElementInfo info = classifyElement(type.getElementType());
  size_t i = 0;
  if (info.isFloat()) {
    auto values = value.tryGetValues<APFloat>();
    if (!values)
      return op->emitOpError("constant storage cannot be read as floats by "
                             "the reference interpreter (use dense<...>)");
    for (const APFloat &v : *values)
      tensor.values[i++] = v.convertToDouble();
  } else {
    auto values = value.tryGetValues<APInt>();
    if (!values)
      return op->emitOpError("constant storage cannot be read as integers by "
                             "the reference interpreter (use dense<...>)");
    for (const APInt &v : *values) {
      if (info.isBool()) {
        tensor.values[i++] = static_cast<double>(v.getZExtValue() & 1);
        continue;
      }
      int64_t n = v.getSExtValue();
      // Values are held as doubles: larger i64 constants would change.
      if (n > (int64_t{1} << 53) || n < -(int64_t{1} << 53))
        return op->emitOpError("constant value ")
               << n << " is too large for the reference interpreter, which "
                       "holds integers exactly up to 2^53";
      tensor.values[i++] = static_cast<double>(n);
    }
  }
  if (i != tensor.values.size())
    return op->emitOpError("constant has ")
           << i << " values; expected " << tensor.values.size();
  return tensor;
}
