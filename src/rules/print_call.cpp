#include "graphmend/rules/print_call.h"

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rules {

using rewrite::SiteNamer;
using rewrite::DeferredCall;
using rewrite::plan_defer;

const RuleInfo& PrintCallRule::info() const {
  static const RuleInfo kInfo{"GM201", "print-in-graph", "`print` in compiled code splits the graph",
                              "GB0059", RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

void PrintCallRule::check(const RuleContext& ctx, DiagnosticSink& sink) const {
  const ir::Module& m = ctx.module;
  SiteNamer names(m);
  for (int fi : ctx.compiled_functions()) {
    walk_body(m.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (!n.is(kind::call)) return true;
      ir::Node fn = n.field("function");
      // Only the builtin: a local or imported `print` is someone else's function.
      if (fn.is(kind::identifier) && m.text(fn) == "print" && m.lookup_at(fn) < 0) {
        Diagnostic d = make_diagnostic(
            info(), n,
            "`print` cannot be traced; the graph is split around it (GB0059: Failed to trace "
            "builtin operator)",
            "run the print inside the graph, or move it out of the compiled code");
        attach_plan(d, plan_defer(ctx, n, DeferredCall::Print, names));
        sink.report(std::move(d));
      }
      return true;
    });
  }
}

}  // namespace graphmend::rules
