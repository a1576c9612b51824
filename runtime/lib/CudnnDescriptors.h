#ifndef TGC_LIB_CUDNNDESCRIPTORS_H
#define TGC_LIB_CUDNNDESCRIPTORS_H

// cuDNN backend descriptors built from a cudnn::Graph (tgc/CudnnGraph.h):
// an owning guard for one descriptor, the enum tables (dtypes, pointwise
// modes, reduction operators, ports -> attributes) and the operation graph.

#include "CudnnLibrary.h"
#include "tgc/CudnnGraph.h"

#include <optional>
#include <string_view>
#include <vector>

namespace tgc::cudnn {

/// Owns one backend descriptor (destroyed with it). Errors name `what`
/// ("tensor 3", "op 2 (pointwise mul)") and the attribute.
class Descriptor {
public:
  Descriptor() = default;
  static Expected<Descriptor> create(const CudnnLibrary &lib,
                                     cudnnBackendDescriptorType_t type,
                                     std::string what);
  Descriptor(Descriptor &&other) noexcept;
  Descriptor &operator=(Descriptor &&other) noexcept;
  Descriptor(const Descriptor &) = delete;
  Descriptor &operator=(const Descriptor &) = delete;
  ~Descriptor();

  cudnnBackendDescriptor_t get() const { return desc_; }
  const std::string &what() const { return what_; }

  Status set(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             int64_t count, const void *values);
  Status setInt64(cudnnBackendAttributeName_t name, int64_t value) {
    return set(name, CUDNN_TYPE_INT64, 1, &value);
  }
  Status setDataType(cudnnBackendAttributeName_t name, cudnnDataType_t value) {
    return set(name, CUDNN_TYPE_DATA_TYPE, 1, &value);
  }
  Status setDescriptor(cudnnBackendAttributeName_t name, const Descriptor &d) {
    cudnnBackendDescriptor_t raw = d.get();
    return set(name, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &raw);
  }
  /// Reads `count` elements into `values`; `*got` (optional) receives how
  /// many cuDNN has.
  Status get(cudnnBackendAttributeName_t name, cudnnBackendAttributeType_t type,
             int64_t count, int64_t *got, void *values) const;
  Status finalize();

private:
  const CudnnLibrary *lib_ = nullptr;
  cudnnBackendDescriptor_t desc_ = nullptr;
  std::string what_;
};

/// The CUDNN_ATTR_* spelling of the attributes this runtime sets, for
/// messages ("attribute 906" for others).
std::string attributeName(cudnnBackendAttributeName_t name);

cudnnDataType_t dataTypeOf(DType type);
/// Mode names are the enumerators in lower case without their prefix
/// (CUDNN_POINTWISE_CMP_LT -> "cmp_lt"); every mode of cuDNN 9.19.
std::optional<cudnnPointwiseMode_t> pointwiseMode(std::string_view name);
std::optional<cudnnReduceTensorOp_t> reductionOperator(std::string_view name);

/// The descriptors of one operation graph, kept alive as long as plans
/// built from it.
struct BuiltGraph {
  std::vector<Descriptor> tensors; // graph.tensors order
  std::vector<Descriptor> parts;   // pointwise/matmul/reduction/rng settings
  std::vector<Descriptor> ops;     // graph.ops order
  Descriptor graph;                // the finalised OPERATIONGRAPH
};

/// Builds and finalises every descriptor of `graph` (which must validate)
/// and the operation graph bound to `handle`.
Expected<BuiltGraph> buildOperationGraph(const CudnnLibrary &lib,
                                         cudnnHandle_t handle,
                                         const Graph &graph);

} // namespace tgc::cudnn

#endif // TGC_LIB_CUDNNDESCRIPTORS_H
