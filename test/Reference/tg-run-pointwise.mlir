// Pointwise ops with broadcasting, on constant inputs. Expected values are
// worked out by hand (f32 results printed to 6 significant digits).
//
// RUN: tg-run --ref %s --entry=binary --print-values | FileCheck %s --check-prefix=BIN
// RUN: tg-run --ref %s --entry=unary --print-values | FileCheck %s --check-prefix=UN
// RUN: tg-run --ref %s --entry=integers --print-values | FileCheck %s --check-prefix=INT
// RUN: tg-run --ref %s --entry=compare --print-values | FileCheck %s --check-prefix=CMP

// [2,3] op [1,3] (row broadcast), [2,1] (column) and rank 0.
// BIN-LABEL: output add:
// BIN-NEXT: values: [11, 22, 33, 14, 25, 36]
// BIN-LABEL: output sub:
// BIN-NEXT: values: [-1, 0, 1, 2, 3, 4]
// BIN-LABEL: output max:
// BIN-NEXT: values: [2, 2, 3, 4, 5, 6]
// BIN-LABEL: output min:
// BIN-NEXT: values: [1, 2, 2, 0, 0, 0]
// BIN-LABEL: output pow:
// BIN-NEXT: values: [1, 4, 9, 16, 25, 36]
// BIN-LABEL: output div:
// BIN-NEXT: values: [0.5, 1, 1.5, 2, 2.5, 3]
func.func @binary() -> (tensor<2x3xf32> {tg.name = "add"}, tensor<2x3xf32> {tg.name = "sub"},
                        tensor<2x3xf32> {tg.name = "max"}, tensor<2x3xf32> {tg.name = "min"},
                        tensor<2x3xf32> {tg.name = "pow"}, tensor<2x3xf32> {tg.name = "div"}) {
  %a = tg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %row = tg.constant dense<[[10.0, 20.0, 30.0]]> : tensor<1x3xf32>
  %col = tg.constant dense<[[2.0], [0.0]]> : tensor<2x1xf32>
  %two = tg.constant dense<2.0> : tensor<f32>
  %add = tg.add %a, %row : tensor<2x3xf32>, tensor<1x3xf32>
  %sub = tg.sub %a, %two : tensor<2x3xf32>, tensor<f32>
  %max = tg.max %col, %a : tensor<2x1xf32>, tensor<2x3xf32>
  %min = tg.min %a, %col : tensor<2x3xf32>, tensor<2x1xf32>
  %pow = tg.pow %a, %two : tensor<2x3xf32>, tensor<f32>
  %div = tg.div %a, %two : tensor<2x3xf32>, tensor<f32>
  return %add, %sub, %max, %min, %pow, %div : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// x = [-1, 0, 0.5, 4], y = [0.25, 1, 4, 16]
// UN-LABEL: output exp:
// UN-NEXT: values: [0.367879, 1, 1.64872, 54.5981]
// UN-LABEL: output tanh:
// UN-NEXT: values: [-0.761594, 0, 0.462117, 0.999329]
// UN-LABEL: output sigmoid:
// UN-NEXT: values: [0.268941, 0.5, 0.622459, 0.982014]
// UN-LABEL: output neg:
// UN-NEXT: values: [1, -0, -0.5, -4]
// UN-LABEL: output abs:
// UN-NEXT: values: [1, 0, 0.5, 4]
// UN-LABEL: output log:
// UN-NEXT: values: [-1.38629, 0, 1.38629, 2.77259]
// UN-LABEL: output sqrt:
// UN-NEXT: values: [0.5, 1, 2, 4]
// UN-LABEL: output rsqrt:
// UN-NEXT: values: [2, 1, 0.5, 0.25]
// UN-LABEL: output recip:
// UN-NEXT: values: [4, 1, 0.25, 0.0625]
// exp in bf16: e^4 = 54.598 lies between 54.5 and 54.75 (step 0.25).
// UN-LABEL: output exp_bf16:
// UN-NEXT: values: [0.367188, 1, 1.64844, 54.5]
func.func @unary() -> (tensor<4xf32> {tg.name = "exp"}, tensor<4xf32> {tg.name = "tanh"},
                       tensor<4xf32> {tg.name = "sigmoid"}, tensor<4xf32> {tg.name = "neg"},
                       tensor<4xf32> {tg.name = "abs"}, tensor<4xf32> {tg.name = "log"},
                       tensor<4xf32> {tg.name = "sqrt"}, tensor<4xf32> {tg.name = "rsqrt"},
                       tensor<4xf32> {tg.name = "recip"}, tensor<4xbf16> {tg.name = "exp_bf16"}) {
  %x = tg.constant dense<[-1.0, 0.0, 0.5, 4.0]> : tensor<4xf32>
  %y = tg.constant dense<[0.25, 1.0, 4.0, 16.0]> : tensor<4xf32>
  %xb = tg.constant dense<[-1.0, 0.0, 0.5, 4.0]> : tensor<4xbf16>
  %exp = tg.exp %x : tensor<4xf32>
  %tanh = tg.tanh %x : tensor<4xf32>
  %sig = tg.sigmoid %x : tensor<4xf32>
  %neg = tg.neg %x : tensor<4xf32>
  %abs = tg.abs %x : tensor<4xf32>
  %log = tg.log %y : tensor<4xf32>
  %sqrt = tg.sqrt %y : tensor<4xf32>
  %rsqrt = tg.rsqrt %y : tensor<4xf32>
  %recip = tg.recip %y : tensor<4xf32>
  %expb = tg.exp %xb : tensor<4xbf16>
  return %exp, %tanh, %sig, %neg, %abs, %log, %sqrt, %rsqrt, %recip, %expb : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xbf16>
}

// Integers wrap (two's complement: 56 * 3 = 168 -> -88 in i8) and divide
// toward zero; x / 0 = 0.
// INT-LABEL: output add_i32:
// INT-NEXT: values: [-2147483648, 0]
// INT-LABEL: output mul_i8:
// INT-NEXT: values: [44, -88, 0, -128]
// INT-LABEL: output div_i32:
// INT-NEXT: values: [-3, 3, 0, -2147483648]
// INT-LABEL: output neg_i8:
// INT-NEXT: values: [-100, -56, 0, -128]
// INT-LABEL: output abs_i8:
// INT-NEXT: values: [100, 56, 0, -128]
func.func @integers() -> (tensor<2xi32> {tg.name = "add_i32"}, tensor<4xi8> {tg.name = "mul_i8"},
                          tensor<4xi32> {tg.name = "div_i32"}, tensor<4xi8> {tg.name = "neg_i8"},
                          tensor<4xi8> {tg.name = "abs_i8"}) {
  %big = tg.constant dense<[2147483647, -1]> : tensor<2xi32>
  %one = tg.constant dense<1> : tensor<i32>
  %add = tg.add %big, %one : tensor<2xi32>, tensor<i32>
  %a8 = tg.constant dense<[100, 56, 0, -128]> : tensor<4xi8>
  %three = tg.constant dense<3> : tensor<i8>
  %mul = tg.mul %a8, %three : tensor<4xi8>, tensor<i8>
  %num = tg.constant dense<[-7, -7, 5, -2147483648]> : tensor<4xi32>
  %den = tg.constant dense<[2, -2, 0, -1]> : tensor<4xi32>
  %div = tg.div %num, %den : tensor<4xi32>, tensor<4xi32>
  %neg = tg.neg %a8 : tensor<4xi8>
  %abs = tg.abs %neg : tensor<4xi8>
  return %add, %mul, %div, %neg, %abs : tensor<2xi32>, tensor<4xi8>, tensor<4xi32>, tensor<4xi8>, tensor<4xi8>
}

// Ordered comparisons: NaN compares false except under `ne`.
// CMP-LABEL: output lt:
// CMP-NEXT: values: [1, 0, 0]
// CMP-LABEL: output ne:
// CMP-NEXT: values: [1, 1, 0]
// CMP-LABEL: output ge:
// CMP-NEXT: values: [0, 0, 1]
// CMP-LABEL: output select:
// CMP-NEXT: values: [1, -1, -1]
// CMP-LABEL: output nan_max:
// CMP-NEXT: values: [2, nan, 2]
func.func @compare() -> (tensor<3xi1> {tg.name = "lt"}, tensor<3xi1> {tg.name = "ne"},
                         tensor<3xi1> {tg.name = "ge"}, tensor<3xf32> {tg.name = "select"},
                         tensor<3xf32> {tg.name = "nan_max"}) {
  %x = tg.constant dense<[1.0, 0x7FC00000, 2.0]> : tensor<3xf32>
  %two = tg.constant dense<2.0> : tensor<f32>
  %minus = tg.constant dense<-1.0> : tensor<f32>
  %lt = tg.cmp lt, %x, %two : tensor<3xf32>, tensor<f32>
  %ne = tg.cmp ne, %x, %two : tensor<3xf32>, tensor<f32>
  %ge = tg.cmp ge, %x, %two : tensor<3xf32>, tensor<f32>
  %sel = tg.select %lt, %x, %minus : tensor<3xi1>, tensor<3xf32>, tensor<f32>
  %max = tg.max %x, %two : tensor<3xf32>, tensor<f32>
  return %lt, %ne, %ge, %sel, %max : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xf32>, tensor<3xf32>
}
