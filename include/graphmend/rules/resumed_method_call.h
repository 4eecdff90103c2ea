// GM415: a tensor method whose arguments hold a data-dependent-shape break: Dynamo resumes after
// that break with the method already bound, which it cannot call (GB0007). Doc: rules/GM415.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class ResumedMethodCallRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
  [[nodiscard]] bool reads_other_findings() const override { return true; }
};

}  // namespace graphmend::rules
