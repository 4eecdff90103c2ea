// [Where] rewrite for GM101: an `if` on a one-element tensor whose branches only compute tensor
// values becomes `name = torch.where(cond, a, b)`, the same in eager mode, with grad and compiled
// where that is proven; else the selection runs under torch.compile only, the original kept as
// its `elif`. The planner proves and returns a plan or a coded decline; rendering only lays the
// plan out. Doc: rules/GM101.md.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

// `names` names the site helpers of validation guards inside the branches, which become
// graph-native checks predicated on their branch (see GM301).
// `index` answers what the plan asks of the whole enclosing function.
std::variant<source::Fix, Declined> plan_where(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names,
                                               FunctionIndex& index);

}  // namespace graphmend::rewrite
