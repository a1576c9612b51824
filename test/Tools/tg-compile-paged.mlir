// tg.sdpa over a paged K/V cache compiles to one launch of the fused NVRTC
// forward reading keys through the page table; cuDNN is refused with the
// reason, and so is the expansion into tg ops.
// RUN: tg-compile %s --explain-backend --emit=cuda 2>&1 | FileCheck %s
// RUN: tg-opt %s --tg-decompose-sdpa | FileCheck %s --check-prefix=IR

// CHECK: remark: backend nvrtc: cuDNN cannot run it: a paged K/V cache (page_table) is not lowered to cuDNN's paged attention; the fused NVRTC kernel runs it
// CHECK: paged K/V (16 keys per page)
// CHECK: static constexpr bool kPaged = true;
// CHECK: static constexpr int kPageSize = 16;
// CHECK: const int *__restrict__ page_table, long long page_table_stride, long long num_pages,
// IR: tg.attention %{{.*}} seq_len_kv(%{{.*}} : tensor<2xi32>) page_table(%{{.*}} : tensor<2x64xi32>)
func.func @decode(%q: tensor<2x16x1x128xbf16>, %k: tensor<100x16x2x128xbf16>, %v: tensor<100x16x2x128xbf16>,
                  %lens: tensor<2xi32>, %table: tensor<2x64xi32>) -> tensor<2x16x1x128xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_kv(%lens : tensor<2xi32>) page_table(%table : tensor<2x64xi32>)
      {causal = #tg<causal bottom_right>}
      : tensor<2x16x1x128xbf16>, tensor<100x16x2x128xbf16>, tensor<100x16x2x128xbf16> -> tensor<2x16x1x128xbf16>
  return %o : tensor<2x16x1x128xbf16>
}
