// Plan::validate(): what a plan must satisfy before the runtime uses it
// (docs/plan.md, Validation). Plans are a trust boundary: these checks run
// on every parse, whatever the checksum says.
#include "tgc/Plan.h"

#include <algorithm>
#include <set>

namespace tgc {

namespace {
bool isPowerOfTwo(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

Status planError(const Plan &plan, const std::string &what) {
  return makeError(StatusCode::InvalidPlan, "invalid plan '", plan.name,
                   "': ", what);
}

std::string formatList(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

/// Names are text: UTF-8 without control characters (a NUL could not be
/// bound through the C API).
bool isValidName(const std::string &name) {
  for (size_t i = 0; i < name.size();) {
    auto c = static_cast<unsigned char>(name[i]);
    if (c < 0x20 || c == 0x7f)
      return false;
    size_t length = c < 0x80 ? 1 : c >> 5 == 0x6 ? 2 : c >> 4 == 0xe ? 3
                                 : c >> 3 == 0x1e ? 4 : 0;
    if (length == 0 || i + length > name.size())
      return false;
    uint32_t code = length == 1 ? c : c & (0x7f >> length);
    for (size_t k = 1; k < length; ++k) {
      auto next = static_cast<unsigned char>(name[i + k]);
      if (next >> 6 != 0x2)
        return false;
      code = code << 6 | (next & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static const uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinimum[length] || (code >= 0xd800 && code <= 0xdfff) ||
        code > 0x10ffff)
      return false;
    i += length;
  }
  return true;
}

/// `name` with bytes that are not printable ASCII as \xNN, for messages.
std::string escapedName(const std::string &name) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

/// Whether distinct elements of `b` share an address: sorted by stride, each
/// stride (of a dim larger than 1) must be at least the extent of the dims
/// inside it.
bool hasOverlappingElements(const Buffer &b) {
  std::vector<size_t> order;
  for (size_t i = 0; i < b.shape.size(); ++i)
    if (b.shape[i] > 1)
      order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    return b.strides[x] < b.strides[y];
  });
  unsigned __int128 extent = 1;
  for (size_t dim : order) {
    if ((unsigned __int128)b.strides[dim] < extent)
      return true;
    extent = (unsigned __int128)b.strides[dim] * uint64_t(b.shape[dim]);
  }
  return false;
}

/// The entry's function name: "attn" of "ns::attn<128, true>".
std::string entryFunctionName(const std::string &entry) {
  std::string name = entry.substr(0, entry.find_first_of("<("));
  while (!name.empty() && name.back() == ' ')
    name.pop_back();
  size_t scope = name.rfind("::");
  return scope == std::string::npos ? name : name.substr(scope + 2);
}

bool isIdentifierChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

/// Whether `word` occurs in `source` as a whole identifier.
bool mentionsIdentifier(const std::string &source, const std::string &word) {
  for (size_t pos = source.find(word); pos != std::string::npos;
       pos = source.find(word, pos + 1)) {
    size_t end = pos + word.size();
    if ((pos == 0 || !isIdentifierChar(source[pos - 1])) &&
        (end == source.size() || !isIdentifierChar(source[end])))
      return true;
  }
  return false;
}

Status validateBuffer(const Plan &plan, const Buffer &b) {
  std::string where = strCat("buffer '", b.name, "'");
  if (b.name.empty())
    return planError(plan, "a buffer has an empty name");
  if (!isValidName(b.name))
    return planError(plan, strCat("buffer name '", escapedName(b.name),
                                  "' is not UTF-8 text without control "
                                  "characters"));
  if (b.shape.size() > kMaxPlanRank)
    return planError(plan, strCat(where, " has ", b.shape.size(),
                                  " dims (at most ", kMaxPlanRank, ")"));
  if (b.strides.size() != b.shape.size())
    return planError(plan, strCat(where, " has ", b.shape.size(), " dims but ",
                                  b.strides.size(), " strides"));
  for (size_t i = 0; i < b.shape.size(); ++i) {
    if (b.shape[i] < 0)
      return planError(plan, strCat(where, " has negative dim ", b.shape[i]));
    if (b.strides[i] < 0)
      return planError(plan,
                       strCat(where, " has negative stride ", b.strides[i],
                              " (not supported)"));
    if (uint64_t(b.shape[i]) > kMaxPlanBytes ||
        uint64_t(b.strides[i]) > kMaxPlanBytes)
      return planError(plan, strCat(where, " has shape ", formatList(b.shape),
                                    " and strides ", formatList(b.strides),
                                    ", beyond the ", kMaxPlanBytes,
                                    "-byte limit"));
  }
  if (!isPowerOfTwo(b.alignment) || b.alignment > kMaxPlanAlignment)
    return planError(plan, strCat(where, " alignment ", b.alignment,
                                  " is not a power of two up to ",
                                  kMaxPlanAlignment));
  if (b.byteSpan() > kMaxPlanBytes)
    return planError(plan, strCat(where, " spans ", b.byteSpan(),
                                  " bytes (shape ", formatList(b.shape),
                                  "), more than the limit of ", kMaxPlanBytes));
  if (b.role != BufferRole::Input && hasOverlappingElements(b))
    return planError(plan, strCat(where, " (", bufferRoleName(b.role),
                                  ") has strides ", formatList(b.strides),
                                  " for shape ", formatList(b.shape),
                                  " under which distinct elements share "
                                  "memory; written buffers must not overlap"));
  if (b.role != BufferRole::Intermediate) {
    if (b.offset != 0)
      return planError(plan, strCat(where, " is an ", bufferRoleName(b.role),
                                    " but has a workspace offset"));
    return Status::ok();
  }
  if (b.alignment > plan.workspaceAlignment)
    return planError(plan, strCat(where, " needs ", b.alignment,
                                  "-byte alignment but the workspace is only ",
                                  plan.workspaceAlignment, "-byte aligned"));
  if (b.offset % b.alignment != 0)
    return planError(plan, strCat(where, " offset ", b.offset,
                                  " is not a multiple of its alignment ",
                                  b.alignment));
  if (b.offset > plan.workspaceBytes ||
      b.byteSpan() > plan.workspaceBytes - b.offset)
    return planError(plan, strCat(where, " (offset ", b.offset, ", ",
                                  b.byteSpan(), " bytes) ends past the ",
                                  plan.workspaceBytes, "-byte workspace"));
  return Status::ok();
}

Status validateLaunch(const Plan &plan, size_t stepIndex,
                      const LaunchStep &launch) {
  std::string where = strCat("step ", stepIndex, " (launch)");
  if (launch.variants.empty())
    return planError(plan, where + " has no variants");
  for (size_t v = 0; v < launch.variants.size(); ++v) {
    const LaunchVariant &var = launch.variants[v];
    std::string vwhere = strCat(where, " variant ", v);
    if (!plan.findKernel(var.kernel))
      return planError(plan, strCat(vwhere, " names unknown kernel '",
                                    var.kernel, "'"));
    const Dim3 &g = var.grid, &b = var.block;
    if (g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0)
      return planError(plan, vwhere + " has a zero grid or block dimension");
    if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
      return planError(plan, strCat(vwhere, " grid [", g.x, ",", g.y, ",",
                                    g.z, "] exceeds CUDA's limits"));
    if (b.volume() > 1024 || b.z > 64)
      return planError(plan, strCat(vwhere, " block [", b.x, ",", b.y, ",",
                                    b.z, "] exceeds 1024 threads (or z > 64)"));
    // A launch needs no more threads than there are bytes to touch.
    if ((unsigned __int128)g.volume() * b.volume() > kMaxPlanBytes)
      return planError(plan, strCat(vwhere, " grid [", g.x, ",", g.y, ",",
                                    g.z, "] x block [", b.x, ",", b.y, ",",
                                    b.z, "] launches more than ",
                                    kMaxPlanBytes, " threads"));
    for (size_t a = 0; a < var.args.size(); ++a)
      if (var.args[a].kind == KernelArg::Kind::Buffer &&
          !plan.findBuffer(var.args[a].buffer))
        return planError(plan, strCat(vwhere, " argument ", a,
                                      " names unknown buffer '",
                                      var.args[a].buffer, "'"));
  }
  return Status::ok();
}
Status validateCudnn(const Plan &plan, size_t stepIndex,
                     const CudnnStep &step) {
  std::string where = strCat("step ", stepIndex, " (cudnn)");
  if (step.graphs.empty())
    return planError(plan, where + " has no graphs");
  for (const cudnn::Graph &graph : step.graphs) {
    TGC_RETURN_IF_ERROR(graph.validate().addContext(where));
    for (const cudnn::Tensor &t : graph.tensors) {
      if (t.kind != cudnn::TensorKind::Bound)
        continue;
      const Buffer *b = plan.findBuffer(t.buffer);
      if (!b)
        return planError(plan, strCat(where, " graph '", graph.name,
                                      "' tensor ", t.uid,
                                      " names unknown buffer '", t.buffer, "'"));
      if (b->dtype != t.dtype)
        return planError(plan, strCat(where, " tensor ", t.uid, " is ",
                                      dtypeName(t.dtype), " but buffer '",
                                      b->name, "' is ", dtypeName(b->dtype)));
    }
  }
  if (step.fallback)
    TGC_RETURN_IF_ERROR(validateLaunch(plan, stepIndex, *step.fallback));
  return Status::ok();
}
} // namespace

Status Plan::validate() const {
  if (!isPowerOfTwo(workspaceAlignment) ||
      workspaceAlignment > kMaxPlanAlignment)
    return planError(*this, strCat("workspace alignment ", workspaceAlignment,
                                   " is not a power of two up to ",
                                   kMaxPlanAlignment));
  if (workspaceBytes > kMaxPlanBytes)
    return planError(*this, strCat("the workspace of ", workspaceBytes,
                                   " bytes is larger than the limit of ",
                                   kMaxPlanBytes));
  std::set<std::string> names;
  for (const Buffer &b : buffers) {
    if (!names.insert(b.name).second)
      return planError(*this, strCat("buffer '", b.name, "' is declared twice"));
    TGC_RETURN_IF_ERROR(validateBuffer(*this, b));
  }
  if (std::none_of(buffers.begin(), buffers.end(), [](const Buffer &b) {
        return b.role == BufferRole::Output;
      }))
    return planError(*this, "it has no outputs (a plan computes at least one)");
  std::set<std::string> ids;
  for (const Kernel &k : kernels) {
    if (k.id.empty())
      return planError(*this, "a kernel has an empty id");
    if (!ids.insert(k.id).second)
      return planError(*this, strCat("kernel '", k.id, "' is declared twice"));
    if (k.entry.empty())
      return planError(*this, strCat("kernel '", k.id, "' has no entry name"));
    if (k.source.empty())
      return planError(*this, strCat("kernel '", k.id, "' has no source"));
    std::string function = entryFunctionName(k.entry);
    if (function.empty() || !std::all_of(function.begin(), function.end(),
                                         isIdentifierChar) ||
        !mentionsIdentifier(k.source, function))
      return planError(*this, strCat("kernel '", k.id, "' entry '", k.entry,
                                     "' names no function of its source"));
    if (k.earlyLaunch && k.source.find(kEarlyLaunchWait) == std::string::npos)
      return planError(*this, strCat("kernel '", k.id, "' is marked early-launch "
                                     "but its source never calls ",
                                     kEarlyLaunchWait,
                                     " (launched early, it would race with the "
                                     "kernel before it)"));
    if (k.target.arch < 10 || k.target.arch > 10000)
      return planError(*this, strCat("kernel '", k.id, "' has target arch ",
                                     k.target.arch, " (expected e.g. 80 or 90)"));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step &step = steps[i];
    if (const auto *launch = std::get_if<LaunchStep>(&step)) {
      TGC_RETURN_IF_ERROR(validateLaunch(*this, i, *launch));
    } else if (const auto *memset = std::get_if<MemsetStep>(&step)) {
      const Buffer *b = findBuffer(memset->buffer);
      if (!b)
        return planError(*this, strCat("step ", i, " (memset) names unknown buffer '",
                                       memset->buffer, "'"));
      if (b->role == BufferRole::Input)
        return planError(*this, strCat("step ", i, " (memset) writes input '",
                                       b->name, "'"));
    } else if (const auto *copy = std::get_if<CopyStep>(&step)) {
      const Buffer *src = findBuffer(copy->src);
      const Buffer *dst = findBuffer(copy->dst);
      if (!src || !dst)
        return planError(*this, strCat("step ", i, " (copy) names unknown buffer '",
                                       src ? copy->dst : copy->src, "'"));
      if (dst->role == BufferRole::Input)
        return planError(*this, strCat("step ", i, " (copy) writes input '",
                                       dst->name, "'"));
      if (src->dtype != dst->dtype || src->shape != dst->shape ||
          src->strides != dst->strides)
        return planError(*this, strCat("step ", i, " (copy) from '", src->name,
                                       "' to '", dst->name,
                                       "' needs equal dtype, shape and strides"));
    } else if (const auto *cudnnStep = std::get_if<CudnnStep>(&step)) {
      TGC_RETURN_IF_ERROR(validateCudnn(*this, i, *cudnnStep));
    }
  }
  return Status::ok();
}

} // namespace tgc
