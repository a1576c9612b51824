// The cuDNN graphs of matmuls, fused matmuls, reductions and softmax compute
// what the tg op computes: each graph that tg::cudnn::lower builds is
// evaluated on the host (float64, every tensor rounded to its data type, as
// cuDNN's typed tensors are) and compared with the reference interpreter on
// the same inputs. This checks the graph's semantics (modes, operand order,
// swaps, broadcasting, the safe softmax) without a GPU; layouts are checked
// by the lit tests in test/Cudnn.
#include "tg/Cudnn/CudnnLowering.h"
#include "tg/Dialect/TG/IR/TGDialect.h"
#include "tg/Dialect/TG/IR/TGOps.h"
#include "tg/Reference/Interpreter.h"
#include "tg/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/DenseMap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <string>

using namespace mlir;
using namespace mlir::tg;
using ref::HostTensor;
using tgc::DType;
namespace cg = tgc::cudnn;

namespace {
const double kInf = std::numeric_limits<double>::infinity();

/// A host value of a graph tensor: row-major over the tensor's dims.
struct HostValue {
  std::vector<int64_t> dims;
  std::vector<double> values;
};

int64_t countOf(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

/// The flat index into `dims` (broadcasting unit dims) of the element at
/// coordinates `coords` of a larger tensor of dims `outer`. A dim that
/// divides the outer one groups it, as cuDNN's GQA batch dims do (query
/// head h reads kv head h / (Hq / Hkv); a reduction onto Hkv sums groups).
int64_t broadcastIndex(const std::vector<int64_t> &dims,
                       const std::vector<int64_t> &coords,
                       const std::vector<int64_t> &outer) {
  int64_t index = 0;
  for (size_t i = 0; i < dims.size(); ++i)
    index = index * dims[i] +
            (dims[i] == 1 ? 0 : coords[i] * dims[i] / outer[i]);
  return index;
}

std::vector<int64_t> coordsOf(int64_t flat, const std::vector<int64_t> &dims) {
  std::vector<int64_t> coords(dims.size());
  for (size_t i = dims.size(); i-- > 0;) {
    coords[i] = flat % dims[i];
    flat /= dims[i];
  }
  return coords;
}

int64_t offsetOf(const std::vector<int64_t> &coords,
                 const std::vector<int64_t> &strides) {
  int64_t offset = 0;
  for (size_t i = 0; i < coords.size(); ++i)
    offset += coords[i] * strides[i];
  return offset;
}

double pointwise(const std::string &mode, double x, double b, double t) {
  if (mode == "identity")
    return x;
  if (mode == "add")
    return x + b;
  if (mode == "sub")
    return x - b;
  if (mode == "mul")
    return x * b;
  if (mode == "div")
    return x / b;
  if (mode == "max")
    return std::isnan(x) || std::isnan(b) ? NAN : std::max(x, b);
  if (mode == "min")
    return std::isnan(x) || std::isnan(b) ? NAN : std::min(x, b);
  if (mode == "pow")
    return std::pow(x, b);
  if (mode == "exp")
    return std::exp(x);
  if (mode == "log")
    return std::log(x);
  if (mode == "tanh_fwd")
    return std::tanh(x);
  if (mode == "sigmoid_fwd")
    return 1.0 / (1.0 + std::exp(-x));
  if (mode == "neg")
    return -x;
  if (mode == "abs")
    return std::fabs(x);
  if (mode == "sqrt")
    return std::sqrt(x);
  if (mode == "rsqrt")
    return 1.0 / std::sqrt(x);
  if (mode == "reciprocal")
    return 1.0 / x;
  if (mode == "cmp_lt")
    return x < b;
  if (mode == "cmp_le")
    return x <= b;
  if (mode == "cmp_gt")
    return x > b;
  if (mode == "cmp_ge")
    return x >= b;
  if (mode == "cmp_eq")
    return x == b;
  if (mode == "cmp_neq")
    return x != b;
  if (mode == "logical_and")
    return x != 0.0 && b != 0.0;
  if (mode == "logical_not")
    return x == 0.0;
  if (mode == "binary_select")
    return t != 0.0 ? x : b;
  ADD_FAILURE() << "the host evaluator has no pointwise mode " << mode;
  return NAN;
}

class CudnnGraphEvalTest : public ::testing::Test {
protected:
  CudnnGraphEvalTest() {
    DialectRegistry registry;
    registry.insert<TGDialect, func::FuncDialect>();
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  Type typeOf(DType dtype) {
    Builder b(&context);
    switch (dtype) {
    case DType::BF16:
      return b.getBF16Type();
    case DType::F16:
      return b.getF16Type();
    case DType::F32:
      return b.getF32Type();
    case DType::F8E4M3FN:
      return b.getType<Float8E4M3FNType>();
    case DType::F8E5M2:
      return b.getType<Float8E5M2Type>();
    case DType::I8:
      return b.getI8Type();
    case DType::I32:
      return b.getI32Type();
    case DType::I64:
      return b.getI64Type();
    case DType::I1:
      return b.getI1Type();
    case DType::I4:
      return b.getIntegerType(4);
    }
    return Type();
  }

  double round(double v, DType dtype) {
    if (dtype == DType::I1)
      return v != 0.0;
    return ref::roundToElementType(v, typeOf(dtype));
  }

  /// Evaluates `graph` with bound tensors read from `bound` (uid -> value);
  /// returns every tensor's value.
  std::map<int64_t, HostValue> evaluate(const cg::Graph &graph,
                                        std::map<int64_t, HostValue> bound) {
    std::map<int64_t, HostValue> values = std::move(bound);
    for (const cg::Tensor &t : graph.tensors)
      if (t.kind == cg::TensorKind::ByValue)
        values[t.uid] = {t.dims, {round(t.value, t.dtype)}};
    for (const cg::Op &op : graph.ops) {
      const cg::Tensor *yt = nullptr;
      int64_t yUid = 0;
      for (const char *out : {"y", "c"})
        if ((yUid = op.port(out)))
          break;
      yt = graph.find(yUid);
      EXPECT_TRUE(yt) << "op without output";
      if (!yt)
        return values;
      HostValue y{yt->dims, std::vector<double>(countOf(yt->dims), 0.0)};
      auto in = [&](const char *port) -> const HostValue * {
        int64_t uid = op.port(port);
        if (!uid)
          return nullptr;
        auto it = values.find(uid);
        EXPECT_NE(it, values.end()) << "tensor " << uid << " read unset";
        return it == values.end() ? nullptr : &it->second;
      };
      if (op.kind == cg::OpKind::Pointwise) {
        const HostValue *x = in("x"), *b = in("b"), *t = in("t");
        EXPECT_TRUE(x);
        if (!x)
          return values;
        // cuDNN's x has the output's dims; only b and t broadcast.
        EXPECT_EQ(x->dims, y.dims) << "pointwise " << op.mode;
        for (int64_t i = 0; i < countOf(y.dims); ++i) {
          std::vector<int64_t> c = coordsOf(i, y.dims);
          double xv = x->values[broadcastIndex(x->dims, c, y.dims)];
          double bv = b ? b->values[broadcastIndex(b->dims, c, y.dims)] : 0.0;
          double tv = t ? t->values[broadcastIndex(t->dims, c, y.dims)] : 0.0;
          double v = op.mode == "gen_index" ? double(c[*op.axis])
                                            : pointwise(op.mode, xv, bv, tv);
          y.values[i] = round(v, yt->dtype);
        }
      } else if (op.kind == cg::OpKind::Matmul) {
        const HostValue *a = in("a"), *b = in("b");
        if (!a || !b)
          return values;
        size_t r = y.dims.size();
        int64_t k = a->dims[r - 1];
        for (int64_t i = 0; i < countOf(y.dims); ++i) {
          std::vector<int64_t> c = coordsOf(i, y.dims);
          double sum = 0.0;
          std::vector<int64_t> outerA = y.dims, outerB = y.dims;
          outerA[r - 1] = outerB[r - 2] = k;
          for (int64_t kk = 0; kk < k; ++kk) {
            std::vector<int64_t> ca = c, cb = c;
            ca[r - 1] = kk;
            cb[r - 2] = kk;
            sum += a->values[broadcastIndex(a->dims, ca, outerA)] *
                   b->values[broadcastIndex(b->dims, cb, outerB)];
          }
          y.values[i] = round(sum, yt->dtype);
        }
      } else if (op.kind == cg::OpKind::Reduction) {
        const HostValue *x = in("x");
        if (!x)
          return values;
        std::vector<bool> seen(y.values.size(), false);
        for (int64_t i = 0; i < countOf(x->dims); ++i) {
          int64_t j = broadcastIndex(y.dims, coordsOf(i, x->dims), x->dims);
          double v = x->values[i];
          if (!seen[j]) {
            y.values[j] = op.mode == "amax" ? std::fabs(v) : v;
            seen[j] = true;
          } else if (op.mode == "add") {
            y.values[j] += v;
          } else if (op.mode == "max") {
            y.values[j] = pointwise("max", y.values[j], v, 0);
          } else if (op.mode == "min") {
            y.values[j] = pointwise("min", y.values[j], v, 0);
          } else if (op.mode == "amax") {
            y.values[j] = pointwise("max", y.values[j], std::fabs(v), 0);
          } else {
            ADD_FAILURE() << "reduction mode " << op.mode;
          }
        }
        for (double &v : y.values)
          v = round(v, yt->dtype);
      } else if (op.kind == cg::OpKind::Reshape) {
        // A view: y's element at c is the one x holds at the same memory
        // offset (x laid out by its strides, y read by its own).
        const HostValue *x = in("x");
        const cg::Tensor *xt = graph.find(op.port("x"));
        if (!x || !xt)
          return values;
        std::map<int64_t, double> memory;
        for (int64_t i = 0; i < countOf(x->dims); ++i)
          memory[offsetOf(coordsOf(i, x->dims), xt->strides)] = x->values[i];
        for (int64_t i = 0; i < countOf(y.dims); ++i)
          y.values[i] = round(
              memory.at(offsetOf(coordsOf(i, y.dims), yt->strides)),
              yt->dtype);
      } else {
        ADD_FAILURE() << "unexpected op kind " << cg::opKindName(op.kind);
      }
      values[yUid] = std::move(y);
    }
    return values;
  }

  /// Lowers the single cuDNN-candidate op of `source`'s function, evaluates
  /// its graph on `inputs` (random when empty) and compares every result
  /// with the interpreter's within `rtol`.
  void check(const std::string &source, SmallVector<HostTensor> inputs = {},
             double rtol = 1e-6) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    ASSERT_TRUE(module) << source;
    func::FuncOp fn = *module->getOps<func::FuncOp>().begin();
    if (inputs.empty())
      inputs = ref::makeRandomInputs(fn, {});
    FailureOr<SmallVector<HostTensor>> expected = ref::interpret(fn, inputs);
    ASSERT_TRUE(succeeded(expected));

    Operation *candidate = nullptr;
    fn.walk([&](Operation *op) {
      if (isa<MatmulOp, FusedMatmulOp, ReduceOp, SoftmaxOp, AttentionOp>(op))
        candidate = op;
    });
    ASSERT_TRUE(candidate);
    ASSERT_EQ(cudnn::graphUnsupportedReason(candidate), "");
    FailureOr<cudnn::Lowering> lowering = cudnn::lower(candidate, [](Value v) {
      return cudnn::denseStrides(
          cast<RankedTensorType>(v.getType()).getShape());
    });
    ASSERT_TRUE(succeeded(lowering));
    ASSERT_EQ(lowering->graphs.size(), 1u);
    cudnn::GraphBuilder &builder = lowering->graphs.front();

    // Bound tensors: arguments from the inputs; results are written.
    llvm::DenseMap<Value, unsigned> argIndex;
    for (BlockArgument arg : fn.getArguments())
      argIndex[arg] = arg.getArgNumber();
    std::map<int64_t, HostValue> bound;
    std::map<int64_t, unsigned> resultOf;
    auto ret = cast<func::ReturnOp>(fn.front().getTerminator());
    for (auto [uid, value] : builder.bindings()) {
      const cg::Tensor &t = builder.tensor(uid);
      auto it = argIndex.find(value);
      if (it != argIndex.end()) {
        const HostTensor &h = inputs[it->second];
        EXPECT_EQ(countOf(t.dims), int64_t(h.values.size()));
        // Gather through the tensor's strides: a view such as K transposed
        // reads the dense argument in another order.
        HostValue v{t.dims, std::vector<double>(countOf(t.dims))};
        for (int64_t i = 0; i < countOf(t.dims); ++i) {
          std::vector<int64_t> c = coordsOf(i, t.dims);
          int64_t at = 0;
          for (size_t d = 0; d < c.size(); ++d)
            at += c[d] * t.strides[d];
          v.values[i] = h.values[at];
        }
        bound[uid] = std::move(v);
        continue;
      }
      for (auto [i, r] : llvm::enumerate(ret.getOperands()))
        if (r == value)
          resultOf[uid] = i;
    }
    ASSERT_EQ(resultOf.size(), expected->size());
    std::map<int64_t, HostValue> values =
        evaluate(builder.graph(), std::move(bound));
    for (auto [uid, index] : resultOf) {
      HostTensor actual = (*expected)[index];
      ASSERT_EQ(values.count(uid), 1u) << "result " << index << " not written";
      ASSERT_EQ(int64_t(values[uid].values.size()), actual.numElements());
      actual.values = values[uid].values;
      ref::Comparison cmp =
          ref::compare(actual, (*expected)[index], /*atol=*/1e-6, rtol);
      EXPECT_TRUE(cmp.ok())
          << "result " << index << ": max abs error " << cmp.maxAbsError
          << ", max rel error " << cmp.maxRelError << ", " << cmp.mismatches
          << " mismatches"
          << (cmp.nanOrShapeMismatch ? ", NaN or shape mismatch" : "") << "\n"
          << cg::printGraph(builder.graph());
    }
  }

  /// The backward: the tg.attention_grad of `source` (on cuDNN; after
  /// tg-expand-attention, which may give it the full-length sequence lengths
  /// of the cuDNN <= 9.15 workaround) is lowered, and every composite graph
  /// is evaluated on random inputs (bound views read through their strides)
  /// and compared with the interpreter's dq, dk, dv within
  /// `tol * max|expected|` + `tol` relative. Returns the graphs evaluated.
  int checkAttentionGrad(const std::string &source, double tol) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    if (!module)
      return 0;
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(createExpandAttention());
    EXPECT_TRUE(succeeded(pm.run(*module)));
    func::FuncOp fn = *module->getOps<func::FuncOp>().begin();
    SmallVector<HostTensor> inputs = ref::makeRandomInputs(fn, {});
    FailureOr<SmallVector<HostTensor>> expected = ref::interpret(fn, inputs);
    EXPECT_TRUE(succeeded(expected));
    AttentionGradOp op;
    fn.walk([&](AttentionGradOp found) { op = found; });
    EXPECT_TRUE(op && succeeded(expected));
    if (!op || failed(expected))
      return 0;
    EXPECT_EQ(cudnn::graphUnsupportedReason(op), "");
    FailureOr<cudnn::Lowering> lowering = cudnn::lower(op, [](Value v) {
      return cudnn::denseStrides(
          cast<RankedTensorType>(v.getType()).getShape());
    });
    EXPECT_TRUE(succeeded(lowering));
    if (failed(lowering))
      return 0;
    auto ret = cast<func::ReturnOp>(fn.front().getTerminator());
    int evaluated = 0;
    for (cudnn::GraphBuilder &builder : lowering->graphs) {
      const cg::Graph &graph = builder.graph();
      if (llvm::any_of(graph.ops, [](const cg::Op &o) {
            return o.kind == cg::OpKind::SdpaBackward;
          }))
        continue; // one opaque op: nothing to evaluate here
      SCOPED_TRACE(graph.name);
      std::map<int64_t, HostValue> bound;
      std::map<int64_t, unsigned> resultOf;
      for (auto [uid, value] : builder.bindings()) {
        const cg::Tensor &t = builder.tensor(uid);
        std::vector<double> buffer;
        if (auto arg = dyn_cast<BlockArgument>(value)) {
          const HostTensor &h = inputs[arg.getArgNumber()];
          buffer.assign(h.values.begin(), h.values.end());
        } else if (auto constant = value.getDefiningOp<ConstantOp>()) {
          for (const APInt &v : cast<DenseIntElementsAttr>(constant.getValue())
                                    .getValues<APInt>())
            buffer.push_back(double(v.getSExtValue()));
        } else {
          for (auto [i, r] : llvm::enumerate(ret.getOperands()))
            if (r == value)
              resultOf[uid] = i;
          continue;
        }
        HostValue view{t.dims, {}};
        for (int64_t i = 0; i < countOf(t.dims); ++i)
          view.values.push_back(
              buffer.at(offsetOf(coordsOf(i, t.dims), t.strides)));
        bound[uid] = std::move(view);
      }
      EXPECT_EQ(resultOf.size(), 3u);
      std::map<int64_t, HostValue> values = evaluate(graph, std::move(bound));
      for (auto [uid, index] : resultOf) {
        const HostTensor &want = (*expected)[index];
        HostTensor actual = want;
        EXPECT_EQ(values.count(uid), 1u) << "result " << index;
        if (!values.count(uid))
          continue;
        actual.values = values[uid].values;
        double scale = 0.0;
        for (double v : want.values)
          scale = std::max(scale, std::fabs(v));
        ref::Comparison cmp = ref::compare(actual, want, tol * scale, tol);
        EXPECT_TRUE(cmp.ok())
            << "result " << index << ": max abs error " << cmp.maxAbsError
            << " (largest gradient " << scale << "), " << cmp.mismatches
            << " mismatches"
            << (cmp.nanOrShapeMismatch ? ", NaN or shape mismatch" : "")
            << "\n"
            << cg::printGraph(graph);
        if (getenv("TGC_CUDNN_EVAL_ERRORS"))
          llvm::errs() << graph.name << " result " << index << ": "
                       << cmp.maxAbsError / scale << " of the largest\n";
      }
      ++evaluated;
    }
    return evaluated;
  }

  MLIRContext context;
};

TEST_F(CudnnGraphEvalTest, PlainMatmulBroadcastsBatch) {
  check(R"(
func.func @f(%a: tensor<2x3x8x16xf16>, %b: tensor<1x3x16x8xf16>) -> tensor<2x3x8x8xf32> {
  %c = tg.matmul %a, %b : tensor<2x3x8x16xf16>, tensor<1x3x16x8xf16> -> tensor<2x3x8x8xf32>
  return %c : tensor<2x3x8x8xf32>
})");
}

TEST_F(CudnnGraphEvalTest, MixedInt8ConvertsExactly) {
  check(R"(
func.func @f(%a: tensor<8x32xi8>, %b: tensor<32x16xbf16>) -> tensor<8x16xbf16> {
  %c = tg.matmul %a, %b : tensor<8x32xi8>, tensor<32x16xbf16> -> tensor<8x16xbf16>
  return %c : tensor<8x16xbf16>
})");
}

TEST_F(CudnnGraphEvalTest, Fp8PairWidensToF16) {
  check(R"(
func.func @f(%a: tensor<8x32xf8E4M3FN>, %b: tensor<32x16xf8E5M2>) -> tensor<8x16xf32> {
  %c = tg.matmul %a, %b : tensor<8x32xf8E4M3FN>, tensor<32x16xf8E5M2> -> tensor<8x16xf32>
  return %c : tensor<8x16xf32>
})");
}

TEST_F(CudnnGraphEvalTest, DequantisingPrologueAndBiasReluEpilogue) {
  check(R"(
func.func @f(%x: tensor<8x32xbf16>, %w: tensor<32x16xi8>, %s: tensor<1x16xbf16>,
             %bias: tensor<1x16xf32>) -> tensor<8x16xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x16xbf16>)
      epilogue_captures(%bias : tensor<1x16xf32>)
      : tensor<8x32xbf16>, tensor<32x16xi8> -> tensor<8x16xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %sc: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %h, %sc : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %zero = tg.constant dense<0.0> : tensor<f32>
      %sum = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %relu = tg.max %sum, %zero : tensor<f32>, tensor<f32>
      %out = tg.cast %relu : tensor<f32> to tensor<bf16>
      tg.yield %out : tensor<bf16>
    }
  return %y : tensor<8x16xbf16>
})");
}

