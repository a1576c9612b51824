#ifndef TG_LOWERING_SCALAREXPR_H
#define TG_LOWERING_SCALAREXPR_H

// Translation of tg pointwise ops on single elements into CUDA C++
// expressions over the helpers of CudaPrelude.h. Used for fused pointwise
// kernels, the regions of tg.fused_matmul and the score region of
// tg.attention.
//
// Value model of generated code: an element of type T is held in T's
// *compute type* (cudaComputeType): `float` for bf16/f16/f32/fp8, `long long`
// for i8/i32/i64, `bool` for i1, and its value is always exactly
// representable in T (every op result is rounded to its declared type, like
// the reference interpreter does).

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir::tg {
class GatherOp;

/// `float`, `long long` or `bool` (see above).
StringRef cudaComputeType(Type elementType);

/// The C++ type of one element in device memory: `__nv_bfloat16`, `__half`,
/// `float`, `__nv_fp8_e4m3`, `__nv_fp8_e5m2`, `signed char`, `int`,
/// `long long`, and `unsigned char` (0 or 1) for i1.
StringRef cudaStorageType(Type elementType);

/// A compute-type literal for one element of a constant (of `elementType`
/// for integers and i1). Floats are tg::codegen::floatLiteral's
/// (tg/Codegen/CudaText.h): infinities and NaN are f32 bit patterns, which
/// are not constant expressions.
std::string cudaLiteral(const APFloat &value);
std::string cudaLiteral(const APInt &value, Type elementType);

/// Rounds a compute-type expression of a value computed for `type` (an f32
/// result of float arithmetic, a 64-bit integer result) to `type`.
std::string cudaRoundTo(StringRef expr, Type type);

/// tg.cast of a compute-type expression from `from` to `to`; also converts
/// a matmul accumulator to the result type (the reference does it with cast
/// semantics).
std::string cudaCast(StringRef expr, Type from, Type to);

/// Rounds a `double` expression once to the float type `type` (compute
/// type float).
std::string cudaRoundFromDouble(StringRef expr, Type type);

/// The compute-type expression of one pointwise op (any op with
/// PointwiseTrait except tg.constant) applied to operand expressions given
/// in compute type; the result is rounded to the op's element type. Fails
/// (without a diagnostic) for ops it does not know.
/// With `approximate`, tg.exp, tg.log, tg.tanh and tg.sigmoid use the GPU's
/// approximate instructions (ex2.approx, lg2.approx, tanh.approx: relative
/// errors up to 2^-22, 2^-22 and 2^-10.99) instead of the libdevice
/// functions (tg-compile --fast-math, score regions only).
FailureOr<std::string> emitScalarOp(Operation *op,
                                    ArrayRef<std::string> operands,
                                    bool approximate = false);

/// The expression of a tg.gather in a region, given its index expressions
/// (compute type long long); supplied by the code that knows how the table
/// argument is read (the attention kernel's table captures).
using GatherEmitter = function_ref<FailureOr<std::string>(
    GatherOp, ArrayRef<std::string> indices)>;

/// Translates a per-element region (rank-0 block arguments, pointwise tg ops,
/// tg.yield of one value) into a C++ block `{ ... }` that assigns the yielded
/// value to `resultVar`. `argNames[i]` names a variable holding block
/// argument i in its compute type; the caller declares `resultVar` with the
/// compute type of the yielded element type. Temporaries are named
/// `<resultVar>_<n>`. An empty region is the identity on argument 0. A
/// tg.gather is translated by `emitGather` (without one it is an error).
/// Emits a located diagnostic and fails on an op it cannot translate.
/// The closed range of an integer block argument, when the caller knows one.
struct IndexRange {
  int64_t lo, hi;
};

/// `argRanges[i]`, where given, bounds integer block argument i: integer
/// add, sub, mul, neg, min, max and their casts to float whose operands and
/// result are proven within int32 then compute in 32 bits (the same values:
/// no wrap can occur; a 64-bit integer op and its conversion cost several
/// 32-bit ones on the GPU).
///
///
/// `rewrites` replace the expression of listed ops by `rewrite(expr)`: a
/// test the caller knows to be true where a C++ condition holds becomes
/// `flag || (expr)` (the document test of a tile in one document), a term
/// the kernel tabulated becomes a table read. With `replacesOperands` the
/// new expression no longer reads the op's operands: the ops that only fed
/// it are not written at all (a tabulated term's gathers and
/// transcendentals). Otherwise the CUDA compiler drops what a compile-time
/// flag makes dead.
struct ExprRewrite {
  Operation *op;
  std::function<std::string(const std::string &expr)> rewrite;
  bool replacesOperands = false;
};
FailureOr<std::string> emitScalarRegion(Region &region,
                                        ArrayRef<std::string> argNames,
                                        StringRef resultVar,
                                        GatherEmitter emitGather = {},
                                        ArrayRef<std::optional<IndexRange>> argRanges = {},
                                        bool approximate = false,
                                        ArrayRef<ExprRewrite> rewrites = {});

/// The ranges of a tg.attention score region's arguments (s, b, h, q_idx,
/// kv_idx, then the captures) for the score tensor's sizes [B, Hq, Sq, Skv]
/// (for packed or paged operands their bounds: the max_seqlen attributes,
/// the page table's keys): index d is in [0, sizes[d] - 1].
SmallVector<std::optional<IndexRange>> scoreRegionRanges(size_t numArgs, ArrayRef<int64_t> sizes);

/// The compute-type literal of tg.gather's fill value.
std::string cudaFillLiteral(GatherOp op);

} // namespace mlir::tg

#endif // TG_LOWERING_SCALAREXPR_H
