//===- MatmulKernel.cpp - tg.matmul and tg.fused_matmul -------------------===//
//
// Each block computes 64x64 output tiles (grid-stride over batch x tiles).
// Per step of K, both operand tiles are staged through shared memory: each
// element is loaded through its TensorView, passed through its prologue
// region, and converted to the staging type; elements outside the matrix
// are zero. Two inner engines share this structure:
//  - tensor cores (nvcuda::wmma 16x16x16, f32 accumulators) when both staged
//    operand types convert exactly to f16, or both to bf16 (f16/bf16
//    themselves, fp8, i8 and i4); four warps own a 32x32 quarter each;
//  - SIMT otherwise: 256 threads own 4x4 outputs each, accumulating in f32
//    (or, for integer operands, in i32 with wrap-around).
// The epilogue region (or the conversion of the accumulator to the result
// type) is applied per element before the store.
//
//===----------------------------------------------------------------------===//

#include "MatmulParts.h"

#include "tg/Lowering/ScalarExpr.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tg;
using namespace mlir::tg::lowering;

namespace {
/// Tile geometry of an engine.
struct Engine {
  bool tensorCores;
  Type tcType; // f16 or bf16 for tensor cores
  int threads, bm, bn, bk;
};
} // namespace

/// f16 or bf16 when both staged types convert exactly into it.
static Type tensorCoreType(Type a, Type b, Type acc) {
  if (!acc.isF32())
    return Type();
  auto exactIn16 = [](Type t, bool bf16) {
    return (bf16 ? t.isBF16() : t.isF16()) || isa<Float8E4M3FNType>(t) ||
           isa<Float8E5M2Type>(t) || t.isInteger(8) || t.isInteger(4);
  };
  Builder builder(a.getContext());
  if (exactIn16(a, false) && exactIn16(b, false))
    return builder.getF16Type();
  if (exactIn16(a, true) && exactIn16(b, true))
    return builder.getBF16Type();
  return Type();
}

/// Coordinates of an operand/capture of shape `shape` given the coordinates
/// of the full result-like index space (batch..., row, col).
static SmallVector<std::string> operandCoords(ArrayRef<std::string> coords,
                                              ArrayRef<int64_t> shape) {
  return broadcastCoords(coords, shape);
}

FailureOr<std::string>
lowering::regionCode(Region *region, ValueRange captures, StringRef element,
           Type resultType, StringRef resultVar, StringRef prefix,
           ArrayRef<std::string> coords, LoweringState &state,
           KernelParams &params) {
  std::string code;
  SmallVector<std::string> argNames{element.str()};
  for (auto [i, capture] : llvm::enumerate(captures)) {
    std::string name = (prefix + "_cap" + Twine(i)).str();
    code += "const " + cudaComputeType(elementTypeOf(capture)).str() + " " +
            name + " = " +
            emitLoad(state.view(capture),
                     operandCoords(coords, shapeOf(capture)), params) +
            ";\n";
    argNames.push_back(name);
  }
  code += cudaComputeType(resultType).str() + " " + resultVar.str() + ";\n";
  FailureOr<std::string> snippet =
      emitScalarRegion(*region, argNames, resultVar);
  if (failed(snippet))
    return failure();
  return code + *snippet + "\n";
}

/// The staging type's storage in shared memory and the conversion into it.
static std::string stageStorage(const Engine &engine, Type accType) {
  if (engine.tensorCores)
    return cudaStorageType(engine.tcType).str();
  return accType.isF32() ? "float" : "int";
}
static std::string toStage(const Engine &engine, Type accType,
                           StringRef value, Type stagedType) {
  bool intValue = isa<IntegerType>(stagedType);
  std::string asFloat =
      intValue ? ("(float)" + value).str() : value.str();
  if (engine.tensorCores)
    return (engine.tcType.isF16() ? "__float2half_rn(" : "__float2bfloat16_rn(") +
           asFloat + ")";
  if (accType.isF32())
    return asFloat;
  return ("(int)tg_wrap_i32(" + value + ")").str(); // i32 accumulation wraps
}

