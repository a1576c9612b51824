#include "KernelParams.h"

#include <cstring>

namespace tgc {

namespace {
//===--------------------------------------------------------------------===//
// PTX: .visible .entry name(\n .param .u64 name_param_0, ... )
//===--------------------------------------------------------------------===//

std::string_view trim(std::string_view s) {
  const char *space = " \t\r\n";
  size_t first = s.find_first_not_of(space);
  if (first == std::string_view::npos)
    return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

/// Bytes of one PTX scalar type (".u64", ".f32", ".b8", ...), 0 if unknown.
uint32_t ptxTypeBytes(std::string_view type) {
  if (type.size() < 3 || type[0] != '.')
    return 0;
  char kind = type[1];
  if (kind != 'b' && kind != 'u' && kind != 's' && kind != 'f')
    return 0;
  std::string_view bits = type.substr(2);
  if (bits == "8" && kind != 'f')
    return 1;
  if (bits == "16" || type == ".bf16")
    return 2;
  if (bits == "32")
    return 4;
  if (bits == "64")
    return 8;
  return 0;
}

/// One parameter: `.param [.ptr .global] [.align N] .type name[count]`.
std::optional<uint32_t> ptxParamBytes(std::string_view decl) {
  uint32_t elementBytes = 0;
  uint64_t count = 1;
  size_t pos = 0;
  bool sawParam = false;
  while (pos < decl.size()) {
    size_t end = decl.find_first_of(" \t\r\n", pos);
    std::string_view word =
        decl.substr(pos, end == std::string_view::npos ? decl.npos : end - pos);
    pos = end == std::string_view::npos ? decl.size() : end + 1;
    if (word.empty())
      continue;
    if (word == ".param") {
      sawParam = true;
    } else if (word == ".align" || word == ".ptr" || word == ".global" ||
               word == ".const" || word == ".shared" || word == ".local") {
      continue; // the number after .align is skipped as a bare word below
    } else if (word[0] == '.') {
      if (!(elementBytes = ptxTypeBytes(word)))
        return std::nullopt;
    } else if (size_t bracket = word.find('['); bracket != word.npos) {
      if (word.back() != ']')
        return std::nullopt;
      std::string_view digits = word.substr(bracket + 1, word.size() - bracket - 2);
      if (digits.empty() || digits.size() > 9)
        return std::nullopt;
      count = 0;
      for (char c : digits) {
        if (c < '0' || c > '9')
          return std::nullopt;
        count = count * 10 + uint64_t(c - '0');
      }
    }
  }
  if (!sawParam || !elementBytes || count * elementBytes > 0xffffffffu)
    return std::nullopt;
  return uint32_t(count * elementBytes);
}

//===--------------------------------------------------------------------===//
// Cubin: ELF64, section ".nv.info.<symbol>": records of a u8 format, a u8
// attribute and a u16 (the value, or the size of the data that follows for
// format 4). Attribute 0x17 (KPARAM_INFO) has 12 bytes: u32 index, u16
// ordinal, u16 offset, u32 whose bits 18..31 are the size.
//===--------------------------------------------------------------------===//

constexpr uint8_t kRecordWithData = 0x04;
constexpr uint8_t kParamInfo = 0x17;

template <typename T> bool load(std::string_view bytes, uint64_t offset, T &out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T))
    return false;
  std::memcpy(&out, bytes.data() + offset, sizeof(T));
  return true;
}

std::optional<std::string_view> findSection(std::string_view elf,
                                            std::string_view wanted) {
  if (elf.size() < 64 || elf.compare(0, 4, "\x7f" "ELF") != 0 ||
      elf[4] != 2 /* 64-bit */ || elf[5] != 1 /* little-endian */)
    return std::nullopt;
  uint64_t sectionTable = 0;
  uint16_t entrySize = 0, count = 0, namesIndex = 0;
  if (!load(elf, 0x28, sectionTable) || !load(elf, 0x3a, entrySize) ||
      !load(elf, 0x3c, count) || !load(elf, 0x3e, namesIndex) ||
      entrySize < 64 || namesIndex >= count)
    return std::nullopt;
  auto section = [&](uint16_t i, uint32_t &name, uint64_t &offset,
                     uint64_t &size) {
    uint64_t header = sectionTable + uint64_t(i) * entrySize;
    return load(elf, header, name) && load(elf, header + 0x18, offset) &&
           load(elf, header + 0x20, size) && offset <= elf.size() &&
           size <= elf.size() - offset;
  };
  uint32_t unused;
  uint64_t namesOffset, namesSize;
  if (!section(namesIndex, unused, namesOffset, namesSize))
    return std::nullopt;
  std::string_view names = elf.substr(namesOffset, namesSize);
  for (uint16_t i = 0; i < count; ++i) {
    uint32_t name;
    uint64_t offset, size;
    if (!section(i, name, offset, size) || name >= names.size())
      continue;
    std::string_view sectionName = names.substr(name);
    sectionName = sectionName.substr(0, sectionName.find('\0'));
    if (sectionName == wanted)
      return elf.substr(offset, size);
  }
  return std::nullopt;
}
} // namespace

