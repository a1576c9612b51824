// MLIR 22's parser crashes on some bad text: a segfault in its dense-array
// code for `array<index: ...>`, and a stack overflow on deep nesting (100k
// `tensor<`, 1M `(`). tgc's tools reject both before parsing, with a
// located error and exit status 1 (docs/fuzzing.md, Parser guards).

// RUN: not tg-opt %s 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tg-compile %s 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tg-run --ref %s 2>&1 | FileCheck %s --check-prefix=ARRAY
// RUN: not tg-emit-kernels %s 2>&1 | FileCheck %s --check-prefix=ARRAY
// ARRAY: parser-guards.mlir:[[# @LINE + 2]]:67: error: expected an integer or float element type in 'array<...>', found 'index'
// ARRAY-NOT: Stack dump
func.func @f(%x: tensor<4xf32> {tg.name = "x", tg.strides = array<index: 1, 2>}) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// RUN: python3 -c "print('func.func @f(%%x: ' + 'tensor<' * 100000 + 'f32' + '>' * 100000 + ') { return }')" > %t.tensors.mlir
// RUN: not tg-opt %t.tensors.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tg-compile %t.tensors.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tg-run --ref %t.tensors.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: python3 -c "print('func.func @f(%%x: ' + '(' * 1000000 + ') { return }')" > %t.parens.mlir
// RUN: not tg-opt %t.parens.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: not tg-compile %t.parens.mlir 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: .mlir:1:{{[0-9]+}}: error: brackets nest more than 256 levels deep, more than tgc parses
// DEEP-NOT: Stack dump

// Nesting within the limit, brackets inside strings and comments, and `->`
// do not count: this graph parses and compiles.
// RUN: python3 -c "print('// ' + '(' * 1000 + '\nfunc.func @g(%%x: tensor<2xf32> {tg.name = \"' + '[' * 1000 + '\"}) -> (tensor<2xf32> {tg.name = \"y\"}) {\n  return %%x : tensor<2xf32>\n}')" > %t.ok.mlir
// RUN: tg-opt %t.ok.mlir | FileCheck %s --check-prefix=OK
// OK: func.func @g

// Graph files are read only when they are files or pipes: /dev/zero would
// be read until memory runs out, a directory is not text.
// RUN: not tg-opt /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not tg-compile /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not tg-run --ref /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// RUN: not tg-emit-kernels /dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: cannot read '/dev/zero': it is not a file or a pipe
// RUN: not tg-compile %S 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// DIRECTORY: cannot read '{{.*}}Tools': it is a directory
// RUN: tg-opt <(cat %t.ok.mlir) | FileCheck %s --check-prefix=OK
// RUN: truncate -s 1100M %t.big.mlir
// RUN: not tg-compile %t.big.mlir 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: cannot read '{{.*}}.big.mlir': it has 1153433600 bytes, more than the 1073741824 tgc reads
