// The plan text format (docs/plan.md): line-oriented, one record per line,
// strings quoted, sources and cuDNN payloads as length-prefixed blobs, and a
// final "end sha256 <hex>" line whose hash covers every byte before it.

#include "FileUtil.h"
#include "tgc/Plan.h"
#include "tgc/Sha256.h"
#include "tgc/Target.h"
#include "tgc/tgc.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace tgc {

namespace {

constexpr std::string_view kMagic = "tgc-plan";
constexpr std::string_view kEndPrefix = "end sha256 ";

//===--------------------------------------------------------------------===//
// Writing
//===--------------------------------------------------------------------===//

std::string quote(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += char(c);
    }
  }
  out += '"';
  return out;
}

std::string dims(const std::vector<int64_t> &values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? "," : "") + std::to_string(values[i]);
  return out + "]";
}

std::string dim3(const Dim3 &d) {
  return strCat("[", d.x, ",", d.y, ",", d.z, "]");
}

std::string formatFloat(float value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, result.ptr);
}

void writeArg(std::string &out, const KernelArg &arg) {
  switch (arg.kind) {
  case KernelArg::Kind::Buffer:
    out += "arg buffer " + quote(arg.buffer) + "\n";
    break;
  case KernelArg::Kind::I32:
    out += strCat("arg i32 ", arg.intValue, "\n");
    break;
  case KernelArg::Kind::I64:
    out += strCat("arg i64 ", arg.intValue, "\n");
    break;
  case KernelArg::Kind::F32:
    out += "arg f32 " + formatFloat(arg.floatValue) + "\n";
    break;
  }
}

void writeVariants(std::string &out, const LaunchStep &launch) {
  for (const LaunchVariant &v : launch.variants) {
    out += strCat("variant ", quote(v.kernel), " grid ", dim3(v.grid),
                  " block ", dim3(v.block), " smem ", v.sharedBytes, "\n");
    for (const KernelArg &arg : v.args)
      writeArg(out, arg);
  }
}

void writeBlob(std::string &out, std::string_view keyword,
               const std::string &blob) {
  out += strCat(keyword, " ", blob.size(), "\n");
  out += blob;
  out += "\n";
}

//===--------------------------------------------------------------------===//
// Reading
//===--------------------------------------------------------------------===//

struct Token {
  std::string text;
  bool quoted = false;
};

class PlanParser {
public:
  PlanParser(std::string_view body, std::string sourceName, int version)
      : text_(body), source_(std::move(sourceName)), version_(version) {}

  Expected<Plan> parse();

private:
  Status error(const std::string &message) const {
    return makeError(StatusCode::InvalidPlan, source_, ":", line_, ": ",
                     message);
  }
  /// Reads the next line into tokens_; false at the end of the body.
  bool nextLine(Status &status);
  Status tokenize(std::string_view line);
  Status readBlob(size_t size, std::string &blob);

  Status expectCount(size_t n, const char *usage) const {
    if (tokens_.size() != n)
      return error(strCat("expected '", usage, "'"));
    return Status::ok();
  }
  Status word(size_t i, std::string_view expected) const {
    if (tokens_[i].quoted || tokens_[i].text != expected)
      return error(strCat("expected '", expected, "', found '",
                          tokens_[i].text, "'"));
    return Status::ok();
  }
  Status string(size_t i, std::string &out) const {
    if (!tokens_[i].quoted)
      return error(strCat("expected a quoted string, found '", tokens_[i].text,
                          "'"));
    out = tokens_[i].text;
    return Status::ok();
  }
  template <typename Int> Status integer(size_t i, Int &out) const {
    const std::string &t = tokens_[i].text;
    auto result = std::from_chars(t.data(), t.data() + t.size(), out);
    if (tokens_[i].quoted || result.ec != std::errc() ||
        result.ptr != t.data() + t.size())
      return error(strCat("expected an integer, found '", t, "'"));
    return Status::ok();
  }
  Status intList(size_t i, std::vector<int64_t> &out) const;
  Status dim3(size_t i, Dim3 &out) const;

  Status parseBuffer(Plan &plan);
  Status parseKernel(Plan &plan);
  Status parseVariant(Plan &plan);
  Status parseArg(Plan &plan);

  std::string_view text_;
  std::string source_;
  int version_; // the header's format version
  size_t pos_ = 0;
  size_t line_ = 0;
  std::vector<Token> tokens_;
};