/// The loop that stages one operand tile (rows x cols of the operand's last
/// two dimensions) into `tile`.
static FailureOr<std::string>
stagingLoop(const Operand &operand, StringRef name, StringRef tile,
            bool isA, ArrayRef<std::string> batchCoords, const Engine &engine,
            Type accType, LoweringState &state, KernelParams &params) {
  ArrayRef<int64_t> shape = shapeOf(operand.value);
  size_t rank = shape.size();
  // A is M x K (tile BM x BK), B is K x N (tile BK x BN).
  StringRef rowVar = isA ? "m" : "k", colVar = isA ? "k" : "n";
  StringRef rowBase = isA ? "row0" : "k0", colBase = isA ? "k0" : "col0";
  StringRef rowLimit = isA ? "kM" : "kK", colLimit = isA ? "kK" : "kN";
  StringRef tileCols = isA ? "BK" : "BN", tileRows = isA ? "BM" : "BK";
  SmallVector<std::string> coords;
  for (size_t d = 0; d + 2 < rank; ++d)
    coords.push_back(shape[d] == 1 ? "0" : batchCoords[d]);
  coords.push_back(rowVar.str());
  coords.push_back(colVar.str());

  Type elementType = elementTypeOf(operand.value);
  std::string element = (name + "_elem").str();
  std::string inner;
  inner += "const " + cudaComputeType(elementType).str() + " " + element +
           " = " + emitLoad(state.view(operand.value), coords, params) +
           ";\n";
  std::string staged = element;
  if (operand.prologue && !operand.prologue->empty()) {
    std::string pro = (name + "_pro").str();
    FailureOr<std::string> code =
        regionCode(operand.prologue, operand.captures, element,
                   operand.stagedType, pro, name, coords, state, params);
    if (failed(code))
      return failure();
    inner += "// prologue_" + name.str() + "\n" + *code;
    staged = pro;
  }
  std::string zero = engine.tensorCores || accType.isF32()
                         ? toStage(engine, accType, "0.0f",
                                   Builder(accType.getContext()).getF32Type())
                         : "0";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "for (int e = threadIdx.x; e < " << tileRows << " * " << tileCols
     << "; e += kThreads) {\n"
     << "  const int r = e / " << tileCols << ", c = e % " << tileCols
     << ";\n"
     << "  const long long " << rowVar << " = " << rowBase << " + r, "
     << colVar << " = " << colBase << " + c;\n"
     << "  " << stageStorage(engine, accType) << " staged = " << zero
     << "; // zero outside the matrix\n"
     << "  if (" << rowVar << " < " << rowLimit << " && " << colVar << " < "
     << colLimit << ") {\n"
     << indentText(inner, 4) << "\n"
     << "    staged = "
     << toStage(engine, accType, staged, operand.stagedType) << ";\n"
     << "  }\n"
     << "  " << tile << "[r][c] = staged;\n"
     << "}\n";
  return text;
}

FailureOr<std::string> lowering::epilogueCode(const MatmulDesc &desc,
                                           ArrayRef<std::string> batchCoords,
                                           StringRef accVar, StringRef out,
                                           bool batched, LoweringState &state,
                                           KernelParams &params) {
  Type resultType = elementTypeOf(desc.result);
  SmallVector<std::string> coords(batchCoords);
  coords.push_back("m");
  coords.push_back("n");
  std::string code;
  std::string value;
  if (desc.epilogue && !desc.epilogue->empty()) {
    FailureOr<std::string> region =
        regionCode(desc.epilogue, desc.epilogueCaptures, accVar, resultType,
                   "result", "epi", coords, state, params);
    if (failed(region))
      return failure();
    code += "// epilogue\n" + *region;
    value = "result";
  } else {
    value = cudaCast(accVar, desc.accType, resultType);
  }
  code += "tg_store(" + out.str() + ", " +
          (batched ? "(batch * kM + m) * kN + n" : "m * kN + n") + ", " +
          value + ");\n";
  return code;
}

