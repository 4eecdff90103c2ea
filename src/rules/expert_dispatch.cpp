#include "graphmend/rules/expert_dispatch.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rewrite/dense.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& ExpertDispatchRule::info() const {
  static const RuleInfo kInfo{"GM407", "expert-dispatch",
                              "a loop over experts gathers each expert's tokens with a data-dependent shape",
                              GraphBreak::DynamicShapeOperator, RuleFamily::Dense, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> ExpertDispatchRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::for_statement};
  return kKinds;
}

std::unique_ptr<FilePass> ExpertDispatchRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, index = rewrite::FunctionIndex(ctx)](ir::Node n) mutable {
    if (rewrite::expert_gather_call(ctx, n)) {
      Diagnostic d = make_diagnostic(
          info(), n.field(field::right),
          fmt::format("the loop over experts gathers each expert's tokens with `torch.where`, whose output shape "
                      "depends on the routing; the graph is split at every expert ({})",
                      cite(GraphBreak::DynamicShapeOperator)),
          "run every expert on every token with a mask (`graphmend fix --unsafe-fixes`), or move the dispatch out "
          "of the compiled region");
      attach_plan(d, rewrite::plan_expert_dispatch(ctx, n, index));
      sink.report(std::move(d));
    } else if (ir::Node gathered = rewrite::expert_masked_gather(ctx, n)) {
      Diagnostic d = make_diagnostic(
          info(), gathered,
          fmt::format("the loop gathers each expert's rows with a boolean mask and stores the result back with it; "
                      "the mask's row count depends on the routing, so the graph is split at every expert ({})",
                      cite(GraphBreak::DynamicShapeOperator)),
          "run every expert on every row and select its rows with torch.where (`graphmend fix --unsafe-fixes`), or "
          "move the dispatch out of the compiled region");
      attach_plan(d, rewrite::plan_masked_dispatch(ctx, n, index));
      sink.report(std::move(d));
    }
    return true;
  });
}

}  // namespace graphmend::rules