Status PlanParser::tokenize(std::string_view line) {
  tokens_.clear();
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    if (c == '#')
      break;
    Token token;
    if (c != '"') {
      size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t' &&
             line[i] != '\r' && line[i] != '#' && line[i] != '"')
        ++i;
      token.text = std::string(line.substr(start, i - start));
      tokens_.push_back(std::move(token));
      continue;
    }
    token.quoted = true;
    ++i;
    bool closed = false;
    while (i < line.size()) {
      char d = line[i++];
      if (d == '"') {
        closed = true;
        break;
      }
      if (d != '\\') {
        token.text += d;
        continue;
      }
      if (i >= line.size())
        break;
      char e = line[i++];
      switch (e) {
      case '\\':
      case '"':
        token.text += e;
        break;
      case 'n':
        token.text += '\n';
        break;
      case 't':
        token.text += '\t';
        break;
      case 'x': {
        unsigned value = 0;
        if (i + 2 > line.size() ||
            std::from_chars(line.data() + i, line.data() + i + 2, value, 16)
                    .ptr != line.data() + i + 2)
          return error("bad \\x escape in string");
        token.text += char(value);
        i += 2;
        break;
      }
      default:
        return error(strCat("unknown escape '\\", e, "' in string"));
      }
    }
    if (!closed)
      return error("unterminated string");
    tokens_.push_back(std::move(token));
  }
  return Status::ok();
}

bool PlanParser::nextLine(Status &status) {
  while (pos_ < text_.size()) {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos)
      end = text_.size();
    std::string_view line = text_.substr(pos_, end - pos_);
    pos_ = end < text_.size() ? end + 1 : end;
    ++line_;
    status = tokenize(line);
    if (!status.isOk())
      return false;
    if (!tokens_.empty())
      return true;
  }
  return false;
}

Status PlanParser::readBlob(size_t size, std::string &blob) {
  if (text_.size() - pos_ < size + 1 || text_[pos_ + size] != '\n')
    return error(strCat("blob of ", size,
                        " bytes is truncated or not followed by a newline"));
  blob = std::string(text_.substr(pos_, size));
  for (char c : blob)
    line_ += (c == '\n');
  pos_ += size + 1;
  ++line_; // the blob's terminating newline
  return Status::ok();
}

Status PlanParser::intList(size_t i, std::vector<int64_t> &out) const {
  const std::string &t = tokens_[i].text;
  out.clear();
  if (tokens_[i].quoted || t.size() < 2 || t.front() != '[' || t.back() != ']')
    return error(strCat("expected a list like [2,3], found '", t, "'"));
  std::string_view inner(t.data() + 1, t.size() - 2);
  if (inner.empty())
    return Status::ok();
  size_t start = 0;
  while (true) {
    size_t comma = inner.find(',', start);
    std::string_view item = inner.substr(
        start, comma == std::string_view::npos ? inner.npos : comma - start);
    int64_t value;
    auto result = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || result.ec != std::errc() ||
        result.ptr != item.data() + item.size())
      return error(strCat("bad integer '", item, "' in list '", t, "'"));
    out.push_back(value);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return Status::ok();
}

Status PlanParser::dim3(size_t i, Dim3 &out) const {
  std::vector<int64_t> values;
  TGC_RETURN_IF_ERROR(intList(i, values));
  if (values.size() != 3)
    return error(strCat("expected three dims [x,y,z], found '",
                        tokens_[i].text, "'"));
  for (int64_t v : values)
    if (v < 0 || v > 0xffffffffll)
      return error(strCat("dim ", v, " out of range"));
  out = {uint32_t(values[0]), uint32_t(values[1]), uint32_t(values[2])};
  return Status::ok();
}

