// One libFuzzer target per harness: TGC_FUZZ_HARNESS names the body.
#include "Harnesses.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return tgc::fuzz::TGC_FUZZ_HARNESS(data, size);
}
