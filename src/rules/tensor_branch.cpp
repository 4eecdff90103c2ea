#include "graphmend/rules/tensor_branch.h"

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& TensorBranchRule::info() const {
  static const RuleInfo kInfo{"GM101", "tensor-branch",
                              "`if` on a tensor value splits the graph", "GB0170",
                              RuleFamily::Where, FixAvailability::Sometimes};
  return kInfo;
}

void TensorBranchRule::check(const RuleContext& ctx, DiagnosticSink& sink) const {
  const ir::Module& m = ctx.module;
  for (int fi : ctx.compiled_functions()) {
    walk_body(m.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (!n.is("if_statement") && !n.is("elif_clause")) return true;
      // A single-raise guard is the [Trap] rule's (GM301).
      if (n.is("if_statement") && is_validation_guard(m, n)) return true;
      const Truth truth = classify_truth(ctx, n.field("condition"));
      if (truth.kind == TruthKind::TensorTruth) {
        Diagnostic d = make_diagnostic(
            info(), n.field("condition"),
            fmt::format("`{}` branches on a tensor value; Dynamo cannot trace data-dependent "
                        "control flow (GB0170: Data-dependent branching)",
                        n.is("elif_clause") ? "elif" : "if"),
            "predicate both branches with torch.where, or use torch.cond");
        sink.report(std::move(d));
      } else if (truth.kind == TruthKind::DataOperator) {
        Diagnostic d = make_diagnostic(
            info(), n.field("condition"),
            fmt::format("`{}` branches on `{}`, whose Python bool depends on tensor data "
                        "(GB0033: Data dependent operator)",
                        n.is("elif_clause") ? "elif" : "if", m.text(truth.atom.field("function"))),
            "compare with (a == b).all() after a static shape/dtype check, then predicate with torch.where");
        d.graph_break_id = "GB0033";
        sink.report(std::move(d));
      }
      return true;
    });
  }
}

}  // namespace graphmend::rules
