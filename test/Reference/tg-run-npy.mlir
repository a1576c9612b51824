// .npy inputs by name, .npy outputs read back by an independent python
// reader, and --save-inputs giving back the exact inputs of a random run.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: python3 %S/Inputs/make_npy.py %t/x.npy '<f4' 2,2 1.5,-2,1.00390625,3
// RUN: python3 %S/Inputs/make_npy.py %t/n.npy '<i8' '' 7
// RUN: tg-run --ref %s --entry=io --input x=%t/x.npy --input n=%t/n.npy --output-dir=%t/out --print-values | FileCheck %s --check-prefix=IO
// RUN: python3 -c "import sys; sys.path.insert(0, '%S/Inputs'); import npy; [print(n, *npy.load('%t/out/' + n + '.npy')) for n in ('y', 'h', 'b', 'k')]" | FileCheck %s --check-prefix=READ
// RUN: head -c 10 %t/out/y.npy | od -c | FileCheck %s --check-prefix=MAGIC

// x arrives as f32 data for a bf16 argument: 1.00390625 = 1 + 2^-8 rounds
// to 1 (tie to even).
// IO-LABEL: input x:
// IO-SAME: dtype bf16
// IO-NEXT: values: [1.5, -2, 1, 3]
// IO-LABEL: input n:
// IO-NEXT: values: [7]
// y = 2 x + n.
// IO-LABEL: output y:
// IO-NEXT: values: [10, 3, 9, 13]
// IO: note: bf16 tensors are stored as float32 in .npy
// bf16 -> float32 '<f4', f16 -> '<f2', i1 -> '|b1', i32 -> '<i4'.
// READ: y (2, 2) [10.0, 3.0, 9.0, 13.0]
// READ: h (2, 2) [1.5, -2.0, 1.0, 3.0]
// READ: b (2, 2) [True, False, True, True]
// READ: k (2,) [0, 1]
// MAGIC: 223   N   U   M   P   Y 001  \0
func.func @io(%x: tensor<2x2xbf16> {tg.name = "x"}, %n: tensor<i64> {tg.name = "n"})
    -> (tensor<2x2xbf16> {tg.name = "y"}, tensor<2x2xf16> {tg.name = "h"},
        tensor<2x2xi1> {tg.name = "b"}, tensor<2xi32> {tg.name = "k"}) {
  %two = tg.constant dense<2.0> : tensor<bf16>
  %nf = tg.cast %n : tensor<i64> to tensor<bf16>
  %x2 = tg.mul %x, %two : tensor<2x2xbf16>, tensor<bf16>
  %y = tg.add %x2, %nf : tensor<2x2xbf16>, tensor<bf16>
  %h = tg.cast %x : tensor<2x2xbf16> to tensor<2x2xf16>
  %zero = tg.constant dense<0.0> : tensor<bf16>
  %b = tg.cmp gt, %x, %zero : tensor<2x2xbf16>, tensor<bf16>
  %k = tg.gen_index axis = 0 : tensor<2xi32>
  return %y, %h, %b, %k : tensor<2x2xbf16>, tensor<2x2xf16>, tensor<2x2xi1>, tensor<2xi32>
}

// A random run saves its inputs; feeding them back gives the same output
// hash, and a different seed gives different inputs.
// RUN: tg-run --ref %s --entry=attention --seed=5 --save-inputs=%t/in > %t/random.txt
// RUN: tg-run --ref %s --entry=attention --input q=%t/in/q.npy --input k=%t/in/k.npy --input v=%t/in/v.npy --input seq_len_kv=%t/in/seq_len_kv.npy >> %t/random.txt
// RUN: tg-run --ref %s --entry=attention --seed=6 >> %t/random.txt
// RUN: FileCheck %s --check-prefix=SAME < %t/random.txt
// SAME: input q: {{.*}} hash [[Q:0x[0-9a-f]+]]
// SAME: output o: {{.*}} hash [[O:0x[0-9a-f]+]]
// SAME: input q: {{.*}} hash [[Q]]
// SAME: output o: {{.*}} hash [[O]]
// SAME-NOT: hash [[Q]]
// SAME: output o:
func.func @attention(%q: tensor<1x2x8x4xf16> {tg.name = "q"}, %k: tensor<1x1x8x4xf16> {tg.name = "k"},
                     %v: tensor<1x1x8x4xf16> {tg.name = "v"}, %lkv: tensor<1xi32> {tg.name = "seq_len_kv"})
    -> (tensor<1x2x8x4xf16> {tg.name = "o"}) {
  %o = tg.sdpa %q, %k, %v seq_len_kv(%lkv : tensor<1xi32>) {causal = #tg<causal bottom_right>}
      : tensor<1x2x8x4xf16>, tensor<1x1x8x4xf16>, tensor<1x1x8x4xf16> -> tensor<1x2x8x4xf16>
  return %o : tensor<1x2x8x4xf16>
}