// Broadcast first operands: swapped add, (-x) + c for c - x, mirrored
// comparisons, select with the negated condition, a scalar constant first.
TEST_F(CudnnGraphEvalTest, SwappedOperandsKeepTheirMeaning) {
  check(R"(
func.func @f(%a: tensor<8x32xf16>, %b: tensor<32x16xf16>, %l: tensor<1x16xf32>,
             %r: tensor<8x1xf32>) -> tensor<8x16xf32> {
  %y = tg.fused_matmul %a, %b epilogue_captures(%l, %r : tensor<1x16xf32>, tensor<8x1xf32>)
      : tensor<8x32xf16>, tensor<32x16xf16> -> tensor<8x16xf32>
    prologue_a {} prologue_b {}
    epilogue {
    ^bb0(%acc: tensor<f32>, %lv: tensor<f32>, %rv: tensor<f32>):
      %half = tg.constant dense<0.5> : tensor<f32>
      %s = tg.add %lv, %acc : tensor<f32>, tensor<f32>
      %d = tg.sub %rv, %s : tensor<f32>, tensor<f32>
      %m = tg.mul %half, %d : tensor<f32>, tensor<f32>
      %lt = tg.cmp lt, %lv, %acc : tensor<f32>, tensor<f32>
      %ge = tg.cmp ge, %rv, %m : tensor<f32>, tensor<f32>
      %p = tg.select %lt, %rv, %m : tensor<i1>, tensor<f32>, tensor<f32>
      %q = tg.select %ge, %p, %acc : tensor<i1>, tensor<f32>, tensor<f32>
      %t = tg.tanh %q : tensor<f32>
      %g = tg.sigmoid %t : tensor<f32>
      %mn = tg.min %lv, %g : tensor<f32>, tensor<f32>
      tg.yield %mn : tensor<f32>
    }
  return %y : tensor<8x16xf32>
})");
}

