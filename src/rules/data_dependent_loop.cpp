#include "graphmend/rules/data_dependent_loop.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& DataDependentLoopRule::info() const {
  static const RuleInfo kInfo{"GM405", "data-dependent-loop", "a loop bounded by tensor data splits the graph",
                              GraphBreak::DataDependentBranching, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> DataDependentLoopRule::kinds() const {
  static const std::array<const syntax::Kind*, 2> kKinds{&kind::while_statement, &kind::for_statement};
  return kKinds;
}

std::unique_ptr<FilePass> DataDependentLoopRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    if (n.is(kind::while_statement)) {
      Truth t = classify_truth(ctx, n.field(field::condition));
      if (t.kind == TruthKind::TensorTruth) {
        sink.report(
            make_diagnostic(info(), n.field(field::condition),
                            fmt::format("`while` tests a tensor value on every iteration ({})",
                                        cite(GraphBreak::DataDependentBranching)),
                            "use a static trip count, torch._higher_order_ops.while_loop, or move the loop out"));
      }
      return true;
    }
    if (n.is(kind::for_statement)) {
      ir::Node iter = ir::unparenthesize(n.field(field::right));
      if (!iter.is(kind::call)) return true;
      auto q = callee_name(m, iter);
      if (!q || *q != "range") return true;
      for (ir::Node a : iter.field(field::arguments).named_children()) {
        if (ctx.types.type_of(m, a).tensor_like()) {
          Diagnostic d = make_diagnostic(
              info(), iter,
              fmt::format("`range()` of a tensor makes the trip count data-dependent ({})",
                          cite(GraphBreak::BuiltinOperator)),
              "use a static trip count, or move the loop out of the compiled region");
          d.graph_break = GraphBreak::BuiltinOperator;
          sink.report(std::move(d));
          break;
        }
      }
    }
    return true;
  });
}

}  // namespace graphmend::rules
