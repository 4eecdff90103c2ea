// What a rule reports: one graph-break site, with a fix or the reason it declined.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "graphmend/rewrite/decline.h"
#include "graphmend/rules/rule_info.h"
#include "graphmend/source/edit.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {

struct Diagnostic {
  // The rule that reports it, as its static metadata (code, name, family): never null once
  // reported, so `d.rule->code` is the code without a lookup.
  const RuleInfo* rule = nullptr;
  source::TextRange range;                // the site
  std::string message;                    // one line; cites the PyTorch break
  std::optional<GraphBreak> graph_break;  // GB0170, ...: the rule's, or another it found (none for meta diagnostics)
  // Shared: the arms of one `if`/`elif` chain are fixed by one rewrite of the whole chain, and a
  // copy per arm would make a chain of n arms cost O(n^2).
  std::shared_ptr<const source::Fix> fix;
  std::optional<rewrite::Decline> decline_reason;  // why no fix, for fixable categories
  std::string help;                                // remedy, for sites no rule can rewrite
  std::string function;                            // qualname of the enclosing compiled function
  // That function's index in the module's functions, while the rules run (-1 outside one; not
  // cached). Rules match a finding to its function by this, not the qualname: the two `def f` in
  // the arms of one `if` share a qualname.
  int function_index = -1;
  std::string region_reason;                       // why that function is compiled code
  // A break that follows from another one (GM413, GM415): it goes away with that one, and it does
  // not itself make Dynamo skip a loop's function.
  bool consequence = false;
};

}  // namespace graphmend::rules
