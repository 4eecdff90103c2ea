#include "graphmend/rules/tensor_item.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rewrite/item_effect.h"
#include "graphmend/rewrite/item_tensor.h"
#include "graphmend/rewrite/trap.h"
#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

const RuleInfo& TensorItemRule::info() const {
  static const RuleInfo kInfo{"GM401", "tensor-item", "`Tensor.item()` in compiled code splits the graph",
                              GraphBreak::TensorItem, RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorItemRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> TensorItemRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &names = ctx.names,
                    index = rewrite::FunctionIndex(ctx)](ir::Node n) mutable {
    if (!rewrite::is_tensor_item_call(ctx, n)) return true;
    Diagnostic d = make_diagnostic(
        info(), n,
        fmt::format("`.item()` moves a tensor value into Python; the graph is split here ({})",
                    cite(GraphBreak::TensorItem)),
        capture_remedy(ctx, n, CapturedValue::Number, kCaptureScalarOutputs, "keep the value as a tensor"));
    // An assert on the value: [Trap] with the comparison made on the tensor. A value only
    // compared with a number to decide a print or warning: [Defer] with the test.
    if (rewrite::assert_testing_item(n)) {
      attach_plan(d, rewrite::plan_item_assert(ctx, n, names));
    } else {
      // A value only used as the number in arithmetic with a tensor: kept a tensor, where exact.
      auto plan = rewrite::plan_item_effect(ctx, n, names, index);
      const auto* declined = std::get_if<rewrite::Declined>(&plan);
      if (declined && declined->reason.code == rewrite::DeclineCode::ItemNoTestAfter &&
          rewrite::item_used_with_tensor(ctx, n)) {
        plan = rewrite::plan_item_tensor(ctx, n, index);
      }
      attach_plan(d, std::move(plan));
    }
    sink.report(std::move(d));
    return true;
  });
}

}  // namespace graphmend::rules
