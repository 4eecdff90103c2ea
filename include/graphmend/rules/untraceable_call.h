// GM409: a call Dynamo does not trace (a skipped standard-library function, a stream write, a
// tensor's str/repr/copy) in compiled code. Doc: rules/GM409.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class UntraceableCallRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
