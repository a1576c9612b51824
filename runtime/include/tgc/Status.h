#ifndef TGC_STATUS_H
#define TGC_STATUS_H

// Error handling for the runtime: a Status (code + message) and Expected<T>
// (a value or a Status). The runtime does not throw; the C API maps codes
// one to one onto tgc_status_t (tgc.h).

#include <cassert>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

// Exported API: the library is built with hidden visibility
// (cmake/TgcSharedLibrary.cmake).
#pragma GCC visibility push(default)

namespace tgc {

/// Numeric values are part of the C ABI (tgc_status_t); never renumber.
enum class StatusCode : int {
  Ok = 0,
  InvalidArgument = 1, // a null pointer or a bad value passed to an API
  InvalidPlan = 2,     // a plan that does not parse or does not validate
  IoError = 3,         // a file could not be read or written
  CompileError = 4,    // NVRTC rejected a kernel (its log is in the message)
  NoDriver = 5,        // libcuda.so.1 missing, or no usable CUDA device
  CudaError = 6,       // a CUDA driver call failed
  Unsupported = 7,     // the plan needs something this runtime/device lacks
  BindingError = 8,    // unknown, missing, duplicate or mismatched binding
  Misaligned = 9,      // a pointer without the alignment its buffer needs
  WorkspaceTooSmall = 10,
  OutOfMemory = 11,
  Internal = 12,
};

const char *statusCodeName(StatusCode code);

class Status {
public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok() { return Status(); }
  bool isOk() const { return code_ == StatusCode::Ok; }
  explicit operator bool() const { return isOk(); }
  StatusCode code() const { return code_; }
  const std::string &message() const { return message_; }

  /// Prefixes the message with context ("while loading kernel k0: ...").
  Status &addContext(const std::string &context) {
    if (!isOk())
      message_ = context + ": " + message_;
    return *this;
  }

private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

/// Concatenates anything streamable into one string.
template <typename... Args> std::string strCat(const Args &...args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <typename... Args>
Status makeError(StatusCode code, const Args &...args) {
  return Status(code, strCat(args...));
}

/// A value or the Status that explains why there is none.
template <typename T> class Expected {
public:
  Expected(T value) : value_(std::move(value)) {}
  Expected(Status status) : status_(std::move(status)) {
    assert(!status_.isOk() && "Expected built from an ok Status");
  }

  bool hasValue() const { return value_.has_value(); }
  explicit operator bool() const { return hasValue(); }
  const Status &status() const { return status_; }
  Status takeStatus() { return std::move(status_); }

  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }
  T take() { return std::move(*value_); }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace tgc

#define TGC_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::tgc::Status tgcStatus_ = (expr);                                         \
    if (!tgcStatus_.isOk())                                                    \
      return tgcStatus_;                                                       \
  } while (false)

#pragma GCC visibility pop

#endif // TGC_STATUS_H