// buffer "name" <role> <dtype> shape [..] strides [..] align N [offset N]
Status PlanParser::parseBuffer(Plan &plan) {
  const char *usage = "buffer \"name\" input|output|intermediate <dtype> "
                      "shape [..] strides [..] align N [offset N]";
  if (tokens_.size() != 10 && tokens_.size() != 12)
    return error(strCat("expected '", usage, "'"));
  Buffer b;
  TGC_RETURN_IF_ERROR(string(1, b.name));
  const std::string &role = tokens_[2].text;
  if (role == "input")
    b.role = BufferRole::Input;
  else if (role == "output")
    b.role = BufferRole::Output;
  else if (role == "intermediate")
    b.role = BufferRole::Intermediate;
  else
    return error(strCat("unknown buffer role '", role,
                        "' (expected input, output or intermediate)"));
  std::optional<DType> dtype = parseDType(tokens_[3].text);
  if (!dtype || tokens_[3].quoted)
    return error(strCat("unknown dtype '", tokens_[3].text, "'"));
  if (*dtype == DType::I4 && version_ < 4)
    return error(strCat("an i4 buffer needs plan format version 4 (the file "
                        "says version ", version_, ")"));
  b.dtype = *dtype;
  TGC_RETURN_IF_ERROR(word(4, "shape"));
  TGC_RETURN_IF_ERROR(intList(5, b.shape));
  TGC_RETURN_IF_ERROR(word(6, "strides"));
  TGC_RETURN_IF_ERROR(intList(7, b.strides));
  TGC_RETURN_IF_ERROR(word(8, "align"));
  TGC_RETURN_IF_ERROR(integer(9, b.alignment));
  bool isIntermediate = b.role == BufferRole::Intermediate;
  if (tokens_.size() == 12) {
    TGC_RETURN_IF_ERROR(word(10, "offset"));
    TGC_RETURN_IF_ERROR(integer(11, b.offset));
    if (!isIntermediate)
      return error("only intermediate buffers have an offset");
  } else if (isIntermediate) {
    return error("intermediate buffer needs 'offset N'");
  }
  plan.buffers.push_back(std::move(b));
  return Status::ok();
}

// kernel "id" entry "name" target sm_90a | portable 80
Status PlanParser::parseKernel(Plan &plan) {
  const char *usage =
      "kernel \"id\" entry \"name\" target sm_<NN>a | portable <NN>";
  if (tokens_.size() != 6 && tokens_.size() != 7)
    return error(strCat("expected '", usage, "'"));
  Kernel k;
  TGC_RETURN_IF_ERROR(string(1, k.id));
  TGC_RETURN_IF_ERROR(word(2, "entry"));
  TGC_RETURN_IF_ERROR(string(3, k.entry));
  TGC_RETURN_IF_ERROR(word(4, "target"));
  const std::string &target = tokens_[5].text;
  if (tokens_.size() == 7) {
    TGC_RETURN_IF_ERROR(word(5, "portable"));
    k.target.kind = KernelTarget::Kind::Portable;
    TGC_RETURN_IF_ERROR(integer(6, k.target.arch));
  } else {
    // An arch-specific kernel is named as NVRTC names its target.
    Expected<CompileTarget> parsed = parseCompileTarget(target);
    if (!parsed || parsed->kind != BinaryKind::Cubin || !parsed->archSpecific ||
        tokens_[5].quoted)
      return error(strCat("bad kernel target '", target,
                          "' (expected e.g. sm_90a or portable 80)"));
    k.target = KernelTarget::archSpecific(parsed->arch);
  }
  plan.kernels.push_back(std::move(k));
  return Status::ok();
}

/// The launch that variant and arg lines extend: the last step's, or the
/// fallback of the last cuDNN step.
static LaunchStep *lastLaunch(Plan &plan) {
  if (plan.steps.empty())
    return nullptr;
  if (auto *launch = std::get_if<LaunchStep>(&plan.steps.back()))
    return launch;
  if (auto *cudnnStep = std::get_if<CudnnStep>(&plan.steps.back()))
    return cudnnStep->fallback ? &*cudnnStep->fallback : nullptr;
  return nullptr;
}

// variant "kernel" grid [x,y,z] block [x,y,z] smem N
Status PlanParser::parseVariant(Plan &plan) {
  TGC_RETURN_IF_ERROR(expectCount(
      8, "variant \"kernel\" grid [x,y,z] block [x,y,z] smem N"));
  LaunchStep *launch = lastLaunch(plan);
  if (!launch)
    return error("'variant' must follow a 'launch' or 'fallback' line");
  LaunchVariant v;
  TGC_RETURN_IF_ERROR(string(1, v.kernel));
  TGC_RETURN_IF_ERROR(word(2, "grid"));
  TGC_RETURN_IF_ERROR(dim3(3, v.grid));
  TGC_RETURN_IF_ERROR(word(4, "block"));
  TGC_RETURN_IF_ERROR(dim3(5, v.block));
  TGC_RETURN_IF_ERROR(word(6, "smem"));
  TGC_RETURN_IF_ERROR(integer(7, v.sharedBytes));
  launch->variants.push_back(std::move(v));
  return Status::ok();
}

