#include "Harnesses.h"

#include "KernelParams.h"
#include "tgc/KernelCache.h"

#include <cstring>
#include <string>

int tgc::fuzz::cacheEntryBytes(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  // The entry's own key, so that mutations get past the key check.
  Digest key{};
  if (bytes.size() >= 48)
    std::memcpy(key.data(), bytes.data() + 16, key.size());
  Expected<CompiledKernel> kernel = decodeCacheEntry(bytes, key);
  if (kernel) {
    require(encodeCacheEntry(key, *kernel) == bytes,
            "a decoded cache entry does not re-encode to its bytes");
    (void)kernelParamSizes(*kernel);
  }
  // The image readers on the raw bytes too, with a symbol from the input.
  std::string symbol = bytes.substr(0, std::min<size_t>(bytes.size(), 4));
  (void)cubinParamSizes(bytes, symbol);
  (void)ptxParamSizes(bytes, symbol);
  (void)cubinParamSizes(bytes, "k");
  return 0;
}
