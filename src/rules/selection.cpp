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
  return selector == "ALL" || find_info(selector) || is_code_or_prefix(selector);
}

}  // namespace graphmend::rules