std::optional<std::vector<uint32_t>> ptxParamSizes(std::string_view ptx,
                                                   std::string_view symbol) {
  // The declaration ".entry <symbol>(" (spaces allowed before the paren).
  size_t pos = 0;
  while ((pos = ptx.find(".entry", pos)) != std::string_view::npos) {
    pos += 6;
    std::string_view rest = ptx.substr(pos);
    std::string_view afterSpace = rest.substr(std::min(
        rest.size(), rest.find_first_not_of(" \t")));
    if (afterSpace.compare(0, symbol.size(), symbol) != 0)
      continue;
    std::string_view tail = trim(afterSpace.substr(symbol.size()));
    if (tail.empty() || tail[0] != '(')
      continue;
    size_t close = tail.find(')');
    if (close == std::string_view::npos)
      return std::nullopt;
    std::string_view list = trim(tail.substr(1, close - 1));
    std::vector<uint32_t> sizes;
    while (!list.empty()) {
      size_t comma = list.find(',');
      std::optional<uint32_t> bytes = ptxParamBytes(trim(list.substr(0, comma)));
      if (!bytes)
        return std::nullopt;
      sizes.push_back(*bytes);
      list = comma == std::string_view::npos ? std::string_view()
                                             : trim(list.substr(comma + 1));
    }
    return sizes;
  }
  return std::nullopt;
}

std::optional<std::vector<uint32_t>> cubinParamSizes(std::string_view cubin,
                                                     std::string_view symbol) {
  std::optional<std::string_view> info =
      findSection(cubin, std::string(".nv.info.") + std::string(symbol));
  if (!info)
    return std::nullopt;
  std::vector<uint32_t> sizes;
  std::vector<bool> seen;
  for (uint64_t pos = 0; pos + 4 <= info->size();) {
    uint8_t format = uint8_t((*info)[pos]), attribute = uint8_t((*info)[pos + 1]);
    uint16_t value = 0;
    load(*info, pos + 2, value);
    uint64_t data = pos + 4;
    pos = data + (format == kRecordWithData ? value : 0);
    if (pos > info->size())
      return std::nullopt;
    if (format != kRecordWithData || attribute != kParamInfo)
      continue;
    uint16_t ordinal;
    uint32_t packed;
    if (value < 12 || !load(*info, data + 4, ordinal) ||
        !load(*info, data + 8, packed))
      return std::nullopt;
    if (ordinal >= sizes.size()) {
      sizes.resize(ordinal + 1, 0);
      seen.resize(ordinal + 1, false);
    }
    if (seen[ordinal])
      return std::nullopt;
    seen[ordinal] = true;
    sizes[ordinal] = (packed >> 18) & 0x3fff;
  }
  for (bool s : seen)
    if (!s)
      return std::nullopt; // a gap in the ordinals: not a layout we know
  return sizes;
}

std::optional<std::vector<uint32_t>>
kernelParamSizes(const CompiledKernel &kernel) {
  if (kernel.kind == BinaryKind::Ptx)
    return ptxParamSizes(kernel.image, kernel.loweredName);
  return cubinParamSizes(kernel.image, kernel.loweredName);
}

} // namespace tgc
