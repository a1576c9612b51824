#ifndef TGC_SHA256_H
#define TGC_SHA256_H

// SHA-256 (FIPS 180-4), written here because the runtime has no external
// dependencies. Used for kernel cache keys and for plan/cache checksums; it
// is not used for anything security-sensitive, but a cryptographic hash
// makes accidental key collisions a non-issue.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tgc {

using Digest = std::array<uint8_t, 32>;

class Sha256 {
public:
  Sha256();
  void update(const void *data, size_t size);
  void update(std::string_view text) { update(text.data(), text.size()); }
  /// Adds a 64-bit length prefix and then the bytes, so that a sequence of
  /// fields hashes unambiguously ("ab","c" differs from "a","bc").
  void updateField(std::string_view field);
  /// Finishes the hash; the object must not be updated afterwards.
  Digest finish();

  static Digest hash(std::string_view data);

private:
  void compress(const uint8_t block[64]);

  uint32_t state_[8];
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t totalBytes_ = 0;
};

/// Lower-case hexadecimal spelling of a digest.
std::string toHex(const Digest &digest);

} // namespace tgc

#endif // TGC_SHA256_H
