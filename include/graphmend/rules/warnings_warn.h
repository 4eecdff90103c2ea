// GM203 [Defer]: warnings.warn in compiled code (GB0007). Doc: rules/GM203.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class WarningsWarnRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
