#ifndef TG_TRANSFORMS_PASSES_TD
#define TG_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DecomposeSdpa : Pass<"tg-decompose-sdpa", "func::FuncOp"> {
  let summary = "Expand tg.sdpa and tg.sdpa_grad into primitive tg ops";
  let description = [{
    Rewrites `tg.sdpa` into matmul, scale, bias, gen_index masks, softmax,
    dropout and matmul (and the stats output), and `tg.sdpa_grad` into the
    textbook backward graph. The result computes the same values as the
    original op (checked with the reference interpreter). An FP8 `tg.sdpa`
    (with `fp8_scales`) becomes a `tg.attention` with the same scales and
    amax results instead: fusion could not rebuild the fp8 scaling.

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

def FuseAttention : Pass<"tg-fuse-attention", "func::FuncOp"> {
  let summary = "Fuse matmul-scale-mask-softmax-dropout-matmul chains into tg.attention";
  let description = [{
    Finds every attention chain, anchored at the matmul that multiplies the
    attention probabilities with V, in the forms real code writes (see
    docs/fusion.md): scale on Q, K or the scores (multiply or divide), K
    transposed explicitly or by layout, softmax as `tg.softmax` or
    decomposed (with or without max subtraction, exp2 forms), masks as
    selects, additive tensors or index comparisons, GQA by broadcast or
    reshape, dropout, and the training form whose log-sum-exp is used.
    Every pointwise step on the scores becomes rank-0 math in the `score`
    region; recognised causal, sliding-window and padding masks are lifted
    into attributes when that is provably equivalent. Transposes and
    reshapes of graph arguments feeding q, k and v (and a transpose of the
    output that is returned) are absorbed into `tg.strides`. The textbook
    backward (what tg-decompose-sdpa writes for tg.sdpa_grad) becomes one
    `tg.attention_grad` with the same score region plus a `score_grad`
    region for the chain rule through it (`backward=false` leaves it).

    Anything it cannot prove equivalent is left unchanged; with
    `report=true` (or `--tg-fusion-report`) it says why as a remark.

    The fused op computes the scores and the softmax in f32. Where the graph
    as written rounds them to bf16 or f16 on the way (a low-precision QK
    matmul result, score ops or a softmax in bf16/f16, casts through a
    16-bit type), the fused result is closer to exact math but differs from
    the graph as written by more than the low precision's rounding. With
    `numerics=true` (implied by `report`) a remark on each fused op names
    those roundings (docs/fusion.md, "Numerics").

    Before:
    ```mlir
    %kt = tg.transpose %k perm = [0, 1, 3, 2] : ...
    %s = tg.matmul %q, %kt : ... -> tensor<1x8x128x128xf32>
    %ss = tg.mul %s, %c : tensor<1x8x128x128xf32>, tensor<f32>
    %p = tg.softmax %ss axis = 3 : tensor<1x8x128x128xf32>
    %pc = tg.cast %p : tensor<1x8x128x128xf32> to tensor<1x8x128x128xbf16>
    %o = tg.matmul %pc, %v : ... -> tensor<1x8x128x64xbf16>
    ```
    After:
    ```mlir
    %o = tg.attention %q, %k, %v {scale = 1.250000e-01 : f64} : ... score {
    ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
      tg.yield %s : tensor<f32>
    }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every attention-like chain that is not fused, "
           "saying why">,
    Option<"backward", "backward", "bool", /*default=*/"true",
           "Also fuse the attention backward (the tg.sdpa_grad "
           "decomposition, or autograd's) into tg.attention_grad">,
    Option<"absorbLayout", "absorb-layout", "bool", /*default=*/"true",
           "Absorb transposes/reshapes of graph arguments and results around "
           "the fused op into tg.strides">,
    Option<"numerics", "numerics", "bool", /*default=*/"false",
           "Emit a remark on each fused op naming the bf16/f16 roundings of "
           "the scores that the graph as written does and the fused op "
           "drops (implied by report)">,
  ];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def FuseMatmul : Pass<"tg-fuse-matmul", "func::FuncOp"> {
  let summary = "Fuse cast/scale prologues and pointwise epilogues into tg.fused_matmul";
  let description = [{
    For each `tg.matmul`, pulls the chain of casts and scalings that produce
    each operand (e.g. `i8 -> f16` then a per-channel scale) into the
    operand's prologue region, and the pointwise ops that consume the result
    (bias add, activation, cast) into the epilogue region. A prologue value
    that has users other than the chain is not fused (remark with
    `report=true` or `--tg-fusion-report`).

    Group-wise dequantisation of the weight as model code writes it (the
    weight viewed as [..., K / G, G, N], scaled or shifted by
    [..., K / G, 1, N] tensors, viewed back as [..., K, N]) is first
    rebuilt on the [..., K, N] weight, each such tensor broadcast over the
    group and reshaped to [..., K, N] (a view the lowering reads at row / G,
    never a copy), so that it fuses like a per-channel scale.

    Before:
    ```mlir
    %wf = tg.cast %w : tensor<64x32xi8> to tensor<64x32xf16>
    %ws = tg.mul %wf, %scale : tensor<64x32xf16>, tensor<1x32xf16>
    %y = tg.matmul %x, %ws : tensor<16x64xf16>, tensor<64x32xf16> -> tensor<16x32xf32>
    %yb = tg.add %y, %bias : tensor<16x32xf32>, tensor<1x32xf32>
    ```
    After:
    ```mlir
    %yb = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x32xf16>)
        epilogue_captures(%bias : tensor<1x32xf32>) : ... prologue_a {} prologue_b {
      ...cast, mul...
    } epilogue { ...add... }
    ```
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark for every prologue or epilogue op left unfused">,
  ];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def ExpandAttention : Pass<"tg-expand-attention", "func::FuncOp"> {
  let summary = "Expand tg.attention ops the fused kernel cannot run into primitive ops";
  let description = [{
    Rewrites a tg.attention into matmul, the score region applied to whole
    score tensors (its index arguments become tg.gen_index tensors, its
    captures the captured tensors), the attribute masks, safe softmax,
    dropout and matmul, with the same semantics. By default only ops outside
    the NVRTC attention kernel's range are expanded (q/k/v and output not
    bf16/f16 of one type, head dims not multiples of 8 up to 256, fp8
    captures, FP8 attention), so that every verified graph still runs, on
    the generic kernels; with `all` every tg.attention is expanded. Ops
    assigned to cuDNN (`tg.backend = #tg<backend cudnn>`) are left alone. FP8 attention
    expands with its scaling: fp8 matmuls with f32 accumulation, the
    descales, P scaled and cast to q's fp8 format, amax as abs and a full
    max reduction, the output scale and cast.

    A tg.attention_grad not assigned to cuDNN that the fused backward
    kernels cannot run (the same rules: bf16/f16 of one type, head dims
    multiples of 8 up to 256, i32 lengths, capture types; with `all`, every
    one) is expanded too: into the textbook backward that tg-decompose-sdpa
    writes for tg.sdpa_grad, with the score region applied to the scores and
    the `score_grad` region (on the scaled scores and the gradient dZ) in
    place of the soft-cap's derivative. A tg.attention_grad
    on cuDNN whose Skv is not a multiple of 128 and that has no sequence
    lengths gets full-length ones (constants that mask nothing), for the
    padding workaround cuDNN <= 9.15 needs (docs/cudnn.md).
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Expand every tg.attention, not only unsupported ones">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "The compile target as tg-compile --arch names it (e.g. sm_90a); "
           "FP8 attention has its fused kernel for sm_90a only and is "
           "expanded for any other (or no) target">,
  ];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def MixedMatmulPlan : Pass<"tg-mixed-matmul-plan", "func::FuncOp"> {
  let summary = "Choose how a mixed-input matmul runs: fused, dequantise + 16-bit matmul, or the generated kernel";
  let description = [{
    A mixed-input matmul is a tg.fused_matmul or tg.matmul whose a operand
    enters the product as bf16/f16 and whose b operand (the weight) is i8 or
    fp8. It has three plans:
      - `fused`: the op as it is; cuDNN converts (and scales) the weight
        inside its matmul graph (cuDNN's mixed-input matmul).
      - `dequant`: prologue_b applied to the whole weight as graph-level
        pointwise ops (a generic NVRTC kernel writing a 16-bit workspace
        tensor), then the op with an empty prologue_b and the same
        prologue_a and epilogue (a 16-bit matmul on cuDNN). Region ops
        round like graph ops, so the dequantised weight and the result are
        the same values as the fused op's in the reference semantics.
      - `generated`: the op as it is, pinned to NVRTC, where the lowering
        runs it on the generated mixed-input kernel
        (device/mixed_matmul.cuh: the weight converted in registers).
    `plan=auto` picks, per op, the plan measured fastest at the nearest
    (K, N) bucket, each plan's TFLOP/s interpolated in log M between the
    measured M around the op's (MixedMatmulTable.inc: H200 figures and where
    they came from); `generated` only where the kernel runs the op and the
    backend request is not cudnn. Auto only decides ops cuDNN can run as
    they are and that are not on NVRTC (`backend=nvrtc` or a `tg.backend =
    #tg<backend nvrtc>`: those stay as they are, and the lowering gives them
    the generated kernel where it runs them). `plan=fused`, `plan=dequant`
    or `plan=generated` forces one plan for every mixed-input matmul (an op
    the generated kernel cannot run is then an error with the reason). With
    `explain`, a remark says which plan each op got and which figures
    decided.

    Before (`plan=dequant`):
    ```mlir
    %y = tg.fused_matmul %x, %w b_captures(%s : tensor<1x32xbf16>) ...
      prologue_b {
      ^bb0(%e: tensor<i8>, %c: tensor<bf16>):
        %h = tg.cast %e : tensor<i8> to tensor<bf16>
        %d = tg.mul %h, %c : tensor<bf16>, tensor<bf16>
        tg.yield %d : tensor<bf16>
      } epilogue {...}
    ```
    After:
    ```mlir
    %h = tg.cast %w : tensor<64x32xi8> to tensor<64x32xbf16>
    %d = tg.mul %h, %s : tensor<64x32xbf16>, tensor<1x32xbf16>
    %y = tg.fused_matmul %x, %d ... prologue_b {} epilogue {...}
    ```
  }];
  let options = [
    Option<"plan", "plan", "std::string", /*default=*/"\"auto\"",
           "auto (from the measurement table), fused, dequant or "
           "generated (the NVRTC mixed-input kernel; tg-compile "
           "--mixed-matmul)">,
    Option<"backend", "backend", "std::string", /*default=*/"\"auto\"",
           "The backend request tg-select-backend will see: auto does not "
           "decide ops bound for nvrtc">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each op's plan and the figures that decided it">,
  ];
  let dependentDialects = ["::mlir::tg::TGDialect"];
}

def SelectBackend : Pass<"tg-select-backend", "func::FuncOp"> {
  let summary = "Choose the backend (cudnn or nvrtc) of every op that launches work";
  let description = [{
    Marks each tg.attention, tg.fused_matmul, tg.matmul, tg.softmax and
    tg.reduce with `tg.backend = #tg<backend nvrtc>` or
    `#tg<backend cudnn>`. The NVRTC backend
    runs every verified graph; the cuDNN backend is chosen where it supports
    the op and is measured faster (attention forward and backward, matmul and
    fused_matmul; reduce and softmax stay on NVRTC, where they fuse with
    their neighbours); `backend=cudnn` asks for cuDNN wherever it can run the
    op. A `tg.backend` already on an op (written by the user) wins over the
    option. On NVRTC, tg.attention and tg.attention_grad run on the fused
    kernels, or, where those cannot run them, on the generic kernels after
    tg-expand-attention. With `explain`, each choice is reported as a remark
    that says why (and, on NVRTC, which of the two).

    ```mlir
    %o = tg.attention %q, %k, %v {tg.backend = #tg<backend nvrtc>} ...
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"auto\"",
           "auto (choose per op), nvrtc or cudnn (TGC_BACKEND in the tools)">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Report each choice and its reason as a remark">,
    Option<"deterministic", "deterministic", "bool", /*default=*/"false",
           "Reproducible results: tg.attention_grad runs on the fused NVRTC "
           "backward in its deterministic mode, not on cuDNN">,
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "The compile target (as tg-expand-attention's option): says "
           "whether FP8 attention on NVRTC is fused or expanded">,
  ];
}

#endif // TG_TRANSFORMS_PASSES_TD
