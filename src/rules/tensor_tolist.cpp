#include "graphmend/rules/tensor_tolist.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

using analysis::ValueKind;

const RuleInfo& TensorTolistRule::info() const {
  static const RuleInfo kInfo{"GM402", "tensor-tolist", "`Tensor.tolist()` in compiled code splits the graph",
                              GraphBreak::TensorTolist, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorTolistRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> TensorTolistRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    ir::Node fn = n.field(field::function);
    if (!fn.is(kind::attribute) || m.text(fn.field(field::attribute)) != "tolist") return true;
    const auto t = ctx.types.type_of(m, fn.field(field::object));
    if (t.kind == ValueKind::Static || t.kind == ValueKind::None || t.kind == ValueKind::Module) return true;
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("`.tolist()` moves tensor data into Python; the graph is split here ({})",
                    cite(GraphBreak::TensorTolist)),
        capture_remedy(ctx, n, CapturedValue::Number, kCaptureScalarOutputs, "keep the values as tensors")));
    return true;
  });
}

}  // namespace graphmend::rules
