#include "SourceTemplate.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tg::codegen {

SourceTemplate &SourceTemplate::set(const std::string &name,
                                    const std::string &value) {
  values[name] = value;
  return *this;
}

SourceTemplate &SourceTemplate::set(const std::string &name, long long value) {
  return set(name, std::to_string(value));
}

std::string SourceTemplate::expand(const std::string &text) const {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t pos = 0;
  while (true) {
    size_t start = text.find("$(", pos);
    if (start == std::string::npos) {
      out.append(text, pos, std::string::npos);
      return out;
    }
    size_t end = text.find(')', start);
    if (end == std::string::npos) {
      std::fprintf(stderr, "tgc: unterminated placeholder in kernel template\n");
      std::abort();
    }
    std::string name = text.substr(start + 2, end - start - 2);
    auto it = values.find(name);
    if (it == values.end()) {
      std::fprintf(stderr, "tgc: unbound placeholder $(%s) in kernel template\n",
                   name.c_str());
      std::abort();
    }
    out.append(text, pos, start - pos);
    out += it->second;
    pos = end + 1;
  }
}

std::string floatLiteral(double value) {
  float f = static_cast<float>(value);
  auto bits = [](const char *pattern) { return std::string("__int_as_float(") + pattern + ")"; };
  if (std::isnan(f))
    return bits("0x7fffffff");
  if (std::isinf(f))
    return bits(f > 0 ? "0x7f800000" : "0xff800000");
  char buf[64];
  // 9 significant digits round-trip any float.
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(f));
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos)
    s += ".0";
  s += "f";
  return s[0] == '-' ? "(" + s + ")" : s;
}

} // namespace tg::codegen
