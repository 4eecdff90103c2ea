#include "graphmend/rules/scalar_conversion.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& ScalarConversionRule::info() const {
  static const RuleInfo kInfo{"GM403", "tensor-to-python-scalar",
                              "`int()`/`float()`/`bool()` of a tensor splits the graph", GraphBreak::TensorItem,
                              RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> ScalarConversionRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> ScalarConversionRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    ir::Node fn = n.field(field::function);
    if (!fn.is(kind::identifier) || m.lookup_at(fn) >= 0) return true;
    const std::string_view name = m.text(fn);
    if (name != "int" && name != "float" && name != "bool" && name != "complex") return true;
    ir::Node args = n.field(field::arguments);
    if (!args || args.named_child_count() != 1) return true;
    if (!ctx.types.type_of(m, args.named_child(0)).tensor_like()) return true;
    sink.report(make_diagnostic(
        info(), n,
        // Dynamo's words for the break, shortened: the conversion is not spelt `.item()`.
        fmt::format("`{}()` of a tensor reads its value into Python; the graph is split here "
                    "({}: Unsupported Tensor.item() call)",
                    name, id_of(GraphBreak::TensorItem)),
        capture_remedy(ctx, n, CapturedValue::Number, kCaptureScalarOutputs,
                       "keep the value as a tensor (e.g. .to(dtype))")));
    return true;
  });
}

}  // namespace graphmend::rules
