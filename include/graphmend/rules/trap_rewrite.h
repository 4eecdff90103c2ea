// [Trap] rewrite for GM301: a validation guard `if <tensor cond>: raise E(msg)` keeps running as
// written in eager mode; under torch.compile the test runs inside the graph (an ordered
// effectful op) and raises the same exception class and message. Doc: rules/GM301.md.
#pragma once

#include <variant>

#include "graphmend/rules/site_helper.h"

namespace graphmend::rules {

// The rewrite of one guard, or why it is declined. `async_tier` selects torch._assert_async.
std::variant<source::Fix, Declined> plan_trap(const RuleContext& ctx, ir::Node if_statement, SiteNamer& names);

}  // namespace graphmend::rules
