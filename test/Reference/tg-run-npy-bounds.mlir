// .npy inputs are bounded: only regular files are read (never /dev/zero
// or a FIFO, which would be read or waited on forever), of at most 4 GiB
// and 2^31 elements, with exactly the bytes the header describes.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tg-run --ref %s --input=x=/dev/zero 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: input 'x': cannot read '/dev/zero': it is not a regular file
// RUN: mkfifo %t/fifo.npy
// RUN: not tg-run --ref %s --input=x=%t/fifo.npy 2>&1 | FileCheck %s --check-prefix=FIFO
// FIFO: error: input 'x': cannot read '{{.*}}fifo.npy': it is not a regular file
// RUN: not tg-run --ref %s --input=x=%t 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: error: input 'x': cannot read '{{.*}}': it is not a regular file
//
// RUN: python3 %S/Inputs/make_npy.py %t/extra.npy '<f4' 2,2 1,2,3,4 --append=100
// RUN: not tg-run --ref %s --input=x=%t/extra.npy 2>&1 | FileCheck %s --check-prefix=EXTRA
// EXTRA: error: input 'x': '{{.*}}extra.npy': 100 bytes after the data (expected exactly 16 bytes for shape [2, 2] of '<f4')
//
// RUN: python3 %S/Inputs/make_npy.py %t/huge.npy '<f4' 4611686018427387904 1
// RUN: not tg-run --ref %s --input=x=%t/huge.npy 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: input 'x': '{{.*}}huge.npy': 'shape' entry 4611686018427387904 is larger than the 2147483648 elements a .npy input may have
// RUN: python3 %S/Inputs/make_npy.py %t/wide.npy '<f4' 65536,65536 1
// RUN: not tg-run --ref %s --input=x=%t/wide.npy 2>&1 | FileCheck %s --check-prefix=WIDE
// WIDE: error: input 'x': '{{.*}}wide.npy': shape [65536, 65536] has more than the 2147483648 elements a .npy input may have
// RUN: python3 %S/Inputs/make_npy.py %t/digits.npy '<f4' 123456789012345678901 1
// RUN: not tg-run --ref %s --input=x=%t/digits.npy 2>&1 | FileCheck %s --check-prefix=DIGITS
// DIGITS: error: input 'x': '{{.*}}digits.npy': 'shape' entry 123456789012345678901 is larger than
//
// RUN: truncate -s 5G %t/big.npy
// RUN: not tg-run --ref %s --input=x=%t/big.npy 2>&1 | FileCheck %s --check-prefix=BIG
// BIG: error: input 'x': cannot read '{{.*}}big.npy': it has 5368709120 bytes, more than the 4294967296 a .npy input may have
//
// A well-formed file reads exactly.
// RUN: python3 %S/Inputs/make_npy.py %t/good.npy '<f4' 2,2 1,2,3,4
// RUN: tg-run --ref %s --input=x=%t/good.npy --print-values | FileCheck %s --check-prefix=GOOD
// GOOD: input x:
// GOOD-NEXT: values: [1, 2, 3, 4]
func.func @id(%x: tensor<2x2xf32> {tg.name = "x"}) -> (tensor<2x2xf32> {tg.name = "y"}) {
  return %x : tensor<2x2xf32>
}
