#include "KernelGraphs.h"

#include <sstream>

using namespace tgc::test;

/// Every pointwise float op on one element type, in one fused chain, with
/// broadcast operands.
static std::string floatOps(const std::string &t) {
  std::string x = "tensor<1x7x33x" + t + ">", r = "tensor<1x1x33x" + t + ">",
              s = "tensor<" + t + ">";
  std::ostringstream os;
  os << "func.func @float_ops_" << t << "(%x: " << x << ", %r: " << r
     << ", %s: " << s << ") -> (" << x << ", tensor<1x7x33xi1>) {\n"
     << "  %0 = tg.add %x, %r : " << x << ", " << r << "\n"
     << "  %1 = tg.sub %0, %s : " << x << ", " << s << "\n"
     << "  %2 = tg.mul %1, %x : " << x << ", " << x << "\n"
     << "  %3 = tg.div %2, %r : " << x << ", " << r << "\n"
     << "  %4 = tg.max %3, %s : " << x << ", " << s << "\n"
     << "  %5 = tg.min %4, %x : " << x << ", " << x << "\n"
     << "  %6 = tg.pow %5, %r : " << x << ", " << r << "\n"
     << "  %7 = tg.exp %6 : " << x << "\n"
     << "  %8 = tg.log %7 : " << x << "\n"
     << "  %9 = tg.tanh %8 : " << x << "\n"
     << "  %10 = tg.neg %9 : " << x << "\n"
     << "  %11 = tg.abs %10 : " << x << "\n"
     << "  %12 = tg.sqrt %11 : " << x << "\n"
     << "  %13 = tg.rsqrt %12 : " << x << "\n"
     << "  %14 = tg.recip %13 : " << x << "\n"
     << "  %15 = tg.sigmoid %14 : " << x << "\n"
     << "  %c = tg.constant dense<0xFF800000> : tensor<f32>\n"
     << "  %ct = tg.cast %c : tensor<f32> to " << s << "\n"
     << "  %16 = tg.cmp ge, %15, %ct : " << x << ", " << s << "\n"
     << "  %17 = tg.select %16, %15, %x : tensor<1x7x33xi1>, " << x << ", "
     << x << "\n"
     << "  %cmp = tg.cmp ne, %17, %x : " << x << ", " << x << "\n"
     << "  return %17, %cmp : " << x << ", tensor<1x7x33xi1>\n"
     << "}\n";
  return os.str();
}

/// Every pointwise integer op on one element type.
static std::string intOps(const std::string &t) {
  std::string x = "tensor<3x5x" + t + ">", r = "tensor<1x5x" + t + ">";
  std::ostringstream os;
  os << "func.func @int_ops_" << t << "(%x: " << x << ", %r: " << r
     << ") -> " << x << " {\n"
     << "  %0 = tg.add %x, %r : " << x << ", " << r << "\n"
     << "  %1 = tg.sub %0, %r : " << x << ", " << r << "\n"
     << "  %2 = tg.mul %1, %x : " << x << ", " << x << "\n"
     << "  %3 = tg.div %2, %r : " << x << ", " << r << "\n"
     << "  %4 = tg.max %3, %x : " << x << ", " << x << "\n"
     << "  %5 = tg.min %4, %r : " << x << ", " << r << "\n"
     << "  %6 = tg.neg %5 : " << x << "\n"
     << "  %7 = tg.abs %6 : " << x << "\n"
     << "  %c = tg.constant dense<-3> : tensor<" << t << ">\n"
     << "  %8 = tg.cmp lt, %7, %c : " << x << ", tensor<" << t << ">\n"
     << "  %9 = tg.select %8, %7, %x : tensor<3x5xi1>, " << x << ", " << x
     << "\n"
     << "  return %9 : " << x << "\n"
     << "}\n";
  return os.str();
}

