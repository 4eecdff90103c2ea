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

uint32_t Fix::max_end() const {
  uint32_t m = 0;
  for (const auto& e : edits) m = std::max(m, e.range.end);
  return m;
}

void Fix::normalize() {
  std::sort(edits.begin(), edits.end());
  edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
}

}  // namespace graphmend::source
