// GM203 [Defer]: warnings.warn in compiled code (GB0007). Doc: rules/GM203.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class WarningsWarnRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  void check(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
