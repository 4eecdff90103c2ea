// GM201 [Defer]: print() in compiled code (GB0059). Doc: rules/GM201.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class PrintCallRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
