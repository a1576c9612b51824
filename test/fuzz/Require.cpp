#include "Harnesses.h"

#include <cstdio>
#include <cstdlib>

const char *tgc::fuzz::currentInput = nullptr;

void tgc::fuzz::require(bool condition, const char *what) {
  if (condition)
    return;
  std::fprintf(stderr, "tgc fuzz: property violated: %s%s%s\n", what,
               currentInput ? " on input " : "", currentInput ? currentInput : "");
  std::abort();
}
