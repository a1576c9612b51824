// Table captures of the attention kernels (TableGather.h).
#include "TableGather.h"

#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Lowering/ScalarExpr.h"

using namespace mlir;
using namespace mlir::tg;

std::string mlir::tg::emitTableGather(GatherOp gather,
                                      ArrayRef<std::string> argNames,
                                      ArrayRef<std::string> indices) {
  unsigned arg = cast<BlockArgument>(gather.getTable()).getArgNumber();
  const std::string &table = argNames[arg];
  std::string list = "captures";
  for (const std::string &index : indices)
    list += ", " + index;
  std::string read = table + "_at(" + list + ")";
  if (gather.getMode() == GatherMode::clamp)
    return read;
  return "(" + table + "_in_range(" + list + ") ? " + read + " : " +
         cudaFillLiteral(gather) + ")";
}

void mlir::tg::appendTableArgs(SmallVectorImpl<KernelArg> &args, Value table,
                               ArrayRef<int64_t> strides) {
  args.push_back(KernelArg::buffer(table));
  for (int64_t size : cast<RankedTensorType>(table.getType()).getShape())
    args.push_back(KernelArg::int64(size));
  for (int64_t stride : strides)
    args.push_back(KernelArg::int64(stride));
}
