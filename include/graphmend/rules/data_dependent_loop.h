// GM405: loops bounded by tensor data: while <tensor>, range(<tensor>) (GB0170 / GB0059). Doc: rules/GM405.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class DataDependentLoopRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  void check(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
