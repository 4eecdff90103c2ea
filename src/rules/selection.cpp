#include "graphmend/rules/selection.h"

#include "graphmend/rules/registry.h"

namespace graphmend::rules {
namespace {

bool matches(std::string_view selector, std::string_view code) {
  if (selector == "ALL" || code.starts_with(selector)) return true;
  const RuleInfo* info = find_info(selector);
  return info && info->code == code;
}

bool any_matches(const std::vector<std::string>& selectors, std::string_view code) {
  for (const std::string& s : selectors) {
    if (matches(s, code)) return true;
  }
  return false;
}

}  // namespace

bool Selection::enabled(std::string_view code) const {
  const bool selected = any_matches(extend_select, code) ||
                        (select.empty() ? !is_opt_in(code) : any_matches(select, code));
  return selected && !any_matches(ignore, code);
}

bool valid_selector(std::string_view selector) {
  if (selector == "ALL" || find_info(selector)) return true;
  for (const RuleInfo* info : all_rule_infos()) {
    if (!selector.empty() && info->code.starts_with(selector)) return true;
  }
  return false;
}

}  // namespace graphmend::rules
