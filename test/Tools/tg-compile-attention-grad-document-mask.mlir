// A document mask in tg.attention_grad's score region (ids gathered from a
// table, or read from element captures that vary along one index) makes the
// fused NVRTC backward narrow each CTA's query rows to those of its keys'
// documents; other masks do not.
// RUN: tg-compile %s --backend=nvrtc --entry=documents_gather --emit=cuda | FileCheck %s --check-prefix=GATHER
// RUN: tg-compile %s --backend=nvrtc --entry=documents_elements --emit=cuda | FileCheck %s --check-prefix=ELEMENTS
// RUN: tg-compile %s --backend=nvrtc --entry=documents_gather --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: tg-compile %s --backend=nvrtc --entry=not_documents --emit=cuda | FileCheck %s --check-prefix=NONE
// RUN: tg-compile %s --backend=nvrtc --entry=not_documents --emit=cuda | not grep "__forceinline__ long long document_of_query"

// GATHER: document mask
// GATHER: static constexpr bool kDocumentMask = true;
// GATHER: long long document_of_query(long long b, long long h,
// GATHER-NEXT: long long q_idx) const {
// GATHER-NEXT: return capture0_at(captures, b, q_idx);
// GATHER: long long document_of_key(long long b, long long h,
// GATHER-NEXT: long long kv_idx) const {
// GATHER-NEXT: return capture0_at(captures, b, kv_idx);

// ELEMENTS: static constexpr bool kDocumentMask = true;
// ELEMENTS: return capture0_at(b, h, q_idx, 0);
// ELEMENTS: return capture1_at(b, h, 0, kv_idx);

// PTX: .visible .entry tg_attention_bwd_bf16_dqk64_dv64_

// NONE: static constexpr bool kDocumentMask = false;

func.func @documents_gather(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %doc: tensor<2x100xi32> {tg.name = "doc"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%doc : tensor<2x100xi32>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<2x100xi32>):
    %dq_id = tg.gather %d[%b, %qi] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %dk_id = tg.gather %d[%b, %ki] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq_id, %dk_id : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}

// Ids as element captures broadcast along the other index.
func.func @documents_elements(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %docq: tensor<2x1x100x1xi32> {tg.name = "doc_q"}, %dock: tensor<2x1x1x100xi32> {tg.name = "doc_kv"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%docq, %dock : tensor<2x1x100x1xi32>, tensor<2x1x1x100xi32>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %a: tensor<i32>, %c: tensor<i32>):
    %same = tg.cmp eq, %a, %c : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}

// `ne` keeps the keys of other documents: no narrowing.
func.func @not_documents(%q: tensor<2x2x100x64xbf16> {tg.name = "q"}, %k: tensor<2x2x100x64xbf16> {tg.name = "k"},
    %v: tensor<2x2x100x64xbf16> {tg.name = "v"}, %o: tensor<2x2x100x64xbf16> {tg.name = "o"},
    %do: tensor<2x2x100x64xbf16> {tg.name = "do"}, %lse: tensor<2x2x100x1xf32> {tg.name = "stats"},
    %doc: tensor<2x100xi32> {tg.name = "doc"})
    -> (tensor<2x2x100x64xbf16> {tg.name = "dq"}, tensor<2x2x100x64xbf16> {tg.name = "dk"}, tensor<2x2x100x64xbf16> {tg.name = "dv"}) {
  %dq, %dk, %dv = tg.attention_grad %q, %k, %v, %o, %do, %lse captures(%doc : tensor<2x100xi32>) {scale = 0.125 : f64}
      : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<2x100xi32>):
    %dq_id = tg.gather %d[%b, %qi] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %dk_id = tg.gather %d[%b, %ki] : tensor<2x100xi32>[tensor<i64>, tensor<i64>]
    %other = tg.cmp ne, %dq_id, %dk_id : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %other, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  } score_grad {
  }
  return %dq, %dk, %dv : tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>, tensor<2x2x100x64xbf16>
}
