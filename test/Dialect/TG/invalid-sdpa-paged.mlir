// Verifier errors of tg.sdpa over a paged K/V cache (page_table): the
// cached lengths, a page table row per batch entry, heads from the pages'
// third dimension, inference only, not with the ragged layout.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

func.func @paged_no_lengths(%q: tensor<2x8x1x64xbf16>, %k: tensor<10x16x2x64xbf16>, %t: tensor<2x4xi32>) {
  // expected-error @below {{'tg.sdpa' op a paged K/V cache (page_table) needs seq_len_kv, the cached length of each sequence}}
  %0 = tg.sdpa %q, %k, %k page_table(%t : tensor<2x4xi32>)
      : tensor<2x8x1x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
  return
}

// -----

func.func @paged_table_rows(%q: tensor<2x8x1x64xbf16>, %k: tensor<10x16x2x64xbf16>, %t: tensor<3x4xi32>, %l: tensor<2xi32>) {
  // expected-error @below {{'tg.sdpa' op page_table has 3 rows; expected one per batch entry (2)}}
  %0 = tg.sdpa %q, %k, %k seq_len_kv(%l : tensor<2xi32>) page_table(%t : tensor<3x4xi32>)
      : tensor<2x8x1x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
  return
}

// -----

func.func @paged_gqa(%q: tensor<2x6x1x64xbf16>, %k: tensor<10x16x4x64xbf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) {
  // expected-error @below {{'tg.sdpa' op query heads (6) must be a multiple of key/value heads (4)}}
  %0 = tg.sdpa %q, %k, %k seq_len_kv(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi32>)
      : tensor<2x6x1x64xbf16>, tensor<10x16x4x64xbf16>, tensor<10x16x4x64xbf16> -> tensor<2x6x1x64xbf16>
  return
}

// -----

func.func @paged_training(%q: tensor<2x8x1x64xbf16>, %k: tensor<10x16x2x64xbf16>, %t: tensor<2x4xi32>, %l: tensor<2xi32>) {
  // expected-error @below {{'tg.sdpa' op a paged K/V cache is for inference: not with fp8 or training}}
  %0, %1 = tg.sdpa %q, %k, %k seq_len_kv(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi32>) {training}
      : tensor<2x8x1x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x8x1x64xbf16>, tensor<2x8x1x1xf32>
  return
}

// -----

func.func @paged_and_ragged(%q: tensor<10x8x64xbf16>, %k: tensor<10x16x2x64xbf16>, %t: tensor<2x4xi32>, %c: tensor<3xi32>) {
  // expected-error @below {{'tg.sdpa' op takes a paged K/V cache (page_table) or the ragged layout (cu_seqlens), not both}}
  %0 = tg.sdpa %q, %k, %k cu_seqlens_q(%c : tensor<3xi32>) cu_seqlens_kv(%c : tensor<3xi32>) page_table(%t : tensor<2x4xi32>)
      {max_seqlen_q = 8 : i64, max_seqlen_kv = 8 : i64}
      : tensor<10x8x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<10x8x64xbf16>
  return
}

// -----

// A page table the compiler sees (a constant) must name existing pages.
func.func @constant_page_out_of_range(%q: tensor<2x8x1x64xbf16>, %k: tensor<10x16x2x64xbf16>, %l: tensor<2xi32>) {
  %t = tg.constant dense<[[0, 1], [2, 10]]> : tensor<2x2xi32>
  // expected-error @below {{'tg.sdpa' op page_table entry [1, 1] is page 10; the cache has pages 0 to 9}}
  %0 = tg.sdpa %q, %k, %k seq_len_kv(%l : tensor<2xi32>) page_table(%t : tensor<2x2xi32>)
      : tensor<2x8x1x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
  return
}

// -----

func.func @constant_length_past_pages(%q: tensor<2x8x1x64xbf16>, %k: tensor<10x16x2x64xbf16>, %t: tensor<2x2xi32>) {
  %l = tg.constant dense<[16, 33]> : tensor<2xi32>
  // expected-error @below {{'tg.sdpa' op seq_len_kv[1] is 33; a page table row holds 32 keys}}
  %0 = tg.sdpa %q, %k, %k seq_len_kv(%l : tensor<2xi32>) page_table(%t : tensor<2x2xi32>)
      : tensor<2x8x1x64xbf16>, tensor<10x16x2x64xbf16>, tensor<10x16x2x64xbf16> -> tensor<2x8x1x64xbf16>
  return
}
