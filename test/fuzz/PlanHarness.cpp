#include "Harnesses.h"

#include "tgc/Plan.h"
#include "tgc/Sha256.h"
#include "tgc/tgc.hpp"

#include <string>
#include <string_view>

int tgc::fuzz::planText(const uint8_t *data, size_t size) {
  std::string_view input(reinterpret_cast<const char *>(data), size);
  // Replace the checksum line (if any) with the right one.
  std::string body(input.substr(0, input.rfind("end sha256 ")));
  if (!body.empty() && body.back() != '\n')
    body += '\n';
  std::string text = body + "end sha256 " + toHex(Sha256::hash(body)) + "\n";
  Expected<Plan> plan = parsePlan(text, "fuzz");
  if (!plan)
    return 0;
  std::string again = serializePlan(*plan);
  Expected<Plan> back = parsePlan(again, "again");
  require(back.hasValue(), "a loaded plan does not load back after serialising");
  require(serializePlan(*back) == again, "a plan does not serialise stably");
  // The unchanged-text path (its own checksum) agrees.
  Expected<Plan> direct = parsePlan(std::string(input), "direct");
  (void)direct;

  Expected<std::unique_ptr<Executable>> exe = Executable::create(plan.take());
  require(exe.hasValue(), "a loaded plan does not make an executable");
  // The host-side binding checks on every bindable buffer, with aligned
  // fake pointers and the plan's own shapes.
  const Plan &loaded = (*exe)->plan();
  std::vector<Binding> bindings;
  for (const Buffer &b : loaded.buffers)
    if (b.role != BufferRole::Intermediate)
      bindings.push_back({b.name, reinterpret_cast<void *>(uintptr_t(1) << 20),
                          b.dtype, b.shape, b.strides});
  std::vector<char> workspace(64);
  Workspace small{workspace.data(), workspace.size()};
  (void)(*exe)->checkBindings(bindings, nullptr);
  (void)(*exe)->checkBindings(bindings, &small);
  return 0;
}
