#include "graphmend/fix/apply.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

namespace graphmend::fix {

ApplyResult apply_fixes(std::string_view text, const std::vector<const source::Fix*>& fixes) {
  std::vector<size_t> order(fixes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return fixes[a]->min_start() < fixes[b]->min_start();
  });

  ApplyResult result;
  result.text.reserve(text.size() + 256);
  std::set<source::Edit> applied_edits;
  uint32_t cursor = 0;                 // bytes of `text` consumed so far
  std::optional<uint32_t> last_end;    // end of the last applied edit
  for (size_t index : order) {
    const source::Fix& fix = *fixes[index];
    std::vector<source::Edit> edits;
    for (const auto& e : fix.edits) {
      if (!applied_edits.contains(e)) edits.push_back(e);
    }
    std::sort(edits.begin(), edits.end());
    bool overlaps = false;
    std::optional<uint32_t> prev = last_end;
    for (const auto& e : edits) {
      // An edit starting exactly where the previous one ended is adjacent, not overlapping.
      if (prev && e.range.start < *prev) {
        overlaps = true;
        break;
      }
      if (e.range.end > text.size() || e.range.start > e.range.end) {
        overlaps = true;
        break;
      }
      prev = e.range.end;
    }
    if (overlaps) {
      result.skipped.push_back(index);
      continue;
    }
    for (const auto& e : edits) {
      result.text.append(text.substr(cursor, e.range.start - cursor));
      result.text.append(e.replacement);
      cursor = e.range.end;
      last_end = e.range.end;
      applied_edits.insert(e);
      result.edits.push_back(e);
    }
    result.applied.push_back(index);
  }
  result.text.append(text.substr(cursor));
  std::sort(result.applied.begin(), result.applied.end());
  std::sort(result.skipped.begin(), result.skipped.end());
  return result;
}

}  // namespace graphmend::fix
