#include "graphmend/rules/data_dependent_operator.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

bool has_tensor_argument(const RuleContext& ctx, const ir::Module& m, ir::Node call) {
  for (ir::Node a : ir::children_without_comments(call.field(field::arguments))) {
    if (a.is(kind::keyword_argument)) a = a.field(field::value);
    if (a && ctx.types.type_of(m, ir::unparenthesize(a)).tensor_like()) return true;
  }
  return false;
}

}  // namespace

const RuleInfo& DataDependentOperatorRule::info() const {
  static const RuleInfo kInfo{"GM406", "data-dependent-operator",
                              "`torch.equal`/`torch.allclose` return a Python bool computed from data; a `math` "
                              "function of a tensor needs its value as a Python number",
                              GraphBreak::DataDependentOperator, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> DataDependentOperatorRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> DataDependentOperatorRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    // A qualified name is built only for a call through an attribute or a name (`math.sqrt`, or
    // `sqrt` imported from math).
    auto q = callee_name(m, n);
    if (!q) return true;
    if (q->starts_with("math.")) {
      // The `math` functions Dynamo cannot apply to a tensor (api_facts). `math.radians` is traced
      // as tensor arithmetic and breaks nothing; `math.trunc`, `math.prod` and `math.fsum` of a
      // tensor fail to compile instead.
      if (!analysis::api::has(analysis::api::Space::Global, *q, analysis::api::Fact::NeedsPythonNumber) ||
          !has_tensor_argument(ctx, m, n)) {
        return true;
      }
      // Reported in a condition too: to the branch rules the call is a Python value.
      sink.report(make_diagnostic(
          info(), n,
          fmt::format("`{}` of a tensor needs the tensor's value as a Python number ({})", *q,
                      cite(GraphBreak::DataDependentOperator)),
          "use the torch function (torch.sqrt(t), t.ceil(), torch.isnan(t), ...) and keep the result a tensor; the "
          "capture flags do not help: the function needs a number Dynamo knows while tracing"));
      return true;
    }
    if (*q != "torch.equal" && *q != "torch.allclose" && *q != "torch.is_nonzero") return true;
    // Inside an if/elif condition the branch rules (GM101/GM301) report it.
    if (inside_branch_condition(n)) return true;
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("`{}` returns a Python bool computed from tensor data ({})", *q,
                    cite(GraphBreak::DataDependentOperator)),
        "keep the result as a tensor: (a == b).all() after a static shape/dtype check; the capture flags do not "
        "help: Dynamo has no graph form of the Python bool"));
    return true;
  });
}

}  // namespace graphmend::rules
