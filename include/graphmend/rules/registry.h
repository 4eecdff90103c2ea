// The one list of rules. Sorted by code; a unit test checks codes and names are unique.
#pragma once

#include <span>
#include <string_view>

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

std::span<const Rule* const> all_rules();
const Rule* find_rule(std::string_view code_or_name);

// Meta diagnostics the pipeline emits itself (not rules that walk the IR).
extern const RuleInfo kSyntaxErrorInfo;  // GM901
extern const RuleInfo kTooDeepInfo;      // GM902

// Deeper syntax trees are reported as GM902 and not analysed: every recursive analysis stays
// inside a thread's stack (release builds overflowed from ~20,000 levels, ASan builds from ~2,500).
inline constexpr uint32_t kMaxNesting = 2000;

}  // namespace graphmend::rules
