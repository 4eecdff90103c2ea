// GM404: operators whose output shape depends on data: nonzero, unique, masked_select, boolean-mask indexing (GB0036). Doc: rules/GM404.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class DynamicShapeRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