TEST_F(CudnnGraphEvalTest, Fp8DescalingPrologue) {
  check(R"(
func.func @f(%a: tensor<8x32xf8E4M3FN>, %b: tensor<32x16xf16>, %d: tensor<f32>) -> tensor<8x16xf16> {
  %y = tg.fused_matmul %a, %b a_captures(%d : tensor<f32>)
      : tensor<8x32xf8E4M3FN>, tensor<32x16xf16> -> tensor<8x16xf16>
    prologue_a {
    ^bb0(%e: tensor<f8E4M3FN>, %s: tensor<f32>):
      %w = tg.cast %e : tensor<f8E4M3FN> to tensor<f32>
      %m = tg.mul %w, %s : tensor<f32>, tensor<f32>
      %h = tg.cast %m : tensor<f32> to tensor<f16>
      tg.yield %h : tensor<f16>
    }
    prologue_b {}
    epilogue {}
  return %y : tensor<8x16xf16>
})");
}

TEST_F(CudnnGraphEvalTest, ReduceSumKeepdim) {
  check(R"(
func.func @f(%x: tensor<2x3x8x16xf32>) -> tensor<2x1x8x1xf32> {
  %s = tg.reduce sum %x dims = [1, 3] keepdim : tensor<2x3x8x16xf32> -> tensor<2x1x8x1xf32>
  return %s : tensor<2x1x8x1xf32>
})",
        {}, 1e-6);
}

