// Verifier errors of the ragged (packed) layout of tg.sdpa, tg.attention
// and their gradients: offsets and maximum lengths together, rank-3
// tensors, lengths that fit, no padding lengths beside it, output and stats
// shapes.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @only_q_offsets(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q and cu_seqlens_kv must be given together}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @no_max(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op the ragged layout (cu_seqlens_q, cu_seqlens_kv) needs the max_seqlen_q and max_seqlen_kv attributes}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @max_without_offsets(%q: tensor<1x4x16x64xbf16>) {
  // expected-error @below {{'tg.sdpa' op max_seqlen_q/max_seqlen_kv belong to the ragged layout (cu_seqlens_q, cu_seqlens_kv)}}
  %0 = tg.sdpa %q, %q, %q {max_seqlen_q = 8 : i64}
      : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @rank4(%q: tensor<1x4x16x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op q must have rank 3 ([T, H, D]) in the ragged layout, got rank 4}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16>, tensor<1x4x16x64xbf16> -> tensor<1x4x16x64xbf16>
  return
}

// -----

func.func @offsets_differ(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>, %d: tensor<4xi32>) {
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q has 3 entries but cu_seqlens_kv has 4 (expected equal: B + 1)}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%d : tensor<4xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @one_entry(%q: tensor<10x4x64xbf16>, %c: tensor<1xi32>) {
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q has 1 entries; expected B + 1 >= 2}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<1xi32>) cu_seqlens_kv(%c : tensor<1xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @max_too_long(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op max_seqlen_kv is 11; expected 1 to the token count 10}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 11 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @with_padding(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>, %l: tensor<2xi32>) {
  // expected-error @below {{'tg.sdpa' op takes seq_len_q/seq_len_kv or the ragged layout's cu_seqlens, not both (cu_seqlens give the lengths)}}
  %0 = tg.sdpa %q, %q, %q seq_len_q(%l : tensor<2xi32>) cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @output_shape(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op output shape [2, 4, 8, 64] does not match; expected [10, 4, 64] ([Tq, Hq, Dv])}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<2x4x8x64xbf16>
  return
}

// -----

func.func @stats_shape(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op stats shape [2, 4, 8, 1] does not match; expected [10, 4, 1] ([Tq, Hq, 1])}}
  %0, %1 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {training, max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>, tensor<2x4x8x1xf32>
  return
}

// -----

func.func @gqa(%q: tensor<10x6x64xbf16>, %k: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op query heads (6) must be a multiple of key/value heads (4)}}
  %0 = tg.sdpa %q, %k, %k cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x6x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x6x64xbf16>
  return
}

// -----

func.func @alibi_bottom_right(%q: tensor<10x4x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op ALiBi with bottom-right alignment is not supported in the ragged layout}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {alibi, causal = #tg<causal bottom_right>, max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @attention_rank(%q: tensor<10x4x64xbf16>, %k4: tensor<1x4x8x64xbf16>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.attention' op k must have rank 3 ([T, H, D]) in the ragged layout, got rank 4}}
  %0 = tg.attention %q, %k4, %k4 cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<1x4x8x64xbf16>, tensor<1x4x8x64xbf16> -> tensor<10x4x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    tg.yield %s : tensor<f32>
  }
  return
}

// -----

func.func @grad_stats_shape(%q: tensor<10x4x64xbf16>, %s: tensor<2x4x8x1xf32>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa_grad' op stats shape [2, 4, 8, 1] does not match; expected [10, 4, 1] ([Tq, Hq, 1])}}
  %0:3 = tg.sdpa_grad %q, %q, %q, %q, %q, %s cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<2x4x8x1xf32>
  return
}

// -----

func.func @attention_grad_no_max(%q: tensor<10x4x64xbf16>, %s: tensor<10x4x1xf32>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.attention_grad' op the ragged layout (cu_seqlens_q, cu_seqlens_kv) needs the max_seqlen_q and max_seqlen_kv attributes}}
  %0:3 = tg.attention_grad %q, %q, %q, %q, %q, %s cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x1xf32>
      score {
  ^bb0(%x: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    tg.yield %x : tensor<f32>
  } score_grad {
  }
  return
}

// -----

func.func @attention_grad_o_shape(%q: tensor<10x4x64xbf16>, %o: tensor<2x4x8x64xbf16>, %s: tensor<10x4x1xf32>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.attention_grad' op o shape [2, 4, 8, 64] does not match; expected [10, 4, 64] ([Tq, Hq, Dv])}}
  %0:3 = tg.attention_grad %q, %q, %q, %o, %o, %s cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<2x4x8x64xbf16>, tensor<2x4x8x64xbf16>, tensor<10x4x1xf32>
      score {
  ^bb0(%x: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %i: tensor<i64>, %j: tensor<i64>):
    tg.yield %x : tensor<f32>
  } score_grad {
  }
  return
}

// -----

// Offsets the compiler sees (constants) are checked; device values are clamped.
func.func @constant_offsets_decrease(%q: tensor<10x4x64xbf16>) {
  %c = tg.constant dense<[0, 6, 4]> : tensor<3xi32>
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q decreases from 6 to 4 at entry 2}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @constant_offsets_too_long(%q: tensor<10x4x64xbf16>) {
  %c = tg.constant dense<[0, 9, 10]> : tensor<3xi32>
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q gives sequence 0 9 tokens, more than max_seqlen (8)}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 9 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}

// -----

func.func @constant_offsets_past_end(%q: tensor<10x4x64xbf16>) {
  %c = tg.constant dense<[0, 5, 12]> : tensor<3xi32>
  // expected-error @below {{'tg.sdpa' op cu_seqlens_q ends at 12, past the 10 tokens}}
  %0 = tg.sdpa %q, %q, %q cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x4x64xbf16>, tensor<10x4x64xbf16>, tensor<10x4x64xbf16> -> tensor<10x4x64xbf16>
  return
}
