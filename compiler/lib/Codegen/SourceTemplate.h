#ifndef TG_CODEGEN_SOURCETEMPLATE_H
#define TG_CODEGEN_SOURCETEMPLATE_H

// A minimal text template for generated sources: `$(NAME)` is replaced by
// the value bound to NAME. An unbound name is a generator bug and aborts, so
// no placeholder can leak into a kernel.

#include "tg/Codegen/CudaText.h" // floatLiteral, which templates are filled with

#include <map>
#include <string>

namespace tg::codegen {

class SourceTemplate {
public:
  SourceTemplate &set(const std::string &name, const std::string &value);
  SourceTemplate &set(const std::string &name, long long value);
  /// Substitutes every `$(NAME)` in `text`.
  std::string expand(const std::string &text) const;

private:
  std::map<std::string, std::string> values;
};

} // namespace tg::codegen

#endif // TG_CODEGEN_SOURCETEMPLATE_H