// arg buffer "name" | arg i32 N | arg i64 N | arg f32 X
Status PlanParser::parseArg(Plan &plan) {
  TGC_RETURN_IF_ERROR(expectCount(3, "arg buffer|i32|i64|f32 <value>"));
  LaunchStep *launch = lastLaunch(plan);
  if (!launch || launch->variants.empty())
    return error("'arg' must follow a 'variant' line");
  const std::string &kind = tokens_[1].text;
  KernelArg arg;
  if (kind == "buffer") {
    arg.kind = KernelArg::Kind::Buffer;
    TGC_RETURN_IF_ERROR(string(2, arg.buffer));
  } else if (kind == "i32") {
    arg.kind = KernelArg::Kind::I32;
    int32_t value;
    TGC_RETURN_IF_ERROR(integer(2, value));
    arg.intValue = value;
  } else if (kind == "i64") {
    arg.kind = KernelArg::Kind::I64;
    TGC_RETURN_IF_ERROR(integer(2, arg.intValue));
  } else if (kind == "f32") {
    arg.kind = KernelArg::Kind::F32;
    const std::string &t = tokens_[2].text;
    auto result = std::from_chars(t.data(), t.data() + t.size(), arg.floatValue);
    if (tokens_[2].quoted || result.ec != std::errc() ||
        result.ptr != t.data() + t.size())
      return error(strCat("expected a float, found '", t, "'"));
  } else {
    return error(strCat("unknown argument kind '", kind,
                        "' (expected buffer, i32, i64 or f32)"));
  }
  launch->variants.back().args.push_back(std::move(arg));
  return Status::ok();
}

Expected<Plan> PlanParser::parse() {
  Plan plan;
  bool sawPlan = false, sawWorkspace = false;
  Status status;
  // The header line was checked by the caller.
  nextLine(status);
  TGC_RETURN_IF_ERROR(status);
  while (nextLine(status)) {
    const Token &head = tokens_[0];
    const std::string &kw = head.text;
    if (head.quoted)
      return error(strCat("expected a keyword, found a string"));
    if (kw == "plan") {
      TGC_RETURN_IF_ERROR(expectCount(2, "plan \"name\""));
      if (sawPlan)
        return error("duplicate 'plan' line");
      sawPlan = true;
      TGC_RETURN_IF_ERROR(string(1, plan.name));
    } else if (kw == "workspace") {
      TGC_RETURN_IF_ERROR(expectCount(4, "workspace <bytes> align <n>"));
      if (sawWorkspace)
        return error("duplicate 'workspace' line");
      sawWorkspace = true;
      TGC_RETURN_IF_ERROR(integer(1, plan.workspaceBytes));
      TGC_RETURN_IF_ERROR(word(2, "align"));
      TGC_RETURN_IF_ERROR(integer(3, plan.workspaceAlignment));
    } else if (kw == "target") {
      TGC_RETURN_IF_ERROR(expectCount(2, "target <name>"));
      if (version_ < 2)
        return error("'target' needs plan format version 2 (the file says "
                     "version 1)");
      if (!plan.target.empty())
        return error("duplicate 'target' line");
      Expected<CompileTarget> target = parseCompileTarget(tokens_[1].text);
      if (!target || tokens_[1].quoted)
        return error(strCat("bad target '", tokens_[1].text,
                            "' (expected e.g. sm_90a, sm_80, compute_80)"));
      plan.target = target->name();
    } else if (kw == "buffer") {
      TGC_RETURN_IF_ERROR(parseBuffer(plan));
    } else if (kw == "kernel") {
      TGC_RETURN_IF_ERROR(parseKernel(plan));
    } else if (kw == "option") {
      TGC_RETURN_IF_ERROR(expectCount(2, "option \"text\""));
      if (plan.kernels.empty())
        return error("'option' must follow a 'kernel' line");
      std::string option;
      TGC_RETURN_IF_ERROR(string(1, option));
      plan.kernels.back().options.push_back(std::move(option));
    } else if (kw == "early-launch") {
      TGC_RETURN_IF_ERROR(expectCount(1, "early-launch"));
      if (version_ < 3)
        return error(strCat("'early-launch' needs plan format version 3 (the "
                            "file says version ", version_, ")"));
      if (plan.kernels.empty())
        return error("'early-launch' must follow a 'kernel' line");
      if (plan.kernels.back().earlyLaunch)
        return error(strCat("kernel '", plan.kernels.back().id,
                            "' has two 'early-launch' lines"));
      plan.kernels.back().earlyLaunch = true;
    } else if (kw == "source") {
      TGC_RETURN_IF_ERROR(expectCount(2, "source <bytes>"));
      if (plan.kernels.empty())
        return error("'source' must follow a 'kernel' line");
      if (!plan.kernels.back().source.empty())
        return error(strCat("kernel '", plan.kernels.back().id,
                            "' has two sources"));
      size_t size;
      TGC_RETURN_IF_ERROR(integer(1, size));
      TGC_RETURN_IF_ERROR(readBlob(size, plan.kernels.back().source));
    } else if (kw == "launch") {
      TGC_RETURN_IF_ERROR(expectCount(1, "launch"));
      plan.steps.push_back(LaunchStep{});
    } else if (kw == "variant") {
      TGC_RETURN_IF_ERROR(parseVariant(plan));
    } else if (kw == "arg") {
      TGC_RETURN_IF_ERROR(parseArg(plan));
    } else if (kw == "memset") {
      TGC_RETURN_IF_ERROR(expectCount(3, "memset \"buffer\" <byte value>"));
      MemsetStep step;
      TGC_RETURN_IF_ERROR(string(1, step.buffer));
      TGC_RETURN_IF_ERROR(integer(2, step.value));
      plan.steps.push_back(std::move(step));
    } else if (kw == "copy") {
      TGC_RETURN_IF_ERROR(expectCount(3, "copy \"src\" \"dst\""));
      CopyStep step;
      TGC_RETURN_IF_ERROR(string(1, step.src));
      TGC_RETURN_IF_ERROR(string(2, step.dst));
      plan.steps.push_back(std::move(step));
    } else if (kw == "cudnn") {
      TGC_RETURN_IF_ERROR(expectCount(2, "cudnn <bytes>"));
      size_t size;
      TGC_RETURN_IF_ERROR(integer(1, size));
      std::string text;
      size_t firstLine = line_ + 1;
      TGC_RETURN_IF_ERROR(readBlob(size, text));
      Expected<std::vector<cudnn::Graph>> graphs = cudnn::parseGraphs(
          text, strCat(source_, " (cuDNN graph from line ", firstLine, ")"));
      if (!graphs)
        return graphs.takeStatus();
      CudnnStep step;
      step.graphs = graphs.take();
      plan.steps.push_back(std::move(step));
    } else if (kw == "fallback") {
      TGC_RETURN_IF_ERROR(expectCount(1, "fallback"));
      auto *cudnnStep =
          plan.steps.empty() ? nullptr : std::get_if<CudnnStep>(&plan.steps.back());
      if (!cudnnStep || cudnnStep->fallback)
        return error("'fallback' must follow a 'cudnn' step (once)");
      cudnnStep->fallback = LaunchStep{};
    } else {
      return error(strCat("unknown keyword '", kw, "'"));
    }
  }
  TGC_RETURN_IF_ERROR(status);
  if (!sawPlan)
    return error("missing 'plan \"name\"' line");
  if (!sawWorkspace)
    return error("missing 'workspace' line");
  TGC_RETURN_IF_ERROR(plan.validate().addContext(source_));
  return plan;
}

} // namespace

