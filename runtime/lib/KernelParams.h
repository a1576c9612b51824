#ifndef TGC_LIB_KERNELPARAMS_H
#define TGC_LIB_KERNELPARAMS_H

// A compiled kernel's parameter list, read from the image NVRTC produced:
// the `.entry` declaration of PTX, or the per-kernel `.nv.info.<symbol>`
// section of a cubin (one EIATTR_KPARAM_INFO record per parameter). This
// lets the runtime check a plan's arguments against the kernel without a
// device and without probing the driver past the last parameter.

#include "tgc/Nvrtc.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace tgc {

/// Parameter sizes in bytes, in order; nullopt when the image does not say
/// (an unknown layout, or the symbol is not found).
std::optional<std::vector<uint32_t>>
kernelParamSizes(const CompiledKernel &kernel);

std::optional<std::vector<uint32_t>> ptxParamSizes(std::string_view ptx,
                                                   std::string_view symbol);
std::optional<std::vector<uint32_t>> cubinParamSizes(std::string_view cubin,
                                                     std::string_view symbol);

} // namespace tgc

#endif // TGC_LIB_KERNELPARAMS_H
