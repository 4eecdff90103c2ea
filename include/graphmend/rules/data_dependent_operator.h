// GM406: torch.equal / torch.allclose outside a branch condition (GB0033). Doc: rules/GM406.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class DataDependentOperatorRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
