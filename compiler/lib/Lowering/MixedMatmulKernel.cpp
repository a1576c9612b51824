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
//  - packed (tg.cast to x's type, then tg.mul, tg.sub or tg.add by captures
//    of x's type that depend on the column only, or on the column and the
//    group of G rows, G a multiple of 16: scales and zero points, per
//    channel or group-wise as [K / G, 1, N] tensors seen as [K, N]): the
//    captures are loaded once per column (and group) and each step is one
//    packed operation on the converted pair (one rounding, as the tg op
//    rounds);
//  - anything else: the region per element, its captures loaded at (k, n).
//
//===----------------------------------------------------------------------===//

#include "MatmulParts.h"

#include "tg/Codegen/CudaText.h"
#include "tg/Lowering/MixedMatmulKernel.h"
#include "tg/Lowering/ScalarExpr.h"
#include "tgc/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

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
  int64_t kSlices = 1; // sets of `warps` warps splitting each K step
  int64_t targetCtas = 264;
  int64_t blockN() const { return warpN * warps; }
  int64_t threads() const { return 32 * warps * kSlices; }
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

enum class PrologueForm { Identity, Packed, Generic };

/// One step of the packed form: value = op(value, capture), or
/// op(capture, value) when the weight is the right operand (tg.sub).
struct PackedStep {
  StringRef function; // the packed operation, e.g. "mul_bf16x2"
  unsigned capture;   // index into the op's b captures
  bool weightOnLeft;
  std::string literal; // instead of a capture: a constant (float literal)
};

struct PrologueShape {
  PrologueForm form = PrologueForm::Identity;
  SmallVector<PackedStep> steps; // Packed
  int64_t group = 0;             // Packed: rows per group (0: per column)
};

/// Rows of the weight that read one element of `capture` (a prologue_b
/// capture through its view): 0 when it does not depend on the row (rank
/// 0, size 1 or stride 0 along K), G when a group of G rows does; -1 when
/// it differs from row to row.
int64_t rowsPerCaptureElement(Value capture, LoweringState &state) {
  ArrayRef<int64_t> shape = shapeOf(capture);
  if (shape.size() < 2 || shape[shape.size() - 2] == 1)
    return 0;
  const TensorView &view = state.view(capture);
  size_t kDim = shape.size() - 2;
  if (view.kind == TensorView::Kind::Splat || view.strides[kDim] == 0)
    return 0;
  return view.divisors[kDim] > 1 ? view.divisors[kDim] : -1;
}

