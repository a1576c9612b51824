// A graph the verifier rejects (used by tg-run-errors.mlir).
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tg.softmax %x axis = 3 : tensor<4xf32>
  return %y : tensor<4xf32>
}
