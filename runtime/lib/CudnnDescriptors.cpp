// Backend descriptors from a cudnn::Graph. Attribute types follow the cuDNN
// 9 backend reference (cudnn_graph.h): descriptors are passed as
// CUDNN_TYPE_BACKEND_DESCRIPTOR, modes with their own enum types, booleans
// as C++ bool.
#include "CudnnDescriptors.h"

#include <utility>

namespace tgc::cudnn {

//===--------------------------------------------------------------------===//
// Descriptor
//===--------------------------------------------------------------------===//

Expected<Descriptor> Descriptor::create(const CudnnLibrary &lib,
                                        cudnnBackendDescriptorType_t type,
                                        std::string what) {
  Descriptor d;
  d.lib_ = &lib;
  d.what_ = std::move(what);
  cudnnStatus_t status = lib.cudnnBackendCreateDescriptor(type, &d.desc_);
  if (status != CUDNN_STATUS_SUCCESS) {
    d.desc_ = nullptr;
    return lib.check(status, strCat("cannot create the descriptor of ", d.what_));
  }
  return d;
}

Descriptor::Descriptor(Descriptor &&other) noexcept
    : lib_(other.lib_), desc_(std::exchange(other.desc_, nullptr)),
      what_(std::move(other.what_)) {}

Descriptor &Descriptor::operator=(Descriptor &&other) noexcept {
  if (this != &other) {
    if (desc_)
      lib_->cudnnBackendDestroyDescriptor(desc_);
    lib_ = other.lib_;
    desc_ = std::exchange(other.desc_, nullptr);
    what_ = std::move(other.what_);
  }
  return *this;
}

Descriptor::~Descriptor() {
  if (desc_)
    lib_->cudnnBackendDestroyDescriptor(desc_);
}

Status Descriptor::set(cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t count,
                       const void *values) {
  return lib_->check(
      lib_->cudnnBackendSetAttribute(desc_, name, type, count, values),
      strCat("cannot set ", attributeName(name), " of ", what_));
}

Status Descriptor::get(cudnnBackendAttributeName_t name,
                       cudnnBackendAttributeType_t type, int64_t count,
                       int64_t *got, void *values) const {
  int64_t n = 0;
  Status status = lib_->check(
      lib_->cudnnBackendGetAttribute(desc_, name, type, count, &n, values),
      strCat("cannot read ", attributeName(name), " of ", what_));
  if (got)
    *got = n;
  return status;
}

Status Descriptor::finalize() {
  return lib_->check(lib_->cudnnBackendFinalize(desc_),
                     strCat("cannot finalise ", what_));
}

//===--------------------------------------------------------------------===//
// Enum tables
//===--------------------------------------------------------------------===//

std::string attributeName(cudnnBackendAttributeName_t name) {
  switch (name) {
#define TGC_NAME(attr)                                                         \
  case attr:                                                                   \
    return #attr;
    TGC_NAME(CUDNN_ATTR_POINTWISE_MODE)
    TGC_NAME(CUDNN_ATTR_POINTWISE_MATH_PREC)
    TGC_NAME(CUDNN_ATTR_POINTWISE_AXIS)
    TGC_NAME(CUDNN_ATTR_ENGINEHEUR_MODE)
    TGC_NAME(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH)
    TGC_NAME(CUDNN_ATTR_ENGINEHEUR_RESULTS)
    TGC_NAME(CUDNN_ATTR_ENGINECFG_ENGINE)
    TGC_NAME(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG)
    TGC_NAME(CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_XDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_BDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_YDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_DXDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_DYDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_POINTWISE_TDESC)
    TGC_NAME(CUDNN_ATTR_OPERATIONGRAPH_HANDLE)
    TGC_NAME(CUDNN_ATTR_OPERATIONGRAPH_OPS)
    TGC_NAME(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT)
    TGC_NAME(CUDNN_ATTR_TENSOR_DATA_TYPE)
    TGC_NAME(CUDNN_ATTR_TENSOR_DIMENSIONS)
    TGC_NAME(CUDNN_ATTR_TENSOR_STRIDES)
    TGC_NAME(CUDNN_ATTR_TENSOR_UNIQUE_ID)
    TGC_NAME(CUDNN_ATTR_TENSOR_IS_VIRTUAL)
    TGC_NAME(CUDNN_ATTR_TENSOR_IS_BY_VALUE)
    TGC_NAME(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS)
    TGC_NAME(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS)
    TGC_NAME(CUDNN_ATTR_VARIANT_PACK_WORKSPACE)
    TGC_NAME(CUDNN_ATTR_ENGINE_GLOBAL_INDEX)
    TGC_NAME(CUDNN_ATTR_MATMUL_COMP_TYPE)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_ADESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_BDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_CDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_DESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC)
    TGC_NAME(CUDNN_ATTR_REDUCTION_OPERATOR)
    TGC_NAME(CUDNN_ATTR_REDUCTION_COMP_TYPE)
    TGC_NAME(CUDNN_ATTR_OPERATION_REDUCTION_XDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_REDUCTION_YDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_REDUCTION_DESC)
    TGC_NAME(CUDNN_ATTR_RNG_DISTRIBUTION)
    TGC_NAME(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY)
    TGC_NAME(CUDNN_ATTR_OPERATION_RNG_YDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_RNG_SEED)
    TGC_NAME(CUDNN_ATTR_OPERATION_RNG_DESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC)
    TGC_NAME(CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC)
#undef TGC_NAME
  default:
    return strCat("attribute ", int(name));
  }
}

