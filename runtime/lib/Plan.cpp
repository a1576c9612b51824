#include "tgc/Plan.h"
#include "tgc/Target.h" // CompileTarget::name, for arch-specific kernel targets

#include <algorithm>
#include <cstring>

namespace tgc {

const char *bufferRoleName(BufferRole role) {
  switch (role) {
  case BufferRole::Input:
    return "input";
  case BufferRole::Output:
    return "output";
  case BufferRole::Intermediate:
    return "intermediate";
  }
  return "?";
}

int64_t Buffer::numElements() const {
  // Saturates instead of overflowing; validate() rejects such shapes.
  const unsigned __int128 limit = uint64_t(1) << 62;
  unsigned __int128 n = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return 0;
    n = std::min<unsigned __int128>(n * uint64_t(d), limit);
  }
  return int64_t(n);
}

uint64_t Buffer::byteSpan() const {
  // Saturates instead of overflowing; validate() rejects such spans.
  const unsigned __int128 limit = uint64_t(1) << 62;
  unsigned __int128 lastIndex = 0;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] <= 0)
      return 0;
    if (i < strides.size() && strides[i] > 0)
      lastIndex += (unsigned __int128)(shape[i] - 1) * uint64_t(strides[i]);
    if (lastIndex > limit)
      return uint64_t(limit);
  }
  unsigned __int128 bytes = ((lastIndex + 1) * dtypeBits(dtype) + 7) / 8;
  return bytes > limit ? uint64_t(limit) : uint64_t(bytes);
}

std::string KernelTarget::str() const {
  if (kind == Kind::ArchSpecific) // NVRTC's name: "sm_90a"
    return CompileTarget{BinaryKind::Cubin, arch, true}.name();
  return strCat("portable ", arch);
}

bool KernelArg::operator==(const KernelArg &o) const {
  if (kind != o.kind)
    return false;
  switch (kind) {
  case Kind::Buffer:
    return buffer == o.buffer;
  case Kind::I32:
  case Kind::I64:
    return intValue == o.intValue;
  case Kind::F32:
    // Bitwise, so that NaN payloads and -0 compare as serialised.
    return std::memcmp(&floatValue, &o.floatValue, sizeof(float)) == 0;
  }
  return false;
}

const char *stepKindName(const Step &step) {
  switch (step.index()) {
  case 0:
    return "launch";
  case 1:
    return "memset";
  case 2:
    return "copy";
  case 3:
    return "cudnn";
  }
  return "?";
}

const Buffer *Plan::findBuffer(std::string_view name) const {
  for (const Buffer &b : buffers)
    if (b.name == name)
      return &b;
  return nullptr;
}

const Kernel *Plan::findKernel(std::string_view id) const {
  for (const Kernel &k : kernels)
    if (k.id == id)
      return &k;
  return nullptr;
}

} // namespace tgc
