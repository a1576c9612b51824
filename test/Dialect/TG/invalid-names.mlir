// Verifier errors of the tg.name binding attribute and of misplaced tg
// attributes.
// RUN: tg-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{'func.func' op argument 0: 'tg.name' expects a string}}
func.func @not_string(%a: tensor<4xf32> {tg.name = 3 : i64}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.name' must not be empty}}
func.func @empty(%a: tensor<4xf32> {tg.name = ""}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 1: 'tg.name' "q" is already used by argument 0 (expected unique binding names)}}
func.func @duplicate_arg(%a: tensor<4xf32> {tg.name = "q"}, %b: tensor<4xf32> {tg.name = "q"}) {
  return
}

// -----

// expected-error @below {{'func.func' op result 0: 'tg.name' "x" is already used by argument 1 (expected unique binding names)}}
func.func @duplicate_result(%a: tensor<4xf32> {tg.name = "a"}, %b: tensor<4xf32> {tg.name = "x"})
    -> (tensor<4xf32> {tg.name = "x"}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op result 1: 'tg.name' "o" is already used by result 0 (expected unique binding names)}}
func.func @duplicate_results(%a: tensor<4xf32>) -> (tensor<4xf32> {tg.name = "o"}, tensor<4xf32> {tg.name = "o"}) {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0: unknown attribute 'tg.layout' (expected 'tg.name' or 'tg.strides')}}
func.func @unknown(%a: tensor<4xf32> {tg.layout = "nhwc"}) {
  return
}

// -----

func.func @on_operation(%a: tensor<4xf32>) {
  // expected-error @below {{attribute 'tg.name' is not valid on operations (tg attributes go on graph arguments and results; ops take only 'tg.backend')}}
  %0 = tg.neg %a {tg.name = "x"} : tensor<4xf32>
  return
}

// -----

func.func @unknown_backend(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.backend' must be #tg<backend nvrtc> or #tg<backend cudnn>, got "cublas"}}
  %0 = tg.neg %a {tg.backend = "cublas"} : tensor<4xf32>
  return
}

// -----

// The string spelling of earlier versions is refused with the new one.
func.func @string_backend(%a: tensor<4xf32>) {
  // expected-error @below {{'tg.backend' is written #tg<backend cudnn>, not the string "cudnn"}}
  %0 = tg.neg %a {tg.backend = "cudnn"} : tensor<4xf32>
  return
}

// -----

func.func @backend_keyword(%a: tensor<4xf32>) {
  // expected-error @below {{expected ::mlir::tg::Backend to be one of: nvrtc, cudnn}}
  // expected-error @below {{failed to parse TG_BackendAttr parameter 'value'}}
  %0 = tg.neg %a {tg.backend = #tg<backend cublas>} : tensor<4xf32>
  return
}

// -----

// A byte that starts no UTF-8 sequence (MLIR's "\FF" escape).
// expected-error @below {{'func.func' op argument 0: 'tg.name' must be valid UTF-8}}
func.func @not_utf8(%a: tensor<4xf32> {tg.name = "q\FF"}) {
  return
}

// -----

// A truncated two-byte sequence.
// expected-error @below {{'func.func' op result 0: 'tg.name' must be valid UTF-8}}
func.func @truncated_utf8(%a: tensor<4xf32>) -> (tensor<4xf32> {tg.name = "o\C3"}) {
  return %a : tensor<4xf32>
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.name' must not contain control characters}}
func.func @nul_in_name(%a: tensor<4xf32> {tg.name = "q\00k"}) {
  return
}

// -----

// Non-ASCII text is fine.
func.func @utf8_name(%a: tensor<4xf32> {tg.name = "q\C3\A9"}) {
  return
}

// -----

// A body whose block lacks the signature's arguments (found by the compile
// fuzzer: the attribute verifier read the missing argument).
// expected-error @below {{'func.func' op entry block must have 1 arguments to match function signature}}
func.func @no_block_arguments(tensor<4xf32> {tg.name = "x"}) {
  return
}

// -----

// expected-error @below {{'func.func' op argument 0: 'tg.strides' has 1 entries but the tensor has rank 2}}
func.func private @declared_bad_strides(tensor<2x3xf32> {tg.strides = array<i64: 1>})