cudnnDataType_t dataTypeOf(DType type) {
  switch (type) {
  case DType::BF16:
    return CUDNN_DATA_BFLOAT16;
  case DType::F16:
    return CUDNN_DATA_HALF;
  case DType::F32:
    return CUDNN_DATA_FLOAT;
  case DType::F8E4M3FN:
    return CUDNN_DATA_FP8_E4M3;
  case DType::F8E5M2:
    return CUDNN_DATA_FP8_E5M2;
  case DType::I8:
    return CUDNN_DATA_INT8;
  case DType::I32:
    return CUDNN_DATA_INT32;
  case DType::I64:
    return CUDNN_DATA_INT64;
  case DType::I1:
    return CUDNN_DATA_BOOLEAN; // one byte per element, as plans store i1
  case DType::I4:
    return CUDNN_DATA_INT4; // not bound by today's lowering (it refuses i4)
  }
  return CUDNN_DATA_FLOAT;
}

namespace {
template <typename Enum> struct NamedEnum {
  const char *name;
  Enum value;
};

const NamedEnum<cudnnPointwiseMode_t> kPointwiseModes[] = {
    {"add", CUDNN_POINTWISE_ADD},
    {"add_square", CUDNN_POINTWISE_ADD_SQUARE},
    {"div", CUDNN_POINTWISE_DIV},
    {"max", CUDNN_POINTWISE_MAX},
    {"min", CUDNN_POINTWISE_MIN},
    {"mod", CUDNN_POINTWISE_MOD},
    {"mul", CUDNN_POINTWISE_MUL},
    {"pow", CUDNN_POINTWISE_POW},
    {"sub", CUDNN_POINTWISE_SUB},
    {"abs", CUDNN_POINTWISE_ABS},
    {"ceil", CUDNN_POINTWISE_CEIL},
    {"cos", CUDNN_POINTWISE_COS},
    {"exp", CUDNN_POINTWISE_EXP},
    {"floor", CUDNN_POINTWISE_FLOOR},
    {"log", CUDNN_POINTWISE_LOG},
    {"neg", CUDNN_POINTWISE_NEG},
    {"rsqrt", CUDNN_POINTWISE_RSQRT},
    {"sin", CUDNN_POINTWISE_SIN},
    {"sqrt", CUDNN_POINTWISE_SQRT},
    {"tan", CUDNN_POINTWISE_TAN},
    {"erf", CUDNN_POINTWISE_ERF},
    {"identity", CUDNN_POINTWISE_IDENTITY},
    {"reciprocal", CUDNN_POINTWISE_RECIPROCAL},
    {"atan2", CUDNN_POINTWISE_ATAN2},
    {"relu_fwd", CUDNN_POINTWISE_RELU_FWD},
    {"tanh_fwd", CUDNN_POINTWISE_TANH_FWD},
    {"sigmoid_fwd", CUDNN_POINTWISE_SIGMOID_FWD},
    {"elu_fwd", CUDNN_POINTWISE_ELU_FWD},
    {"gelu_fwd", CUDNN_POINTWISE_GELU_FWD},
    {"softplus_fwd", CUDNN_POINTWISE_SOFTPLUS_FWD},
    {"swish_fwd", CUDNN_POINTWISE_SWISH_FWD},
    {"gelu_approx_tanh_fwd", CUDNN_POINTWISE_GELU_APPROX_TANH_FWD},
    {"relu_bwd", CUDNN_POINTWISE_RELU_BWD},
    {"tanh_bwd", CUDNN_POINTWISE_TANH_BWD},
    {"sigmoid_bwd", CUDNN_POINTWISE_SIGMOID_BWD},
    {"elu_bwd", CUDNN_POINTWISE_ELU_BWD},
    {"gelu_bwd", CUDNN_POINTWISE_GELU_BWD},
    {"softplus_bwd", CUDNN_POINTWISE_SOFTPLUS_BWD},
    {"swish_bwd", CUDNN_POINTWISE_SWISH_BWD},
    {"gelu_approx_tanh_bwd", CUDNN_POINTWISE_GELU_APPROX_TANH_BWD},
    {"cmp_eq", CUDNN_POINTWISE_CMP_EQ},
    {"cmp_neq", CUDNN_POINTWISE_CMP_NEQ},
    {"cmp_gt", CUDNN_POINTWISE_CMP_GT},
    {"cmp_ge", CUDNN_POINTWISE_CMP_GE},
    {"cmp_lt", CUDNN_POINTWISE_CMP_LT},
    {"cmp_le", CUDNN_POINTWISE_CMP_LE},
    {"logical_and", CUDNN_POINTWISE_LOGICAL_AND},
    {"logical_or", CUDNN_POINTWISE_LOGICAL_OR},
    {"logical_not", CUDNN_POINTWISE_LOGICAL_NOT},
    {"gen_index", CUDNN_POINTWISE_GEN_INDEX},
    {"binary_select", CUDNN_POINTWISE_BINARY_SELECT},
};

const NamedEnum<cudnnReduceTensorOp_t> kReductionOperators[] = {
    {"add", CUDNN_REDUCE_TENSOR_ADD},
    {"mul", CUDNN_REDUCE_TENSOR_MUL},
    {"min", CUDNN_REDUCE_TENSOR_MIN},
    {"max", CUDNN_REDUCE_TENSOR_MAX},
    {"amax", CUDNN_REDUCE_TENSOR_AMAX},
    {"avg", CUDNN_REDUCE_TENSOR_AVG},
    {"norm1", CUDNN_REDUCE_TENSOR_NORM1},
    {"norm2", CUDNN_REDUCE_TENSOR_NORM2},
    {"mul_no_zeros", CUDNN_REDUCE_TENSOR_MUL_NO_ZEROS},
};

template <typename Enum, size_t N>
std::optional<Enum> lookup(const NamedEnum<Enum> (&table)[N],
                           std::string_view name) {
  for (const NamedEnum<Enum> &entry : table)
    if (name == entry.name)
      return entry.value;
  return std::nullopt;
}

bool isActivationBackward(cudnnPointwiseMode_t mode) {
  return mode >= CUDNN_POINTWISE_RELU_BWD &&
         mode <= CUDNN_POINTWISE_GELU_APPROX_TANH_BWD;
}

struct PortAttribute {
  const char *port;
  cudnnBackendAttributeName_t attribute;
};

// Ports of each op kind (CudnnGraph.cpp's table) and the attribute of the
// operation descriptor that takes the bound tensor.
const PortAttribute kPointwisePorts[] = {
    {"x", CUDNN_ATTR_OPERATION_POINTWISE_XDESC},
    {"b", CUDNN_ATTR_OPERATION_POINTWISE_BDESC},
    {"t", CUDNN_ATTR_OPERATION_POINTWISE_TDESC},
    {"y", CUDNN_ATTR_OPERATION_POINTWISE_YDESC},
};
// Activation backward modes (relu_bwd, ...) take x, the incoming gradient
// dy in port b, and write dx through port y.
const PortAttribute kPointwiseBackwardPorts[] = {
    {"x", CUDNN_ATTR_OPERATION_POINTWISE_XDESC},
    {"b", CUDNN_ATTR_OPERATION_POINTWISE_DYDESC},
    {"y", CUDNN_ATTR_OPERATION_POINTWISE_DXDESC},
};
const PortAttribute kMatmulPorts[] = {
    {"a", CUDNN_ATTR_OPERATION_MATMUL_ADESC},
    {"b", CUDNN_ATTR_OPERATION_MATMUL_BDESC},
    {"c", CUDNN_ATTR_OPERATION_MATMUL_CDESC},
    {"m_override", CUDNN_ATTR_OPERATION_MATMUL_GEMM_M_OVERRIDE_DESC},
    {"n_override", CUDNN_ATTR_OPERATION_MATMUL_GEMM_N_OVERRIDE_DESC},
    {"k_override", CUDNN_ATTR_OPERATION_MATMUL_GEMM_K_OVERRIDE_DESC},
};
const PortAttribute kReductionPorts[] = {
    {"x", CUDNN_ATTR_OPERATION_REDUCTION_XDESC},
    {"y", CUDNN_ATTR_OPERATION_REDUCTION_YDESC},
};
const PortAttribute kRngPorts[] = {
    {"y", CUDNN_ATTR_OPERATION_RNG_YDESC},
    // The seed may also be an int64 attribute; plans pass it as a tensor
    // so that it can change between runs.
    {"seed", CUDNN_ATTR_OPERATION_RNG_SEED},
    {"offset", CUDNN_ATTR_OPERATION_RNG_OFFSET_DESC},
};
const PortAttribute kSdpaForwardPorts[] = {
    {"q", CUDNN_ATTR_OPERATION_SDPA_FWD_QDESC},
    {"k", CUDNN_ATTR_OPERATION_SDPA_FWD_KDESC},
    {"v", CUDNN_ATTR_OPERATION_SDPA_FWD_VDESC},
    {"o", CUDNN_ATTR_OPERATION_SDPA_FWD_ODESC},
    {"stats", CUDNN_ATTR_OPERATION_SDPA_FWD_STATSDESC},
    {"scale", CUDNN_ATTR_OPERATION_SDPA_FWD_SCALEDESC},
    {"seq_len_q", CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_QDESC},
    {"seq_len_kv", CUDNN_ATTR_OPERATION_SDPA_FWD_SEQ_LEN_KVDESC},
};
const PortAttribute kSdpaBackwardPorts[] = {
    {"q", CUDNN_ATTR_OPERATION_SDPA_BWD_QDESC},
    {"k", CUDNN_ATTR_OPERATION_SDPA_BWD_KDESC},
    {"v", CUDNN_ATTR_OPERATION_SDPA_BWD_VDESC},
    {"o", CUDNN_ATTR_OPERATION_SDPA_BWD_ODESC},
    {"do", CUDNN_ATTR_OPERATION_SDPA_BWD_DODDESC},
    {"stats", CUDNN_ATTR_OPERATION_SDPA_BWD_STATSDESC},
    {"scale", CUDNN_ATTR_OPERATION_SDPA_BWD_SCALEDESC},
    {"dq", CUDNN_ATTR_OPERATION_SDPA_BWD_DQDESC},
    {"dk", CUDNN_ATTR_OPERATION_SDPA_BWD_DKDESC},
    {"dv", CUDNN_ATTR_OPERATION_SDPA_BWD_DVDESC},
    {"seq_len_q", CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_QDESC},
    {"seq_len_kv", CUDNN_ATTR_OPERATION_SDPA_BWD_SEQ_LEN_KVDESC},
};

const PortAttribute kReshapePorts[] = {
    {"x", CUDNN_ATTR_OPERATION_RESHAPE_XDESC},
    {"y", CUDNN_ATTR_OPERATION_RESHAPE_YDESC},
};

template <size_t N>
std::optional<cudnnBackendAttributeName_t>
portAttribute(const PortAttribute (&table)[N], std::string_view port) {
  for (const PortAttribute &entry : table)
    if (port == entry.port)
      return entry.attribute;
  return std::nullopt;
}

std::optional<cudnnBackendAttributeName_t>
portAttribute(const Op &op, std::string_view port) {
  switch (op.kind) {
  case OpKind::Pointwise: {
    std::optional<cudnnPointwiseMode_t> mode = pointwiseMode(op.mode);
    if (mode && isActivationBackward(*mode))
      return portAttribute(kPointwiseBackwardPorts, port);
    return portAttribute(kPointwisePorts, port);
  }
  case OpKind::Matmul:
    return portAttribute(kMatmulPorts, port);
  case OpKind::Reduction:
    return portAttribute(kReductionPorts, port);
  case OpKind::Rng:
    return portAttribute(kRngPorts, port);
  case OpKind::SdpaForward:
    return portAttribute(kSdpaForwardPorts, port);
  case OpKind::SdpaBackward:
    return portAttribute(kSdpaBackwardPorts, port);
  case OpKind::Reshape:
    return portAttribute(kReshapePorts, port);
  }
  return std::nullopt;
}

cudnnBackendDescriptorType_t operationType(OpKind kind) {
  switch (kind) {
  case OpKind::Pointwise:
    return CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR;
  case OpKind::Matmul:
    return CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR;
  case OpKind::Reduction:
    return CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR;
  case OpKind::Rng:
    return CUDNN_BACKEND_OPERATION_RNG_DESCRIPTOR;
  case OpKind::SdpaForward:
    return CUDNN_BACKEND_OPERATION_SDPA_FWD_DESCRIPTOR;
  case OpKind::SdpaBackward:
    return CUDNN_BACKEND_OPERATION_SDPA_BWD_DESCRIPTOR;
  case OpKind::Reshape:
    return CUDNN_BACKEND_OPERATION_RESHAPE_DESCRIPTOR;
  }
  return CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR;
}

Expected<Descriptor> buildTensor(const CudnnLibrary &lib, const Tensor &t) {
  Expected<Descriptor> created = Descriptor::create(
      lib, CUDNN_BACKEND_TENSOR_DESCRIPTOR, strCat("tensor ", t.uid));
  if (!created)
    return created.takeStatus();
  Descriptor d = created.take();
  bool isVirtual = t.kind == TensorKind::Virtual;
  TGC_RETURN_IF_ERROR(d.setDataType(CUDNN_ATTR_TENSOR_DATA_TYPE, dataTypeOf(t.dtype)));
  TGC_RETURN_IF_ERROR(
      d.set(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64,
            int64_t(t.dims.size()), t.dims.data()));
  TGC_RETURN_IF_ERROR(
      d.set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64,
            int64_t(t.strides.size()), t.strides.data()));
  TGC_RETURN_IF_ERROR(d.setInt64(CUDNN_ATTR_TENSOR_UNIQUE_ID, t.uid));
  // Plan buffers are at least 16-byte aligned (Buffer::alignment default);
  // virtual and by-value tensors have no address.
  TGC_RETURN_IF_ERROR(d.setInt64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16));
  TGC_RETURN_IF_ERROR(
      d.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &isVirtual));
  if (t.kind == TensorKind::ByValue) {
    bool byValue = true;
    TGC_RETURN_IF_ERROR(
        d.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byValue));
  }
  TGC_RETURN_IF_ERROR(d.finalize());
  return d;
}

