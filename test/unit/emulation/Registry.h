// Registration of emulated backward kernels: each generated case's
// translation unit (bwd_<case>.cpp, written by tgc-emulation-sources)
// registers its three entry points, callable with untyped 64-bit arguments.
#ifndef TG_TEST_EMULATION_REGISTRY_H
#define TG_TEST_EMULATION_REGISTRY_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace emu_cases {

using Args = std::vector<uint64_t>;
using Entry = std::function<void(const Args &)>;

struct Kernels {
  Entry preprocess, main, convert;
};

inline std::map<std::string, Kernels> &registry() {
  static std::map<std::string, Kernels> all;
  return all;
}

inline bool registerKernels(const char *name, Entry pre, Entry main, Entry convert) {
  registry()[name] = {std::move(pre), std::move(main), std::move(convert)};
  return true;
}

template <class T>
T argAs(uint64_t v) {
  if constexpr (std::is_pointer_v<T>)
    return reinterpret_cast<T>(static_cast<uintptr_t>(v));
  else
    return static_cast<T>(v);
}

template <class... P, size_t... I>
void callWith(void (*f)(P...), const Args &a, std::index_sequence<I...>) {
  f(argAs<P>(a[I])...);
}

/// Calls `f` with `a` converted to its parameter types (pointers from
/// addresses, integers by value).
template <class... P>
Entry entryOf(void (*f)(P...)) {
  return [f](const Args &a) {
    if (a.size() != sizeof...(P)) {
      std::fprintf(stderr, "emulated kernel takes %zu arguments, got %zu\n", sizeof...(P), a.size());
      std::abort();
    }
    callWith(f, a, std::index_sequence_for<P...>{});
  };
}

} // namespace emu_cases

#endif // TG_TEST_EMULATION_REGISTRY_H
