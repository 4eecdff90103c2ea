// GM408: a call from compiled code to a function under torch.compiler.disable (GB0098/GB0099).
// Doc: rules/GM408.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class DisabledCallRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