std::string serializePlan(const Plan &plan) {
  const bool earlyLaunch = std::any_of(
      plan.kernels.begin(), plan.kernels.end(),
      [](const Kernel &k) { return k.earlyLaunch; });
  const bool packed = std::any_of(
      plan.buffers.begin(), plan.buffers.end(),
      [](const Buffer &b) { return b.dtype == DType::I4; });
  int formatVersion = packed                 ? 4
                      : earlyLaunch          ? 3
                      : !plan.target.empty() ? 2
                                             : kOldestPlanFormatVersion;
  std::string out = strCat(kMagic, " ", formatVersion, "\n");
  // For people and bug reports; the loader skips comments.
  out += strCat("# written by tgc ", version(), "\n");
  out += "plan " + quote(plan.name) + "\n";
  out += strCat("workspace ", plan.workspaceBytes, " align ",
                plan.workspaceAlignment, "\n");
  if (!plan.target.empty())
    out += "target " + plan.target + "\n";
  for (const Buffer &b : plan.buffers) {
    out += strCat("buffer ", quote(b.name), " ", bufferRoleName(b.role), " ",
                  dtypeName(b.dtype), " shape ", dims(b.shape), " strides ",
                  dims(b.strides), " align ", b.alignment);
    if (b.role == BufferRole::Intermediate)
      out += strCat(" offset ", b.offset);
    out += "\n";
  }
  for (const Kernel &k : plan.kernels) {
    out += strCat("kernel ", quote(k.id), " entry ", quote(k.entry),
                  " target ", k.target.str(), "\n");
    for (const std::string &option : k.options)
      out += "option " + quote(option) + "\n";
    if (k.earlyLaunch)
      out += "early-launch\n";
    writeBlob(out, "source", k.source);
  }
  for (const Step &step : plan.steps) {
    if (const auto *launch = std::get_if<LaunchStep>(&step)) {
      out += "launch\n";
      writeVariants(out, *launch);
    } else if (const auto *memset = std::get_if<MemsetStep>(&step)) {
      out += strCat("memset ", quote(memset->buffer), " ", int(memset->value),
                    "\n");
    } else if (const auto *copy = std::get_if<CopyStep>(&step)) {
      out += strCat("copy ", quote(copy->src), " ", quote(copy->dst), "\n");
    } else if (const auto *cudnn = std::get_if<CudnnStep>(&step)) {
      std::string text;
      for (const cudnn::Graph &graph : cudnn->graphs)
        text += cudnn::printGraph(graph);
      writeBlob(out, "cudnn", text);
      if (cudnn->fallback) {
        out += "fallback\n";
        writeVariants(out, *cudnn->fallback);
      }
    }
  }
  out += strCat(kEndPrefix, toHex(Sha256::hash(out)), "\n");
  return out;
}

