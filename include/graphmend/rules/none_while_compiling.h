// GM414: a value that an `is_compiling()` test leaves None under torch.compile, then used as if
// it were set: the traced code raises where eager code does not, and Dynamo gives up the frame
// (GB0088). Doc: rules/GM414.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class NoneWhileCompilingRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
