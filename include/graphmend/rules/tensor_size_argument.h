// GM411: a tensor computed in compiled code used as a size (torch.zeros(n), x.view(n, -1),
// x.topk(k), F.pad(x, (0, n)), ...). Doc: rules/GM411.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class TensorSizeArgumentRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
