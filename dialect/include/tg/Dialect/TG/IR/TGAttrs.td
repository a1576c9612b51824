#ifndef TG_ATTRS_TD
#define TG_ATTRS_TD

include "tg/Dialect/TG/IR/TGDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TG_CmpPredicate : I32EnumAttr<"CmpPredicate", "elementwise comparison", [
    I32EnumAttrCase<"lt", 0>, I32EnumAttrCase<"le", 1>,
    I32EnumAttrCase<"gt", 2>, I32EnumAttrCase<"ge", 3>,
    I32EnumAttrCase<"eq", 4>, I32EnumAttrCase<"ne", 5>]> {
  let cppNamespace = "::mlir::tg";
  let genSpecializedAttr = 0;
}
def TG_CmpPredicateAttr : EnumAttr<TG_Dialect, TG_CmpPredicate, "cmp_predicate"> {
  let description = [{
    The predicate of `tg.cmp`, written there as a bare keyword
    (`tg.cmp lt, %a, %b ...`); in the generic form `#tg<cmp_predicate lt>`.
  }];
}

def TG_ReduceKind : I32EnumAttr<"ReduceKind", "reduction kind", [
    I32EnumAttrCase<"sum", 0>, I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::tg";
  let genSpecializedAttr = 0;
}
def TG_ReduceKindAttr : EnumAttr<TG_Dialect, TG_ReduceKind, "reduce_kind"> {
  let description = [{
    The combining function of `tg.reduce`, written there as a bare keyword
    (`tg.reduce max %x ...`); in the generic form `#tg<reduce_kind max>`.
  }];
}

def TG_CausalMode : I32EnumAttr<"CausalMode", "causal mask alignment", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"top_left", 1>,
    I32EnumAttrCase<"bottom_right", 2>]> {
  let cppNamespace = "::mlir::tg";
  let genSpecializedAttr = 0;
}
def TG_CausalModeAttr : EnumAttr<TG_Dialect, TG_CausalMode, "causal"> {
  let description = [{
    The causal mask of `tg.sdpa`, `tg.sdpa_grad` and `tg.attention`, written
    `{causal = #tg<causal top_left>}`. `top_left` keeps `kv_idx <= q_idx`;
    `bottom_right` keeps `kv_idx <= q_idx + Lkv - Lq`, aligning the last
    query with the last key (as in cuDNN and FlashAttention for `Sq != Skv`).
    The same alignment places the sliding window. `none` (the default) masks
    nothing.
  }];
}

def TG_GatherMode : I32EnumAttr<"GatherMode", "out-of-range rule of tg.gather", [
    I32EnumAttrCase<"clamp", 0>, I32EnumAttrCase<"fill", 1>]> {
  let cppNamespace = "::mlir::tg";
  let genSpecializedAttr = 0;
}
def TG_GatherModeAttr : EnumAttr<TG_Dialect, TG_GatherMode, "gather_mode"> {
  let description = [{
    What `tg.gather` reads at an index outside its table: `clamp` (the
    default) clamps each index to `[0, size - 1]` of its dimension; `fill`
    gives the op's `fill_value` when any index is out of range. Written in
    the op as nothing (clamp) or `fill(value)`; in the generic form
    `#tg<gather_mode fill>`.
  }];
}

def TG_Backend : I32EnumAttr<"Backend", "where an op runs", [
    I32EnumAttrCase<"nvrtc", 0>, I32EnumAttrCase<"cudnn", 1>]> {
  let cppNamespace = "::mlir::tg";
  let genSpecializedAttr = 0;
}
def TG_BackendAttr : EnumAttr<TG_Dialect, TG_Backend, "backend"> {
  let description = [{
    The backend an op runs on, written by tg-select-backend (or by hand, to
    pin one) as the discardable attribute `tg.backend`:
    `{tg.backend = #tg<backend cudnn>}`. `nvrtc` runs the op with generated
    kernels, `cudnn` with a cuDNN operation graph. Read and written only
    through `getBackend()` / `setBackend()` (tg/Dialect/TG/IR/Backend.h).
  }];
}

#endif // TG_ATTRS_TD
