// [Defer] rewrite shared by GM201 (print), GM202 (logging) and GM203 (warnings.warn).
//
// The call statement keeps running unchanged in eager mode; under torch.compile the same call runs
// from inside the graph, at its original position, through an ordered effectful custom op that the
// module's generated helper block defines. Mechanism and divergences: rules/GM201.md.
#pragma once

#include <set>
#include <string>
#include <variant>

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

enum class DeferredCall { Print, LoggerMethod, LoggingFunction, WarningsWarn };

// Names each deferred call site's helper `_graphmend_<kind>_<function>_<n>`, never reusing a name
// the module already binds or an earlier site took.
class SiteNamer {
 public:
  explicit SiteNamer(const ir::Module& module) : module_(module) {}
  std::string next(std::string_view kind, std::string_view function);

 private:
  const ir::Module& module_;
  std::set<std::string> taken_;
};

struct Declined {
  std::string reason;
};

// The rewrite of one call statement, or why it is declined.
std::variant<source::Fix, Declined> plan_defer(const RuleContext& ctx, ir::Node call, DeferredCall kind,
                                               SiteNamer& names);

// Sets `d.fix` or `d.decline_reason` from plan_defer.
void attach_defer_fix(const RuleContext& ctx, ir::Node call, DeferredCall kind, SiteNamer& names, Diagnostic& d);

// The runtime part of the helper block (`_graphmend_defer` and what it needs); `op_namespace` is
// the custom-op namespace this module registers.
std::string defer_runtime_helper(std::string_view op_namespace);

}  // namespace graphmend::rules
