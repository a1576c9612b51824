//===- KernelSupport.cpp - Parameters, coordinates and source helpers -----===//

#include "KernelEmitters.h"

#include "tg/Lowering/CudaPrelude.h"
#include "tg/Lowering/ScalarExpr.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

//===----------------------------------------------------------------------===//
// KernelParams
//===----------------------------------------------------------------------===//

std::string KernelParams::input(Value value) {
  for (const Param &param : params)
    if (param.value == value && !param.isOutput)
      return param.name;
  unsigned count = llvm::count_if(params, [](const Param &p) {
    return !p.isOutput;
  });
  params.push_back({value, false, "in" + std::to_string(count)});
  return params.back().name;
}

std::string KernelParams::output(Value value) {
  unsigned count = llvm::count_if(params, [](const Param &p) {
    return p.isOutput;
  });
  params.push_back({value, true, "out" + std::to_string(count)});
  return params.back().name;
}

/// Inputs first, then outputs, each in the order they were added.
std::string KernelParams::declaration() const {
  std::string text;
  for (bool outputs : {false, true})
    for (const Param &param : params) {
      if (param.isOutput != outputs)
        continue;
      if (!text.empty())
        text += ",\n    ";
      text += (outputs ? "" : "const ") +
              cudaStorageType(elementTypeOf(param.value)).str() +
              " *__restrict__ " + param.name;
    }
  return text;
}

void KernelParams::fill(KernelStep &step) const {
  step.args.clear();
  step.outputs.clear();
  for (bool outputs : {false, true})
    for (const Param &param : params)
      if (param.isOutput == outputs) {
        step.args.push_back(KernelArg::buffer(param.value));
        if (outputs)
          step.outputs.push_back(param.value);
      }
}

//===----------------------------------------------------------------------===//
// Coordinates
//===----------------------------------------------------------------------===//

Coordinates lowering::delinearize(StringRef linear, ArrayRef<int64_t> shape,
                                  StringRef prefix) {
  SmallVector<std::string> names;
  for (size_t d = 0; d < shape.size(); ++d)
    names.push_back((prefix + Twine(d)).str());
  return delinearize(linear, shape, names);
}

Coordinates lowering::delinearize(StringRef linear, ArrayRef<int64_t> shape,
                                  ArrayRef<std::string> names) {
  Coordinates result;
  int64_t inner = 1;
  SmallVector<int64_t> innerSizes(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    innerSizes[d] = inner;
    inner *= shape[d];
  }
  int64_t outer = 1; // product of the dimensions before d
  for (auto [d, size] : llvm::enumerate(shape)) {
    if (size == 1) {
      result.coords.push_back("0");
      continue;
    }
    const std::string &name = names[d];
    std::string expr = linear.str();
    if (innerSizes[d] != 1)
      expr = "(" + expr + " / " + std::to_string(innerSizes[d]) + ")";
    if (outer != 1) // the outermost dimension needs no modulo
      expr += " % " + std::to_string(size);
    result.coords.push_back(name);
    result.definitions.push_back({name, expr});
    outer *= size;
  }
  return result;
}

std::string Coordinates::declare(StringRef body, unsigned indent) const {
  std::string text;
  for (const auto &[name, expr] : definitions)
    if (mentionsIdentifier(body, name))
      text += std::string(indent, ' ') + "const long long " + name + " = " +
              expr + ";\n";
  return text;
}

SmallVector<std::string>
lowering::broadcastCoords(ArrayRef<std::string> coords,
                          ArrayRef<int64_t> operandShape) {
  SmallVector<std::string> result;
  if (operandShape.empty())
    return result;
  for (auto [coord, size] : llvm::zip(coords, operandShape))
    result.push_back(size == 1 ? "0" : coord);
  return result;
}

//===----------------------------------------------------------------------===//
// Small helpers
//===----------------------------------------------------------------------===//

std::string lowering::indentText(StringRef text, unsigned spaces) {
  std::string result;
  SmallVector<StringRef> lines;
  if (text.ends_with("\n")) // the caller ends the last line
    text = text.drop_back();
  text.split(lines, '\n');
  for (auto [i, line] : llvm::enumerate(lines)) {
    if (i != 0)
      result += "\n";
    if (!line.empty())
      result += std::string(spaces, ' ') + line.str();
  }
  return result;
}

static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

bool lowering::mentionsIdentifier(StringRef text, StringRef identifier) {
  size_t pos = 0;
  while ((pos = text.find(identifier, pos)) != StringRef::npos) {
    size_t end = pos + identifier.size();
    bool before = pos > 0 && isIdentifierChar(text[pos - 1]);
    bool after = end < text.size() && isIdentifierChar(text[end]);
    if (!before && !after)
      return true;
    pos = end;
  }
  return false;
}

int64_t lowering::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

std::string lowering::shapeString(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string text;
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? "x" : "") + std::to_string(size);
  return text;
}

std::string lowering::typeString(Type elementType) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << elementType;
  return text;
}

std::string lowering::i64Literal(int64_t value) {
  return std::to_string(value) + "LL";
}

ArrayRef<int64_t> lowering::shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

Type lowering::elementTypeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getElementType();
}

unsigned lowering::gridFor(int64_t work, int64_t perBlock) {
  // Beyond this the kernels' grid-stride loops take over.
  constexpr int64_t kMaxBlocks = 65536;
  int64_t blocks = (work + perBlock - 1) / perBlock;
  return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, kMaxBlocks));
}

//===----------------------------------------------------------------------===//
// LoweringState
//===----------------------------------------------------------------------===//

const TensorView &LoweringState::view(Value value) const {
  auto it = views.find(value);
  assert(it != views.end() && "value read before it has a view");
  return it->second;
}

std::string LoweringState::entryName(StringRef kind) const {
  return ("tg_" + kind + "_" + Twine(steps.size())).str();
}

void LoweringState::addStep(KernelStep step) {
  step.source = cudaPrelude().str() + "\n" + step.source;
  steps.push_back(std::move(step));
}
