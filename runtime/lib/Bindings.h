#ifndef TGC_LIB_BINDINGS_H
#define TGC_LIB_BINDINGS_H

// Host-side validation of run() arguments, shared by the C++ and C APIs.

#include "tgc/tgc.hpp"

#include <string_view>
#include <unordered_map>

namespace tgc {

/// A binding as either API passes it, without copies.
struct BindingRef {
  std::string_view name;
  void *data = nullptr;
  int dtype = 0; // 0: not checked; else a DType value
  bool hasShape = false;
  int32_t rank = 0;
  const int64_t *shape = nullptr;
  const int64_t *strides = nullptr; // null: not checked
  int32_t stridesCount = -1;         // -1: as many as rank (C API)
};

using BufferIndex = std::unordered_map<std::string_view, size_t>;

/// Checks `bindings` (and `workspace` when given) against `plan` and fills
/// `addresses[i]` with the device address of every input/output buffer i.
/// Intermediates are left 0.
Status resolveBindings(const Plan &plan, const BufferIndex &index,
                       const BindingRef *bindings, size_t count,
                       const Workspace *workspace,
                       std::vector<uint64_t> &addresses);

} // namespace tgc

#endif // TGC_LIB_BINDINGS_H
