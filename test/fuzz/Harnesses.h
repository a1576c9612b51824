#ifndef TGC_TEST_FUZZ_HARNESSES_H
#define TGC_TEST_FUZZ_HARNESSES_H

// The bodies of the libFuzzer harnesses (docs/fuzzing.md). Each takes one
// input, must not crash, hang or leak on any of them, and aborts with a
// message when a property that must hold does not (e.g. a plan the
// compiler wrote does not load back). FuzzMain.cpp makes one fuzzer of
// each; RegressionTest.cpp runs them over the saved inputs in every build.

#include <cstddef>
#include <cstdint>

namespace tgc::fuzz {

/// Graph text: the parser guards, the parser and verifier, the compile
/// pipeline and the plan lowering of every function; each plan must
/// serialise, load back and serialise to the same text.
int compileText(const uint8_t *data, size_t size);

/// Plan text, re-signed (a fresh checksum line, so that mutations reach the
/// parser and the validator): a plan that loads must round-trip and become
/// an executable whose binding checks run.
int planText(const uint8_t *data, size_t size);

/// .npy bytes: a parsed array has as many values as its shape says and
/// round-trips through the writer.
int npyBytes(const uint8_t *data, size_t size);

/// Kernel cache entry bytes (the key taken from the entry): a decoded entry
/// re-encodes to the same bytes; the parameter readers of cubin and PTX
/// images run on the entry and on the raw bytes.
int cacheEntryBytes(const uint8_t *data, size_t size);

/// Stops the process with `what` when `condition` is false (a finding).
void require(bool condition, const char *what);

/// What require() names as the input (set by the regression test).
extern const char *currentInput;

} // namespace tgc::fuzz

#endif // TGC_TEST_FUZZ_HARNESSES_H
