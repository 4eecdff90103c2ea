// GM405: loops bounded by tensor data: while <tensor>, range(<tensor>) (GB0170 / GB0059). Doc: rules/GM405.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class DataDependentLoopRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
