// GM416: a module's buffer made with `nn.Buffer(...)` stored back into the module from a method
// that may return it unchanged (`self.b = self.b.to(x.dtype)`) in compiled code: Dynamo cannot
// follow Module.__setattr__'s buffer path (GB4841). Doc: rules/GM416.md
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

class BufferReassignmentRule final : public Rule {
 public:
  [[nodiscard]] const RuleInfo& info() const override;
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override;
  [[nodiscard]] std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const override;
};

}  // namespace graphmend::rules
