// A costly term of the score region that depends on q_idx and kv_idx only
// through q_idx - kv_idx (here a relative-bias table read) is tabulated by
// the sm_90a kernel per tile and warpgroup: ScoreMod::distance_term computes
// it, the modifier reads distance.at(q_idx, kv_idx). The portable kernel
// (k1) computes it per score. Cheap terms and terms that read the score are
// not tabulated.
// RUN: tg-compile %s --entry=relative_bias --emit=cuda --arch=sm_90a | FileCheck %s --check-prefix=TABLE
// RUN: tg-compile %s --entry=relative_bias --emit=ptx --arch=sm_90a | FileCheck %s --check-prefix=PTX
// RUN: tg-compile %s --entry=cheap_distance --emit=cuda --arch=sm_90a | FileCheck %s --check-prefix=NONE
// RUN: tg-compile %s --entry=cheap_distance --emit=cuda --arch=sm_90a | not grep "kDistanceTable = true"
// RUN: tg-compile %s --entry=score_dependent --emit=cuda --arch=sm_90a | not grep "kDistanceTable = true"
// RUN: tg-compile %s --entry=alibi --emit=cuda --arch=sm_90a | not grep "kDistanceTable = true"
// RUN: tg-compile %s --entry=log_distance_per_head --emit=cuda --arch=sm_90a | FileCheck %s --check-prefix=PERHEAD

// TABLE: kernel k0: {{.*}} (sm_90a)
// TABLE: static constexpr bool kDistanceTable = true;
// TABLE: const tg::device::DistanceTable &distance) const {
// TABLE: --- score modifier ---
// TABLE-NEXT: {
// TABLE-NEXT: const float s_0 = distance.at(q_idx, kv_idx); // tg.gather
// TABLE-NEXT: const float s_1 = s + s_0; // tg.add
// TABLE: float distance_term(long long b, long long h, long long d) const {
// TABLE: const int value_0 = (int)(d) + (int)(255LL); // tg.add
// TABLE-NEXT: const float value_1 = capture0_at(captures, h, value_0); // tg.gather
// TABLE-NEXT: value = value_1;
// TABLE: kernel k1: {{.*}} (portable 80)
// TABLE: static constexpr bool kDistanceTable = false;
// TABLE: const float s_2 = capture0_at(captures, h, s_1); // tg.gather
// TABLE-NOT: distance_term

// PTX: .visible .entry tg_attention_fwd_bf16_d64

// PERHEAD: static constexpr bool kDistanceTable = true;
// PERHEAD: = distance.at(q_idx, kv_idx); // tg.mul
// PERHEAD: float distance_term(long long b, long long h, long long d) const {
// PERHEAD: const float capture0 = load_capture_capture0(captures, b, h, 0, 0);
// PERHEAD: logf

// NONE: static constexpr bool kDistanceTable = false;
// NONE-NOT: = distance.at(q_idx

func.func @relative_bias(%q: tensor<1x2x256x64xbf16> {tg.name = "q"}, %k: tensor<1x2x256x64xbf16> {tg.name = "k"},
                         %v: tensor<1x2x256x64xbf16> {tg.name = "v"},
                         %table: tensor<2x511xf32> {tg.name = "table"}) -> (tensor<1x2x256x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v captures(%table : tensor<2x511xf32>) {scale = 0.125 : f64}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %t: tensor<2x511xf32>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %c = tg.constant dense<255> : tensor<i64>
    %r = tg.add %d, %c : tensor<i64>, tensor<i64>
    %e = tg.gather %t[%h, %r] : tensor<2x511xf32>[tensor<i64>, tensor<i64>]
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x256x64xbf16>
}