static FailureOr<KernelStep> matmulKernel(const MatmulDesc &desc,
                                          StringRef opName,
                                          LoweringState &state) {
  ArrayRef<int64_t> resultShape = shapeOf(desc.result);
  size_t rank = resultShape.size();
  ArrayRef<int64_t> batchShape = resultShape.drop_back(2);
  int64_t batch = numElements(batchShape);
  int64_t m = resultShape[rank - 2], n = resultShape[rank - 1];
  int64_t k = shapeOf(desc.a.value).back();

  Engine engine;
  engine.tcType =
      tensorCoreType(desc.a.stagedType, desc.b.stagedType, desc.accType);
  engine.tensorCores = static_cast<bool>(engine.tcType);
  if (engine.tensorCores)
    engine = {true, engine.tcType, 128, 64, 64, 32};
  else
    engine = {false, Type(), 256, 64, 64, 16};
  int64_t tilesM = (m + engine.bm - 1) / engine.bm;
  int64_t tilesN = (n + engine.bn - 1) / engine.bn;
  int64_t tiles = batch * tilesM * tilesN;

  KernelParams params;
  Coordinates batchCoords = delinearize("batch", batchShape, "b");
  FailureOr<std::string> stageA =
      stagingLoop(desc.a, "a", "tileA", true, batchCoords.coords, engine,
                  desc.accType, state, params);
  FailureOr<std::string> stageB =
      stagingLoop(desc.b, "b", "tileB", false, batchCoords.coords, engine,
                  desc.accType, state, params);
  if (failed(stageA) || failed(stageB))
    return failure();
  std::string out = params.output(desc.result);
  bool batched = batch != 1;
  FailureOr<std::string> epilogue =
      epilogueCode(desc, batchCoords.coords, "acc_elem", out, batched, state,
                   params);
  if (failed(epilogue))
    return failure();

  Type resultType = elementTypeOf(desc.result);
  StringRef accCompute = cudaComputeType(desc.accType);
  std::string entry = state.entryName("matmul");
  KernelStep step;
  llvm::raw_string_ostream os(step.source);
  if (engine.tensorCores)
    os << "#include <mma.h>\n\n";
  os << "// " << opName << " " << formatShape(shapeOf(desc.a.value)) << " "
     << typeString(elementTypeOf(desc.a.value)) << " x "
     << formatShape(shapeOf(desc.b.value)) << " "
     << typeString(elementTypeOf(desc.b.value)) << " -> "
     << formatShape(resultShape) << " " << typeString(resultType) << "\n";
  if (engine.tensorCores)
    os << "// Tensor cores: wmma 16x16x16 on " << typeString(engine.tcType)
       << " tiles with f32 accumulation.\n";
  else
    os << "// SIMT: each thread accumulates a 4x4 block in "
       << typeString(desc.accType) << ".\n";
  os << "extern \"C\" __global__ void __launch_bounds__(" << engine.threads
     << ")\n"
     << entry << "(" << params.declaration() << ") {\n"
     << "  constexpr long long kM = " << i64Literal(m)
     << ", kN = " << i64Literal(n) << ", kK = " << i64Literal(k)
     << ", kBatch = " << i64Literal(batch) << ";\n"
     << "  constexpr int BM = " << engine.bm << ", BN = " << engine.bn
     << ", BK = " << engine.bk << "; // output tile and K step\n"
     << "  constexpr int kThreads = " << engine.threads << ";\n"
     << "  constexpr long long kTilesM = " << i64Literal(tilesM)
     << ", kTilesN = " << i64Literal(tilesN) << ";\n";
  std::string stageType = stageStorage(engine, desc.accType);
  if (engine.tensorCores) {
    os << "  // Rows padded by 8 (A, B) or 4 (C) elements: 16-byte aligned "
          "rows for wmma,\n"
       << "  // fewer shared-memory bank conflicts.\n"
       << "  __shared__ __align__(32) " << stageType << " tileA[BM][BK + 8];\n"
       << "  __shared__ __align__(32) " << stageType << " tileB[BK][BN + 8];\n"
       << "  __shared__ __align__(32) float tileC[BM][BN + 4];\n"
       << "  const int warp = threadIdx.x / 32;\n"
       << "  const int warpRow = (warp / 2) * 32, warpCol = (warp % 2) * 32; "
          "// this warp's 32x32 quarter\n";
  } else {
    os << "  __shared__ " << stageType
       << " tileA[BM][BK + 1]; // +1: fewer bank conflicts\n"
       << "  __shared__ " << stageType << " tileB[BK][BN];\n"
       << "  // Thread (ty, tx) owns rows ty + 16 i and columns tx + 16 j, "
          "i, j < 4\n"
       << "  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;\n";
  }
  // The tile loop's body after the tile decode.
  std::string loopBody;
  llvm::raw_string_ostream ls(loopBody);
  if (engine.tensorCores)
    ls << "nvcuda::wmma::fragment<nvcuda::wmma::accumulator, 16, 16, 16, "
          "float> acc[2][2];\n"
       << "#pragma unroll\n"
       << "for (int i = 0; i < 2; ++i)\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < 2; ++j)\n"
       << "    nvcuda::wmma::fill_fragment(acc[i][j], 0.0f);\n";
  else
    ls << (desc.accType.isF32() ? "float" : "unsigned int")
       << " acc[4][4]; // "
       << (desc.accType.isF32() ? "" : "i32 accumulation wraps modulo 2^32")
       << "\n"
       << "#pragma unroll\n"
       << "for (int i = 0; i < 4; ++i)\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < 4; ++j)\n"
       << "    acc[i][j] = 0;\n";
  ls << "for (long long k0 = 0; k0 < kK; k0 += BK) {\n"
     << "  // Stage the A tile (rows row0.., columns k0..)\n"
     << indentText(*stageA, 2) << "\n"
     << "  // Stage the B tile (rows k0.., columns col0..)\n"
     << indentText(*stageB, 2) << "\n"
     << "  __syncthreads();\n";
  if (engine.tensorCores) {
    std::string frag = "nvcuda::wmma::fragment<nvcuda::wmma::matrix_";
    std::string fragTail =
        ", 16, 16, 16, " + stageType + ", nvcuda::wmma::row_major>";
    ls << "  // Tensor-core products of the staged tiles\n"
       << "#pragma unroll\n"
       << "  for (int kk = 0; kk < BK; kk += 16) {\n"
       << "    " << frag << "a" << fragTail << " fragA[2];\n"
       << "    " << frag << "b" << fragTail << " fragB[2];\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < 2; ++i)\n"
       << "      nvcuda::wmma::load_matrix_sync(fragA[i], &tileA[warpRow + 16 "
          "* i][kk], BK + 8);\n"
       << "#pragma unroll\n"
       << "    for (int j = 0; j < 2; ++j)\n"
       << "      nvcuda::wmma::load_matrix_sync(fragB[j], &tileB[kk][warpCol "
          "+ 16 * j], BN + 8);\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < 2; ++i)\n"
       << "#pragma unroll\n"
       << "      for (int j = 0; j < 2; ++j)\n"
       << "        nvcuda::wmma::mma_sync(acc[i][j], fragA[i], fragB[j], "
          "acc[i][j]);\n"
       << "  }\n";
  } else {
    std::string product = desc.accType.isF32()
                              ? "a[i] * b[j]"
                              : "(unsigned int)a[i] * (unsigned int)b[j]";
    ls << "  // Products of the staged tiles\n"
       << "#pragma unroll\n"
       << "  for (int kk = 0; kk < BK; ++kk) {\n"
       << "    " << stageType << " a[4], b[4];\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < 4; ++i)\n"
       << "      a[i] = tileA[ty + 16 * i][kk];\n"
       << "#pragma unroll\n"
       << "    for (int j = 0; j < 4; ++j)\n"
       << "      b[j] = tileB[kk][tx + 16 * j];\n"
       << "#pragma unroll\n"
       << "    for (int i = 0; i < 4; ++i)\n"
       << "#pragma unroll\n"
       << "      for (int j = 0; j < 4; ++j)\n"
       << "        acc[i][j] += " << product << ";\n"
       << "  }\n";
  }
  ls << "  __syncthreads(); // the tiles are overwritten next step\n"
     << "}\n";

  if (engine.tensorCores) {
    ls << "// Accumulators to shared memory, then the epilogue per element\n"
       << "#pragma unroll\n"
       << "for (int i = 0; i < 2; ++i)\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < 2; ++j)\n"
       << "    nvcuda::wmma::store_matrix_sync(&tileC[warpRow + 16 * "
          "i][warpCol + 16 * j], acc[i][j],\n"
       << "                                    BN + 4, "
          "nvcuda::wmma::mem_row_major);\n"
       << "__syncthreads();\n"
       << "for (int e = threadIdx.x; e < BM * BN; e += kThreads) {\n"
       << "  const int r = e / BN, c = e % BN;\n"
       << "  const long long m = row0 + r, n = col0 + c;\n"
       << "  if (m < kM && n < kN) {\n"
       << "    const float acc_elem = tileC[r][c];\n"
       << indentText(*epilogue, 4) << "\n"
       << "  }\n"
       << "}\n"
       << "__syncthreads(); // tileC is reused by the next tile\n";
  } else {
    std::string accValue = desc.accType.isF32()
                               ? "acc[i][j]"
                               : "(long long)(int)acc[i][j]";
    ls << "// Epilogue per element of this thread's 4x4 block\n"
       << "#pragma unroll\n"
       << "for (int i = 0; i < 4; ++i)\n"
       << "#pragma unroll\n"
       << "  for (int j = 0; j < 4; ++j) {\n"
       << "    const long long m = row0 + ty + 16 * i, n = col0 + tx + 16 * "
          "j;\n"
       << "    if (m < kM && n < kN) {\n"
       << "      const " << accCompute << " acc_elem = " << accValue << ";\n"
       << indentText(*epilogue, 6) << "\n"
       << "    }\n"
       << "  }\n";
  }
  std::string decode = "const long long tileN = tile % kTilesN;\n"
                       "const long long tileM = (tile / kTilesN) % kTilesM;\n";
  if (batched)
    decode += "const long long batch = tile / (kTilesN * kTilesM);\n";
  std::string batchDecl = batchCoords.declare(loopBody, 0);
  if (!batchDecl.empty())
    decode += "// Batch coordinates\n" + batchDecl;
  decode += "const long long row0 = tileM * BM, col0 = tileN * BN;\n";
  os << "  for (long long tile = blockIdx.x; tile < kBatch * kTilesM * "
        "kTilesN; tile += gridDim.x) {\n"
     << indentText(decode + loopBody, 4) << "\n  }\n}\n";

  step.entry = entry;
  step.name = (opName + " " + std::to_string(m) + "x" + std::to_string(n) +
               "x" + std::to_string(k) +
               (batched ? " batch " + std::to_string(batch) : "") +
               (engine.tensorCores ? " wmma " + typeString(engine.tcType)
                                   : " simt"))
                  .str();
  step.grid = {gridFor(tiles, 1), 1, 1};
  step.block = {static_cast<unsigned>(engine.threads), 1, 1};
  params.fill(step);
  return step;
}

