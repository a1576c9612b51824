// Table captures in generated CUDA (TableCaptures.h).
#include "TableCaptures.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace tg::codegen {

static bool isIdentifier(const std::string &name) {
  if (name.empty() || !(std::isalpha((unsigned char)name[0]) || name[0] == '_'))
    return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
}

std::string captureSpecProblem(const std::vector<AttentionCapture> &captures,
                               bool (*isReserved)(const std::string &),
                               const char *reservedNames) {
  std::ostringstream err;
  for (size_t i = 0; i < captures.size(); ++i) {
    const std::string &name = captures[i].name;
    if (!isIdentifier(name) || isReserved(name)) {
      err << "capture #" << i << " is named '" << name << "'; expected a C identifier other than "
          << reservedNames << " and the generator's own names";
      return err.str();
    }
    if (captures[i].tableRank < 0 || captures[i].tableRank > kMaxTableRank) {
      err << "capture '" << name << "' has table rank " << captures[i].tableRank
          << "; expected 0 (an element capture) to " << kMaxTableRank;
      return err.str();
    }
    for (size_t j = 0; j < i; ++j)
      if (captures[j].name == name) {
        err << "capture name '" << name << "' is used twice";
        return err.str();
      }
  }
  return "";
}

CaptureAccess captureAccess(CaptureType type) {
  switch (type) {
  case CaptureType::F32:
    return {"float", "float", "raw"};
  case CaptureType::F16:
    return {"unsigned short", "float", "tg::device::to_float<tg::device::Elem::F16>(raw)"};
  case CaptureType::BF16:
    return {"unsigned short", "float", "tg::device::to_float<tg::device::Elem::BF16>(raw)"};
  case CaptureType::I32:
    return {"int", "long long", "static_cast<long long>(raw)"};
  case CaptureType::I64:
    return {"long long", "long long", "raw"};
  case CaptureType::I8:
    return {"signed char", "long long", "static_cast<long long>(raw)"};
  case CaptureType::Bool:
    return {"unsigned char", "bool", "raw != 0"};
  }
  return {"float", "float", "raw"};
}

std::string tableIndexParams(int rank) {
  std::ostringstream os;
  for (int d = 0; d < rank; ++d)
    os << ", long long i" << d;
  return os.str();
}

std::string tableIndexArgs(int rank) {
  std::ostringstream os;
  for (int d = 0; d < rank; ++d)
    os << (d ? ", " : "") << "i" << d;
  return os.str();
}

std::string tableCaptureFields(const AttentionCapture &c, const CaptureAccess &access) {
  std::ostringstream os;
  os << "  const " << access.pointerType << " *" << c.name << ";  // " << toString(c.type)
     << " table of rank " << c.tableRank << "\n  long long " << c.name << "_size[" << c.tableRank
     << "], " << c.name << "_stride[" << c.tableRank << "];\n";
  return os.str();
}

std::string tableCaptureReaders(const AttentionCapture &c, const CaptureAccess &access) {
  const std::string params = tableIndexParams(c.tableRank);
  const std::string args = tableIndexArgs(c.tableRank);
  std::ostringstream os;
  os << "\n__device__ __forceinline__ long long " << c.name
     << "_offset(const Captures &captures, const long long (&stride)[" << c.tableRank << "]"
     << params << ") {\n"
     << "  long long offset = 0;\n";
  for (int d = 0; d < c.tableRank; ++d)
    os << "  offset += (i" << d << " < 0 ? 0 : i" << d << " < captures." << c.name << "_size[" << d
       << "] ? i" << d << " : captures." << c.name << "_size[" << d << "] - 1) * stride[" << d
       << "];\n";
  os << "  return offset;\n}\n"
     << "__device__ __forceinline__ " << access.valueType << " " << c.name
     << "_at(const Captures &captures" << params << ") {\n"
     << "  const " << access.pointerType << " raw = captures." << c.name << "[" << c.name
     << "_offset(captures, captures." << c.name << "_stride, " << args << ")];\n"
     << "  return " << access.convert << ";\n}\n"
     << "__device__ __forceinline__ bool " << c.name << "_in_range(const Captures &captures"
     << params << ") {\n  return true";
  for (int d = 0; d < c.tableRank; ++d)
    os << " &&\n         i" << d << " >= 0 && i" << d << " < captures." << c.name << "_size[" << d
       << "]";
  os << ";\n}\n";
  return os.str();
}

std::string tableCaptureParams(const AttentionCapture &c, const CaptureAccess &access) {
  std::ostringstream os;
  os << ",\n    const " << access.pointerType << " *__restrict__ capture_" << c.name;
  for (const char *what : {"size", "stride"})
    for (int d = 0; d < c.tableRank; ++d)
      os << ", long long " << c.name << "_" << what << d;
  return os.str();
}

std::string tableCaptureInitializer(const AttentionCapture &c) {
  std::ostringstream os;
  os << "capture_" << c.name;
  for (const char *what : {"size", "stride"}) {
    os << ", {";
    for (int d = 0; d < c.tableRank; ++d)
      os << (d ? ", " : "") << c.name << "_" << what << d;
    os << "}";
  }
  return os.str();
}

std::string distanceTermMember(const std::string &statements, const char *kernelFile) {
  std::ostringstream os;
  os << "  // The modifier's term of d = q_idx - kv_idx (b, h and the tables), which the\n"
     << "  // kernel tabulates per tile (device/" << kernelFile << ").\n"
     << "  __device__ __forceinline__ float distance_term(long long b, long long h, long long d) const {\n"
     << "    using namespace tg::device;\n    float value = 0.0f;\n";
  std::istringstream lines(statements);
  for (std::string line; std::getline(lines, line);)
    os << "    " << line << "\n";
  os << "    return value;\n  }\n";
  return os.str();
}

} // namespace tg::codegen
