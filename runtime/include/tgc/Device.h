#ifndef TGC_DEVICE_H
#define TGC_DEVICE_H

// A little device access for tools and tests that drive a plan themselves
// (tg-run, the GPU suite): make the first GPU's primary context current,
// allocate, copy, synchronise and time. Embedders usually have their own
// (PyTorch, CUDA runtime) and need none of this.

#include "tgc/Status.h"
#include "tgc/tgc.hpp"

#include <cstddef>
#include <cstdint>

namespace tgc {

/// Makes device `ordinal`'s primary context current on this thread.
Status useDevice(int ordinal = 0);
/// Compute capability * 10 of the current context's device (e.g. 90).
Expected<int> currentDeviceArch();

/// Device memory owned by this object.
class DeviceBuffer {
public:
  static Expected<DeviceBuffer> allocate(size_t bytes);
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  ~DeviceBuffer();

  void *data() const { return reinterpret_cast<void *>(ptr_); }
  size_t size() const { return bytes_; }
  Status upload(const void *host, size_t bytes);
  Status download(void *host, size_t bytes) const;
  /// Sets every byte (e.g. 0xff to poison outputs with NaN patterns).
  Status fill(uint8_t value);

private:
  uint64_t ptr_ = 0;
  size_t bytes_ = 0;
};

/// Waits for all work of the current context.
Status synchronizeDevice();

/// Milliseconds between two points on a stream (CUDA events).
class StreamTimer {
public:
  static Expected<StreamTimer> create();
  StreamTimer() = default;
  StreamTimer(StreamTimer &&other) noexcept;
  StreamTimer &operator=(StreamTimer &&other) noexcept;
  ~StreamTimer();
  Status start(Stream stream);
  Status stop(Stream stream);
  /// Waits for the stop event; the elapsed time in milliseconds.
  Expected<float> elapsedMs();

private:
  void *begin_ = nullptr;
  void *end_ = nullptr;
};

} // namespace tgc

#endif // TGC_DEVICE_H