LogicalResult lowering::emitMatmulKernel(Operation *op, bool mixedKernel,
                                         LoweringState &state) {
  MatmulDesc desc;
  StringRef opName;
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    desc.a = {matmul.getA(), nullptr, {}, elementTypeOf(matmul.getA())};
    desc.b = {matmul.getB(), nullptr, {}, elementTypeOf(matmul.getB())};
    desc.accType = matmul.getAccumulatorType();
    desc.result = matmul.getResult();
    opName = "tg.matmul";
  } else {
    auto fused = cast<FusedMatmulOp>(op);
    desc.a = {fused.getA(), &fused.getPrologueA(), fused.getACaptures(),
              fused.getPrologueResultType(0)};
    desc.b = {fused.getB(), &fused.getPrologueB(), fused.getBCaptures(),
              fused.getPrologueResultType(1)};
    desc.epilogue = &fused.getEpilogue();
    desc.epilogueCaptures = fused.getEpilogueCaptures();
    desc.accType = fused.getAccumulatorType();
    desc.result = fused.getResult();
    opName = "tg.fused_matmul";
  }
  state.views[desc.result] = TensorView::ofBuffer(desc.result);
  if (numElements(shapeOf(desc.result)) == 0)
    return success();
  if (mixedKernel) {
    assert(state.view(desc.a.value).isDenseBufferOf(desc.a.value) &&
           state.view(desc.b.value).isDenseBufferOf(desc.b.value) &&
           "the partitioner gives the mixed-input kernel buffers");
    return emitMixedMatmulKernel(op, desc, opName, state);
  }
  FailureOr<KernelStep> step = matmulKernel(desc, opName, state);
  if (failed(step))
    return failure();
  state.addStep(std::move(*step));
  return success();
}
