// The reference of the compiled graph (see CompiledReference.h).
#include "CompiledReference.h"

#include "tg/Plan/LowerToPlan.h"

#include "tgc/DType.h"

using namespace mlir;
using namespace mlir::tg;

namespace mlir::tg::run {

/// The memory layout the graph as written declares for a value of `type`
/// with `strides`: compilation may describe the same bytes with another
/// logical shape (fusion folds layout ops around attention into strides),
/// so inputs and outputs are encoded in the layout the user declared.
tgc::Buffer declaredLayout(Type type, ArrayRef<int64_t> strides,
                           tgc::DType dtype) {
  auto tensor = cast<RankedTensorType>(type);
  tgc::Buffer layout;
  layout.dtype = dtype;
  layout.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  layout.strides.assign(strides.begin(), strides.end());
  return layout;
}

/// Element offset (in elements of its type, from the buffer's start) of
/// each logical element (row-major order) in `buffer`.
std::vector<uint64_t> elementOffsets(const tgc::Buffer &buffer) {
  std::vector<uint64_t> offsets(buffer.numElements());
  std::vector<int64_t> index(buffer.shape.size(), 0);
  for (uint64_t &offset : offsets) {
    int64_t elements = 0;
    for (size_t d = 0; d < index.size(); ++d)
      elements += index[d] * buffer.strides[d];
    offset = static_cast<uint64_t>(elements);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < buffer.shape[d])
        break;
      index[d] = 0;
    }
  }
  return offsets;
}

/// The values of `tensor`, a graph value laid out as `from`, as the logical
/// tensor of `toType` that the same bytes hold when laid out as `to`
/// (compilation may fold layout ops into another logical shape).
static FailureOr<ref::HostTensor> relayout(const ref::HostTensor &tensor,
                                    const tgc::Buffer &from,
                                    const tgc::Buffer &to,
                                    RankedTensorType toType) {
  if (from.shape == to.shape && from.strides == to.strides)
    return tensor;
  if (from.byteSpan() != to.byteSpan())
    return failure();
  // Equal spans: every element offset of `to` is inside `from`'s span.
  std::vector<int64_t> at(from.byteSpan() * 8 / tgc::dtypeBits(from.dtype), -1);
  std::vector<uint64_t> fromOffsets = elementOffsets(from);
  for (size_t i = 0; i < fromOffsets.size(); ++i)
    at[fromOffsets[i]] = static_cast<int64_t>(i);
  ref::HostTensor result = ref::HostTensor::zeros(toType);
  std::vector<uint64_t> toOffsets = elementOffsets(to);
  for (size_t i = 0; i < toOffsets.size(); ++i) {
    int64_t source = at[toOffsets[i]];
    if (source < 0)
      return failure();
    result.values[i] = tensor.values[source];
  }
  return result;
}

/// The plan-independent layout of argument or result `index` of `fn`.
static tgc::Buffer valueLayout(func::FuncOp fn, unsigned index, bool isResult) {
  Type type = isResult ? fn.getResultTypes()[index] : fn.getArgumentTypes()[index];
  SmallVector<int64_t> strides =
      isResult ? resultStrides(fn, index) : argumentStrides(fn, index);
  auto dtype = toRuntimeDType(cast<RankedTensorType>(type).getElementType());
  return declaredLayout(type, strides, dtype.value_or(tgc::DType::F32));
}

/// The reference interpreter on the compiled entry `compiled` (after the
/// pipeline, before lowering), with inputs and outputs in the layouts of
/// the graph as written (`written`).
FailureOr<SmallVector<ref::HostTensor>>
interpretCompiled(func::FuncOp written, func::FuncOp compiled,
                  ArrayRef<ref::HostTensor> inputs) {
  if (written.getNumArguments() != compiled.getNumArguments() ||
      written.getNumResults() != compiled.getNumResults())
    return compiled.emitOpError("changed its signature in compilation (a tgc bug)");
  SmallVector<ref::HostTensor> compiledInputs;
  for (unsigned i = 0; i < written.getNumArguments(); ++i) {
    FailureOr<ref::HostTensor> t = relayout(
        inputs[i], valueLayout(written, i, false), valueLayout(compiled, i, false),
        cast<RankedTensorType>(compiled.getArgumentTypes()[i]));
    if (failed(t))
      return compiled.emitOpError("argument ") << i << " covers other bytes "
             "after compilation (a tgc bug)";
    compiledInputs.push_back(std::move(*t));
  }
  FailureOr<SmallVector<ref::HostTensor>> outputs =
      ref::interpret(compiled, compiledInputs);
  if (failed(outputs))
    return failure();
  for (unsigned i = 0; i < written.getNumResults(); ++i) {
    FailureOr<ref::HostTensor> t = relayout(
        (*outputs)[i], valueLayout(compiled, i, true), valueLayout(written, i, true),
        cast<RankedTensorType>(written.getResultTypes()[i]));
    if (failed(t))
      return compiled.emitOpError("result ") << i << " covers other bytes "
             "after compilation (a tgc bug)";
    (*outputs)[i] = std::move(*t);
  }
  return outputs;
}

RoundingRemarkCounter::RoundingRemarkCounter(MLIRContext *context)
    : handler(context, [this](Diagnostic &diag) {
        if (diag.getSeverity() == DiagnosticSeverity::Remark &&
            StringRef(diag.str()).starts_with("fused with the scores in f32"))
          ++remarks;
        return failure(); // let the tool's handler print it
      }) {}

} // namespace mlir::tg::run