TEST_F(CudnnGraphEvalTest, ReduceMaxAndMinDropDims) {
  check(R"(
func.func @f(%x: tensor<4x8x16xbf16>) -> tensor<8xbf16> {
  %m = tg.reduce max %x dims = [0, 2] : tensor<4x8x16xbf16> -> tensor<8xbf16>
  return %m : tensor<8xbf16>
})");
  check(R"(
func.func @f(%x: tensor<8x16xf16>) -> tensor<8xf16> {
  %m = tg.reduce min %x dims = [1] : tensor<8x16xf16> -> tensor<8xf16>
  return %m : tensor<8xf16>
})");
}

// Fully masked (-inf) rows give zeros and stats -inf, as in tg.
TEST_F(CudnnGraphEvalTest, SafeSoftmaxWithStats) {
  const std::string source = R"(
func.func @f(%x: tensor<2x4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x1xf32>) {
  %p, %lse = tg.softmax %x axis = 2 : tensor<2x4x16xf32> stats tensor<2x4x1xf32>
  return %p, %lse : tensor<2x4x16xf32>, tensor<2x4x1xf32>
})";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  SmallVector<HostTensor> inputs =
      ref::makeRandomInputs(*module->getOps<func::FuncOp>().begin(), {});
  // Row (0, 1) fully masked, row (1, 2) partly.
  for (int j = 0; j < 16; ++j)
    inputs[0].values[(0 * 4 + 1) * 16 + j] = -kInf;
  for (int j = 0; j < 16; j += 2)
    inputs[0].values[(1 * 4 + 2) * 16 + j] = -kInf;
  check(source, inputs, 1e-5);
}

