// A document mask at the end of the score region (ids read from element
// captures or gathered from a table) makes the NVRTC kernel narrow each
// CTA's key range to the keys of its rows' documents; other masks do not.
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --entry=packed_documents_broadcast --emit=cuda | FileCheck %s --check-prefix=BCAST
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --entry=packed_documents_gather --emit=cuda | FileCheck %s --check-prefix=GATHER
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --entry=packed_documents_gather --emit=ptx --arch=sm_80 | FileCheck %s --check-prefix=PTX
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --entry=prefix_lm --emit=cuda | FileCheck %s --check-prefix=NONE
// RUN: tg-compile %tgc_src/examples/models/document_mask.mlir --entry=prefix_lm --emit=cuda | not grep "kDocumentMask = true"
// RUN: tg-compile %s --emit=cuda | FileCheck %s --check-prefix=NONE
// RUN: tg-compile %s --emit=cuda | not grep "kDocumentMask = true"

// The kernel (device/attention_fwd.cuh: narrow_to_documents) reads the ids
// through ScoreMod's document_of_query and document_of_key.
// BCAST: static constexpr bool kDocumentMask = true;
// BCAST: long long document_of_query(long long b, long long h,
// BCAST: return load_capture_capture0(captures, b, h, q_idx, 0);
// BCAST: long long document_of_key(long long b, long long h,
// BCAST: return load_capture_capture1(captures, b, h, 0, kv_idx);

// GATHER: static constexpr bool kDocumentMask = true;
// GATHER: return capture0_at(captures, b, q_idx);
// GATHER: return capture0_at(captures, b, kv_idx);

// PTX: .visible .entry tg_attention_fwd_bf16_d64

// NONE: static constexpr bool kDocumentMask = false;
// NONE: --- score modifier ---

// Not a document mask: the ids are compared with `ne` (this keeps keys of
// other documents), and an id read at q_idx for both sides.
func.func @not_document_masks(%q: tensor<1x2x64x64xbf16>, %k: tensor<1x2x64x64xbf16>, %v: tensor<1x2x64x64xbf16>,
                              %doc: tensor<1x64xi32>) -> (tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>) {
  %o1 = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>)
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %dk = tg.gather %d[%b, %ki] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %other = tg.cmp ne, %dq, %dk : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %other, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  %o2 = tg.attention %q, %k, %v captures(%doc : tensor<1x64xi32>)
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %d: tensor<1x64xi32>):
    %dq = tg.gather %d[%b, %qi] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %c1 = tg.constant dense<1> : tensor<i64>
    %q1 = tg.add %qi, %c1 : tensor<i64>, tensor<i64>
    %dk = tg.gather %d[%b, %q1] : tensor<1x64xi32>[tensor<i64>, tensor<i64>]
    %same = tg.cmp eq, %dq, %dk : tensor<i32>, tensor<i32>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %same, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o1, %o2 : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>
}