/// One fused chain that casts between every ordered pair of element types.
static std::string castChain() {
  const char *types[] = {"f32",  "bf16", "f16", "f8E4M3FN", "f8E5M2",
                         "i8",   "i32",  "i64", "i1"};
  std::ostringstream os;
  os << "func.func @cast_every_pair(%x: tensor<4x9xf32>) -> tensor<4x9xf32> "
        "{\n";
  std::string current = "%x", currentType = "f32";
  int n = 0;
  auto castTo = [&](const std::string &type) {
    std::string name = "%c" + std::to_string(n++);
    os << "  " << name << " = tg.cast " << current << " : tensor<4x9x"
       << currentType << "> to tensor<4x9x" << type << ">\n";
    current = name;
    currentType = type;
  };
  for (const char *from : types) {
    castTo(from);
    for (const char *to : types) {
      if (std::string(to) == from)
        continue;
      castTo(to);
      castTo(from);
    }
  }
  castTo("f32");
  os << "  return " << current << " : tensor<4x9xf32>\n}\n";
  return os.str();
}

static std::string reductions() {
  std::ostringstream os;
  const char *types[] = {"f32", "bf16", "f16", "f8E4M3FN", "f8E5M2",
                         "i8",  "i32",  "i64"};
  for (const char *t : types) {
    std::string x = std::string("tensor<2x7x33x") + t + ">";
    os << "func.func @reduce_" << t << "(%x: " << x
       << ") -> (tensor<2x7x1x" << t << ">, tensor<7x" << t
       << ">, tensor<" << t << ">) {\n"
       << "  %0 = tg.reduce sum %x dims = [2] keepdim : " << x
       << " -> tensor<2x7x1x" << t << ">\n"
       << "  %1 = tg.reduce max %x dims = [0, 2] : " << x << " -> tensor<7x"
       << t << ">\n"
       << "  %2 = tg.reduce min %x dims = [0, 1, 2] : " << x << " -> tensor<"
       << t << ">\n"
       << "  return %0, %1, %2 : tensor<2x7x1x" << t << ">, tensor<7x" << t
       << ">, tensor<" << t << ">\n}\n";
  }
  // A long reduction (one block per output) over a transposed view.
  os << "func.func @reduce_long(%x: tensor<5000x3xf32>) -> tensor<3x1xf32> {\n"
     << "  %t = tg.transpose %x perm = [1, 0] : tensor<5000x3xf32> -> "
        "tensor<3x5000xf32>\n"
     << "  %s = tg.reduce sum %t dims = [1] keepdim : tensor<3x5000xf32> -> "
        "tensor<3x1xf32>\n"
     << "  return %s : tensor<3x1xf32>\n}\n";
  return os.str();
}

static std::string softmaxes() {
  std::ostringstream os;
  for (const char *t : {"f32", "bf16", "f16"}) {
    std::string x = std::string("tensor<2x3x17x9x") + t + ">";
    os << "func.func @softmax_" << t << "(%x: " << x << ") -> (" << x << ", "
       << x << ", tensor<2x1x17x9xf32>) {\n"
       << "  %0 = tg.softmax %x axis = 3 : " << x << "\n"
       << "  %1, %lse = tg.softmax %x axis = 1 : " << x
       << " stats tensor<2x1x17x9xf32>\n"
       << "  return %0, %1, %lse : " << x << ", " << x
       << ", tensor<2x1x17x9xf32>\n}\n";
  }
  os << "func.func @softmax_long(%x: tensor<2x4096xbf16>) -> (tensor<2x4096xbf16>, tensor<2x1xf32>) {\n"
     << "  %0, %lse = tg.softmax %x axis = 1 : tensor<2x4096xbf16> stats tensor<2x1xf32>\n"
     << "  return %0, %lse : tensor<2x4096xbf16>, tensor<2x1xf32>\n}\n";
  return os.str();
}