TEST_F(CudnnGraphEvalTest, SoftmaxBf16OverAMiddleAxis) {
  check(R"(
func.func @f(%x: tensor<4x16x8xbf16>) -> tensor<4x16x8xbf16> {
  %p = tg.softmax %x axis = 1 : tensor<4x16x8xbf16>
  return %p : tensor<4x16x8xbf16>
})",
        {}, 1e-2);
}
} // namespace

//===----------------------------------------------------------------------===//
// The attention backward's composite graphs (AttentionBackward.cpp)
//===----------------------------------------------------------------------===//

/// A tg.attention_grad on cuDNN with an identity score region.
std::string attentionGrad(const std::string &elem, int64_t hq, int64_t hkv,
                          int64_t sq, int64_t skv, int64_t d,
                          const std::string &attrs) {
  auto t = [&](int64_t h, int64_t s, int64_t last, const std::string &e) {
    return "tensor<1x" + std::to_string(h) + "x" + std::to_string(s) + "x" +
           std::to_string(last) + "x" + e + ">";
  };
  std::string q = t(hq, sq, d, elem), k = t(hkv, skv, d, elem),
              st = t(hq, sq, 1, "f32");
  return "func.func @f(%q: " + q + ", %k: " + k + ", %v: " + k + ", %o: " +
         q + ", %do: " + q + ", %lse: " + st + ") -> (" + q + ", " + k + ", " +
         k + ") {\n  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, "
         "%lse {" + attrs + (attrs.empty() ? "" : ", ") +
         "scale = 0.3 : f64, tg.backend = #tg<backend cudnn>} : " + q + ", " + k +
         ", " + k + ", " + q + ", " + q + ", " + st +
         " score {\n^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: "
         "tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):\n  tg.yield %s : "
         "tensor<f32>\n} score_grad {\n}\n  return %dq, %dk, %dv : " +
         q + ", " + k + ", " + k + "\n}\n";
}

