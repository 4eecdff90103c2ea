#include "graphmend/rules/warnings_warn.h"

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rules {

using rewrite::SiteNamer;
using rewrite::DeferredCall;
using rewrite::plan_defer;

const RuleInfo& WarningsWarnRule::info() const {
  static const RuleInfo kInfo{"GM203", "warnings-warn-in-graph",
                              "`warnings.warn` in compiled code splits the graph", "GB0007",
                              RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

void WarningsWarnRule::check(const RuleContext& ctx, DiagnosticSink& sink) const {
  const ir::Module& m = ctx.module;
  SiteNamer names(m);
  for (int fi : ctx.compiled_functions()) {
    walk_body(m.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (!n.is(kind::call)) return true;
      auto q = callee_name(m, n);
      if (q && (*q == "warnings.warn" || *q == "warnings.warn_explicit")) {
        Diagnostic d = make_diagnostic(
            info(), n,
            "`warnings.warn` is a C builtin Dynamo skips; the graph is split around it (GB0007: "
            "Attempted to call function marked as skipped)",
            "run the warning inside the graph, or move it out of the compiled code");
        attach_plan(d, plan_defer(ctx, n, DeferredCall::WarningsWarn, names));
        sink.report(std::move(d));
      }
      return true;
    });
  }
}

}  // namespace graphmend::rules
