#include "Bindings.h"

namespace tgc {

namespace {
std::string formatDims(const int64_t *values, size_t n) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

std::string formatDims(const std::vector<int64_t> &values) {
  return formatDims(values.data(), values.size());
}

std::string describe(const Buffer &b) {
  return strCat(dtypeName(b.dtype), " ", formatDims(b.shape));
}

std::string bindableNames(const Plan &plan) {
  std::string inputs, outputs;
  for (const Buffer &b : plan.buffers) {
    std::string &list = b.role == BufferRole::Input ? inputs : outputs;
    if (b.role == BufferRole::Intermediate)
      continue;
    list += (list.empty() ? "'" : ", '") + b.name + "'";
  }
  return strCat("inputs: ", inputs.empty() ? "none" : inputs,
                "; outputs: ", outputs.empty() ? "none" : outputs);
}

Status checkOne(const Buffer &b, const BindingRef &binding) {
  std::string who = strCat("binding '", b.name, "'");
  if (!binding.data) {
    if (b.byteSpan() == 0)
      return Status::ok(); // an empty tensor needs no memory
    return makeError(StatusCode::BindingError, who, " has a null pointer (",
                     bufferRoleName(b.role), " ", describe(b), " needs ",
                     b.byteSpan(), " bytes)");
  }
  auto address = reinterpret_cast<uintptr_t>(binding.data);
  if (address % b.alignment != 0)
    return makeError(StatusCode::Misaligned, who, " pointer 0x", std::hex,
                     address, std::dec, " is not ", b.alignment,
                     "-byte aligned, which the plan's kernels need");
  if (binding.dtype != 0 && binding.dtype != static_cast<int>(b.dtype)) {
    const char *given = isValidDType(binding.dtype)
                            ? dtypeName(static_cast<DType>(binding.dtype))
                            : "<invalid>";
    return makeError(StatusCode::BindingError, who, " has dtype ", given,
                     " but the plan expects ", dtypeName(b.dtype));
  }
  if (binding.hasShape) {
    if (binding.rank < 0)
      return makeError(StatusCode::InvalidArgument, who, " has rank ",
                       binding.rank, " (a rank is not negative)");
    if (binding.rank > 0 && !binding.shape)
      return makeError(StatusCode::InvalidArgument, who,
                       " has rank ", binding.rank, " but no shape array");
    // The rank first: the caller's shape array is read only once its length
    // is known to be the plan's.
    if (size_t(binding.rank) != b.shape.size())
      return makeError(StatusCode::BindingError, who, " has rank ",
                       binding.rank, " but the plan expects rank ",
                       b.shape.size(), " (", describe(b), ")");
    bool same = true;
    for (size_t i = 0; same && i < b.shape.size(); ++i)
      same = binding.shape[i] == b.shape[i];
    if (!same)
      return makeError(StatusCode::BindingError, who, " has shape ",
                       formatDims(binding.shape, size_t(binding.rank)),
                       " but the plan expects ", formatDims(b.shape));
    if (binding.strides && binding.stridesCount >= 0 &&
        binding.stridesCount != binding.rank)
      return makeError(StatusCode::InvalidArgument, who, " has ",
                       binding.stridesCount, " strides for a rank-",
                       binding.rank, " shape");
    if (binding.strides) {
      // Strides of size-1 dims never address memory, so they may differ.
      bool sameStrides = true;
      for (size_t i = 0; i < b.shape.size(); ++i)
        if (b.shape[i] > 1 && binding.strides[i] != b.strides[i])
          sameStrides = false;
      if (!sameStrides)
        return makeError(StatusCode::BindingError, who, " has strides ",
                         formatDims(binding.strides, size_t(binding.rank)),
                         " but the plan was compiled for strides ",
                         formatDims(b.strides));
    }
  } else if (binding.strides) {
    return makeError(StatusCode::InvalidArgument, who,
                     " gives strides without a shape");
  }
  return Status::ok();
}
} // namespace

Status resolveBindings(const Plan &plan, const BufferIndex &index,
                       const BindingRef *bindings, size_t count,
                       const Workspace *workspace,
                       std::vector<uint64_t> &addresses) {
  if (count > 0 && !bindings)
    return makeError(StatusCode::InvalidArgument, count,
                     " bindings given but the binding array is null");
  addresses.assign(plan.buffers.size(), 0);
  std::vector<bool> bound(plan.buffers.size(), false);
  for (size_t i = 0; i < count; ++i) {
    const BindingRef &binding = bindings[i];
    if (binding.name.data() == nullptr)
      return makeError(StatusCode::InvalidArgument, "bindings[", i,
                       "] has a null name");
    auto it = index.find(binding.name);
    if (it == index.end())
      return makeError(StatusCode::BindingError, "unknown binding '",
                       binding.name, "'; the plan '", plan.name, "' has ",
                       bindableNames(plan));
    const Buffer &b = plan.buffers[it->second];
    if (b.role == BufferRole::Intermediate)
      return makeError(StatusCode::BindingError, "'", binding.name,
                       "' is an intermediate of the plan and cannot be bound; "
                       "the plan has ",
                       bindableNames(plan));
    if (bound[it->second])
      return makeError(StatusCode::BindingError, "binding '", binding.name,
                       "' is given twice");
    bound[it->second] = true;
    TGC_RETURN_IF_ERROR(checkOne(b, binding));
    addresses[it->second] = reinterpret_cast<uintptr_t>(binding.data);
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const Buffer &b = plan.buffers[i];
    if (b.role != BufferRole::Intermediate && !bound[i])
      return makeError(StatusCode::BindingError, "missing binding for ",
                       bufferRoleName(b.role), " '", b.name, "' (",
                       describe(b), ")");
  }
  if (workspace) {
    if (workspace->bytes < plan.workspaceBytes)
      return makeError(StatusCode::WorkspaceTooSmall, "the workspace has ",
                       workspace->bytes, " bytes but the plan '", plan.name,
                       "' needs ", plan.workspaceBytes);
    if (plan.workspaceBytes > 0 && !workspace->data)
      return makeError(StatusCode::InvalidArgument,
                       "the workspace pointer is null but the plan needs ",
                       plan.workspaceBytes, " bytes");
    auto address = reinterpret_cast<uintptr_t>(workspace->data);
    if (address % plan.workspaceAlignment != 0)
      return makeError(StatusCode::Misaligned, "the workspace pointer 0x",
                       std::hex, address, std::dec, " is not ",
                       plan.workspaceAlignment, "-byte aligned");
  }
  return Status::ok();
}

} // namespace tgc
