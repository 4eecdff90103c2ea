// GM412: a tensor as a slice bound in compiled code (x[:n], x[s:e] = v, l[:n], slice(0, n)).
// Doc: rules/GM412.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class TensorSliceBoundRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
