#include "graphmend/rules/disabled_call.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& DisabledCallRule::info() const {
  static const RuleInfo kInfo{"GM408", "disabled-function-call",
                              "a call to a function under `torch.compiler.disable` splits the graph",
                              GraphBreak::DisabledCall, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> DisabledCallRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> DisabledCallRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink](ir::Node n) mutable {
    const std::optional<analysis::FunctionRef> callee = ctx.regions.callee_of(ctx.module, n);
    if (!callee) return true;
    const analysis::ModuleSummary::FunctionFacts& fn = ctx.project.facts_of(*callee);
    const analysis::TraceExclusion exclusion = fn.trace_exclusion;
    if (exclusion != analysis::TraceExclusion::Disabled && exclusion != analysis::TraceExclusion::DisabledShallow) {
      return true;
    }
    sink.report(make_diagnostic(
        info(), n,
        // Both breaks in one phrase: which one Dynamo reports depends on how the call is reached.
        fmt::format("`{}` is under `torch.compiler.disable{}`: Dynamo runs it outside the graph, which is split "
                    "around the call ({}/{}: Skip calling/inlining a `torch.compiler.disable()`d function)",
                    fn.qualname, exclusion == analysis::TraceExclusion::DisabledShallow ? "(recursive=False)" : "",
                    id_of(GraphBreak::DisabledCall), id_of(GraphBreak::DisabledInline)),
        "make the function traceable and remove the disable, or call it outside the compiled region; a "
        "deliberate disable costs this one break (suppress it with `# noqa: GM408`)"));
    return true;
  });
}

}  // namespace graphmend::rules
