#include "graphmend/rules/data_dependent_operator.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& DataDependentOperatorRule::info() const {
  static const RuleInfo kInfo{"GM406", "data-dependent-operator",
                              "`torch.equal`/`torch.allclose` return a Python bool computed from data",
                              "GB0033", RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> DataDependentOperatorRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> DataDependentOperatorRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    auto q = callee_name(m, n);
    if (!q || (*q != "torch.equal" && *q != "torch.allclose" && *q != "torch.is_nonzero")) return true;
    // Inside an if/elif condition the branch rules (GM101/GM301) report it.
    if (inside_branch_condition(n)) return true;
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("`{}` returns a Python bool computed from tensor data (GB0033: Data dependent "
                    "operator)",
                    *q),
        "keep the result as a tensor: (a == b).all() after a static shape/dtype check"));
    return true;
  });
}

}  // namespace graphmend::rules
