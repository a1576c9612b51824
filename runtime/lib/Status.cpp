#include "tgc/Status.h"

namespace tgc {

const char *statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::InvalidPlan:
    return "invalid plan";
  case StatusCode::IoError:
    return "I/O error";
  case StatusCode::CompileError:
    return "compile error";
  case StatusCode::NoDriver:
    return "no CUDA driver";
  case StatusCode::CudaError:
    return "CUDA error";
  case StatusCode::Unsupported:
    return "unsupported";
  case StatusCode::BindingError:
    return "binding error";
  case StatusCode::Misaligned:
    return "misaligned pointer";
  case StatusCode::WorkspaceTooSmall:
    return "workspace too small";
  case StatusCode::OutOfMemory:
    return "out of memory";
  case StatusCode::Internal:
    return "internal error";
  }
  return "unknown status";
}

} // namespace tgc