std::vector<KernelGraph> tgc::test::kernelGraphs() {
  std::vector<KernelGraph> graphs;
  for (const char *t : {"f32", "bf16", "f16", "f8E4M3FN", "f8E5M2"})
    graphs.push_back({std::string("float_ops_") + t, floatOps(t)});
  for (const char *t : {"i8", "i32", "i64"})
    graphs.push_back({std::string("int_ops_") + t, intOps(t)});
  graphs.push_back({"cast_every_pair", castChain()});
  graphs.push_back({"reductions", reductions()});
  graphs.push_back({"softmax", softmaxes()});
  graphs.push_back({"masks_and_indices", R"mlir(
func.func @causal_mask(%s: tensor<2x4x17x33xf32>) -> (tensor<2x4x17x33xf32>, tensor<1x1x17x33xi64>) {
  %q = tg.gen_index axis = 2 : tensor<1x1x17x33xi64>
  %k = tg.gen_index axis = 3 : tensor<1x1x17x33xi32>
  %k64 = tg.cast %k : tensor<1x1x17x33xi32> to tensor<1x1x17x33xi64>
  %future = tg.cmp gt, %k64, %q : tensor<1x1x17x33xi64>, tensor<1x1x17x33xi64>
  %ninf = tg.constant dense<0xFF800000> : tensor<f32>
  %m = tg.select %future, %ninf, %s : tensor<1x1x17x33xi1>, tensor<f32>, tensor<2x4x17x33xf32>
  return %m, %q : tensor<2x4x17x33xf32>, tensor<1x1x17x33xi64>
}
func.func @i8_index() -> tensor<100xi8> {
  %i = tg.gen_index axis = 0 : tensor<100xi8>
  %one = tg.constant dense<1> : tensor<i8>
  %r = tg.add %i, %one : tensor<100xi8>, tensor<i8>
  return %r : tensor<100xi8>
}
)mlir"});
  graphs.push_back({"layout", R"mlir(
func.func @layout(%k: tensor<2x3x5x8xbf16>, %v: tensor<2x5x3x8xbf16>) -> (tensor<2x3x8x5xbf16>, tensor<6x40xbf16>, tensor<2x3x5x8xbf16>, tensor<2x15x8xbf16>) {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x3x5x8xbf16> -> tensor<2x3x8x5xbf16>
  %e = tg.exp %kt : tensor<2x3x8x5xbf16>
  %r = tg.reshape %k : tensor<2x3x5x8xbf16> -> tensor<6x40xbf16>
  %vt = tg.transpose %v perm = [0, 2, 1, 3] : tensor<2x5x3x8xbf16> -> tensor<2x3x5x8xbf16>
  %vr = tg.reshape %vt : tensor<2x3x5x8xbf16> -> tensor<2x15x8xbf16>
  %n = tg.neg %vr : tensor<2x15x8xbf16>
  return %e, %r, %vt, %n : tensor<2x3x8x5xbf16>, tensor<6x40xbf16>, tensor<2x3x5x8xbf16>, tensor<2x15x8xbf16>
}
func.func @gqa_broadcast(%k: tensor<1x2x1x7x8xf16>) -> tensor<1x8x7x8xf16> {
  %b = tg.broadcast %k : tensor<1x2x1x7x8xf16> -> tensor<1x2x4x7x8xf16>
  %r = tg.reshape %b : tensor<1x2x4x7x8xf16> -> tensor<1x8x7x8xf16>
  %s = tg.sigmoid %r : tensor<1x8x7x8xf16>
  return %s : tensor<1x8x7x8xf16>
}
func.func @returned_views(%x: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<3x4xi32>, tensor<3x4xf32>) {
  %t = tg.transpose %x perm = [1, 0] : tensor<3x4xf32> -> tensor<4x3xf32>
  %x3 = tg.reshape %x : tensor<3x4xf32> -> tensor<1x3x4xf32>
  %b = tg.broadcast %x3 : tensor<1x3x4xf32> -> tensor<2x3x4xf32>
  %i = tg.gen_index axis = 1 : tensor<3x4xi32>
  %c = tg.constant dense<2.5> : tensor<3x4xf32>
  return %t, %b, %i, %c : tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<3x4xi32>, tensor<3x4xf32>
}
)mlir"});
  graphs.push_back({"dropout", R"mlir(
func.func @dropout(%p: tensor<2x3x17x33xbf16>, %seed: tensor<i64>, %offset: tensor<i64>) -> (tensor<2x3x17x33xbf16>, tensor<5x7xf32>) {
  %e = tg.exp %p : tensor<2x3x17x33xbf16>
  %d = tg.dropout %e, %seed, %offset prob = 1.000000e-01 : tensor<2x3x17x33xbf16>
  %x = tg.constant dense<1.5> : tensor<5x7xf32>
  %s2 = tg.constant dense<1234> : tensor<i64>
  %u = tg.dropout %x, %s2, %offset prob = 5.000000e-01 unscaled : tensor<5x7xf32>
  return %d, %u : tensor<2x3x17x33xbf16>, tensor<5x7xf32>
}
)mlir"});
  graphs.push_back({"constants", R"mlir(
func.func @constants(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x2xi1>, tensor<3xi64>, tensor<2xf8E4M3FN>, tensor<2xi8>) {
  %a = tg.constant dense<[[1.0, -2.5, 0x7F800000], [0xFF800000, 0x7FC00000, 3.0e-38]]> : tensor<2x3xf32>
  %s = tg.add %x, %a : tensor<2x3xf32>, tensor<2x3xf32>
  %b = tg.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xbf16>
  %i1 = tg.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %i64 = tg.constant dense<[-9223372036854775808, 0, 9223372036854775807]> : tensor<3xi64>
  %f8 = tg.constant dense<[448.0, -0.5]> : tensor<2xf8E4M3FN>
  %i8 = tg.constant dense<[-128, 127]> : tensor<2xi8>
  return %s, %b, %i1, %i64, %f8, %i8 : tensor<2x3xf32>, tensor<2x3xbf16>, tensor<2x2xi1>, tensor<3xi64>, tensor<2xf8E4M3FN>, tensor<2xi8>
}
)mlir"});
  graphs.push_back({"matmul", R"mlir(
func.func @bf16_wmma(%a: tensor<2x8x128x64xbf16>, %b: tensor<2x8x64x128xbf16>) -> tensor<2x8x128x128xf32> {
  %c = tg.matmul %a, %b : tensor<2x8x128x64xbf16>, tensor<2x8x64x128xbf16> -> tensor<2x8x128x128xf32>
  return %c : tensor<2x8x128x128xf32>
}
func.func @f16_wmma_odd(%a: tensor<1x7x33xf16>, %b: tensor<1x33x5xf16>) -> tensor<1x7x5xf16> {
  %c = tg.matmul %a, %b : tensor<1x7x33xf16>, tensor<1x33x5xf16> -> tensor<1x7x5xf16>
  return %c : tensor<1x7x5xf16>
}
func.func @f32_simt_broadcast(%a: tensor<2x1x17x9xf32>, %b: tensor<1x3x9x65xf32>) -> tensor<2x3x17x65xf32> {
  %c = tg.matmul %a, %b : tensor<2x1x17x9xf32>, tensor<1x3x9x65xf32> -> tensor<2x3x17x65xf32>
  return %c : tensor<2x3x17x65xf32>
}
func.func @i8_simt(%a: tensor<16x64xi8>, %b: tensor<64x32xi8>) -> tensor<16x32xi32> {
  %c = tg.matmul %a, %b acc = i32 : tensor<16x64xi8>, tensor<64x32xi8> -> tensor<16x32xi32>
  return %c : tensor<16x32xi32>
}
func.func @i8_f16_wmma(%a: tensor<16x64xi8>, %b: tensor<64x32xf16>) -> tensor<16x32xbf16> {
  %c = tg.matmul %a, %b : tensor<16x64xi8>, tensor<64x32xf16> -> tensor<16x32xbf16>
  return %c : tensor<16x32xbf16>
}
func.func @fp8_bf16_wmma(%a: tensor<33x40xf8E4M3FN>, %b: tensor<40x7xbf16>) -> tensor<33x7xf8E5M2> {
  %c = tg.matmul %a, %b : tensor<33x40xf8E4M3FN>, tensor<40x7xbf16> -> tensor<33x7xf8E5M2>
  return %c : tensor<33x7xf8E5M2>
}
func.func @bf16_f16_simt(%a: tensor<5x6xbf16>, %b: tensor<6x7xf16>) -> tensor<5x7xf32> {
  %c = tg.matmul %a, %b : tensor<5x6xbf16>, tensor<6x7xf16> -> tensor<5x7xf32>
  return %c : tensor<5x7xf32>
}
func.func @i64_i32_to_i8(%a: tensor<5x6xi64>, %b: tensor<6x7xi32>) -> tensor<5x7xi8> {
  %c = tg.matmul %a, %b acc = i32 : tensor<5x6xi64>, tensor<6x7xi32> -> tensor<5x7xi8>
  return %c : tensor<5x7xi8>
}
func.func @f32_i8(%a: tensor<5x6xf32>, %b: tensor<6x7xi8>) -> tensor<5x7xf16> {
  %c = tg.matmul %a, %b : tensor<5x6xf32>, tensor<6x7xi8> -> tensor<5x7xf16>
  return %c : tensor<5x7xf16>
}
func.func @transposed_operand(%q: tensor<1x2x17x64xbf16>, %k: tensor<1x2x33x64xbf16>) -> tensor<1x2x17x33xf32> {
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<1x2x33x64xbf16> -> tensor<1x2x64x33xbf16>
  %s = tg.matmul %q, %kt : tensor<1x2x17x64xbf16>, tensor<1x2x64x33xbf16> -> tensor<1x2x17x33xf32>
  return %s : tensor<1x2x17x33xf32>
}
)mlir"});
  graphs.push_back({"fused_matmul", R"mlir(
func.func @dequant(%x: tensor<16x64xf16>, %w: tensor<64x32xi8>, %scale: tensor<1x32xf16>, %bias: tensor<1x32xf32>) -> tensor<16x32xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x32xf16>) epilogue_captures(%bias : tensor<1x32xf32>)
      : tensor<16x64xf16>, tensor<64x32xi8> -> tensor<16x32xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i8> to tensor<f16>
      %d = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %d : tensor<f16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %z = tg.constant dense<0.0> : tensor<f32>
      %a = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %r = tg.max %a, %z : tensor<f32>, tensor<f32>
      %c = tg.cast %r : tensor<f32> to tensor<bf16>
      tg.yield %c : tensor<bf16>
    }
  return %y : tensor<16x32xbf16>
}
func.func @f32_prologue(%x: tensor<3x17x9xbf16>, %w: tensor<3x9x5xbf16>, %s: tensor<f32>) -> tensor<3x17x5xf32> {
  %y = tg.fused_matmul %x, %w a_captures(%s : tensor<f32>)
      : tensor<3x17x9xbf16>, tensor<3x9x5xbf16> -> tensor<3x17x5xf32>
    prologue_a {
    ^bb0(%e: tensor<bf16>, %c: tensor<f32>):
      %f = tg.cast %e : tensor<bf16> to tensor<f32>
      %m = tg.mul %f, %c : tensor<f32>, tensor<f32>
      tg.yield %m : tensor<f32>
    }
    prologue_b {}
    epilogue {}
  return %y : tensor<3x17x5xf32>
}
)mlir"});
  // The mixed-input kernel (device/mixed_matmul.cuh): each prologue form,
  // every weight type, split K with a tail step, several CTAs of rows, a
  // batched x and a result through an epilogue.
  graphs.push_back({"mixed_matmul", R"mlir(
func.func @i8_plain(%x: tensor<16x256xbf16>, %w: tensor<256x128xi8>) -> tensor<16x128xbf16> {
  %y = tg.matmul %x, %w : tensor<16x256xbf16>, tensor<256x128xi8> -> tensor<16x128xbf16>
  return %y : tensor<16x128xbf16>
}
func.func @i8_column_scale_split(%x: tensor<3x5x1024xbf16>, %w: tensor<1x1024x48xi8>, %scale: tensor<1x1x48xbf16>) -> tensor<3x5x48xf32> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x1x48xbf16>)
      : tensor<3x5x1024xbf16>, tensor<1x1024x48xi8> -> tensor<3x5x48xf32>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i8> to tensor<bf16>
      %d = tg.mul %s, %h : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<3x5x48xf32>
}
func.func @i8_zero_point_generic(%x: tensor<40x200xf16>, %w: tensor<200x64xi8>, %zero: tensor<1x64xi8>, %scale: tensor<200x1xf16>) -> tensor<40x64xf16> {
  %y = tg.fused_matmul %x, %w b_captures(%zero, %scale : tensor<1x64xi8>, tensor<200x1xf16>)
      : tensor<40x200xf16>, tensor<200x64xi8> -> tensor<40x64xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i8>, %z: tensor<i8>, %s: tensor<f16>):
      %d = tg.sub %e, %z : tensor<i8>, tensor<i8>
      %h = tg.cast %d : tensor<i8> to tensor<f16>
      %r = tg.mul %h, %s : tensor<f16>, tensor<f16>
      tg.yield %r : tensor<f16>
    }
    epilogue {}
  return %y : tensor<40x64xf16>
}
func.func @e4m3_scale_epilogue(%x: tensor<100x512xbf16>, %w: tensor<512x96xf8E4M3FN>, %scale: tensor<bf16>, %bias: tensor<1x96xf32>) -> tensor<100x96xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<bf16>) epilogue_captures(%bias : tensor<1x96xf32>)
      : tensor<100x512xbf16>, tensor<512x96xf8E4M3FN> -> tensor<100x96xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<f8E4M3FN>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<f8E4M3FN> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {
    ^bb0(%acc: tensor<f32>, %b: tensor<f32>):
      %a = tg.add %acc, %b : tensor<f32>, tensor<f32>
      %c = tg.cast %a : tensor<f32> to tensor<bf16>
      tg.yield %c : tensor<bf16>
    }
  return %y : tensor<100x96xbf16>
}
func.func @e5m2_identity_tail(%x: tensor<1x72xf16>, %w: tensor<72x32xf8E5M2>) -> tensor<1x32xf16> {
  %y = tg.matmul %x, %w : tensor<1x72xf16>, tensor<72x32xf8E5M2> -> tensor<1x32xf16>
  return %y : tensor<1x32xf16>
}
func.func @i4_scaled_tail(%x: tensor<5x200xbf16>, %w: tensor<200x96xi4>, %scale: tensor<1x96xbf16>) -> tensor<5x96xbf16> {
  %y = tg.fused_matmul %x, %w b_captures(%scale : tensor<1x96xbf16>)
      : tensor<5x200xbf16>, tensor<200x96xi4> -> tensor<5x96xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %s: tensor<bf16>):
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.mul %h, %s : tensor<bf16>, tensor<bf16>
      tg.yield %d : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<5x96xbf16>
}
func.func @i4_zero_point_row_scale_generic(%x: tensor<40x256xf16>, %w: tensor<256x64xi4>, %zero: tensor<1x64xf16>, %scale: tensor<256x1xf16>) -> tensor<40x64xf16> {
  %y = tg.fused_matmul %x, %w b_captures(%zero, %scale : tensor<1x64xf16>, tensor<256x1xf16>)
      : tensor<40x256xf16>, tensor<256x64xi4> -> tensor<40x64xf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %z: tensor<f16>, %s: tensor<f16>):
      %h = tg.cast %e : tensor<i4> to tensor<f16>
      %d = tg.sub %h, %z : tensor<f16>, tensor<f16>
      %r = tg.mul %d, %s : tensor<f16>, tensor<f16>
      tg.yield %r : tensor<f16>
    }
    epilogue {}
  return %y : tensor<40x64xf16>
}
)mlir"});
  // i4 weights on the generic kernels: a dequantising cast (the dequant
  // plan's kernel) and a matmul whose N the mixed-input kernel refuses.
  graphs.push_back({"i4_generic", R"mlir(
func.func @dequantise(%w: tensor<64x30xi4>, %s: tensor<1x30xbf16>) -> tensor<64x30xbf16> {
  %h = tg.cast %w : tensor<64x30xi4> to tensor<64x30xbf16>
  %d = tg.mul %h, %s : tensor<64x30xbf16>, tensor<1x30xbf16>
  return %d : tensor<64x30xbf16>
}
func.func @odd_columns(%x: tensor<7x64xbf16>, %w: tensor<64x30xi4>) -> tensor<7x30xf32> {
  %y = tg.matmul %x, %w : tensor<7x64xbf16>, tensor<64x30xi4> -> tensor<7x30xf32>
  return %y : tensor<7x30xf32>
}
)mlir"});
  // Graph-level tg.gather: a relative bias from a table (clamp), document
  // ids through a transposed view (fill), and an integer table produced by
  // a kernel (it must be a buffer, not fused into the gather).
  graphs.push_back({"gathers", R"mlir(
func.func @relative_bias(%t: tensor<8x31xbf16>, %h: tensor<1x8x1x1xi64>, %r: tensor<1x1x16x16xi64>,
                         %s: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  %b = tg.gather %t[%h, %r] : tensor<8x31xbf16>[tensor<1x8x1x1xi64>, tensor<1x1x16x16xi64>]
  %bf = tg.cast %b : tensor<1x8x16x16xbf16> to tensor<1x8x16x16xf32>
  %z = tg.add %s, %bf : tensor<2x8x16x16xf32>, tensor<1x8x16x16xf32>
  return %z : tensor<2x8x16x16xf32>
}
func.func @document_ids(%doc: tensor<64x2xi32>, %pos: tensor<1x64xi64>) -> tensor<2x64xi1> {
  %dt = tg.transpose %doc perm = [1, 0] : tensor<64x2xi32> -> tensor<2x64xi32>
  %b = tg.gen_index axis = 0 : tensor<2x1xi64>
  %g = tg.gather %dt[%b, %pos] fill(-1) : tensor<2x64xi32>[tensor<2x1xi64>, tensor<1x64xi64>]
  %c = tg.constant dense<3> : tensor<i32>
  %e = tg.cmp eq, %g, %c : tensor<2x64xi32>, tensor<i32>
  return %e : tensor<2x64xi1>
}
func.func @computed_table(%x: tensor<4x4xi64>, %i: tensor<4x4xi64>) -> tensor<4x4xi64> {
  %t = tg.add %x, %x : tensor<4x4xi64>, tensor<4x4xi64>
  %g = tg.gather %t[%i, %i] : tensor<4x4xi64>[tensor<4x4xi64>, tensor<4x4xi64>]
  return %g : tensor<4x4xi64>
}
)mlir"});
  // Element-wise kernels of 2^20 elements take 8 per thread through vector
  // loads and stores: every storage type read and written that way.
  graphs.push_back({"vector_pointwise", R"mlir(
func.func @floats(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf16>, %c: tensor<1024x1024xbf16>,
                  %d: tensor<1024x1024xf8E4M3FN>, %e: tensor<1024x1024xf8E5M2>, %bias: tensor<1x1024xf32>)
    -> (tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E5M2>) {
  %bf = tg.cast %b : tensor<1024x1024xf16> to tensor<1024x1024xf32>
  %cf = tg.cast %c : tensor<1024x1024xbf16> to tensor<1024x1024xf32>
  %df = tg.cast %d : tensor<1024x1024xf8E4M3FN> to tensor<1024x1024xf32>
  %ef = tg.cast %e : tensor<1024x1024xf8E5M2> to tensor<1024x1024xf32>
  %s1 = tg.add %a, %bf : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s2 = tg.add %cf, %df : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s3 = tg.add %s1, %s2 : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s4 = tg.add %s3, %ef : tensor<1024x1024xf32>, tensor<1024x1024xf32>
  %s = tg.add %s4, %bias : tensor<1024x1024xf32>, tensor<1x1024xf32>
  %h = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf16>
  %g = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xbf16>
  %p = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf8E4M3FN>
  %q = tg.cast %s : tensor<1024x1024xf32> to tensor<1024x1024xf8E5M2>
  return %s, %h, %g, %p, %q : tensor<1024x1024xf32>, tensor<1024x1024xf16>, tensor<1024x1024xbf16>, tensor<1024x1024xf8E4M3FN>, tensor<1024x1024xf8E5M2>
}
func.func @integers(%a: tensor<1024x1024xi8>, %b: tensor<1024x1024xi32>, %c: tensor<1024x1024xi64>,
                    %d: tensor<1024x1024xi4>, %m: tensor<1024x1024xi1>)
    -> (tensor<1024x1024xi8>, tensor<1024x1024xi32>, tensor<1024x1024xi64>, tensor<1024x1024xi1>) {
  %a64 = tg.cast %a : tensor<1024x1024xi8> to tensor<1024x1024xi64>
  %b64 = tg.cast %b : tensor<1024x1024xi32> to tensor<1024x1024xi64>
  %d64 = tg.cast %d : tensor<1024x1024xi4> to tensor<1024x1024xi64>
  %s1 = tg.add %a64, %b64 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s2 = tg.add %c, %d64 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s3 = tg.add %s1, %s2 : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %z = tg.constant dense<0> : tensor<1024x1024xi64>
  %s = tg.select %m, %s3, %z : tensor<1024x1024xi1>, tensor<1024x1024xi64>, tensor<1024x1024xi64>
  %s8 = tg.cast %s : tensor<1024x1024xi64> to tensor<1024x1024xi8>
  %s32 = tg.cast %s : tensor<1024x1024xi64> to tensor<1024x1024xi32>
  %pos = tg.cmp gt, %s, %z : tensor<1024x1024xi64>, tensor<1024x1024xi64>
  return %s8, %s32, %s, %pos : tensor<1024x1024xi8>, tensor<1024x1024xi32>, tensor<1024x1024xi64>, tensor<1024x1024xi1>
}
)mlir"});
  // The mixed-input kernel with group-wise scales and zero points (the
  // [K / G, 1, N] tensors as [K, N] views) and a splat constant.
  graphs.push_back({"mixed_matmul_groups", R"mlir(
func.func @groups(%x: tensor<16x512xbf16>, %w: tensor<512x256xi4>, %z: tensor<4x1x256xbf16>,
                  %s: tensor<4x1x256xbf16>) -> tensor<16x256xbf16> {
  %zb = tg.broadcast %z : tensor<4x1x256xbf16> -> tensor<4x128x256xbf16>
  %zv = tg.reshape %zb : tensor<4x128x256xbf16> -> tensor<512x256xbf16>
  %sb = tg.broadcast %s : tensor<4x1x256xbf16> -> tensor<4x128x256xbf16>
  %sv = tg.reshape %sb : tensor<4x128x256xbf16> -> tensor<512x256xbf16>
  %y = tg.fused_matmul %x, %w b_captures(%zv, %sv : tensor<512x256xbf16>, tensor<512x256xbf16>)
      : tensor<16x512xbf16>, tensor<512x256xi4> -> tensor<16x256xbf16>
    prologue_a {}
    prologue_b {
    ^bb0(%e: tensor<i4>, %cz: tensor<bf16>, %cs: tensor<bf16>):
      %two = tg.constant dense<2.0> : tensor<bf16>
      %h = tg.cast %e : tensor<i4> to tensor<bf16>
      %d = tg.sub %h, %cz : tensor<bf16>, tensor<bf16>
      %m = tg.mul %d, %cs : tensor<bf16>, tensor<bf16>
      %t = tg.add %m, %two : tensor<bf16>, tensor<bf16>
      tg.yield %t : tensor<bf16>
    }
    epilogue {}
  return %y : tensor<16x256xbf16>
}
)mlir"});
  graphs.push_back({"decomposed_softmax", R"mlir(
func.func @decomposed(%s: tensor<2x4x17x33xf32>) -> tensor<2x4x17x33xbf16> {
  %m = tg.reduce max %s dims = [3] keepdim : tensor<2x4x17x33xf32> -> tensor<2x4x17x1xf32>
  %d = tg.sub %s, %m : tensor<2x4x17x33xf32>, tensor<2x4x17x1xf32>
  %e = tg.exp %d : tensor<2x4x17x33xf32>
  %z = tg.reduce sum %e dims = [3] keepdim : tensor<2x4x17x33xf32> -> tensor<2x4x17x1xf32>
  %p = tg.div %e, %z : tensor<2x4x17x33xf32>, tensor<2x4x17x1xf32>
  %c = tg.cast %p : tensor<2x4x17x33xf32> to tensor<2x4x17x33xbf16>
  return %c : tensor<2x4x17x33xbf16>
}
)mlir"});
  return graphs;
}
