// Seeded random inputs (docs/reference.md, "Random inputs"): floats are
// normal(0, 1) rounded to their type, i8 uniform in [-128, 127], i32/i64 in
// [-1024, 1024], i1 in {0, 1}, sequence lengths in [1, S], seeds and
// offsets in [0, 2^53). The same seed gives the same inputs.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: tg-run --ref %s --seed=11 --save-inputs=%t/a > %t/a.txt
// RUN: tg-run --ref %s --seed=11 --save-inputs=%t/b > %t/b.txt
// RUN: diff %t/a.txt %t/b.txt
// RUN: python3 %S/Inputs/check_random.py %t/a | FileCheck %s
// RUN: tg-run --ref %s --seed=11 --stddev=0.5 | FileCheck %s --check-prefix=NARROW

// CHECK: x: mean ok, stddev ok
// CHECK: h: values exact in f16
// CHECK: small: range [-128, 127] ok
// CHECK: wide: range [-1024, 1024] ok
// CHECK: flags: range [0, 1] ok
// CHECK: lens: range [1, 6] ok
// CHECK: kv_lens: range [1, 9] ok
// CHECK: seed: range [0, 9007199254740991] ok
// CHECK: offset: range [0, 9007199254740991] ok
// NARROW: input x: shape [64, 64] dtype f32 min -{{[0-2]\.[0-9]+}} max {{[0-2]\.[0-9]+}}

func.func @random(%x: tensor<64x64xf32> {tg.name = "x"}, %h: tensor<256xf16> {tg.name = "h"},
                  %small: tensor<512xi8> {tg.name = "small"}, %wide: tensor<512xi32> {tg.name = "wide"},
                  %flags: tensor<64xi1> {tg.name = "flags"},
                  %q: tensor<4x2x6x4xbf16> {tg.name = "q"}, %k: tensor<4x1x9x4xbf16> {tg.name = "k"},
                  %v: tensor<4x1x9x4xbf16> {tg.name = "v"},
                  %lens: tensor<4xi32> {tg.name = "lens"}, %kv_lens: tensor<4xi64> {tg.name = "kv_lens"},
                  %seed: tensor<i64> {tg.name = "seed"}, %offset: tensor<i64> {tg.name = "offset"})
    -> tensor<4x2x6x4xbf16> {
  %o = tg.sdpa %q, %k, %v seq_len_q(%lens : tensor<4xi32>) seq_len_kv(%kv_lens : tensor<4xi64>)
      seed(%seed) offset(%offset) {dropout = 0.1 : f64}
      : tensor<4x2x6x4xbf16>, tensor<4x1x9x4xbf16>, tensor<4x1x9x4xbf16> -> tensor<4x2x6x4xbf16>
  return %o : tensor<4x2x6x4xbf16>
}
