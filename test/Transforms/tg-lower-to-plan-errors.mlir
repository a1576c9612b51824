// Graphs the plan lowering cannot turn into a plan the runtime accepts get
// a located error, not an invalid plan.
// RUN: tg-opt %s -split-input-file -verify-diagnostics --tg-lower-to-plan -o /dev/null

// expected-error @below {{'func.func' op has no results: a plan computes at least one output}}
func.func @nothing(%x: tensor<4xf32>) {
  return
}

// -----

// 2^32 x 2 x 128 x 64 bf16: 128 TiB.
// expected-error @below {{a tensor of 140737488355328 bytes cannot be lowered: plan buffers are at most 1099511627776 bytes}}
func.func @huge(%x: tensor<4294967296x2x128x64xbf16>) -> tensor<4294967296x2x128x64xbf16> {
  %e = tg.exp %x : tensor<4294967296x2x128x64xbf16>
  return %e : tensor<4294967296x2x128x64xbf16>
}

// -----

// expected-error @below {{a tensor of rank 33 cannot be lowered: plans hold at most rank 32}}
func.func @rank33(%x: tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>) -> tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32> {
  %e = tg.exp %x : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>
  return %e : tensor<1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x2xf32>
}