Expected<Plan> parsePlan(std::string_view text, const std::string &sourceName) {
  auto corrupt = [&](const std::string &why) {
    return makeError(StatusCode::InvalidPlan, sourceName,
                     ": corrupt plan file: ", why);
  };
  // Header first, so that a future format gets a version error rather than a
  // checksum error.
  size_t headerEnd = text.find('\n');
  std::string_view header = text.substr(0, headerEnd);
  if (header.substr(0, kMagic.size()) != kMagic ||
      (header.size() > kMagic.size() && header[kMagic.size()] != ' '))
    return makeError(StatusCode::InvalidPlan, sourceName,
                     ": not a tgc plan file (it does not start with 'tgc-plan')");
  std::string_view versionText =
      header.size() > kMagic.size() ? header.substr(kMagic.size() + 1) : "";
  int version = 0;
  auto result = std::from_chars(versionText.data(),
                                versionText.data() + versionText.size(), version);
  // Canonical decimal only: "01" or "+1" is not version 1.
  bool canonical = !versionText.empty() && versionText[0] >= '1' &&
                   versionText[0] <= '9';
  if (!canonical || result.ec != std::errc() ||
      result.ptr != versionText.data() + versionText.size())
    return corrupt(strCat("bad version '", versionText,
                          "' in header (expected 'tgc-plan ",
                          kOldestPlanFormatVersion, "' to 'tgc-plan ",
                          kPlanFormatVersion, "')"));
  if (version < kOldestPlanFormatVersion || version > kPlanFormatVersion)
    return makeError(StatusCode::InvalidPlan, sourceName,
                     ": unsupported plan format version ", version,
                     "; this runtime reads versions ", kOldestPlanFormatVersion,
                     " to ", kPlanFormatVersion);

  // The checksum line is the last line; everything before it is hashed.
  std::string_view trimmed = text;
  if (!trimmed.empty() && trimmed.back() == '\n')
    trimmed.remove_suffix(1);
  size_t lastLine = trimmed.rfind('\n');
  if (lastLine == std::string_view::npos)
    return corrupt("it is truncated (no 'end sha256' line)");
  std::string_view endLine = trimmed.substr(lastLine + 1);
  if (endLine.substr(0, kEndPrefix.size()) != kEndPrefix)
    return corrupt("it is truncated (no 'end sha256' line)");
  std::string_view body = text.substr(0, lastLine + 1);
  std::string expected(endLine.substr(kEndPrefix.size()));
  std::string actual = toHex(Sha256::hash(body));
  if (expected != actual)
    return corrupt(strCat("checksum mismatch (the file was modified or "
                          "damaged): recorded ",
                          expected, ", computed ", actual));
  return PlanParser(body, sourceName, version).parse();
}

Status writePlanFile(const Plan &plan, const std::string &path) {
  TGC_RETURN_IF_ERROR(plan.validate());
  return writeFileAtomic(path, serializePlan(plan));
}

Expected<Plan> readPlanFile(const std::string &path) {
  Expected<std::string> bytes = readFileBytes(path);
  if (!bytes)
    return bytes.takeStatus();
  return parsePlan(*bytes, path);
}

} // namespace tgc
