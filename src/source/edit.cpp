#include "graphmend/source/edit.h"

#include <algorithm>

namespace graphmend::source {

std::string_view applicability_name(Applicability a) {
  switch (a) {
    case Applicability::Safe: return "safe";
    case Applicability::Unsafe: return "unsafe";
    case Applicability::DisplayOnly: break;
  }
  return "display-only";
}

uint32_t Fix::min_start() const {
  uint32_t m = UINT32_MAX;
  for (const auto& e : edits) m = std::min(m, e.range.start);
  return m;
}


}  // namespace graphmend::source
