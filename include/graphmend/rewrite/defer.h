// [Defer] rewrite shared by GM201 (print), GM202 (logging) and GM203 (warnings.warn): the call
// runs unchanged in eager mode and from inside the graph under torch.compile. Doc: rules/GM201.md.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

enum class DeferredCall { Print, LoggerMethod, LoggingFunction, WarningsWarn };

// A deferrable call statement rendered for a site helper: what plan_defer checks and renders
// before it writes anything.
struct DeferredCallText {
  ir::Node statement;                  // the call's expression statement
  std::string callee;                  // as the helper names it: "print", "warnings.warn"
  std::string site_call;               // the helper's call, holes named by `params`, wrapped as black would
  std::string params;                  // the helper's parameters, one per hole: "a0, a1" ("": no hole)
  std::string hole_args;               // ", <hole 0's source>, ...": what the call point passes
  bool shared = false;       // one helper per call shape (print, logging) rather than per site (warnings)
  bool callee_only = false;  // every argument positional and carried as it is
};

// The call as a helper would make it, or why it cannot be deferred. With `share`, print and log
// helpers are shared by every site of one shape (their string literals carried from the call).
std::variant<DeferredCallText, Declined> render_deferred_call(const analysis::FileContext& ctx, ir::Node call,
                                                              DeferredCall kind, bool share = true);
// A call of the builtin `print` (not a local or imported function of that name).
bool is_builtin_print(const ir::Module& m, ir::Node call);
// The helper-name kind of a deferred call: "print", "log", "warn".
std::string_view deferred_kind_tag(DeferredCall kind);

// The rewrite of one call statement, or why it is declined. `index`: the rule pass's, shared by
// every site of the file.
std::variant<source::Fix, Declined> plan_defer(const analysis::FileContext& ctx, ir::Node call, DeferredCall kind,
                                               SiteNamer& names, FunctionIndex& index);

}  // namespace graphmend::rewrite
