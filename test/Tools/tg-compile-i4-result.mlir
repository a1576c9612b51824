// An i4 input returned as it is: a copy of the packed bytes; returned in
// another layout: an error (the relayout kernel moves whole elements, and
// two i4 elements share a byte).
// RUN: tg-compile %s --entry=same | FileCheck %s
// RUN: not tg-compile %s --entry=transposed -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: buffer "result0" output i4 shape [8,8] strides [8,1]
// CHECK: copy "arg0" "result0"
func.func @same(%w: tensor<8x8xi4>) -> tensor<8x8xi4> {
  return %w : tensor<8x8xi4>
}

// ERR: error: 'func.return' op result 0 is an i4 tensor in another layout than its value's (packed i4 is returned only in the layout it has)
func.func @transposed(%w: tensor<8x8xi4>) -> (tensor<8x8xi4> {tg.strides = array<i64: 1, 8>}) {
  return %w : tensor<8x8xi4>
}
