// Device access for tools: contexts, memory, copies and timing through the
// dlopen-ed driver (CudaDriver.h).
#include "tgc/Device.h"

#include "CudaDriver.h"

#include <utility>

using namespace tgc;

static Expected<const CudaDriver *> driverWith(bool present, const char *what) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  if (!present)
    return Status(StatusCode::Unsupported,
                  strCat("the CUDA driver lacks ", what));
  return driver;
}

Status tgc::useDevice(int ordinal) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  if (!cu.cuDeviceGet || !cu.cuDevicePrimaryCtxRetain || !cu.cuCtxSetCurrent)
    return Status(StatusCode::Unsupported,
                  "the CUDA driver lacks primary-context calls");
  CUdevice device;
  if (Status s = cu.check(cu.cuDeviceGet(&device, ordinal), "cuDeviceGet"); !s)
    return s;
  CUcontext context;
  if (Status s = cu.check(cu.cuDevicePrimaryCtxRetain(&context, device),
                          "cuDevicePrimaryCtxRetain");
      !s)
    return s;
  return cu.check(cu.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

Expected<int> tgc::currentDeviceArch() {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  CUdevice device;
  if (Status s = cu.check(cu.cuCtxGetDevice(&device), "cuCtxGetDevice"); !s)
    return s;
  int major = 0, minor = 0;
  cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          device);
  cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          device);
  return major * 10 + minor;
}

Expected<DeviceBuffer> DeviceBuffer::allocate(size_t bytes) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  DeviceBuffer buffer;
  CUdeviceptr ptr = 0;
  // cuMemAlloc rejects 0 bytes; keep one so every binding has an address.
  if (Status s = (*driver)->check((*driver)->cuMemAlloc(&ptr, bytes ? bytes : 1),
                                  strCat("cuMemAlloc(", bytes, ")"));
      !s)
    return s;
  buffer.ptr_ = ptr;
  buffer.bytes_ = bytes;
  return buffer;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  std::swap(ptr_, other.ptr_);
  std::swap(bytes_, other.bytes_);
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  if (!ptr_)
    return;
  if (auto driver = CudaDriver::get())
    (*driver)->cuMemFree(ptr_);
}

Status DeviceBuffer::upload(const void *host, size_t bytes) {
  auto driver = driverWith(CudaDriver::get() && (*CudaDriver::get())->cuMemcpyHtoD,
                           "cuMemcpyHtoD");
  if (!driver)
    return driver.status();
  if (bytes > bytes_)
    return Status(StatusCode::InvalidArgument, "upload larger than the buffer");
  return (*driver)->check((*driver)->cuMemcpyHtoD(ptr_, host, bytes),
                          "cuMemcpyHtoD");
}

Status DeviceBuffer::download(void *host, size_t bytes) const {
  auto driver = driverWith(CudaDriver::get() && (*CudaDriver::get())->cuMemcpyDtoH,
                           "cuMemcpyDtoH");
  if (!driver)
    return driver.status();
  if (bytes > bytes_)
    return Status(StatusCode::InvalidArgument,
                  "download larger than the buffer");
  return (*driver)->check((*driver)->cuMemcpyDtoH(host, ptr_, bytes),
                          "cuMemcpyDtoH");
}

Status DeviceBuffer::fill(uint8_t value) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  if (Status s = (*driver)->check(
          (*driver)->cuMemsetD8Async(ptr_, value, bytes_, nullptr), "cuMemsetD8");
      !s)
    return s;
  return synchronizeDevice();
}

Status tgc::synchronizeDevice() {
  auto driver = driverWith(CudaDriver::get() && (*CudaDriver::get())->cuCtxSynchronize,
                           "cuCtxSynchronize");
  if (!driver)
    return driver.status();
  return (*driver)->check((*driver)->cuCtxSynchronize(), "cuCtxSynchronize");
}

Expected<StreamTimer> StreamTimer::create() {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  StreamTimer timer;
  CUevent begin, end;
  if (Status s = (*driver)->check((*driver)->cuEventCreate(&begin, CU_EVENT_DEFAULT),
                                  "cuEventCreate");
      !s)
    return s;
  timer.begin_ = begin;
  if (Status s = (*driver)->check((*driver)->cuEventCreate(&end, CU_EVENT_DEFAULT),
                                  "cuEventCreate");
      !s)
    return s;
  timer.end_ = end;
  return timer;
}

StreamTimer::StreamTimer(StreamTimer &&other) noexcept
    : begin_(std::exchange(other.begin_, nullptr)),
      end_(std::exchange(other.end_, nullptr)) {}

StreamTimer &StreamTimer::operator=(StreamTimer &&other) noexcept {
  std::swap(begin_, other.begin_);
  std::swap(end_, other.end_);
  return *this;
}

StreamTimer::~StreamTimer() {
  auto driver = CudaDriver::get();
  if (!driver)
    return;
  for (void *event : {begin_, end_})
    if (event)
      (*driver)->cuEventDestroy(static_cast<CUevent>(event));
}

Status StreamTimer::start(Stream stream) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  return (*driver)->check(
      (*driver)->cuEventRecord(static_cast<CUevent>(begin_), stream),
      "cuEventRecord");
}

Status StreamTimer::stop(Stream stream) {
  auto driver = CudaDriver::get();
  if (!driver)
    return driver.status();
  return (*driver)->check(
      (*driver)->cuEventRecord(static_cast<CUevent>(end_), stream),
      "cuEventRecord");
}

Expected<float> StreamTimer::elapsedMs() {
  auto driver = driverWith(CudaDriver::get() &&
                               (*CudaDriver::get())->cuEventSynchronize &&
                               (*CudaDriver::get())->cuEventElapsedTime,
                           "event timing");
  if (!driver)
    return driver.status();
  const CudaDriver &cu = **driver;
  if (Status s = cu.check(cu.cuEventSynchronize(static_cast<CUevent>(end_)),
                          "cuEventSynchronize");
      !s)
    return s;
  float ms = 0;
  if (Status s = cu.check(cu.cuEventElapsedTime(&ms, static_cast<CUevent>(begin_),
                                                static_cast<CUevent>(end_)),
                          "cuEventElapsedTime");
      !s)
    return s;
  return ms;
}
