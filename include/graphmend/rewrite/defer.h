// [Defer] rewrite shared by GM201 (print), GM202 (logging) and GM203 (warnings.warn): the call
// runs unchanged in eager mode and from inside the graph under torch.compile. Doc: rules/GM201.md.
#pragma once

#include <variant>

#include "graphmend/rewrite/site.h"

namespace graphmend::rewrite {

enum class DeferredCall { Print, LoggerMethod, LoggingFunction, WarningsWarn };

// The rewrite of one call statement, or why it is declined.
std::variant<source::Fix, Declined> plan_defer(const analysis::FileContext& ctx, ir::Node call, DeferredCall kind,
                                               SiteNamer& names);

}  // namespace graphmend::rewrite
