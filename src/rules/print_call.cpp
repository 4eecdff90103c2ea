#include "graphmend/rules/print_call.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rules {

using rewrite::DeferredCall;
using rewrite::plan_defer;

const RuleInfo& PrintCallRule::info() const {
  static const RuleInfo kInfo{"GM201", "print-in-graph", "`print` in compiled code splits the graph",
                              GraphBreak::BuiltinOperator, RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> PrintCallRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> PrintCallRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module, &names = ctx.names,
                    index = rewrite::FunctionIndex(ctx)](ir::Node n) mutable {
    // Only the builtin: a local or imported `print` is someone else's function.
    if (rewrite::is_builtin_print(m, n)) {
      Diagnostic d = make_diagnostic(
          info(), n,
          fmt::format("`print` cannot be traced; the graph is split around it ({})",
                      cite(GraphBreak::BuiltinOperator)),
          "run the print inside the graph, or move it out of the compiled code");
      attach_plan(d, plan_defer(ctx, n, DeferredCall::Print, names, index));
      sink.report(std::move(d));
    }
    return true;
  });
}

}  // namespace graphmend::rules
