#ifndef TG_TRANSFORMS_PASSES_TD
#define TG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DecomposeSdpa : Pass<"tg-decompose-sdpa", "func::FuncOp"> {
  let summary = "Expand tg.sdpa and tg.sdpa_grad into primitive tg ops";
  let description = [{
    Rewrites `tg.sdpa` into matmul, scale, bias, gen_index masks, softmax,
    dropout and matmul (and the stats output), and `tg.sdpa_grad` into the
    textbook backward graph. The result computes the same values as the
    original op (checked with the reference interpreter).

    Before:
    ```mlir
    %o = tg.sdpa %q, %k, %v : tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16>, tensor<1x2x16x8xbf16> -> tensor<1x2x16x8xbf16>
    ```
    After (abridged):
    ```mlir
    %kt = tg.transpose %k perm = [0, 1, 3, 2] : ...
    %s = tg.matmul %q, %kt : ... -> tensor<1x2x16x16xf32>
    %ss = tg.mul %s, %scale : ...
    %p = tg.softmax %ss axis = 3 : tensor<1x2x16x16xf32>
    %pc = tg.cast %p : tensor<1x2x16x16xf32> to tensor<1x2x16x16xbf16>
    %o = tg.matmul %pc, %v : ... -> tensor<1x2x16x8xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def DecomposeSoftmax : Pass<"tg-decompose-softmax", "func::FuncOp"> {
  let summary = "Expand tg.softmax into reductions and pointwise ops";
  let description = [{
    Rewrites `tg.softmax` as max-reduce, subtract, exp, sum-reduce and
    divide, guarding fully masked slices so that they still give zeros (and
    `-inf` stats).
  }];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def SelectBackend : Pass<"tg-select-backend", "func::FuncOp"> {
  let summary = "Choose the backend (cudnn or nvrtc) of every op that launches work";
  let description = [{
    Marks each tg.attention, tg.fused_matmul, tg.matmul, tg.softmax and
    tg.reduce with `tg.backend = "nvrtc"` or `"cudnn"`. The NVRTC backend
    runs every verified graph; the cuDNN backend is chosen where it supports
    the op and is measured faster (not available yet: every op goes to
    NVRTC). With `explain`, each choice is reported as a remark that says
    why.

    ```mlir
    %o = tg.attention %q, %k, %v {tg.backend = "nvrtc"} ...
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"auto\"",
           "auto (choose per op), nvrtc or cudnn (TGC_BACKEND in the tools)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each choice and its reason as a remark">,
  ];
}

#endif // TG_TRANSFORMS_PASSES_TD
