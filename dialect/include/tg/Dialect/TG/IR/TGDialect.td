#ifndef TG_DIALECT_TD
#define TG_DIALECT_TD

include "mlir/IR/OpBase.td"

def TG_Dialect : Dialect {
  let name = "tg";
  let cppNamespace = "::mlir::tg";
  let summary = "Tensor graphs for fused GPU attention";
  let description = [{
    The `tg` dialect describes attention-style tensor graphs: batched matmuls,
    elementwise math, reductions, softmax, dropout and layout ops over builtin
    statically shaped ranked tensors, plus the high-level
    `tg.sdpa`/`tg.sdpa_grad` ops and the fused `tg.attention`/`tg.fused_matmul`
    ops that fusion produces. A graph is a `func.func` over tensors.

    Element types: `bf16`, `f16`, `f32`, `f8E4M3FN`, `f8E5M2`, `i8`, `i32`,
    `i64`, `i1`. Elementwise operands have equal rank (or rank 0, a scalar)
    and every dimension is equal or 1 (broadcast, as in cuDNN pointwise ops).

    Graph arguments and results may carry `tg.name` (a unique binding name)
    and `tg.strides` (the memory layout in elements; default row-major).

    The exact semantics (numerics, safe softmax, the dropout Philox mapping,
    the order of the sdpa steps, the attention score region) are in
    [docs/dialect.md](dialect.md).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
  let hasOperationAttrVerify = 1;
}

#endif // TG_DIALECT_TD
