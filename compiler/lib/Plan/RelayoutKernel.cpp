// Copies between two layouts of one logical tensor, e.g. a row-major result
// into a caller's [B,S,H,D] buffer declared with tg.strides.
#include "RelayoutKernel.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;

static const char *wordOfSize(unsigned bytes) {
  switch (bytes) {
  case 1:
    return "unsigned char";
  case 2:
    return "unsigned short";
  case 4:
    return "unsigned int";
  default:
    return "unsigned long long";
  }
}

KernelStep tg::emitRelayoutKernel(const tgc::Buffer &from,
                                  const tgc::Buffer &to) {
  static constexpr unsigned kThreads = 256;
  int64_t count = from.numElements();
  std::string source;
  llvm::raw_string_ostream os(source);
  const char *word = wordOfSize(tgc::dtypeSize(from.dtype));
  os << "// Relayout of a " << tgc::dtypeName(from.dtype) << " tensor of "
     << count << " elements: one thread per element.\n";
  os << "typedef " << word << " word_t;\n";
  os << "extern \"C\" __global__ void tgc_relayout(const word_t *__restrict__ "
        "from, word_t *__restrict__ to) {\n";
  os << "  long long linear = (long long)blockIdx.x * blockDim.x + "
        "threadIdx.x;\n";
  os << "  if (linear >= " << count << "LL) return;\n";
  os << "  long long rest = linear, from_offset = 0, to_offset = 0;\n";
  for (int64_t d = static_cast<int64_t>(from.shape.size()) - 1; d >= 0; --d) {
    os << "  { long long c = rest % " << from.shape[d] << "LL; rest /= "
       << from.shape[d] << "LL; from_offset += c * " << from.strides[d]
       << "LL; to_offset += c * " << to.strides[d] << "LL; }\n";
  }
  os << "  to[to_offset] = from[from_offset];\n";
  os << "}\n";
  KernelStep step;
  step.name = "relayout " + from.name + " -> " + to.name;
  step.source = std::move(source);
  step.entry = "tgc_relayout";
  step.block = {kThreads, 1, 1};
  step.grid = {static_cast<unsigned>((count + kThreads - 1) / kThreads), 1, 1};
  return step;
}
