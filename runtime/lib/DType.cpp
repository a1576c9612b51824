#include "tgc/DType.h"

namespace tgc {

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  unsigned bits;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::BF16, "bf16", 16},    {DType::F16, "f16", 16},
    {DType::F32, "f32", 32},      {DType::F8E4M3FN, "f8E4M3FN", 8},
    {DType::F8E5M2, "f8E5M2", 8}, {DType::I8, "i8", 8},
    {DType::I32, "i32", 32},      {DType::I64, "i64", 64},
    {DType::I1, "i1", 8},         {DType::I4, "i4", 4},
};

const DTypeInfo *find(DType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return &info;
  return nullptr;
}
} // namespace

unsigned dtypeBits(DType type) {
  const DTypeInfo *info = find(type);
  return info ? info->bits : 0;
}

unsigned dtypeSize(DType type) { return dtypeBits(type) % 8 == 0 ? dtypeBits(type) / 8 : 0; }

uint64_t storageBytes(DType type, uint64_t elements) {
  return static_cast<uint64_t>(((unsigned __int128)elements * dtypeBits(type) + 7) / 8);
}

const char *dtypeName(DType type) {
  const DTypeInfo *info = find(type);
  return info ? info->name : "<invalid dtype>";
}

std::optional<DType> parseDType(std::string_view name) {
  for (const DTypeInfo &info : kDTypes)
    if (name == info.name)
      return info.type;
  return std::nullopt;
}

bool isValidDType(int value) { return find(static_cast<DType>(value)); }

} // namespace tgc
