// GM301 [Trap]: 'if <tensor cond>: raise E(msg)' validation guards (GB0170 / GB0033). Doc: rules/GM301.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class ValidationGuardRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
