#include "graphmend/rules/tensor_tolist.h"

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

using analysis::ValueKind;

const RuleInfo& TensorTolistRule::info() const {
  static const RuleInfo kInfo{"GM402", "tensor-tolist", "`Tensor.tolist()` in compiled code splits the graph",
                              "GB0109", RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

void TensorTolistRule::check(const RuleContext& ctx, DiagnosticSink& sink) const {
  const ir::Module& m = ctx.module;
  for (int fi : ctx.compiled_functions()) {
    walk_body(m.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (!n.is(kind::call)) return true;
      ir::Node fn = n.field("function");
      if (!fn.is(kind::attribute) || m.text(fn.field("attribute")) != "tolist") return true;
      const auto t = ctx.types.type_of(m, fn.field("object"));
      if (t.kind == ValueKind::Static || t.kind == ValueKind::None || t.kind == ValueKind::Module) return true;
      sink.report(make_diagnostic(
          info(), n,
          "`.tolist()` moves tensor data into Python; the graph is split here (GB0109: "
          "Tensor.tolist())",
          "keep the values as tensors inside the compiled region"));
      return true;
    });
  }
}

}  // namespace graphmend::rules
