//===- MixedMatmulKernel.cpp - The mixed-input matmul kernel --------------===//
//
// A 16-bit x [..., M, K] times a narrow weight w [K, N] (i8, e4m3, e5m2, or
// i4 packed two per byte) on the device library's mixed-input kernel
// (device/mixed_matmul.cuh): the weight is read once at one byte (i4: half a
// byte) per element and converted in registers.
// This file writes what varies per op: the configuration (sizes, rows per
// CTA, K splits), the weight's prologue as a function of a pair of
// elements, the epilogue, and the entry points.
//
// The prologue takes one of three forms, fastest first:
//  - identity (no prologue_b, or a lone tg.cast to x's type): the exact
//    conversion, packed;
//  - a per-column scale (tg.cast to x's type, then tg.mul by a capture that
//    depends on the column only): the scale is loaded once per column and
//    multiplied into each packed pair (one rounding, as tg.mul rounds);
//  - anything else: the region per element, its captures loaded at (k, n).
//
//===----------------------------------------------------------------------===//

#include "MatmulParts.h"

#include "tg/Codegen/CudaText.h"
#include "tg/Lowering/MixedMatmulKernel.h"
#include "tg/Lowering/ScalarExpr.h"
#include "tgc/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

namespace {
/// The kernel's tile (device/mixed_matmul.cuh's Cfg; the generated source
/// static_asserts the shared-memory size against the header's formula) and
/// how many CTAs K is split for: K is split until the grid has about two
/// CTAs per SM of a 132-SM H100/H200.
struct MixedTile {
  int64_t warps, warpN, blockK, stages;
  int64_t targetCtas = 264;
  int64_t blockN() const { return warpN * warps; }
  int64_t threads() const { return 32 * warps; }
};

/// i4 weights (64 columns per warp, the kernel's rule), from the H100 sweep
/// (bench/mixed_matmul_sweep.cu i4, bench/results/2026-12-07_i4_weights):
/// 4 warps (rows of 128 bytes of nibbles) with K steps of 128 in 3 stages
/// was the fastest or within 2.3% of it at M = 1, 16 and 64, K = N = 4096
/// and 8192 (8 warps, K steps of 64 and more splits were slower).
MixedTile mixedTileForI4() { return {4, 64, 128, 3}; }

/// From the H200 sweep (bench/mixed_matmul_sweep.cu,
/// bench/results/2026-12-03_mixed_kernel/sweep.md): for up to 32 rows
/// (decode) 8 warps of 32 columns with K steps of 128 in 3 stages is within
/// 3% of each shape's best on geometric mean (i8 and e4m3, M = 1 and 16,
/// K = N = 4096 and 8192); for 64-row tiles 4 warps with K steps of 64 in 4
/// stages was the fastest at M = 64.
MixedTile mixedTileFor(int64_t rowsPerCta) {
  if (rowsPerCta <= 32)
    return {8, 32, 128, 3};
  return {4, 32, 64, 4};
}

/// Whether `value` is a function argument with tg.strides (a layout of its
/// own, which the kernel's row-major copies cannot read).
bool hasOwnStrides(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg)
    return false;
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  return fn && fn.getArgAttr(arg.getArgNumber(), "tg.strides");
}

enum class PrologueForm { Identity, ColumnScale, Generic };

/// The weight's prologue form, and for ColumnScale the capture's index.
std::pair<PrologueForm, unsigned> prologueForm(Operation *op, Type xType) {
  auto fused = dyn_cast<FusedMatmulOp>(op);
  if (!fused || fused.getPrologueB().empty())
    return {PrologueForm::Identity, 0};
  Block &block = fused.getPrologueB().front();
  SmallVector<Operation *> ops;
  for (Operation &inner : block.without_terminator())
    ops.push_back(&inner);
  Value yielded = block.getTerminator()->getOperand(0);
  auto castOf = [&](Operation *inner) {
    auto cast = dyn_cast<CastOp>(inner);
    return cast && cast->getOperand(0) == block.getArgument(0) &&
           elementTypeOf(cast.getResult()) == xType;
  };
  if (ops.size() == 1 && castOf(ops[0]) && yielded == ops[0]->getResult(0))
    return {PrologueForm::Identity, 0};
  if (ops.size() == 2 && castOf(ops[0]) && isa<MulOp>(ops[1]) &&
      yielded == ops[1]->getResult(0) &&
      elementTypeOf(ops[1]->getResult(0)) == xType) {
    Value converted = ops[0]->getResult(0);
    Value lhs = ops[1]->getOperand(0), rhs = ops[1]->getOperand(1);
    Value other = lhs == converted ? rhs : rhs == converted ? lhs : Value();
    auto capture = dyn_cast_or_null<BlockArgument>(other);
    if (capture && capture.getOwner() == &block && capture.getArgNumber() > 0 &&
        elementTypeOf(capture) == xType) {
      ArrayRef<int64_t> shape = shapeOf(capture);
      // The capture's row (K) dimension must be 1: one value per column.
      if (shape.size() < 2 || shape[shape.size() - 2] == 1)
        return {PrologueForm::ColumnScale, capture.getArgNumber() - 1};
    }
  }
  return {PrologueForm::Generic, 0};
}