/// The weight's prologue form.
PrologueShape prologueShape(Operation *op, Type xType, ValueRange captures,
                            LoweringState &state) {
  auto fused = dyn_cast<FusedMatmulOp>(op);
  if (!fused || fused.getPrologueB().empty())
    return {};
  Block &block = fused.getPrologueB().front();
  // The steps (constants, which canonicalisation may have moved to the
  // top, are operands of steps).
  SmallVector<Operation *> ops;
  for (Operation &inner : block.without_terminator())
    if (!isa<ConstantOp>(inner))
      ops.push_back(&inner);
  Value yielded = block.getTerminator()->getOperand(0);
  PrologueShape generic{PrologueForm::Generic, {}, 0};
  auto cast = ops.empty() ? CastOp() : dyn_cast<CastOp>(ops[0]);
  if (!cast || cast->getOperand(0) != block.getArgument(0) ||
      elementTypeOf(cast.getResult()) != xType)
    return generic;
  PrologueShape shape{PrologueForm::Packed, {}, 0};
  bool bf16 = xType.isBF16();
  Value value = cast.getResult();
  for (Operation *inner : ArrayRef(ops).drop_front()) {
    if (!isa<MulOp, SubOp, AddOp>(inner) ||
        elementTypeOf(inner->getResult(0)) != xType)
      return generic;
    Value lhs = inner->getOperand(0), rhs = inner->getOperand(1);
    bool weightOnLeft = lhs == value;
    Value other = weightOnLeft ? rhs : lhs == value ? Value() : lhs;
    if (!weightOnLeft && rhs != value)
      return generic;
    StringRef function = isa<MulOp>(inner)   ? (bf16 ? "mul_bf16x2" : "mul_f16x2")
                         : isa<SubOp>(inner) ? (bf16 ? "sub_bf16x2" : "sub_f16x2")
                                             : (bf16 ? "add_bf16x2" : "add_f16x2");
    value = inner->getResult(0);
    // A constant of the region (a splat the fusion inlined).
    DenseElementsAttr constant;
    if (other && elementTypeOf(other) == xType &&
        matchPattern(other, m_Constant(&constant))) {
      shape.steps.push_back(
          {function, 0, weightOnLeft,
           cudaLiteral(constant.getSplatValue<APFloat>())});
      continue;
    }
    auto capture = dyn_cast_or_null<BlockArgument>(other);
    if (!capture || capture.getOwner() != &block || capture.getArgNumber() == 0 ||
        elementTypeOf(capture) != xType)
      return generic;
    unsigned index = capture.getArgNumber() - 1;
    int64_t rows = rowsPerCaptureElement(captures[index], state);
    if (rows < 0 || (rows > 0 && rows % 16 != 0) ||
        (rows > 0 && shape.group > 0 && rows != shape.group))
      return generic;
    if (rows > 0)
      shape.group = rows;
    shape.steps.push_back({function, index, weightOnLeft, ""});
  }
  if (yielded != value)
    return generic;
  if (shape.steps.empty())
    return {};
  return shape;
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
  PrologueShape shape = prologueShape(op, xType, desc.b.captures, state);
  MixedTile tile = packed ? mixedTileForI4() : mixedTileFor(mTile);
  // Two K slices split each K step's k16 steps between two sets of warps;
  // each set then meets every group only when groups are whole K steps.
  if (shape.group % tile.blockK != 0)
    tile.kSlices = 1;
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
  std::string column, prologue;
  std::string pack = "tg::device::pack2<kElem>";
  std::string pair = "tg::device::mixed::narrow_pair<kWeight, kElem>(word, sel)";
  if (shape.form == PrologueForm::Identity) {
    column = "auto column = [&](long long, long long) { return 0u; };\n";
    prologue = "auto prologue = [&](unsigned, unsigned word, int sel, long "
               "long, long long, long long) {\n  return " +
               pair + ";\n};\n";
  } else if (shape.form == PrologueForm::Packed) {
    size_t slots = llvm::count_if(shape.steps, [](const PackedStep &step) {
      return step.literal.empty();
    });
    std::string pairs = "tg::device::mixed::Pairs<" +
                        std::to_string(std::max<size_t>(slots, 1)) + ">";
    column = std::string(shape.group ? "// Per column and group of " +
                                           std::to_string(shape.group) + " rows"
                                     : "// Per column") +
             ": the prologue's tensors, each in both halves of a pair\n"
             "auto column = [&](long long n, long long k) {\n  " + pairs +
             " c{};\n";
    prologue = "auto prologue = [&](const " + pairs +
               " &c, unsigned word, int sel, long long, long long, long long) "
               "{\n  unsigned v = " + pair + ";\n";
    size_t used = 0;
    for (const PackedStep &step : shape.steps) {
      std::string slot;
      if (!step.literal.empty()) {
        slot = pack + "(" + step.literal + ", " + step.literal + ")";
      } else {
        Value capture = desc.b.captures[step.capture];
        std::string load = emitLoad(
            state.view(capture), broadcastCoords(weightCoords, shapeOf(capture)),
            params);
        slot = "c.v[" + std::to_string(used++) + "]";
        column += "  {\n    const float value = " + load + ";\n    " + slot +
                  " = " + pack + "(value, value);\n  }\n";
      }
      std::string call = "tg::device::" + step.function.str();
      prologue += "  v = " + call +
                  (step.weightOnLeft ? "(v, " + slot + ")" : "(" + slot + ", v)") +
                  ";\n";
    }
    column += "  return c;\n};\n";
    prologue += "  return v;\n};\n";
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
    column = "auto column = [&](long long, long long) { return 0u; };\n";
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
     << "  static constexpr int kKSlices = " << tile.kSlices << ";\n"
     << "  static constexpr long long kGroup = " << shape.group << ";\n"
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
