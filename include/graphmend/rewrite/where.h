// [Where] rewrite for GM101: an `if` on a one-element tensor whose branches only compute tensor
// values becomes a torch.where selection under torch.compile; eager mode, and compiled code with
// grad enabled, keep running the original statement. Doc: rules/GM101.md.
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
