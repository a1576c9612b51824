#ifndef TG_OPS_TD
#define TG_OPS_TD

include "tg/Dialect/TG/IR/TGDialect.td"
include "tg/Dialect/TG/IR/TGAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def TG_Float : AnyTypeOf<[BF16, F16, F32, F8E4M3FN, F8E5M2]>;
def TG_Int : AnyTypeOf<[I8, I32, I64]>;
def TG_Numeric : AnyTypeOf<[TG_Float, TG_Int]>;
def TG_Element : AnyTypeOf<[TG_Numeric, I1]>;
// i4 is weight storage (weight-only quantisation): packed two per byte in
// buffers, it may be a graph input and the operand of tg.cast, tg.matmul and
// tg.fused_matmul, but no op computes or returns it.
def TG_I4 : I<4>;
def TG_StoredElement : AnyTypeOf<[TG_Element, TG_I4]>;
def TG_MatmulOperandElement : AnyTypeOf<[TG_Numeric, TG_I4]>;

// Every tg value is a statically shaped ranked tensor: the interpreter, the
// plan and the kernels all work on known shapes.
class TG_TensorOf<list<Type> types>
    : RankedTensorOf<types, [HasStaticShapePred], "statically shaped tensor">;

def TG_Tensor : TG_TensorOf<[TG_Element]>;
def TG_StoredTensor : TG_TensorOf<[TG_StoredElement]>;
def TG_MatmulOperandTensor : TG_TensorOf<[TG_MatmulOperandElement]>;
def TG_NumericTensor : TG_TensorOf<[TG_Numeric]>;
def TG_FloatTensor : TG_TensorOf<[TG_Float]>;
def TG_IntTensor : TG_TensorOf<[TG_Int]>;
def TG_BoolTensor : TG_TensorOf<[I1]>;
// What the attention ops take for q, k, v (and their gradients).
def TG_AttnTensor : TG_TensorOf<[BF16, F16, F32]>;
// tg.sdpa and tg.attention also take fp8 q, k, v (with fp8_scales) and may
// return an fp8 output.
def TG_AttnFp8Tensor
    : TG_TensorOf<[BF16, F16, F32, F8E4M3FN, F8E5M2]>;
def TG_StatsTensor : TG_TensorOf<[F32]>;
// Softmax needs an infinity to mask with, which the fp8 formats lack.
def TG_SoftmaxTensor : TG_TensorOf<[BF16, F16, F32]>;
// Per-batch sequence lengths of the padding masks.
def TG_SeqLenTensor : RankedTensorOf<[I32, I64],
    [HasStaticShapePred, HasAnyRankOfPred<[1]>], "statically shaped 1D tensor">;
// The page table of a paged K/V cache: [B, max_pages] i32 page indices.
def TG_PageTableTensor : RankedTensorOf<[I32],
    [HasStaticShapePred, HasAnyRankOfPred<[2]>], "statically shaped 2D i32 tensor">;
// Runtime seed and offset of dropout: rank-0 i64 tensors.
def TG_RngScalar : 0DTensorOf<[I64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI64Type())">;

// Marks ops that act element by element with broadcasting; only these (and
// tg.constant) may appear inside the per-element regions of tg.attention and
// tg.fused_matmul.
def TG_Pointwise : NativeOpTrait<"PointwiseTrait"> {
  let cppNamespace = "::mlir::tg";
}