/// The settings descriptor an operation points to (pointwise, matmul,
/// reduction, rng), finalised; none for the SDPA and reshape ops.
Expected<std::optional<Descriptor>> buildSettings(const CudnnLibrary &lib,
                                                  const Op &op,
                                                  const std::string &what) {
  auto make = [&](cudnnBackendDescriptorType_t type) {
    return Descriptor::create(lib, type, what + " settings");
  };
  cudnnDataType_t compute = dataTypeOf(op.compute);
  std::optional<Descriptor> result;
  switch (op.kind) {
  case OpKind::Pointwise: {
    std::optional<cudnnPointwiseMode_t> mode = pointwiseMode(op.mode);
    if (!mode)
      return makeError(StatusCode::Unsupported, what, ": unknown pointwise mode '",
                       op.mode, "'");
    Expected<Descriptor> d = make(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    if (!d)
      return d.takeStatus();
    TGC_RETURN_IF_ERROR(
        d->set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &*mode));
    TGC_RETURN_IF_ERROR(d->setDataType(CUDNN_ATTR_POINTWISE_MATH_PREC, compute));
    if (op.axis)
      TGC_RETURN_IF_ERROR(d->setInt64(CUDNN_ATTR_POINTWISE_AXIS, *op.axis));
    result = d.take();
    break;
  }
  case OpKind::Matmul: {
    Expected<Descriptor> d = make(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    if (!d)
      return d.takeStatus();
    TGC_RETURN_IF_ERROR(d->setDataType(CUDNN_ATTR_MATMUL_COMP_TYPE, compute));
    result = d.take();
    break;
  }
  case OpKind::Reduction: {
    std::optional<cudnnReduceTensorOp_t> reduce = reductionOperator(op.mode);
    if (!reduce)
      return makeError(StatusCode::Unsupported, what,
                       ": unknown reduction mode '", op.mode, "'");
    Expected<Descriptor> d = make(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    if (!d)
      return d.takeStatus();
    TGC_RETURN_IF_ERROR(d->setDataType(CUDNN_ATTR_REDUCTION_COMP_TYPE, compute));
    TGC_RETURN_IF_ERROR(d->set(CUDNN_ATTR_REDUCTION_OPERATOR,
                               CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &*reduce));
    result = d.take();
    break;
  }
  case OpKind::Rng: {
    if (op.mode != "bernoulli")
      return makeError(StatusCode::Unsupported, what,
                       ": unknown rng distribution '", op.mode,
                       "' (only bernoulli)");
    Expected<Descriptor> d = make(CUDNN_BACKEND_RNG_DESCRIPTOR);
    if (!d)
      return d.takeStatus();
    cudnnRngDistribution_t distribution = CUDNN_RNG_DISTRIBUTION_BERNOULLI;
    double probability = op.probability.value_or(0.0);
    TGC_RETURN_IF_ERROR(d->set(CUDNN_ATTR_RNG_DISTRIBUTION,
                               CUDNN_TYPE_RNG_DISTRIBUTION, 1, &distribution));
    TGC_RETURN_IF_ERROR(d->set(CUDNN_ATTR_RNG_BERNOULLI_DIST_PROBABILITY,
                               CUDNN_TYPE_DOUBLE, 1, &probability));
    result = d.take();
    break;
  }
  case OpKind::SdpaForward:
  case OpKind::SdpaBackward:
  case OpKind::Reshape:
    return result;
  }
  TGC_RETURN_IF_ERROR(result->finalize());
  return result;
}

cudnnBackendAttributeName_t settingsAttribute(OpKind kind) {
  switch (kind) {
  case OpKind::Pointwise:
    return CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR;
  case OpKind::Matmul:
    return CUDNN_ATTR_OPERATION_MATMUL_DESC;
  case OpKind::Reduction:
    return CUDNN_ATTR_OPERATION_REDUCTION_DESC;
  case OpKind::Rng:
    return CUDNN_ATTR_OPERATION_RNG_DESC;
  default:
    return CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR; // unused
  }
}
} // namespace

std::optional<cudnnPointwiseMode_t> pointwiseMode(std::string_view name) {
  return lookup(kPointwiseModes, name);
}

std::optional<cudnnReduceTensorOp_t> reductionOperator(std::string_view name) {
  return lookup(kReductionOperators, name);
}

Expected<BuiltGraph> buildOperationGraph(const CudnnLibrary &lib,
                                         cudnnHandle_t handle,
                                         const Graph &graph) {
  BuiltGraph built;
  for (const Tensor &t : graph.tensors) {
    Expected<Descriptor> d = buildTensor(lib, t);
    if (!d)
      return d.takeStatus();
    built.tensors.push_back(d.take());
  }
  auto tensorDescriptor = [&](int64_t uid) -> const Descriptor * {
    for (size_t i = 0; i < graph.tensors.size(); ++i)
      if (graph.tensors[i].uid == uid)
        return &built.tensors[i];
    return nullptr;
  };

  for (size_t i = 0; i < graph.ops.size(); ++i) {
    const Op &op = graph.ops[i];
    std::string what = strCat("op ", i, " (", opKindName(op.kind),
                              op.mode.empty() ? "" : " ", op.mode, ")");
    Expected<std::optional<Descriptor>> settings = buildSettings(lib, op, what);
    if (!settings)
      return settings.takeStatus();
    Expected<Descriptor> created =
        Descriptor::create(lib, operationType(op.kind), what);
    if (!created)
      return created.takeStatus();
    Descriptor d = created.take();
    if (*settings)
      TGC_RETURN_IF_ERROR(d.setDescriptor(settingsAttribute(op.kind), **settings));
    for (const Port &port : op.ports) {
      std::optional<cudnnBackendAttributeName_t> attribute =
          portAttribute(op, port.name);
      if (!attribute)
        return makeError(StatusCode::Unsupported, what, ": port '", port.name,
                         "' has no cuDNN attribute in this runtime");
      const Descriptor *tensor = tensorDescriptor(port.uid);
      if (!tensor)
        return makeError(StatusCode::InvalidPlan, what, ": port '", port.name,
                         "' names unknown tensor ", port.uid);
      TGC_RETURN_IF_ERROR(d.setDescriptor(*attribute, *tensor));
    }
    TGC_RETURN_IF_ERROR(d.finalize());
    if (*settings)
      built.parts.push_back(std::move(**settings));
    built.ops.push_back(std::move(d));
  }

  Expected<Descriptor> created = Descriptor::create(
      lib, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "the operation graph");
  if (!created)
    return created.takeStatus();
  built.graph = created.take();
  std::vector<cudnnBackendDescriptor_t> ops;
  for (const Descriptor &op : built.ops)
    ops.push_back(op.get());
  TGC_RETURN_IF_ERROR(built.graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                      CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                      int64_t(ops.size()), ops.data()));
  // Deprecated in 9.19 but still needed: without a handle (or a device
  // properties descriptor) heuristics return no engine configs.
  TGC_RETURN_IF_ERROR(built.graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                      CUDNN_TYPE_HANDLE, 1, &handle));
  TGC_RETURN_IF_ERROR(built.graph.finalize());
  return built;
}

} // namespace tgc::cudnn
