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
extern const RuleInfo kUnusedNoqaInfo;   // GM903, opt-in: runs only when selected by name
extern const RuleInfo kRuntimeFileInfo;  // GM904

// Every code graphmend can report, rules and meta diagnostics alike, sorted by code.
std::span<const RuleInfo* const> all_rule_infos();
// The info of exactly this code ("GM101"), by binary search: how the result cache reads a
// diagnostic's rule back.
const RuleInfo* info_of_code(std::string_view code);
// The info of a code or a kebab-case name, in any case, as users write them.
const RuleInfo* find_info(std::string_view code_or_name);
// True if `code` is a code graphmend reports, or the start of one ("GM2").
bool is_code_or_prefix(std::string_view code);
// Rules that run only when a selection names them (`--select GM903`, `GM9`, `ALL`).
bool is_opt_in(std::string_view code);

// Deeper syntax trees are reported as GM902 and not analysed: every recursive analysis stays
// inside a thread's stack (release builds overflowed from ~20,000 levels, ASan builds from ~2,500).
inline constexpr uint32_t kMaxNesting = 2000;

}  // namespace graphmend::rules