std::string elemName(Type t) {
  return t.isBF16() ? "tg::device::Elem::BF16" : "tg::device::Elem::F16";
}
std::string narrowName(Type t) {
  if (t.isInteger(4))
    return "tg::device::Narrow::I4";
  if (t.isInteger(8))
    return "tg::device::Narrow::I8";
  return isa<Float8E4M3FNType>(t) ? "tg::device::Narrow::E4M3"
                                  : "tg::device::Narrow::E5M2";
}
} // namespace

bool mlir::tg::isNarrowWeightType(Type type) {
  return type.isInteger(4) || type.isInteger(8) ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

MatmulExtent mlir::tg::matmulExtent(Operation *op) {
  ArrayRef<int64_t> result = shapeOf(op->getResult(0));
  MatmulExtent extent;
  extent.m = numElements(result.drop_back());
  extent.k = shapeOf(op->getOperand(0)).back();
  extent.n = result.back();
  return extent;
}

std::string mlir::tg::mixedMatmulKernelRefusal(Operation *op) {
  Value a = op->getOperand(0), b = op->getOperand(1);
  Type xType = elementTypeOf(a), wType = elementTypeOf(b);
  Type weightEnters, accType;
  if (auto fused = dyn_cast<FusedMatmulOp>(op)) {
    if (!fused.getPrologueA().empty())
      return "x has a prologue";
    weightEnters = fused.getPrologueResultType(1);
    accType = fused.getAccumulatorType();
  } else if (auto plain = dyn_cast<MatmulOp>(op)) {
    weightEnters = xType;
    accType = plain.getAccumulatorType();
  } else {
    return "not a matmul";
  }
  if (!xType.isBF16() && !xType.isF16())
    return "x is not bf16 or f16";
  if (!isNarrowWeightType(wType))
    return "the weight is not i4, i8, f8E4M3FN or f8E5M2";
  if (weightEnters != xType)
    return "the weight does not enter the product as x's type";
  if (!accType.isF32())
    return "the accumulator is not f32";
  ArrayRef<int64_t> wShape = shapeOf(b), xShape = shapeOf(a);
  for (int64_t dim : wShape.drop_back(2))
    if (dim != 1)
      return "the weight is batched";
  MatmulExtent extent = matmulExtent(op);
  if (numElements(xShape.drop_back()) != extent.m)
    return "x is broadcast over the batch";
  if (extent.k % 8 != 0)
    return "K is not a multiple of 8";
  if (extent.n % 16 != 0)
    return "N is not a multiple of 16";
  if (wType.isInteger(4) && extent.n % 32 != 0)
    return "N is not a multiple of 32 (i4 weights: rows of whole 16-byte chunks)";
  for (Value operand : {a, b})
    if (hasOwnStrides(operand))
      return "an operand has tg.strides";
  return "";
}

LogicalResult lowering::emitMixedMatmulKernel(Operation *op,
                                              const MatmulDesc &desc,
                                              StringRef opName,
                                              LoweringState &state) {
  Type xType = elementTypeOf(desc.a.value);
  Type wType = elementTypeOf(desc.b.value);
  MatmulExtent extent = matmulExtent(op);
  ArrayRef<int64_t> resultShape = shapeOf(desc.result);
  ArrayRef<int64_t> batchShape = resultShape.drop_back(2);
  int64_t rowsPerBatch = resultShape[resultShape.size() - 2];
  bool batched = numElements(batchShape) != 1;

  int64_t mTile = extent.m <= 16 ? 16 : extent.m <= 32 ? 32 : 64;
  bool packed = wType.isInteger(4);
  int64_t weightBits = packed ? 4 : 8;
  MixedTile tile = packed ? mixedTileForI4() : mixedTileFor(mTile);
  int64_t ctas = ((extent.n + tile.blockN() - 1) / tile.blockN()) *
                 ((extent.m + mTile - 1) / mTile);
  int64_t splits = 1;
  if (ctas < tile.targetCtas)
    splits = std::min((tile.targetCtas + ctas - 1) / ctas,
                      std::max<int64_t>(1, extent.k / (tile.stages * tile.blockK)));
  int64_t kPerSplit = ((extent.k + splits - 1) / splits + tile.blockK - 1) /
                      tile.blockK * tile.blockK;
  splits = (extent.k + kPerSplit - 1) / kPerSplit;
  int64_t sharedBytes =
      tile.stages *
      (tile.blockK * tile.blockN() * weightBits / 8 + mTile * tile.blockK * 2);

  KernelParams params;
  std::string x = params.input(desc.a.value);
  std::string w = params.input(desc.b.value);

  // The weight's coordinates: leading dims of size 1, then (k, n).
  SmallVector<std::string> weightCoords(shapeOf(desc.b.value).size() - 2, "0");
  weightCoords.push_back("k");
  weightCoords.push_back("n");
  auto [form, scaleIndex] = prologueForm(op, xType);
  std::string column, prologue;
  std::string pack = "tg::device::pack2<kElem>";
  std::string pair = "tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel)";
  if (form == PrologueForm::Identity) {
    column = "auto column = [&](long long) { return 0u; };\n";
    prologue = "auto prologue = [&](unsigned, unsigned word, int sel, long "
               "long, long long, long long) {\n  return " +
               pair + ";\n};\n";
  } else if (form == PrologueForm::ColumnScale) {
    Value scale = desc.b.captures[scaleIndex];
    SmallVector<std::string> coords(weightCoords);
    coords[coords.size() - 2] = "0";
    std::string load = emitLoad(state.view(scale),
                                broadcastCoords(coords, shapeOf(scale)), params);
    std::string mul =
        xType.isBF16() ? "tg::device::mul_bf16x2" : "tg::device::mul_f16x2";
    column = "// The per-column scale, in both halves of a pair\n"
             "auto column = [&](long long n) {\n  const float scale = " +
             load + ";\n  return " + pack + "(scale, scale);\n};\n";
    prologue = "auto prologue = [&](unsigned scale, unsigned word, int sel, "
               "long long, long long, long long) {\n  return " +
               mul + "(" + pair + ", scale);\n};\n";
  } else {
    Region *region = desc.b.prologue;
    Block &block = region->front();
    // An integer element used only by casts to floats enters as the exact
    // float (no integer round trip); otherwise as tg's integer compute type.
    bool asFloat =
        !isa<IntegerType>(wType) ||
        llvm::all_of(block.getArgument(0).getUsers(), [](Operation *user) {
          return isa<CastOp>(user) &&
                 isa<FloatType>(elementTypeOf(user->getResult(0)));
        });
    FailureOr<std::string> code =
        regionCode(region, desc.b.captures, "b_elem", desc.b.stagedType,
                   "b_pro", "b", weightCoords, state, params);
    if (failed(code))
      return failure();
    column = "auto column = [&](long long) { return 0u; };\n";
    prologue =
        "// prologue_b per element\n"
        "auto prologue = [&](unsigned, unsigned word, int sel, long long k0, "
        "long long k1, long long n) {\n"
        "  const float values[2] = {\n"
        "      tg::device::mixed::pair_to_float<kWeight>(word, sel, 0),\n"
        "      tg::device::mixed::pair_to_float<kWeight>(word, sel, 1)};\n"
        "  const long long rows[2] = {k0, k1};\n"
        "  float converted[2];\n"
        "#pragma unroll\n"
        "  for (int i = 0; i < 2; ++i) {\n"
        "    const long long k = rows[i];\n" +
        std::string(asFloat ? "    const float b_elem = values[i];\n"
                            : "    const long long b_elem = (long long)values[i];\n") +
        indentText(*code, 4) + "\n    converted[i] = b_pro;\n  }\n  return " +
        pack + "(converted[0], converted[1]);\n};\n";
  }

  std::string out = params.output(desc.result);
  Coordinates batchCoords = delinearize("batch", batchShape, "b");
  FailureOr<std::string> store = epilogueCode(desc, batchCoords.coords, "acc_elem",
                                              out, batched, state, params);
  if (failed(store))
    return failure();
  std::string epilogueBody = batched ? "const long long batch = row / kM;\n"
                                       "const long long m = row % kM;\n"
                                     : "const long long m = row;\n";
  epilogueBody += batchCoords.declare(*store, 0) + *store;
  std::string epilogue =
      "auto epilogue = [&](float acc_elem, long long row, long long n) {\n" +
      indentText(epilogueBody, 2) + "\n};\n";

  std::string entry = state.entryName("mixed_matmul");
  std::string declaration = params.declaration();
  if (splits > 1)
    declaration += ",\n    float *__restrict__ partials";
  std::string source;
  llvm::raw_string_ostream os(source);
  os << "// " << opName << " " << shapeString(shapeOf(desc.a.value)) << " "
     << typeString(xType) << " x " << shapeString(shapeOf(desc.b.value)) << " "
     << typeString(wType) << " -> " << shapeString(resultShape) << " "
     << typeString(elementTypeOf(desc.result)) << "\n"
     << "// The mixed-input kernel (device/mixed_matmul.cuh): " << mTile
     << " rows per CTA, K in " << splits << " split" << (splits > 1 ? "s" : "")
     << " of " << kPerSplit << ".\n"
     << ::tg::codegen::mixedMatmulLibrarySource() << "\n"
     << "namespace {\n"
     << "struct MixedCfg {\n"
     << "  static constexpr tg::device::Elem kElem = " << elemName(xType) << ";\n"
     << "  static constexpr tg::device::Narrow kWeight = " << narrowName(wType)
     << ";\n"
     << "  static constexpr long long kM = " << i64Literal(extent.m)
     << ", kN = " << i64Literal(extent.n) << ", kK = " << i64Literal(extent.k)
     << ";\n"
     << "  static constexpr int kMTile = " << mTile << ";\n"
     << "  static constexpr int kWarps = " << tile.warps
     << ", kWarpN = " << tile.warpN << ", kBlockK = " << tile.blockK
     << ", kStages = " << tile.stages << ";\n"
     << "};\n"
     << "static_assert(tg::device::mixed::shared_bytes(MixedCfg::kMTile, "
        "MixedCfg::kBlockK, MixedCfg::kWarps * MixedCfg::kWarpN, "
        "MixedCfg::kStages, tg::device::mixed::weight_bits(MixedCfg::kWeight)) == "
     << sharedBytes << ", \"the generator's shared-memory size\");\n"
     << "} // namespace\n\n";
  // The epilogue's sizes (rows of one batch, columns).
  std::string sizes =
      batched ? "constexpr long long kM = " + i64Literal(rowsPerBatch) +
                    ", kN = " + i64Literal(extent.n) + ";\n"
              : "constexpr long long kN = " + i64Literal(extent.n) + ";\n";
  std::string partials = splits > 1 ? "partials" : "nullptr";
  os << "extern \"C\" __global__ void __launch_bounds__(" << tile.threads()
     << ")\n"
     << entry << "(" << declaration << ") {\n"
     << "  " << tgc::kEarlyLaunchWait << ";\n"
     << indentText("constexpr tg::device::Elem kElem = MixedCfg::kElem;\n"
                   "constexpr tg::device::Narrow kWeight = MixedCfg::kWeight;\n" +
                       sizes + column + prologue + epilogue,
                   2)
     << "\n"
     << "  tg::device::mixed::mixed_matmul<MixedCfg>(\n"
     << "      reinterpret_cast<const tg::device::u16 *>(" << x << "),\n"
     << "      reinterpret_cast<const unsigned char *>(" << w << "), " << partials
     << ", " << i64Literal(kPerSplit) << ", column, prologue, epilogue);\n"
     << "}\n";
  if (splits > 1)
    os << "\nextern \"C\" __global__ void __launch_bounds__(256)\n"
       << entry << "_combine(" << declaration << ") {\n"
       << "  " << tgc::kEarlyLaunchWait << ";\n"
       << indentText(sizes + epilogue, 2) << "\n"
       << "  tg::device::mixed::mixed_matmul_combine<MixedCfg>(partials, "
       << splits << ", epilogue);\n"
       << "}\n";

  std::string name = (opName + " " + std::to_string(extent.m) + "x" +
                      std::to_string(extent.n) + "x" + std::to_string(extent.k) +
                      " mixed-input " + typeString(wType))
                         .str();
  KernelStep main;
  main.name = name;
  main.source = source;
  main.entry = entry;
  main.grid = {unsigned((extent.n + tile.blockN() - 1) / tile.blockN()),
               unsigned((extent.m + mTile - 1) / mTile), unsigned(splits)};
  main.block = {unsigned(tile.threads()), 1, 1};
  main.sharedBytes = unsigned(sharedBytes);
  main.earlyLaunch = true; // both entries start with kEarlyLaunchWait
  params.fill(main);
  if (splits > 1) {
    KernelArg scratch = KernelArg::scratch(op, 0, Float32Type::get(op->getContext()),
                                           {splits, extent.m, extent.n});
    main.args.push_back(scratch);
    KernelStep combine = main;
    combine.name = name + " combine";
    combine.entry = entry + "_combine";
    combine.grid = {unsigned((extent.m * extent.n + 255) / 256), 1, 1};
    combine.block = {256, 1, 1};
    combine.sharedBytes = 0;
    state.addStep(std::move(main));
    state.addStep(std::move(combine));
  } else {
    state.addStep(std::move(main));
  }
  return success();
}
