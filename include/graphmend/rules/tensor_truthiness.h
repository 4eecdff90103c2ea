// GM102: a tensor's truth value taken outside an if statement: ternary, and/or/not, comprehension filter, assert with a dynamic message (GB0170). Doc: rules/GM102.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class TensorTruthinessRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