class TG_Op<string mnemonic, list<Trait> traits = []>
    : Op<TG_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def TG_ConstantOp : TG_Op<"constant",
    [ConstantLike, Pure, TG_Pointwise, InferTypeOpAdaptor]> {
  let summary = "dense tensor constant";
  let description = [{
    A tensor whose value is given by an elements attribute; the result type is
    the attribute's type. Use a splat for scalars and broadcastable constants.
    Mirrors [`torch.full`](https://pytorch.org/docs/stable/generated/torch.full.html)
    and `torch.tensor`.

    ```mlir
    %scale = tg.constant dense<0.125> : tensor<f32>
    %ninf = tg.constant dense<0xFF800000> : tensor<1x1x1x1xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = "$value attr-dict";
  let hasFolder = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// A constant of `type` whose every element is `value` (rounded to the
    /// element type; infinities allowed for floats).
    static ConstantOp createSplat(::mlir::OpBuilder &builder,
                                  ::mlir::Location loc,
                                  ::mlir::RankedTensorType type, double value);
    /// A rank-0 constant of element type `elementType`.
    static ConstantOp createScalar(::mlir::OpBuilder &builder,
                                   ::mlir::Location loc,
                                   ::mlir::Type elementType, double value);
  }];
}

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

// Binary ops broadcast their operands: equal rank (or rank 0) and each
// dimension equal or 1. The result shape is the broadcast shape.
class TG_BinaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : TG_Op<mnemonic, !listconcat(traits, [Pure, TG_Pointwise,
        InferTypeOpAdaptor, AllElementTypesMatch<["lhs", "rhs", "result"]>])> {
  let arguments = (ins operandType:$lhs, operandType:$rhs);
  let results = (outs operandType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::tg::inferBroadcastResult(
          loc, {adaptor.getLhs().getType(), adaptor.getRhs().getType()},
          ::mlir::cast<::mlir::ShapedType>(adaptor.getLhs().getType())
              .getElementType(),
          types);
    }
  }];
}

def TG_AddOp : TG_BinaryOp<"add", TG_NumericTensor, [Commutative]> {
  let summary = "elementwise addition";
  let description = [{
    Broadcasting `lhs + rhs` (integers wrap). Adding a splat constant 0 folds
    away when the result has the other operand's type (tg does not keep the
    sign of a floating-point zero). Mirrors
    [`torch.add`](https://pytorch.org/docs/stable/generated/torch.add.html)
    and cuDNN's `CUDNN_POINTWISE_ADD`.

    ```mlir
    %s2 = tg.add %s, %bias : tensor<2x8x128x128xf32>, tensor<1x8x128x128xf32>
    ```
  }];
  let hasFolder = 1;
}
def TG_SubOp : TG_BinaryOp<"sub", TG_NumericTensor> {
  let summary = "elementwise subtraction";
  let description = [{
    Broadcasting `lhs - rhs` (integers wrap). Subtracting a splat constant 0
    folds away when the result has `lhs`'s type. Mirrors
    [`torch.sub`](https://pytorch.org/docs/stable/generated/torch.sub.html).

    ```mlir
    %d = tg.sub %kv_idx, %q_idx : tensor<1x1x64x64xi32>, tensor<1x1x64x64xi32>
    ```
  }];
  let hasFolder = 1;
}
def TG_MulOp : TG_BinaryOp<"mul", TG_NumericTensor, [Commutative]> {
  let summary = "elementwise multiplication";
  let description = [{
    Broadcasting `lhs * rhs` (integers wrap). Multiplying by a splat constant
    1 folds away when the result has the other operand's type. Mirrors
    [`torch.mul`](https://pytorch.org/docs/stable/generated/torch.mul.html).

    ```mlir
    %scaled = tg.mul %s, %scale : tensor<2x8x128x128xf32>, tensor<f32>
    ```
  }];
  let hasFolder = 1;
}
def TG_DivOp : TG_BinaryOp<"div", TG_NumericTensor> {
  let summary = "elementwise division (integers truncate toward zero)";
  let description = [{
    Broadcasting `lhs / rhs`; floats follow IEEE-754 and integer division
    truncates toward zero. Dividing by
    a splat constant 1 folds away when the result has `lhs`'s type. Mirrors
    [`torch.div`](https://pytorch.org/docs/stable/generated/torch.div.html)
    (`rounding_mode="trunc"` for integers).

    ```mlir
    %s2 = tg.div %s, %sqrt_d : tensor<2x8x128x128xf32>, tensor<f32>
    ```
  }];
  let hasFolder = 1;
}
def TG_MaxOp : TG_BinaryOp<"max", TG_NumericTensor, [Commutative]> {
  let summary = "elementwise maximum";
  let description = [{
    Broadcasting maximum; NaN propagates. Mirrors
    [`torch.maximum`](https://pytorch.org/docs/stable/generated/torch.maximum.html).

    ```mlir
    %m = tg.max %a, %b : tensor<4xf32>, tensor<4xf32>
    ```
  }];
}
def TG_MinOp : TG_BinaryOp<"min", TG_NumericTensor, [Commutative]> {
  let summary = "elementwise minimum";
  let description = [{
    Broadcasting minimum; NaN propagates. Mirrors
    [`torch.minimum`](https://pytorch.org/docs/stable/generated/torch.minimum.html).

    ```mlir
    %m = tg.min %a, %b : tensor<4xf32>, tensor<f32>
    ```
  }];
}
def TG_PowOp : TG_BinaryOp<"pow", TG_FloatTensor> {
  let summary = "elementwise power `lhs ^ rhs`";
  let description = [{
    Broadcasting `lhs ^ rhs` with C's `pow` semantics. Mirrors
    [`torch.pow`](https://pytorch.org/docs/stable/generated/torch.pow.html).

    ```mlir
    %p = tg.pow %base, %exponent : tensor<8xf32>, tensor<f32>
    ```
  }];
}

class TG_UnaryOp<string mnemonic, Type operandType, list<Trait> traits = []>
    : TG_Op<mnemonic, !listconcat(traits,
        [Pure, TG_Pointwise, SameOperandsAndResultType])> {
  let arguments = (ins operandType:$input);
  let results = (outs operandType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def TG_ExpOp : TG_UnaryOp<"exp", TG_FloatTensor> {
  let summary = "elementwise natural exponential";
  let description = [{
    Mirrors [`torch.exp`](https://pytorch.org/docs/stable/generated/torch.exp.html).

    ```mlir
    %e = tg.exp %x : tensor<2x8x128x128xf32>
    ```
  }];
}
def TG_LogOp : TG_UnaryOp<"log", TG_FloatTensor> {
  let summary = "elementwise natural logarithm";
  let description = [{
    Mirrors [`torch.log`](https://pytorch.org/docs/stable/generated/torch.log.html).

    ```mlir
    %l = tg.log %x : tensor<2x8x128x1xf32>
    ```
  }];
}
def TG_TanhOp : TG_UnaryOp<"tanh", TG_FloatTensor> {
  let summary = "elementwise hyperbolic tangent";
  let description = [{
    Mirrors [`torch.tanh`](https://pytorch.org/docs/stable/generated/torch.tanh.html).

    ```mlir
    %t = tg.tanh %x : tensor<2x8x128x128xf32>
    ```
  }];
}
def TG_NegOp : TG_UnaryOp<"neg", TG_NumericTensor> {
  let summary = "elementwise negation";
  let description = [{
    `-x` (integers wrap). A negation of a negation folds away. Mirrors
    [`torch.neg`](https://pytorch.org/docs/stable/generated/torch.neg.html).

    ```mlir
    %n = tg.neg %x : tensor<4xf32>
    ```
  }];
  let hasFolder = 1;
}
def TG_AbsOp : TG_UnaryOp<"abs", TG_NumericTensor> {
  let summary = "elementwise absolute value";
  let description = [{
    `|x|` (the most negative integer stays itself). Mirrors
    [`torch.abs`](https://pytorch.org/docs/stable/generated/torch.abs.html).

    ```mlir
    %a = tg.abs %x : tensor<1x1x64x64xi32>
    ```
  }];
}
def TG_SqrtOp : TG_UnaryOp<"sqrt", TG_FloatTensor> {
  let summary = "elementwise square root";
  let description = [{
    Mirrors [`torch.sqrt`](https://pytorch.org/docs/stable/generated/torch.sqrt.html).

    ```mlir
    %r = tg.sqrt %x : tensor<f32>
    ```
  }];
}
def TG_RsqrtOp : TG_UnaryOp<"rsqrt", TG_FloatTensor> {
  let summary = "elementwise reciprocal square root";
  let description = [{
    `1 / sqrt(x)`. Mirrors
    [`torch.rsqrt`](https://pytorch.org/docs/stable/generated/torch.rsqrt.html).

    ```mlir
    %r = tg.rsqrt %x : tensor<f32>
    ```
  }];
}
def TG_RecipOp : TG_UnaryOp<"recip", TG_FloatTensor> {
  let summary = "elementwise reciprocal `1 / x`";
  let description = [{
    Mirrors [`torch.reciprocal`](https://pytorch.org/docs/stable/generated/torch.reciprocal.html).

    ```mlir
    %r = tg.recip %sum : tensor<2x8x128x1xf32>
    ```
  }];
}
def TG_SigmoidOp : TG_UnaryOp<"sigmoid", TG_FloatTensor> {
  let summary = "elementwise logistic sigmoid `1 / (1 + exp(-x))`";
  let description = [{
    Mirrors [`torch.sigmoid`](https://pytorch.org/docs/stable/generated/torch.sigmoid.html).

    ```mlir
    %s = tg.sigmoid %x : tensor<16x64xbf16>
    ```
  }];
}

def TG_CmpOp : TG_Op<"cmp", [Pure, TG_Pointwise, InferTypeOpAdaptor,
    AllElementTypesMatch<["lhs", "rhs"]>]> {
  let summary = "elementwise comparison producing i1";
  let description = [{
    Compares with broadcasting; the predicate is one of
    `lt le gt ge eq ne`. Floating-point comparisons are ordered: any
    comparison with NaN is false, except `ne`, which is true. Integers
    compare as signed; `i1` compares as 0/1. Mirrors
    [`torch.lt`](https://pytorch.org/docs/stable/generated/torch.lt.html)
    and its siblings, and cuDNN's `CUDNN_POINTWISE_CMP_*` modes.

    ```mlir
    %future = tg.cmp gt, %kv_idx, %q_idx : tensor<1x1x128x1xi32>, tensor<1x1x1x128xi32>
    ```
  }];
  let arguments = (ins TG_CmpPredicateAttr:$predicate, TG_Tensor:$lhs,
                       TG_Tensor:$rhs);
  let results = (outs TG_BoolTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($predicate) `,` $lhs `,` $rhs attr-dict `:`
    type($lhs) `,` type($rhs)
  }];
}

def TG_SelectOp : TG_Op<"select", [Pure, TG_Pointwise, InferTypeOpAdaptor,
    AllElementTypesMatch<["on_true", "on_false", "result"]>]> {
  let summary = "elementwise choice `cond ? on_true : on_false`";
  let description = [{
    All three operands broadcast together. Folds to one side when the
    condition is a splat constant or both sides are the same value, provided
    that side already has the result type. Mirrors
    [`torch.where`](https://pytorch.org/docs/stable/generated/torch.where.html).

    ```mlir
    %masked = tg.select %keep, %s, %ninf : tensor<1x1x128x128xi1>, tensor<2x8x128x128xf32>, tensor<f32>
    ```
  }];
  let arguments = (ins TG_BoolTensor:$cond, TG_Tensor:$on_true,
                       TG_Tensor:$on_false);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = [{
    $cond `,` $on_true `,` $on_false attr-dict `:`
    type($cond) `,` type($on_true) `,` type($on_false)
  }];
  let hasFolder = 1;
}

def TG_CastOp : TG_Op<"cast", [Pure, TG_Pointwise]> {
  let summary = "elementwise element-type conversion";
  let description = [{
    Converts each element: floats round to nearest even (to fp8 formats with
    saturation to the largest finite value; NaN stays NaN), floats to
    integers truncate toward zero and saturate, integers wrap
    to narrower integers, `i1` converts to 0/1, and any value converts to
    `i1` as `value != 0`. Shapes must be equal. The input may be `i4`
    (packed weights, [-8, 7]); no cast produces `i4`.

    A cast to the same type folds away, and so does a round trip through a
    type that holds every value exactly (`bf16 -> f32 -> bf16`); more
    generally `cast(cast(x : A -> B) : B -> C)` becomes `cast(x : A -> C)`
    when B represents every value of A. Mirrors
    [`torch.Tensor.to`](https://pytorch.org/docs/stable/generated/torch.Tensor.to.html)
    with a dtype.

    ```mlir
    %p16 = tg.cast %p : tensor<2x8x128x128xf32> to tensor<2x8x128x128xbf16>
    ```
  }];
  let arguments = (ins TG_StoredTensor:$input);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($result)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions, index generation, layout
//===----------------------------------------------------------------------===//

def TG_ReduceOp : TG_Op<"reduce", [Pure]> {
  let summary = "sum, max or min over listed dimensions";
  let description = [{
    Reduces `input` over `dims` (distinct, in range). With `keepdim` the
    reduced dimensions stay with size 1, otherwise they are removed. The
    result element type equals the input's; sums accumulate exactly and
    round once; `max`/`min` propagate NaN. Mirrors
    [`torch.sum`](https://pytorch.org/docs/stable/generated/torch.sum.html)
    and `torch.amax`/`torch.amin` with `dim` and `keepdim`.

    ```mlir
    %m = tg.reduce max %s dims = [3] keepdim : tensor<2x8x128x128xf32> -> tensor<2x8x128x1xf32>
    ```
  }];
  let arguments = (ins TG_ReduceKindAttr:$kind, TG_NumericTensor:$input,
                       DenseI64ArrayAttr:$dims, UnitAttr:$keepdim);
  let results = (outs TG_NumericTensor:$result);
  let assemblyFormat = [{
    custom<EnumKeyword>($kind) $input `dims` `=` $dims
    (`keepdim` $keepdim^)? attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TG_GenIndexOp : TG_Op<"gen_index", [Pure]> {
  let summary = "indices along one axis of a shape";
  let description = [{
    Each element holds its own index along `axis`; every index must fit the
    element type. Used with comparisons to build masks. Mirrors cuDNN's
    `CUDNN_POINTWISE_GEN_INDEX` pointwise mode (and `torch.arange` viewed
    along one axis).

    ```mlir
    %q_idx = tg.gen_index axis = 2 : tensor<1x1x128x128xi32>
    ```
  }];
  let arguments = (ins I64Attr:$axis);
  let results = (outs TG_IntTensor:$result);
  let assemblyFormat = "`axis` `=` $axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def TG_GatherOp : TG_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "elements of a table at computed indices";
  let description = [{
    `result[p] = table[indices[0][p], ..., indices[r-1][p]]`: one `i64`
    index tensor per dimension of the rank-r table (r >= 1, every dimension
    non-empty). The index tensors broadcast together like the operands of a
    pointwise op; the result has their broadcast shape and the table's
    element type. No read is ever out of bounds. An index outside
    `[0, size - 1]` of its dimension is, by `mode`:

    - `clamp` (the default, written as nothing): clamped to that range,
      per dimension (`-3` reads element 0, `size + 5` the last one);
    - `fill(v)`: the whole element is `v` when any index is out of range.
      `v` must be exactly representable in the table's element type
      (`-inf` is allowed for floats).

    Negative indices do not count from the end (unlike Python's indexing):
    they are out of range.

    Inside the `score` region of tg.attention (and the regions of
    tg.attention_grad) the indices are rank-0 values computed in the region
    and the table is a region argument of a *table capture*: a captured
    tensor whose region argument has the capture's own type instead of a
    rank-0 element (such a capture may have any rank and shape, and is used
    only as the table of tg.gather). This is how relative-position tables,
    T5's bucketed bias, document ids and DeBERTa's disentangled terms reach
    the fused kernels without a materialised `[B, H, Sq, Skv]` bias.
    At graph level it is numpy-style advanced indexing with one index array
    per dimension. Mirrors
    [`torch.gather`](https://pytorch.org/docs/stable/generated/torch.gather.html)
    and tensor indexing by index tensors (`table[idx0, idx1]`), and the
    lookups of FlexAttention `score_mod`s.

    ```mlir
    // graph level: bias[h, q, kv] = table[h, q - kv + 15]
    %bias = tg.gather %table[%h, %rel] : tensor<8x31xf32>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
    // in a score region, reading 0 outside the table
    %e = tg.gather %t[%h, %r] fill(0.0) : tensor<8x31xf32>[tensor<i64>, tensor<i64>]
    ```
  }];
  let arguments = (ins TG_Tensor:$table, Variadic<TG_TensorOf<[I64]>>:$indices,
      DefaultValuedAttr<TG_GatherModeAttr,
                        "::mlir::tg::GatherMode::clamp">:$mode,
      OptionalAttr<F64Attr>:$fill_value);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = [{
    $table `[` $indices `]` attr-dict custom<GatherMode>($mode, $fill_value)
    type($table) `[` type($indices) `]`
  }];
  let hasVerifier = 1;
}

def TG_TransposeOp : TG_Op<"transpose", [Pure]> {
  let summary = "permutation of dimensions";
  let description = [{
    `result.shape[i] = input.shape[perm[i]]`. The identity permutation folds
    away, a transpose of a transpose becomes one transpose, and a transpose
    of a splat constant becomes a constant. Mirrors
    [`torch.permute`](https://pytorch.org/docs/stable/generated/torch.permute.html).

    ```mlir
    %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x8x128x64xbf16> -> tensor<2x8x64x128xbf16>
    ```
  }];
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = [{
    $input `perm` `=` $perm attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TG_ReshapeOp : TG_Op<"reshape", [Pure]> {
  let summary = "row-major reinterpretation with a new shape";
  let description = [{
    The element count must be unchanged. A reshape to the same type folds
    away, chains of reshapes become one, and a reshape of a constant becomes
    a constant. Mirrors
    [`torch.reshape`](https://pytorch.org/docs/stable/generated/torch.reshape.html).

    ```mlir
    %k5 = tg.reshape %k : tensor<1x2x128x64xbf16> -> tensor<1x2x1x128x64xbf16>
    ```
  }];
  let arguments = (ins TG_Tensor:$input);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TG_BroadcastOp : TG_Op<"broadcast", [Pure]> {
  let summary = "materialised broadcast to a larger shape";
  let description = [{
    Same rank (or a rank-0 input); each input dimension equals the result's
    or is 1. Used to repeat K/V heads for grouped-query attention. A
    broadcast to the same type folds away, chains of broadcasts become one,
    and a broadcast of a splat constant becomes a constant. Mirrors
    [`torch.Tensor.expand`](https://pytorch.org/docs/stable/generated/torch.Tensor.expand.html).

    ```mlir
    %kb = tg.broadcast %k5 : tensor<1x2x1x128x64xbf16> -> tensor<1x2x4x128x64xbf16>
    ```
  }];
  let arguments = (ins TG_Tensor:$input);
  let results = (outs TG_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Matmul, softmax, dropout
//===----------------------------------------------------------------------===//

def TG_MatmulOp : TG_Op<"matmul", [Pure]> {
  let summary = "batched matrix product with broadcasting batch dimensions";
  let description = [{
    Contracts the last dimension of `a` with the second-last of `b`. Both have
    rank >= 2 and equal rank; leading (batch) dimensions broadcast. Element
    types may differ (e.g. `i8 x f16`, or `i4` weights stored two per
    byte): both operands are converted exactly
    and the products accumulate in `acc` (default `f32`; `i32` for two
    integer operands), then round once to the result type. An `f32`
    accumulator needs a floating-point result; an `i32` one may round to
    any numeric type. Mirrors
    [`torch.matmul`](https://pytorch.org/docs/stable/generated/torch.matmul.html)
    for equal ranks, and cuDNN's matmul operation.

    ```mlir
    %s = tg.matmul %q, %kt : tensor<2x8x128x64xbf16>, tensor<2x8x64x128xbf16> -> tensor<2x8x128x128xf32>
    %y = tg.matmul %x, %w acc = i32 : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xi32>
    ```
  }];
  let arguments = (ins TG_MatmulOperandTensor:$a, TG_MatmulOperandTensor:$b,
                       OptionalAttr<TypeAttr>:$acc);
  let results = (outs TG_NumericTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`acc` `=` $acc^)? attr-dict `:` type($a) `,` type($b) `->`
    type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The accumulator type: the `acc` attribute, else f32 (i32 when both
    /// operands are integers).
    ::mlir::Type getAccumulatorType();
  }];
}

def TG_SoftmaxOp : TG_Op<"softmax", [Pure,
    AllTypesMatch<["input", "output"]>]> {
  let summary = "softmax along one axis, optionally with log-sum-exp stats";
  let description = [{
    `output = exp(x - max) / sum(exp(x - max))` along `axis`. A slice whose
    entries are all `-inf` (fully masked) gives zeros, as in safe softmax.
    With `stats`, the second result is the natural-log log-sum-exp of each
    slice (`max + log(sum)`, `-inf` for a fully masked slice), in `f32`, with
    the softmax axis kept as size 1. Mirrors
    [`torch.softmax`](https://pytorch.org/docs/stable/generated/torch.softmax.html)
    (except for fully masked slices, which give NaN there) and
    `torch.logsumexp` for the stats.

    ```mlir
    %p = tg.softmax %s axis = 3 : tensor<2x8x128x128xf32>
    %p2, %lse = tg.softmax %s axis = 3 : tensor<2x8x128x128xf32> stats tensor<2x8x128x1xf32>
    ```
  }];
  let arguments = (ins TG_SoftmaxTensor:$input, I64Attr:$axis);
  let results = (outs TG_SoftmaxTensor:$output,
                      Optional<TG_StatsTensor>:$stats);
  let assemblyFormat = [{
    $input `axis` `=` $axis attr-dict `:` type($input)
    (`stats` type($stats)^)?
  }];
  let hasVerifier = 1;
}

def TG_DropoutOp : TG_Op<"dropout", [Pure,
    AllTypesMatch<["input", "result"]>]> {
  let summary = "Philox-driven dropout with runtime seed and offset";
  let description = [{
    Drops each element with probability `prob` (0 <= prob < 1) and (unless
    `unscaled`) multiplies kept ones by `1 / (1 - prob)`. Whether the element
    at row-major linear index `i` of `input` is kept is a pure function of
    (`seed`, `offset`, `i`): Philox 4x32-10 with key `(lo(seed), hi(seed))`
    and counter `(lo(i / 4), hi(i / 4), lo(offset), hi(offset))` gives four
    words; word `i % 4` is compared with `threshold = floor(prob * 2^32)` and
    the element is kept when `word >= threshold`. The CPU reference, the
    generated kernels and the backward pass all use this mapping
    (docs/dialect.md). Mirrors
    [`torch.nn.functional.dropout`](https://pytorch.org/docs/stable/generated/torch.nn.functional.dropout.html)
    in training mode, with the generator of
    [Random123](https://www.thesalmons.org/john/random123/papers/random123sc11.pdf).

    ```mlir
    %pd = tg.dropout %p, %seed, %offset prob = 1.000000e-01 : tensor<2x8x128x128xf32>
    ```
  }];
  let arguments = (ins TG_FloatTensor:$input, TG_RngScalar:$seed,
                       TG_RngScalar:$offset, F64Attr:$prob,
                       UnitAttr:$unscaled);
  let results = (outs TG_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $seed `,` $offset `prob` `=` $prob (`unscaled` $unscaled^)?
    attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

// Options shared by tg.sdpa, tg.sdpa_grad and tg.attention.
defvar TG_AttentionMaskAttrs = (ins
  DefaultValuedAttr<TG_CausalModeAttr, "::mlir::tg::CausalMode::none">:$causal,
  OptionalAttr<I64Attr>:$window_left,
  OptionalAttr<I64Attr>:$window_right,
  DefaultValuedAttr<F64Attr, "0.0">:$dropout);

// The ragged (packed, "THD") layout of tg.sdpa and tg.attention: with
// cu_seqlens_q / cu_seqlens_kv, q is [Tq, Hq, D], k [Tkv, Hkv, D], v
// [Tkv, Hkv, Dv], the output [Tq, Hq, Dv] and the stats [Tq, Hq, 1];
// sequence b holds tokens [cu[b], cu[b+1]) of each.
// What tg.attention and tg.attention_grad say of their score region.
defvar TG_ScoreAccessors = [{
    /// Whether the score region yields its score argument unchanged (no
    /// score modifier; dead ops in the region do not count).
    bool hasIdentityScore();
  }];
defvar TG_RaggedAccessors = [{
    /// Whether the op takes the ragged (packed) layout.
    bool isRagged() { return static_cast<bool>(getCuSeqlensQ()); }
  }];
// The paged K/V layout of tg.sdpa and tg.attention: with page_table, k and
// v are [num_pages, page_size, Hkv, D] pages that each sequence's page
// table row lists in order.
defvar TG_PagedAccessors = [{
    /// Whether k and v are a paged cache (page_table given).
    bool isPaged() { return static_cast<bool>(getPageTable()); }
  }];

// Named views of the fp8_scales operands of tg.sdpa and tg.attention (null
// when the op has none).
defvar TG_Fp8ScaleAccessors = [{
    /// The number of fp8_scales operands when present, in this order.
    static constexpr unsigned kNumFp8Scales = 6;
    bool isFp8() { return getFp8Scales().size() == kNumFp8Scales; }
    ::mlir::Value getFp8Scale(unsigned i) {
      return isFp8() ? getFp8Scales()[i] : ::mlir::Value();
    }
    ::mlir::Value getDescaleQ() { return getFp8Scale(0); }
    ::mlir::Value getDescaleK() { return getFp8Scale(1); }
    ::mlir::Value getDescaleV() { return getFp8Scale(2); }
    ::mlir::Value getDescaleS() { return getFp8Scale(3); }
    ::mlir::Value getScaleS() { return getFp8Scale(4); }
    ::mlir::Value getScaleO() { return getFp8Scale(5); }
}];

def TG_SdpaOp : TG_Op<"sdpa", [Pure, AttrSizedOperandSegments,
    AttrSizedResultSegments]> {
  let summary = "scaled dot-product attention (cuDNN's SDPA options)";
  let description = [{
    q `[B,Hq,Sq,D]`, k `[B,Hkv,Skv,D]`, v `[B,Hkv,Skv,Dv]` (one element type)
    give o `[B,Hq,Sq,Dv]` (any of bf16, f16, f32), with `Hq % Hkv == 0`.
    Computes, per batch `b` and query head `h` (kv head `h / (Hq / Hkv)`):

    1. `s = scale * q . kᵀ` in f32 (`scale` defaults to `1/sqrt(D)`);
    2. `softcap`: `s = softcap * tanh(s / softcap)`;
    3. `bias` (floating point, rank 4, broadcastable to `[B,Hq,Sq,Skv]`) is
       added;
    4. `alibi`: `s += slope(h) * (kv_idx - diag)` with
       `slope(h) = 2^(-8 (h+1) / Hq)`; steps 2-4 each round to f32 (the
       scores are f32 throughout, as in every kernel: a bias of `-1e9`
       absorbs the score, so a row it masks entirely is uniform);
    5. masks set `s = -inf`: causal keeps `kv_idx <= diag`, a sliding
       window keeps `diag - window_left <= kv_idx <= diag + window_right`
       (an absent side is unbounded), padding masks rows
       `q_idx >= seq_len_q[b]` and columns `kv_idx >= seq_len_kv[b]`.
       `diag = q_idx` for `top_left` alignment (and when `causal` is `none`)
       and `q_idx + Lkv - Lq` for `bottom_right` (L = the actual sequence
       lengths when padding is given, else Sq and Skv);
    6. `p = softmax(s)` along kv (fully masked rows give zeros);
    7. dropout with `dropout` probability (needs `seed` and `offset`;
       the mask index is the linear index into `[B,Hq,Sq,Skv]`);
    8. `o = p . v`, rounded to o's element type.

    In `training` mode the second result holds the log-sum-exp of each row of
    `s` after masking, `[B,Hq,Sq,1]` f32 (`-inf` for a fully masked row).

    **FP8.** With `f8E4M3FN` or `f8E5M2` q, k and v (one format) the op
    takes six rank-0 f32 `fp8_scales` — `descale_q, descale_k, descale_v,
    descale_s, scale_s, scale_o`, in this order — and may return
    `amax(amax_s, amax_o)` (rank-0 f32, after the stats); the output is fp8,
    bf16 or f16. The steps above change as cuDNN's FP8 SDPA forward has
    them (all f32):
    step 1 becomes `s = scale * q . kᵀ * descale_q * descale_k`;
    after step 7, `amax_s = max |p|` over all elements and
    `p8 = round(p * scale_s)` to q's fp8 format;
    step 8 becomes `o_acc = (p8 . v) * descale_s * descale_v`,
    `amax_o = max |o_acc|`, `o = round(o_acc * scale_o)` to o's type.
    Rounding to fp8 is to nearest even and saturates to the largest finite
    value (NaN stays NaN), as tg.cast and the hardware's `satfinite`
    conversion do. Mirrors
    [cuDNN's FP8 SDPA](https://docs.nvidia.com/deeplearning/cudnn/frontend/latest/operations/Attention.html)
    (docs/dialect.md says how its kernel's rounding differs).

    **Ragged (packed) layout.** With `cu_seqlens_q` and `cu_seqlens_kv`
    (i32 `[B+1]`, given together, with the `max_seqlen_q` and
    `max_seqlen_kv` attributes) the sequences of a batch are packed without
    padding, as FlashAttention's varlen API and cuDNN's ragged offsets have
    them: q is `[Tq, Hq, D]`, k `[Tkv, Hkv, D]`, v `[Tkv, Hkv, Dv]`, the
    output `[Tq, Hq, Dv]` and the stats `[Tq, Hq, 1]`, and sequence `b`
    is tokens `[cu_seqlens[b], cu_seqlens[b+1])` of each. Every step above
    holds per sequence, with `q_idx`/`kv_idx` counted from the sequence's
    first token and the lengths `L = cu[b+1] - cu[b]` in place of padding
    (bottom-right alignment uses them); the logical scores are
    `[B, Hq, max_seqlen_q, max_seqlen_kv]` (what a bias broadcasts to and
    dropout indexes). `seq_len_q`/`seq_len_kv` are not taken with it. The
    kernels read `cu_seqlens` on the device, so malformed offsets are not
    an error but never read or write outside the tensors: each offset is
    clamped to `[0, T]`, a sequence's end to at least its start (a
    decreasing offset gives an empty sequence, or sequences that overlap:
    a row two of them cover holds either's output), and a sequence longer
    than `max_seqlen` is cut to it (its remaining rows are not written).

    **Paged K/V cache.** With `page_table` (i32 `[B, max_pages]`) k and v
    are pages `[num_pages, page_size, Hkv, D]` (and `Dv`), as vLLM,
    FlashInfer and cuDNN's paged attention keep a KV cache: key `j` of
    sequence `b` is row `j % page_size` of page `page_table[b, j /
    page_size]`. `seq_len_kv` (required) gives each sequence's cached
    length; the logical key length is `max_pages * page_size`. q and the
    output stay `[B, Hq, Sq, D]` (prefill and decode alike); bottom-right
    alignment uses `seq_len_kv`. Not with the ragged layout, fp8 or
    training. Page indices are read on the device: one outside
    `[0, num_pages)` is clamped into it (never read outside k and v).

    Mirrors
    [`torch.nn.functional.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
    and the options of
    [cuDNN's SDPA](https://docs.nvidia.com/deeplearning/cudnn/frontend/latest/operations/Attention.html).

    ```mlir
    %o = tg.sdpa %q, %k, %v {causal = #tg<causal bottom_right>}
        : tensor<1x8x128x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x8x128x64xbf16>
    %o2, %lse = tg.sdpa %q, %k, %v bias(%bias : tensor<1x8x128x256xf32>)
        seq_len_q(%lq : tensor<1xi32>) seq_len_kv(%lkv : tensor<1xi32>)
        seed(%seed) offset(%offset) {dropout = 1.000000e-01 : f64, training}
        : tensor<1x8x128x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>
          -> tensor<1x8x128x64xbf16>, tensor<1x8x128x1xf32>
    ```
  }];
  let arguments = !con((ins TG_AttnFp8Tensor:$q, TG_AttnFp8Tensor:$k,
      TG_AttnFp8Tensor:$v, Optional<TG_NumericTensor>:$bias,
      Optional<TG_SeqLenTensor>:$seq_len_q,
      Optional<TG_SeqLenTensor>:$seq_len_kv,
      Optional<TG_SeqLenTensor>:$cu_seqlens_q,
      Optional<TG_SeqLenTensor>:$cu_seqlens_kv,
      Optional<TG_PageTableTensor>:$page_table,
      Optional<TG_RngScalar>:$seed, Optional<TG_RngScalar>:$offset,
      Variadic<TG_Tensor>:$fp8_scales,
      OptionalAttr<F64Attr>:$scale, OptionalAttr<F64Attr>:$softcap,
      UnitAttr:$alibi, UnitAttr:$training,
      OptionalAttr<I64Attr>:$max_seqlen_q, OptionalAttr<I64Attr>:$max_seqlen_kv),
      TG_AttentionMaskAttrs);
  let results = (outs TG_AttnFp8Tensor:$output,
                      Optional<TG_StatsTensor>:$stats,
                      Optional<TG_Tensor>:$amax_s, Optional<TG_Tensor>:$amax_o);
  let assemblyFormat = [{
    $q `,` $k `,` $v
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`seq_len_q` `(` $seq_len_q^ `:` type($seq_len_q) `)`)?
    (`seq_len_kv` `(` $seq_len_kv^ `:` type($seq_len_kv) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_kv` `(` $cu_seqlens_kv^ `:` type($cu_seqlens_kv) `)`)?
    (`page_table` `(` $page_table^ `:` type($page_table) `)`)?
    (`seed` `(` $seed^ `)`)? (`offset` `(` $offset^ `)`)?
    (`fp8_scales` `(` $fp8_scales^ `:` type($fp8_scales) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output)
    (`,` type($stats)^)? (`amax` `(` type($amax_s)^ `,` type($amax_o) `)`)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = !strconcat([{
    /// The scale applied to q . kᵀ: the attribute, else 1/sqrt(head dim).
    double getScaleOrDefault();
  }], TG_Fp8ScaleAccessors, TG_RaggedAccessors, TG_PagedAccessors);
}

def TG_SdpaGradOp : TG_Op<"sdpa_grad", [Pure, AttrSizedOperandSegments,
    AllTypesMatch<["q", "dq"]>, AllTypesMatch<["k", "dk"]>,
    AllTypesMatch<["v", "dv"]>]> {
  let summary = "gradients of tg.sdpa with respect to q, k and v";
  let description = [{
    Given the forward's inputs, its output `o`, the output gradient `d_o`
    (same type as `o`) and the forward's training `stats`, returns
    `dq, dk, dv` (the types of q, k, v) for the same options as the forward
    (dropout reuses the forward's keep mask; for GQA, dk and dv sum over the
    query heads that share a kv head). The textbook backward: with `p` the
    forward's probabilities recomputed from `stats`,
    `dv = pᵀ . d_o`, `dp = d_o . vᵀ`, `ds = p * (dp - rowsum(d_o * o))`,
    `dq = scale * ds . k`, `dk = scale * dsᵀ . q` (soft-capping and dropout
    chain through). With a `dbias` result (a float `bias` only, of its
    type) it also returns the bias's gradient: `dz = p * (dp - rowsum(d_o *
    o))` summed over the bias's broadcast dimensions (the bias is added
    after the soft-cap), for learnable biases. Mirrors the backward of
    [`torch.nn.functional.scaled_dot_product_attention`](https://pytorch.org/docs/stable/generated/torch.nn.functional.scaled_dot_product_attention.html)
    and cuDNN's SDPA backward. The ragged layout is tg.sdpa's (o, d_o,
    dq, dk, dv packed like q, k, v; the stats `[Tq, Hq, 1]`).

    ```mlir
    %dq, %dk, %dv = tg.sdpa_grad %q, %k, %v, %o, %do, %lse {causal = #tg<causal top_left>}
        : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>,
          tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x1xf32>
    ```
  }];
  let arguments = !con((ins TG_AttnTensor:$q, TG_AttnTensor:$k,
      TG_AttnTensor:$v, TG_AttnTensor:$o, TG_AttnTensor:$d_o,
      TG_StatsTensor:$stats, Optional<TG_NumericTensor>:$bias,
      Optional<TG_SeqLenTensor>:$seq_len_q,
      Optional<TG_SeqLenTensor>:$seq_len_kv,
      Optional<TG_SeqLenTensor>:$cu_seqlens_q,
      Optional<TG_SeqLenTensor>:$cu_seqlens_kv,
      Optional<TG_RngScalar>:$seed, Optional<TG_RngScalar>:$offset,
      OptionalAttr<F64Attr>:$scale, OptionalAttr<F64Attr>:$softcap,
      UnitAttr:$alibi, OptionalAttr<I64Attr>:$max_seqlen_q,
      OptionalAttr<I64Attr>:$max_seqlen_kv), TG_AttentionMaskAttrs);
  let results = (outs TG_AttnTensor:$dq, TG_AttnTensor:$dk,
                      TG_AttnTensor:$dv, Optional<TG_NumericTensor>:$dbias);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o `,` $d_o `,` $stats
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    (`seq_len_q` `(` $seq_len_q^ `:` type($seq_len_q) `)`)?
    (`seq_len_kv` `(` $seq_len_kv^ `:` type($seq_len_kv) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_kv` `(` $cu_seqlens_kv^ `:` type($cu_seqlens_kv) `)`)?
    (`seed` `(` $seed^ `)`)? (`offset` `(` $offset^ `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `,` type($o) `,`
    type($d_o) `,` type($stats) (`->` `dbias` type($dbias)^)?
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = !strconcat([{
    double getScaleOrDefault();
  }], TG_RaggedAccessors);
}

def TG_AttentionOp : TG_Op<"attention", [Pure, AttrSizedOperandSegments,
    AttrSizedResultSegments, IsolatedFromAbove]> {
  let summary = "fused attention with a per-element score region";
  let description = [{
    `s = scale * q . kᵀ` (f32; `scale` defaults to 1), then the `score`
    region maps each score to a new one, then the attribute masks (causal,
    window, padding from `seq_len_q`/`seq_len_kv`, as in tg.sdpa) set
    `-inf`, then safe softmax along kv, dropout (`dropout` probability,
    `seed`, `offset`; same mapping as tg.dropout over `[B,Hq,Sq,Skv]`), and
    `o = p . v`. With `training` the second result is the log-sum-exp per row
    (`[B,Hq,Sq,1]` f32). Shapes and element types follow tg.sdpa, and so
    does FP8: `fp8_scales` and `amax` with tg.sdpa's FP8 semantics, the
    descales applied to the scaled score before the `score` region.
    The ragged (packed) layout is tg.sdpa's (`cu_seqlens_q`,
    `cu_seqlens_kv`, `max_seqlen_q`, `max_seqlen_kv`); the region's indices
    are then positions within the sequence.

    The region's arguments are the score (`f32`), its indices
    `b, h, q_idx, kv_idx` (`i64`), all rank 0, and one argument per captured
    tensor. An *element capture* has a rank-0 argument: the capture's element
    at the score's position (such captures have rank 4 and broadcast to
    `[B,Hq,Sq,Skv]`). A *table capture* has an argument of the capture's own
    type (any rank >= 1, any shape), read only by tg.gather at indices
    computed in the region (relative-position tables, T5 buckets, document
    ids; out-of-range indices are clamped or filled, never read). The region
    yields the new score as a rank-0 `f32` tensor (`-inf` masks). Only
    pointwise tg ops and tg.gather on rank-0 tensors may appear inside.
    Fusion produces this op; it may also be written by hand. Mirrors the
    `score_mod` function of
    [FlexAttention](https://pytorch.org/docs/stable/nn.attention.flex_attention.html).

    ```mlir
    %o = tg.attention %q, %k, %v captures(%bias : tensor<1x8x128x128xf32>)
        {causal = #tg<causal top_left>, scale = 1.250000e-01 : f64}
        : tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16> -> tensor<1x8x128x64xbf16>
        score {
    ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %bias_e: tensor<f32>):
      %r = tg.add %s, %bias_e : tensor<f32>, tensor<f32>
      tg.yield %r : tensor<f32>
    }
    ```
  }];
  let arguments = !con((ins TG_AttnFp8Tensor:$q, TG_AttnFp8Tensor:$k,
      TG_AttnFp8Tensor:$v, Optional<TG_SeqLenTensor>:$seq_len_q,
      Optional<TG_SeqLenTensor>:$seq_len_kv,
      Optional<TG_SeqLenTensor>:$cu_seqlens_q,
      Optional<TG_SeqLenTensor>:$cu_seqlens_kv,
      Optional<TG_PageTableTensor>:$page_table,
      Optional<TG_RngScalar>:$seed, Optional<TG_RngScalar>:$offset,
      Variadic<TG_Tensor>:$captures, Variadic<TG_Tensor>:$fp8_scales,
      DefaultValuedAttr<F64Attr, "1.0">:$scale, UnitAttr:$training,
      OptionalAttr<I64Attr>:$max_seqlen_q, OptionalAttr<I64Attr>:$max_seqlen_kv),
      TG_AttentionMaskAttrs);
  let results = (outs TG_AttnFp8Tensor:$output,
                      Optional<TG_StatsTensor>:$stats,
                      Optional<TG_Tensor>:$amax_s, Optional<TG_Tensor>:$amax_o);
  let regions = (region SizedRegion<1>:$score);
  let assemblyFormat = [{
    $q `,` $k `,` $v
    (`seq_len_q` `(` $seq_len_q^ `:` type($seq_len_q) `)`)?
    (`seq_len_kv` `(` $seq_len_kv^ `:` type($seq_len_kv) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_kv` `(` $cu_seqlens_kv^ `:` type($cu_seqlens_kv) `)`)?
    (`page_table` `(` $page_table^ `:` type($page_table) `)`)?
    (`seed` `(` $seed^ `)`)? (`offset` `(` $offset^ `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    (`fp8_scales` `(` $fp8_scales^ `:` type($fp8_scales) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `->` type($output)
    (`,` type($stats)^)? (`amax` `(` type($amax_s)^ `,` type($amax_o) `)`)?
    `score` $score
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let builders = [
    // Builds the op with an identity score region (yields the score).
    OpBuilder<(ins "::mlir::Type":$outputType, "::mlir::Type":$statsType,
        "::mlir::Value":$q, "::mlir::Value":$k, "::mlir::Value":$v,
        "::mlir::Value":$seqLenQ, "::mlir::Value":$seqLenKv,
        "::mlir::Value":$seed, "::mlir::Value":$offset,
        "::mlir::ValueRange":$captures,
        CArg<"::mlir::ValueRange", "{}">:$fp8Scales,
        CArg<"bool", "false">:$amax,
        CArg<"::mlir::Value", "{}">:$cuSeqlensQ,
        CArg<"::mlir::Value", "{}">:$cuSeqlensKv,
        CArg<"::mlir::Value", "{}">:$pageTable)>
  ];
  let extraClassDeclaration = !strconcat([{
    /// Number of leading region arguments before the captured elements:
    /// the score and its four indices.
    static constexpr unsigned kNumIndexArgs = 5;
    ::mlir::Block &getScoreBlock() { return getScore().front(); }
  }], TG_ScoreAccessors, TG_Fp8ScaleAccessors, TG_RaggedAccessors,
      TG_PagedAccessors);
}

def TG_AttentionGradOp : TG_Op<"attention_grad", [Pure,
    AttrSizedOperandSegments, IsolatedFromAbove, AllTypesMatch<["q", "dq"]>,
    AllTypesMatch<["k", "dk"]>, AllTypesMatch<["v", "dv"]>]> {
  let summary = "gradients of tg.attention with respect to q, k and v";
  let description = [{
    The backward of a tg.attention with the same operands, `score` region,
    captures, masks, dropout and scale, given its output `o`, the output
    gradient `d_o` (same type as `o`) and its training `stats`. Per score
    (b, h, q_idx, kv_idx), with `Z` the dropout keep mask scaled by
    `1/(1-p)`:

    ```
    s  = scale * q . kᵀ (f32);  z = score(s, ...), then the attribute masks
    P  = exp(z - stats)                    (0 where masked or stats = -inf)
    dV = (P * Z)ᵀ . dO                     (summed over the query heads of a kv head)
    dZ = P * ((dO . Vᵀ) * Z - rowsum(dO * O))
    dS = score_grad(s, b, h, q_idx, kv_idx, captures..., dZ)
    dQ = scale * dS . K;  dK = scale * dSᵀ . Q   (dK summed over the heads)
    ```

    `score_grad` is the chain rule through the `score` region: its arguments
    are those of `score` plus the gradient `dz` of the region's result (a
    rank-0 `f32`, last), and it yields the gradient of `s`. An empty
    `score_grad` means the compiler derives it from `score` (reverse mode
    over the region's ops, `tg/Dialect/TG/IR/ScoreGradient.h`): the
    identity for regions that only add to the score or mask it (bias,
    ALiBi, masks), `dz * (1 - tanh²(s / c))` for soft-capping
    `c * tanh(s / c)`; integer and boolean values carry no gradient,
    float -> float casts pass it through, max/min and select send it to the
    operand they chose. Where P = 0 (masked scores, rows without a visible
    key) dS is 0. Each gradient is rounded once to its operand's element
    type. tg-fuse-attention produces this op from the decomposed
    tg.sdpa_grad (with the gradient math it found as `score_grad`); it may
    also be written by hand.

    `grad_captures` lists captures (indices into `captures`, ascending)
    whose gradient is also returned, one `capture_grads` result each, of the
    capture's type: the gradient of the region's result with respect to the
    captured element (derived from `score` like an empty `score_grad`),
    times dZ, summed over the capture's broadcast dimensions and rounded
    once. That is dBias for a learnable additive bias (`dz`, summed).

    A table capture (read by tg.gather) may be listed too: its gradient
    is the gradient of the region's result with respect to each tg.gather
    of the table (derived from `score`), times dZ, scatter-added at the
    position that gather read (after clamping; a `fill` read out of range
    adds nothing), summed over every score with P > 0 in f32 or better and
    rounded once. The reference sums in a fixed order; the fused NVRTC
    backward adds with f32 atomics (not with `--deterministic`, which
    refuses it); the expansion into tg ops and cuDNN refuse table
    gradients at compile time with the reason.

    The ragged (packed) layout is tg.attention's (`cu_seqlens_q`,
    `cu_seqlens_kv`, `max_seqlen_q`, `max_seqlen_kv`; o, d_o and the
    gradients packed like q, k, v, the stats `[Tq, Hq, 1]`); only the
    fused NVRTC backward runs it.

    ```mlir
    %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse
        {causal = #tg<causal top_left>, scale = 1.250000e-01 : f64}
        : tensor<1x8x128x64xbf16>, tensor<1x2x128x64xbf16>, tensor<1x2x128x64xbf16>,
          tensor<1x8x128x64xbf16>, tensor<1x8x128x64xbf16>, tensor<1x8x128x1xf32>
        score {
    ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
      tg.yield %s : tensor<f32>
    } score_grad {
    }
    ```
  }];
  let arguments = !con((ins TG_AttnTensor:$q, TG_AttnTensor:$k,
      TG_AttnTensor:$v, TG_AttnTensor:$o, TG_AttnTensor:$d_o,
      TG_StatsTensor:$stats, Optional<TG_SeqLenTensor>:$seq_len_q,
      Optional<TG_SeqLenTensor>:$seq_len_kv,
      Optional<TG_SeqLenTensor>:$cu_seqlens_q,
      Optional<TG_SeqLenTensor>:$cu_seqlens_kv,
      Optional<TG_RngScalar>:$seed, Optional<TG_RngScalar>:$offset,
      Variadic<TG_Tensor>:$captures,
      DefaultValuedAttr<F64Attr, "1.0">:$scale,
      OptionalAttr<DenseI64ArrayAttr>:$grad_captures,
      OptionalAttr<I64Attr>:$max_seqlen_q, OptionalAttr<I64Attr>:$max_seqlen_kv),
      TG_AttentionMaskAttrs);
  let results = (outs TG_AttnTensor:$dq, TG_AttnTensor:$dk,
                      TG_AttnTensor:$dv, Variadic<TG_Tensor>:$capture_grads);
  let regions = (region SizedRegion<1>:$score,
                        MaxSizedRegion<1>:$score_grad);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o `,` $d_o `,` $stats
    (`seq_len_q` `(` $seq_len_q^ `:` type($seq_len_q) `)`)?
    (`seq_len_kv` `(` $seq_len_kv^ `:` type($seq_len_kv) `)`)?
    (`cu_seqlens_q` `(` $cu_seqlens_q^ `:` type($cu_seqlens_q) `)`)?
    (`cu_seqlens_kv` `(` $cu_seqlens_kv^ `:` type($cu_seqlens_kv) `)`)?
    (`seed` `(` $seed^ `)`)? (`offset` `(` $offset^ `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    attr-dict `:` type($q) `,` type($k) `,` type($v) `,` type($o) `,`
    type($d_o) `,` type($stats)
    `score` $score `score_grad` $score_grad
    (`capture_grads` `(` type($capture_grads)^ `)`)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = !strconcat([{
    /// Region arguments before the captured elements (as tg.attention).
    static constexpr unsigned kNumIndexArgs = 5;
    ::mlir::Block &getScoreBlock() { return getScore().front(); }
    /// The entries of grad_captures that are table captures (read by
    /// tg.gather): their gradients are scatter-adds.
    ::llvm::SmallVector<int64_t> getTableGradCaptures();
  }], TG_ScoreAccessors, TG_RaggedAccessors);
}

def TG_FusedMatmulOp : TG_Op<"fused_matmul", [Pure, AttrSizedOperandSegments,
    IsolatedFromAbove]> {
  let summary = "matmul with per-operand prologue and an epilogue region";
  let description = [{
    Each operand element passes through its prologue region (e.g. an `i8`
    to `f16` conversion and a scale) before a matmul with the semantics of
    tg.matmul; each accumulator element then passes through the epilogue
    region (bias, activation, cast) to give the result. An empty region is
    the identity (and then takes no captures). Region arguments are rank-0
    tensors: the element, then one element of each capture of that region,
    taken at the same position (prologue captures broadcast to their
    operand's shape, epilogue captures to the result's). Each region yields
    one rank-0 tensor; the epilogue yields the result's element type. Mirrors
    the prologue/epilogue fusion of cuDNN's matmul graphs and CUTLASS's
    epilogue visitors.

    ```mlir
    %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x32xf16>)
        : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xf16>
      prologue_a {}
      prologue_b {
      ^bb0(%e: tensor<i8>, %s: tensor<f16>):
        %h = tg.cast %e : tensor<i8> to tensor<f16>
        %d = tg.mul %h, %s : tensor<f16>, tensor<f16>
        tg.yield %d : tensor<f16>
      }
      epilogue {}
    ```
  }];
  let arguments = (ins TG_MatmulOperandTensor:$a, TG_MatmulOperandTensor:$b,
      Variadic<TG_Tensor>:$a_captures, Variadic<TG_Tensor>:$b_captures,
      Variadic<TG_Tensor>:$epilogue_captures, OptionalAttr<TypeAttr>:$acc);
  let results = (outs TG_NumericTensor:$result);
  let regions = (region MaxSizedRegion<1>:$prologue_a,
                        MaxSizedRegion<1>:$prologue_b,
                        MaxSizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $a `,` $b
    (`a_captures` `(` $a_captures^ `:` type($a_captures) `)`)?
    (`b_captures` `(` $b_captures^ `:` type($b_captures) `)`)?
    (`epilogue_captures` `(` $epilogue_captures^ `:`
       type($epilogue_captures) `)`)?
    (`acc` `=` $acc^)? attr-dict `:` type($a) `,` type($b) `->` type($result)
    `prologue_a` $prologue_a `prologue_b` $prologue_b `epilogue` $epilogue
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The element type a prologue region yields (the operand's own element
    /// type when the region is empty).
    ::mlir::Type getPrologueResultType(unsigned operandIndex);
    ::mlir::Type getAccumulatorType();
  }];
}

def TG_YieldOp : TG_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["AttentionOp", "AttentionGradOp", "FusedMatmulOp"]>]> {
  let summary = "yields the value of a per-element region";
  let description = [{
    Ends the `score` region of tg.attention (and the `score`/`score_grad`
    regions of tg.attention_grad) and the prologue/epilogue regions
    of tg.fused_matmul with the element's new value (like `scf.yield`).

    ```mlir
    tg.yield %s : tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<TG_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
}

#endif // TG_OPS_TD
