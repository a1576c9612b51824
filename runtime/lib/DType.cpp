#include "tgc/DType.h"

namespace tgc {

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  unsigned size;
};
constexpr DTypeInfo kDTypes[] = {
    {DType::BF16, "bf16", 2},     {DType::F16, "f16", 2},
    {DType::F32, "f32", 4},       {DType::F8E4M3FN, "f8E4M3FN", 1},
    {DType::F8E5M2, "f8E5M2", 1}, {DType::I8, "i8", 1},
    {DType::I32, "i32", 4},       {DType::I64, "i64", 8},
    {DType::I1, "i1", 1},
};

const DTypeInfo *find(DType type) {
  for (const DTypeInfo &info : kDTypes)
    if (info.type == type)
      return &info;
  return nullptr;
}
} // namespace

unsigned dtypeSize(DType type) {
  const DTypeInfo *info = find(type);
  return info ? info->size : 0;
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
