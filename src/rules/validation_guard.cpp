#include "graphmend/rules/validation_guard.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/trap.h"

namespace graphmend::rules {

using rewrite::plan_trap;

const RuleInfo& ValidationGuardRule::info() const {
  static const RuleInfo kInfo{"GM301", "tensor-validation-guard",
                              "`if <tensor cond>: raise` guard splits the graph", GraphBreak::DataDependentBranching,
                              RuleFamily::Trap, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> ValidationGuardRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::if_statement};
  return kKinds;
}

std::unique_ptr<FilePass> ValidationGuardRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module, &names = ctx.names](ir::Node n) mutable {
    if (!is_validation_guard(m, n)) return true;
    const Truth truth = classify_truth(ctx, n.field(field::condition));
    if (truth.kind != TruthKind::TensorTruth && truth.kind != TruthKind::DataOperator) return true;
    const GraphBreak graph_break = truth.kind == TruthKind::DataOperator ? GraphBreak::DataDependentOperator
                                                                         : GraphBreak::DataDependentBranching;
    Diagnostic d =
        make_diagnostic(info(), n.field(field::condition),
                        fmt::format("validation guard tests a tensor value before raising; Dynamo cannot trace "
                                    "the data-dependent check ({})",
                                    cite(graph_break)),
                        "lower the check into the graph so the original exception is still raised");
    d.graph_break = graph_break;
    attach_plan(d, plan_trap(ctx, n, names));
    sink.report(std::move(d));
    return true;
  });
}

}  // namespace graphmend::rules
