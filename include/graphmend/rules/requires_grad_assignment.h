// GM410: an assignment to a tensor's `requires_grad` (`t.requires_grad = v`, or
// `setattr(t, "requires_grad", v)`) in compiled code. Doc: rules/GM410.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class RequiresGradAssignmentRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
