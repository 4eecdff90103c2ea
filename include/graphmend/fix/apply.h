// The one edit applier: non-overlapping whole fixes, one linear pass.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphmend/source/edit.h"

namespace graphmend::fix {

struct ApplyResult {
  std::string text;
  std::vector<size_t> applied;  // indices into the input fixes
  std::vector<size_t> skipped;  // dropped whole because they overlapped an earlier fix
  std::vector<source::Edit> edits;  // the edits made, in order, in the input's coordinates
};

// Fixes are taken in order of their first edit (ties: input order). A fix any of whose edits
// starts before the end of the previously applied edit is dropped whole. Identical edits shared
// by two fixes are applied once.
ApplyResult apply_fixes(std::string_view text, const std::vector<const source::Fix*>& fixes);

}  // namespace graphmend::fix
