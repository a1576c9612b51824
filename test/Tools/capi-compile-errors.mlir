// The C API's compile entry points report bad graphs, bad options and null
// arguments through status codes and tgc_last_error(), never a crash.
// RUN: %ctypes_env python3 %tgc_src/test/Tools/Inputs/capi_compile.py %tgc_obj/lib/libtgc.so %s | FileCheck %s

// CHECK: good: 0
// CHECK: deterministic: 0
// CHECK: garbage: 4 {{.*}}error: custom op 'this' is unknown
// CHECK: fast math: 0
// CHECK: bad option: 1 unknown compile option '--fast' (expected --arch=TARGET, --entry=NAME, --backend=NAME, --mixed-matmul=PLAN, --attention-tile=TILE, --deterministic or --fast-math)
// CHECK: mixed plan: 0
// CHECK: bad mixed plan: 4 {{.*}}error: unknown mixed-matmul plan 'split' (expected auto, fused, dequant or generated)
// CHECK: tile without attention: 4 {{.*}}error: 'func.func' op --attention-tile 128x128:8:smem:s2:wg:ws was given, but the plan has no fused attention forward kernel (attention on cuDNN or expanded into generic kernels)
// CHECK: bad arch: 1 unknown arch 'gfx90a'
// CHECK: null out: 1 tgc_compile_string: source and out must not be null
// CHECK: missing file: 3 cannot read
// CHECK: deep nesting: 4 <string>:1:{{[0-9]+}}: error: brackets nest more than 256 levels deep
// CHECK: index array: 4 <string>:1:38: error: expected an integer or float element type in 'array<...>', found 'index'
// CHECK: device file: 3 cannot read '/dev/zero': it is not a file or a pipe
func.func @f(%x: tensor<4xf32> {tg.name = "x"}) -> (tensor<4xf32> {tg.name = "y"}) {
  %y = tg.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
