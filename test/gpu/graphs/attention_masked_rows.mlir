// Attention whose score region masks whole query rows (q_idx < 4 and the
// rows of head 1 from 60 on): tg defines their output as zeros (and, in
// training, their stats as -inf). Run on the GPU by the suite (--graphs) to
// see what each backend writes there.
func.func @masked_rows(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"}, %v: tensor<1x2x64x64xbf16> {tg.name = "v"}) -> (tensor<1x2x64x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c4 = tg.constant dense<4> : tensor<i64>
    %early = tg.cmp lt, %qi, %c4 : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %r = tg.select %early, %ninf, %s : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o : tensor<1x2x64x64xbf16>
}

func.func @masked_rows_training(%q: tensor<1x2x64x64xbf16> {tg.name = "q"}, %k: tensor<1x2x64x64xbf16> {tg.name = "k"}, %v: tensor<1x2x64x64xbf16> {tg.name = "v"}) -> (tensor<1x2x64x64xbf16> {tg.name = "o"}, tensor<1x2x64x1xf32> {tg.name = "stats"}) {
  %o, %st = tg.attention %q, %k, %v {scale = 0.125 : f64, training}
      : tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16>, tensor<1x2x64x64xbf16> -> tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
      score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %c4 = tg.constant dense<4> : tensor<i64>
    %early = tg.cmp lt, %qi, %c4 : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %r = tg.select %early, %ninf, %s : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %r : tensor<f32>
  }
  return %o, %st : tensor<1x2x64x64xbf16>, tensor<1x2x64x1xf32>
}
