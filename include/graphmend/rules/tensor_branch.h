// GM101 [Where]: an if/elif whose condition needs a tensor's value (GB0170). Doc: rules/GM101.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class TensorBranchRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
