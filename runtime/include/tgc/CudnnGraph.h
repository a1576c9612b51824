#ifndef TGC_CUDNNGRAPH_H
#define TGC_CUDNNGRAPH_H

// A cuDNN operation graph as data: the tensors and operations the runtime
// turns into cuDNN backend descriptors (CUDNN_BACKEND_TENSOR_DESCRIPTOR,
// OPERATION_*_DESCRIPTOR, OPERATIONGRAPH, heuristics, execution plan). The
// compiler produces it (compiler/lib/Cudnn), plans carry it (CudnnStep),
// `tg-compile --emit=cudnn` prints it. No cuDNN header is needed here.
//
// Text form (docs/cudnn.md), one record per line:
//
//   graph "attention fwd (composite)" min_version 90000
//   tensor 1 bf16 [1,8,128,64] [65536,8192,64,1] buffer "q"
//   tensor 4 f32 [1,8,128,128] [131072,16384,128,1] virtual
//   tensor 5 f32 [1,1,1,1] [1,1,1,1] value 0.125
//   op matmul compute f32 a 1 b 2 c 4
//   op pointwise mul compute f32 x 4 b 5 y 6
//   op pointwise gen_index compute f32 axis 3 x 6 y 7
//   op reduction max compute f32 x 6 y 9
//   op rng bernoulli probability 0.9 y 10 seed 11 offset 12
//   op sdpa_fwd q 1 k 2 v 3 o 20 stats 21 scale 5
//   op reshape x 9 y 10
//   end
//
// Modes are cuDNN's enumerator names, lower case, without their prefix
// (CUDNN_POINTWISE_TANH_FWD -> tanh_fwd, CUDNN_REDUCE_TENSOR_MAX -> max).
// Every other `key value` pair of an op line names a port and the uid of
// the tensor bound to it.

#include "tgc/DType.h"
#include "tgc/Status.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

namespace tgc::cudnn {

enum class TensorKind {
  /// Device memory: a plan buffer (graph input/output or workspace
  /// intermediate), bound by name in the variant pack.
  Bound,
  /// Never materialised: lives inside the fused kernel.
  Virtual,
  /// A host scalar passed by value (CUDNN_ATTR_TENSOR_IS_BY_VALUE).
  ByValue,
};

struct Tensor {
  int64_t uid = 0; // unique within the graph, > 0
  DType dtype = DType::F32;
  std::vector<int64_t> dims;    // cuDNN wants rank >= 3 for most ops
  std::vector<int64_t> strides; // elements, one per dim
  TensorKind kind = TensorKind::Virtual;
  std::string buffer; // Bound: the plan buffer's name
  double value = 0.0; // ByValue: converted to `dtype` when bound
};

enum class OpKind {
  Pointwise,    // mode: add, mul, tanh_fwd, cmp_lt, binary_select, gen_index..
                // ports x [b] [t] y
  Matmul,       // ports a b c [m_override n_override k_override]
  Reduction,    // mode: add, max, min, amax, ...; ports x y
  Rng,          // mode: bernoulli; probability; ports y seed offset
  SdpaForward,  // the single fused op (9.13.1+); ports q k v o [stats] scale
  SdpaBackward, // ports q k v o do stats scale dq dk dv
  Reshape,      // ports x y: y is a view of x with other dims/strides
                // (OPERATION_RESHAPE_DESCRIPTOR; e.g. P^T in the backward)
};
const char *opKindName(OpKind kind);
std::optional<OpKind> parseOpKind(std::string_view name);

struct Port {
  std::string name;
  int64_t uid = 0;
  bool operator==(const Port &o) const { return name == o.name && uid == o.uid; }
};

struct Op {
  OpKind kind = OpKind::Pointwise;
  std::string mode;        // Pointwise, Reduction, Rng
  DType compute = DType::F32; // math precision (Pointwise, Matmul, Reduction)
  std::optional<int64_t> axis;       // pointwise gen_index
  std::optional<double> probability; // rng bernoulli
  std::vector<Port> ports;

  /// The uid bound to `port`, or 0.
  int64_t port(std::string_view name) const;
};

struct Graph {
  std::string name;   // for logs and errors
  int minVersion = 0; // cudnnGetVersion() this graph needs (e.g. 91301)
  std::vector<Tensor> tensors;
  std::vector<Op> ops;

  const Tensor *find(int64_t uid) const;
  /// Unique positive uids, dims/strides of equal rank with positive dims,
  /// ports naming known tensors, the ports each op kind requires, bound
  /// tensors with a buffer name.
  Status validate() const;
};

/// The text form of one graph, ending with "end\n".
std::string printGraph(const Graph &graph);
/// Parses one or more graphs written by printGraph, one after another.
/// `sourceName` prefixes errors (name:line).
Expected<std::vector<Graph>> parseGraphs(std::string_view text,
                                        const std::string &sourceName = "<cudnn>");

} // namespace tgc::cudnn

#pragma GCC visibility pop

#endif // TGC_CUDNNGRAPH_H
