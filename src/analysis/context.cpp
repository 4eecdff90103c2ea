#include "graphmend/analysis/context.h"

#include "graphmend/source/generated.h"

namespace graphmend::analysis {

std::vector<int> FileContext::compiled_functions() const {
  // graphmend's own generated helpers are verified once, by graphmend's tests, not per module.
  const auto& block = module.generated().block;
  const auto generated = block ? std::optional(block->range) : std::nullopt;
  std::vector<int> out;
  for (size_t i = 0; i < module.functions.size(); ++i) {
    if (generated && generated->contains(module.functions[i].node.range())) continue;
    if (regions.is_compiled(module, static_cast<int>(i))) out.push_back(static_cast<int>(i));
  }
  return out;
}

}  // namespace graphmend::analysis
