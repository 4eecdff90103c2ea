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

}  // namespace graphmend::rules
