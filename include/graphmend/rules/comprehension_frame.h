// GM413: a comprehension that Dynamo, once it skips the function around it, starts as a frame of
// its own and cannot iterate there (GB4347). Doc: rules/GM413.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class ComprehensionFrameRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
  [[nodiscard]] bool reads_other_findings() const override { return true; }
};

}  // namespace graphmend::rules
