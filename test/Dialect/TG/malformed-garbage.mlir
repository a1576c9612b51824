// Garbage input is rejected with a located diagnostic and exit code 1, never
// a crash (`not` fails on a signal).
// RUN: not tg-opt %s 2>&1 | FileCheck %s
// RUN: printf 'func.func @f(\000\377\376' > %t.bin
// RUN: not tg-opt %t.bin 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: printf '}}}}' > %t.braces
// RUN: not tg-opt %t.braces 2>&1 | FileCheck %s --check-prefix=BRACES

// CHECK: malformed-garbage.mlir:[[@LINE+2]]:1: error: custom op 'this' is unknown
// BINARY: error: unexpected character
this is not MLIR @@@ %% }}}
// BRACES: braces:1:1: error: expected operation name in quotes