// Tolerances, as a fraction of the largest gradient (TGC_CUDNN_EVAL_ERRORS=1
// prints the errors): the graph types Pᵀ and dSᵀ (and GQA's per-head
// partial dK/dV) like Q, where the interpreter rounds only dq/dk/dv.
constexpr double kF16Tolerance = 4e-3, kBf16Tolerance = 1.5e-2;

TEST_F(CudnnGraphEvalTest, AttentionGradPlainF16) {
  // Skv = 128: one composite graph (and the fused op, not evaluated).
  EXPECT_EQ(checkAttentionGrad(attentionGrad("f16", 2, 2, 16, 128, 8, ""),
                               kF16Tolerance),
            1);
}

TEST_F(CudnnGraphEvalTest, AttentionGradCausalGqaWithPaddingWorkaround) {
  // Skv = 24: the graph for cuDNN >= 9.16 and the one with the full-length
  // padding mask and matmul overrides.
  EXPECT_EQ(checkAttentionGrad(
                attentionGrad("f16", 4, 2, 24, 24, 8,
                              "causal = #tg<causal top_left>"),
                kF16Tolerance),
            2);
}

TEST_F(CudnnGraphEvalTest, AttentionGradBottomRightWindowBf16) {
  EXPECT_EQ(checkAttentionGrad(
                attentionGrad("bf16", 2, 1, 8, 24, 16,
                              "causal = #tg<causal bottom_right>, "
                              "window_left = 5 : i64"),
                kBf16Tolerance),
            2);
}

