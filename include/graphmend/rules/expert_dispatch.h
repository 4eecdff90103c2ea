// GM407: a loop over experts that gathers each expert's tokens with a data-dependent shape
// (GB0036). Doc: rules/GM407.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class ExpertDispatchRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
