// GM403: int()/float()/bool()/complex() of a tensor in compiled code (GB0124). Doc: rules/GM403.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class ScalarConversionRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