TEST_F(CudnnGraphEvalTest, AttentionGradTwoSidedWindowF16) {
  EXPECT_EQ(checkAttentionGrad(attentionGrad("f16", 2, 2, 20, 20, 8,
                                             "window_left = 3 : i64, "
                                             "window_right = 2 : i64"),
                               kF16Tolerance),
            2);
}

// FP8 attention (AttentionFp8.cpp): the composite graph with K as a
// transposed view, GQA (4 query heads on 2 kv heads), a top-left causal
// mask, training stats, P typed as
// e4m3, amax of P and O and the output scale, against tg.attention's FP8
// semantics. Both round every intermediate (the graph to its tensor types,
// the interpreter to f32 and fp8 at the same points), so they agree to f32
// rounding here; a P or output element on an fp8 rounding midpoint could
// differ by one fp8 step, which these inputs do not hit.
TEST_F(CudnnGraphEvalTest, Fp8AttentionGraph) {
  std::string source = R"(
func.func @f(%q: tensor<1x4x16x32xf8E4M3FN>, %k: tensor<1x2x24x32xf8E4M3FN>, %v: tensor<1x2x24x32xf8E4M3FN>,
             %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
    -> (tensor<1x4x16x32xf8E4M3FN>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>) {
  %o, %lse, %as, %ao = tg.attention %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {causal = #tg<causal top_left>, scale = 0.17677669529663687 : f64, training}
      : tensor<1x4x16x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>, tensor<1x2x24x32xf8E4M3FN>
      -> tensor<1x4x16x32xf8E4M3FN>, tensor<1x4x16x1xf32> amax(tensor<f32>, tensor<f32>) score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %lse, %as, %ao : tensor<1x4x16x32xf8E4M3FN>, tensor<1x4x16x1xf32>, tensor<f32>, tensor<f32>
})";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  SmallVector<HostTensor> inputs = ref::makeRandomInputs(
      *module->getOps<func::FuncOp>().begin(), {/*seed=*/3, 1.0});
  inputs[3].values[0] = 0.5; // descale_q
  inputs[4].values[0] = 1.5; // descale_k
  inputs[5].values[0] = 2.0; // descale_v
  inputs[8].values[0] = 4.0; // scale_o
  check(source, inputs);
}

