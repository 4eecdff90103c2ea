#include "graphmend/rules/tensor_item.h"

#include <array>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

using analysis::ValueKind;

const RuleInfo& TensorItemRule::info() const {
  static const RuleInfo kInfo{"GM401", "tensor-item", "`Tensor.item()` in compiled code splits the graph",
                              "GB0124", RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorItemRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> TensorItemRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    ir::Node fn = n.field("function");
    if (!fn.is(kind::attribute) || m.text(fn.field("attribute")) != "item") return true;
    if (n.field("arguments").named_child_count() != 0) return true;
    const auto t = ctx.types.type_of(m, fn.field("object"));
    if (t.kind == ValueKind::Static || t.kind == ValueKind::None || t.kind == ValueKind::Module) return true;
    sink.report(make_diagnostic(
        info(), n,
        "`.item()` moves a tensor value into Python; the graph is split here (GB0124: "
        "Unsupported Tensor.item() call with capture_scalar_outputs=False)",
        "keep the value as a tensor, or set torch._dynamo.config.capture_scalar_outputs = True"));
    return true;
  });
}

}  // namespace graphmend::rules
