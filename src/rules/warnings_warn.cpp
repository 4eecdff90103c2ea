#include "graphmend/rules/warnings_warn.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rules {

using rewrite::DeferredCall;
using rewrite::plan_defer;

const RuleInfo& WarningsWarnRule::info() const {
  static const RuleInfo kInfo{"GM203", "warnings-warn-in-graph",
                              "`warnings.warn` in compiled code splits the graph", GraphBreak::SkippedFunction,
                              RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> WarningsWarnRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> WarningsWarnRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module, &names = ctx.names,
                    index = rewrite::FunctionIndex(ctx)](ir::Node n) mutable {
    auto q = callee_name(m, n);
    if (q && (*q == "warnings.warn" || *q == "warnings.warn_explicit")) {
      Diagnostic d = make_diagnostic(
          info(), n,
          fmt::format("`warnings.warn` is a C builtin Dynamo skips; the graph is split around it ({})",
                      cite(GraphBreak::SkippedFunction)),
          "run the warning inside the graph, or move it out of the compiled code");
      attach_plan(d, plan_defer(ctx, n, DeferredCall::WarningsWarn, names, index));
      sink.report(std::move(d));
    }
    return true;
  });
}

}  // namespace graphmend::rules