// The same graph without a mask or stats, in e5m2 (P typed e5m2), amax only.
TEST_F(CudnnGraphEvalTest, Fp8AttentionGraphE5M2) {
  std::string source = R"(
func.func @f(%q: tensor<2x2x8x16xf8E5M2>, %k: tensor<2x2x12x16xf8E5M2>, %v: tensor<2x2x12x16xf8E5M2>,
             %dq: tensor<f32>, %dk: tensor<f32>, %dv: tensor<f32>, %ds: tensor<f32>, %ss: tensor<f32>, %so: tensor<f32>)
    -> (tensor<2x2x8x16xf8E5M2>, tensor<f32>, tensor<f32>) {
  %o, %as, %ao = tg.attention %q, %k, %v fp8_scales(%dq, %dk, %dv, %ds, %ss, %so : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      {scale = 0.25 : f64}
      : tensor<2x2x8x16xf8E5M2>, tensor<2x2x12x16xf8E5M2>, tensor<2x2x12x16xf8E5M2>
      -> tensor<2x2x8x16xf8E5M2> amax(tensor<f32>, tensor<f32>) score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return %o, %as, %ao : tensor<2x2x8x16xf8E5M2>, tensor<f32>, tensor<f32>
})";
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(source, &context);
  ASSERT_TRUE(module);
  SmallVector<HostTensor> inputs = ref::makeRandomInputs(
      *module->getOps<func::FuncOp>().begin(), {/*seed=*/8, 1.0});
  inputs[4].values[0] = 0.75; // descale_k
  inputs[8].values[0] = 8.0;  // scale_o
  check(source, inputs);
}
