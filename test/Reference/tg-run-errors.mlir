// Bad graphs, bad options and bad .npy inputs give a diagnostic and a
// non-zero exit status, never a crash.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tg-run --ref %s 2>&1 | FileCheck %s --check-prefix=MANY
// RUN: not tg-run --ref %s --entry=nope 2>&1 | FileCheck %s --check-prefix=NO-ENTRY
// RUN: not tg-run --ref %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=NO-FILE
// RUN: not tg-run --ref %s --entry=call 2>&1 | FileCheck %s --check-prefix=CALL
//
// Garbage, truncated and empty graphs; a graph the verifier rejects.
// RUN: echo 'this is not a graph' > %t/garbage.mlir
// RUN: not tg-run --ref %t/garbage.mlir 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: head -c -60 %s > %t/truncated.mlir
// RUN: not tg-run --ref %t/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// RUN: printf '' > %t/empty.mlir
// RUN: not tg-run --ref %t/empty.mlir 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not tg-run --ref %S/Inputs/invalid-softmax.mlir 2>&1 | FileCheck %s --check-prefix=INVALID
//
// --input problems.
// RUN: not tg-run --ref %s --entry=add --input=x 2>&1 | FileCheck %s --check-prefix=BAD-SPEC
// RUN: not tg-run --ref %s --entry=add --input=z=%t/none.npy 2>&1 | FileCheck %s --check-prefix=BAD-NAME
// RUN: not tg-run --ref %s --entry=add --input=x=%t/none.npy 2>&1 | FileCheck %s --check-prefix=NO-NPY
// RUN: python3 %S/Inputs/make_npy.py %t/shape.npy '<f4' 3 1,2,3
// RUN: not tg-run --ref %s --entry=add --input=x=%t/shape.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: python3 %S/Inputs/make_npy.py %t/ints.npy '<i4' 2,2 1,2,3,4
// RUN: not tg-run --ref %s --entry=add --input=x=%t/ints.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: python3 %S/Inputs/make_npy.py %t/short.npy '<f4' 2,2 1,2,3,4 --truncate=3
// RUN: not tg-run --ref %s --entry=add --input=x=%t/short.npy 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: python3 %S/Inputs/make_npy.py %t/fortran.npy '<f4' 2,2 1,2,3,4 --fortran
// RUN: not tg-run --ref %s --entry=add --input=x=%t/fortran.npy 2>&1 | FileCheck %s --check-prefix=FORTRAN
// RUN: cp %s %t/not-npy.npy
// RUN: not tg-run --ref %s --entry=add --input=x=%t/not-npy.npy 2>&1 | FileCheck %s --check-prefix=MAGIC
// RUN: python3 %S/Inputs/make_npy.py %t/big.npy '<i4' 2 1,300
// RUN: not tg-run --ref %s --entry=int8 --input=n=%t/big.npy 2>&1 | FileCheck %s --check-prefix=FIT
// RUN: python3 %S/Inputs/make_npy.py %t/good.npy '<f4' 2,2 1,2,3,4
// RUN: not tg-run --ref %s --entry=add --input=x=%t/good.npy --input=x=%t/good.npy 2>&1 | FileCheck %s --check-prefix=TWICE

// A graph whose tensors the reference cannot hold (2^32 elements, 32 GiB as
// float64) is refused before any input is made, in both modes.
// RUN: printf 'func.func @huge(%%%%x: tensor<65536x65536xf32>) -> tensor<65536x65536xf32> {\n  return %%%%x : tensor<65536x65536xf32>\n}\n' > %t/too-large.mlir
// RUN: not tg-run --ref %t/too-large.mlir 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// RUN: not tg-run %t/too-large.mlir --check 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// TOO-LARGE: too-large.mlir:1:1: error: 'func.func' op argument 0 has type 'tensor<65536x65536xf32>'; the reference interpreter holds at most 2147483648 elements per tensor

// MANY: error: '{{.*}}tg-run-errors.mlir' has 4 functions; choose one with --entry=<name>
// NO-ENTRY: error: no function named 'nope'
// NO-FILE: missing.mlir
// CALL: error: 'func.call' op is not supported by the reference interpreter
// GARBAGE: garbage.mlir:1:1: error:
// TRUNCATED: truncated.mlir:{{[0-9]+}}:{{[0-9]+}}: error:
// EMPTY: error: '{{.*}}empty.mlir' has no function to run
// INVALID: invalid-softmax.mlir:3:8: error: 'tg.softmax' op axis 3 is out of range
// BAD-SPEC: error: --input expects name=file.npy, got 'x'
// BAD-NAME: error: --input names 'z', which is not an argument of 'add' (arguments: x, y)
// NO-NPY: error: input 'x': cannot read '{{.*}}none.npy'
// SHAPE: error: input 'x' ('{{.*}}shape.npy'): shape [3] does not match the argument's [2, 2]
// DTYPE: error: input 'x' ('{{.*}}ints.npy'): dtype '<i4' cannot feed a f32 argument (expected a float array)
// SHORT: error: input 'x': '{{.*}}short.npy': truncated data: expected 16 bytes for shape [2, 2], found 13
// FORTRAN: error: input 'x': '{{.*}}fortran.npy': Fortran-order arrays are not supported
// MAGIC: error: input 'x': '{{.*}}not-npy.npy': not a .npy file (bad magic)
// FIT: error: input 'n' ('{{.*}}big.npy'): value 300 at index 1 does not fit i8
// TWICE: error: input 'x' is given twice

func.func @add(%x: tensor<2x2xf32> {tg.name = "x"}, %y: tensor<2x2xf32> {tg.name = "y"}) -> tensor<2x2xf32> {
  %s = tg.add %x, %y : tensor<2x2xf32>, tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

func.func @int8(%n: tensor<2xi8> {tg.name = "n"}) -> tensor<2xi8> {
  return %n : tensor<2xi8>
}

func.func @call(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = func.call @add(%x, %x) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// RUN: not tg-run --ref %s --entry=huge 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: 'tg.constant' op constant value 9007199254740993 is too large for the reference interpreter
func.func @huge() -> tensor<i64> {
  %c = tg.constant dense<9007199254740993> : tensor<i64>
  return %c : tensor<i64>
}