// An integer test of the distance (a band mask) costs less than a table
// read.
func.func @cheap_distance(%q: tensor<1x2x256x64xbf16> {tg.name = "q"}, %k: tensor<1x2x256x64xbf16> {tg.name = "k"},
                          %v: tensor<1x2x256x64xbf16> {tg.name = "v"}) -> (tensor<1x2x256x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
    %c = tg.constant dense<7> : tensor<i64>
    %near = tg.cmp le, %d, %c : tensor<i64>, tensor<i64>
    %ninf = tg.constant dense<0xFF800000> : tensor<f32>
    %z = tg.select %near, %s, %ninf : tensor<i1>, tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x256x64xbf16>
}

// ALiBi: slope[h] * (kv - q) costs an int-to-float conversion and a
// multiply, less than a table read (measured: tabulated, it ran 3-10%
// slower). With a log of the distance, the per-head slope (an element
// capture [1, H, 1, 1]) is read in distance_term.
func.func @alibi(%q: tensor<1x2x256x64xbf16> {tg.name = "q"}, %k: tensor<1x2x256x64xbf16> {tg.name = "k"},
                 %v: tensor<1x2x256x64xbf16> {tg.name = "v"},
                 %slopes: tensor<1x2x1x1xf32> {tg.name = "slopes"}) -> (tensor<1x2x256x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v captures(%slopes : tensor<1x2x1x1xf32>) {scale = 0.125 : f64}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %m: tensor<f32>):
    %d = tg.sub %ki, %qi : tensor<i64>, tensor<i64>
    %f = tg.cast %d : tensor<i64> to tensor<f32>
    %e = tg.mul %f, %m : tensor<f32>, tensor<f32>
    %z = tg.add %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x256x64xbf16>
}

// The costly part (tanh) reads the score, and the distance's part is a
// select of constants: nothing to tabulate.
func.func @score_dependent(%q: tensor<1x2x256x64xbf16> {tg.name = "q"}, %k: tensor<1x2x256x64xbf16> {tg.name = "k"},
                           %v: tensor<1x2x256x64xbf16> {tg.name = "v"}) -> (tensor<1x2x256x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v {scale = 0.125 : f64}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %zero = tg.constant dense<0> : tensor<i64>
    %past = tg.cmp ge, %d, %zero : tensor<i64>, tensor<i64>
    %one = tg.constant dense<1.0> : tensor<f32>
    %two = tg.constant dense<2.0> : tensor<f32>
    %w = tg.select %past, %one, %two : tensor<i1>, tensor<f32>, tensor<f32>
    %x = tg.mul %s, %w : tensor<f32>, tensor<f32>
    %z = tg.tanh %x : tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x256x64xbf16>
}

func.func @log_distance_per_head(%q: tensor<1x2x256x64xbf16> {tg.name = "q"}, %k: tensor<1x2x256x64xbf16> {tg.name = "k"},
                                 %v: tensor<1x2x256x64xbf16> {tg.name = "v"},
                                 %slopes: tensor<1x2x1x1xf32> {tg.name = "slopes"}) -> (tensor<1x2x256x64xbf16> {tg.name = "o"}) {
  %o = tg.attention %q, %k, %v captures(%slopes : tensor<1x2x1x1xf32>) {scale = 0.125 : f64}
      : tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16>, tensor<1x2x256x64xbf16> -> tensor<1x2x256x64xbf16> score {
  ^bb0(%s: tensor<f32>, %b: tensor<i64>, %h: tensor<i64>, %qi: tensor<i64>, %ki: tensor<i64>, %m: tensor<f32>):
    %d = tg.sub %qi, %ki : tensor<i64>, tensor<i64>
    %n = tg.abs %d : tensor<i64>
    %f = tg.cast %n : tensor<i64> to tensor<f32>
    %one = tg.constant dense<1.0> : tensor<f32>
    %f1 = tg.add %f, %one : tensor<f32>, tensor<f32>
    %l = tg.log %f1 : tensor<f32>
    %e = tg.mul %l, %m : tensor<f32>, tensor<f32>
    %z = tg.sub %s, %e : tensor<f32>, tensor<f32>
    tg.yield %z : tensor<f32>
  }
  return %o : tensor<1x2x256x64xbf16>
}
