// Truncated files are rejected with a located diagnostic and exit code 1,
// never a crash.
// This file stops in the middle of a type list.
// RUN: not tg-opt %s 2>&1 | FileCheck %s
// A score region that is never closed.
// RUN: printf 'func.func @f(%%%%q: tensor<1x4x8x16xf16>) {\n %%%%0 = tg.attention %%%%q, %%%%q, %%%%q : tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16>, tensor<1x4x8x16xf16> -> tensor<1x4x8x16xf16> score {\n ^bb0(%%%%s: tensor<f32>, %%%%b: tensor<i64>, %%%%h: tensor<i64>, %%%%qi: tensor<i64>, %%%%ki: tensor<i64>):\n  tg.yield %%%%s : tensor<f32>\n' > %t.region
// RUN: not tg-opt %t.region 2>&1 | FileCheck %s --check-prefix=REGION
// A file that stops right after an op name.
// RUN: printf 'func.func @f(%%%%a: tensor<4xf32>) {\n  %%%%0 = tg.exp' > %t.op
// RUN: not tg-opt %t.op 2>&1 | FileCheck %s --check-prefix=OPNAME
// A file that stops inside an attribute dictionary.
// RUN: printf 'func.func @f(%%%%q: tensor<1x4x8x16xf16>) {\n  %%%%0 = tg.sdpa %%%%q, %%%%q, %%%%q {causal = #tg<causal' > %t.attr
// RUN: not tg-opt %t.attr 2>&1 | FileCheck %s --check-prefix=ATTR

// CHECK: malformed-truncated.mlir:[[@LINE+6]]:{{[0-9]+}}: error: expected 'x' in dimension list
// REGION: region:4:{{[0-9]+}}: error: expected operation name in quotes
// OPNAME: op:2:{{[0-9]+}}: error: expected SSA operand
// ATTR: attr:2:{{[0-9]+}}: error:

func.func @f(%q: tensor<1x4x16x64xbf16>) {
  %0 = tg.sdpa %q, %q, %q : tensor<1x4x16x64xbf16>, tensor<1x4
