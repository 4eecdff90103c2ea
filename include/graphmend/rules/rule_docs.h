// Rule documents (rules/*.md) embedded at build time.
#pragma once

#include <span>
#include <string_view>

namespace graphmend::rules {

struct RuleDoc {
  std::string_view code;
  std::string_view markdown;
};

std::span<const RuleDoc> rule_docs();

}  // namespace graphmend::rules
