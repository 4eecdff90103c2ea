#include "graphmend/rules/dynamic_shape.h"

#include <array>

#include <fmt/format.h>

#include <set>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// True when `subscript` is written by a plain assignment: `x[mask] = v`, alone, chained or in a
// tuple or list target. Dynamo traces such a store as one `index_put_` with the boolean mask,
// whose output has the input's shape, so it does not split the graph (torch 2.13: any value that
// broadcasts to the masked elements, a scalar, a row or one row per selected element). An
// augmented assignment reads `x[mask]` first, and that read does split it.
bool stored_by_assignment(ir::Node subscript) {
  ir::Node child = subscript;
  for (ir::Node p = subscript.parent(); p; child = p, p = p.parent()) {
    if (p.is(kind::pattern_list) || p.is(kind::tuple_pattern) || p.is(kind::list_pattern)) continue;
    return p.is(kind::assignment) && p.field(field::left) == child;
  }
  return false;
}

}  // namespace

const RuleInfo& DynamicShapeRule::info() const {
  static const RuleInfo kInfo{"GM404", "data-dependent-shape",
                              "an operator whose output shape depends on tensor data splits the graph",
                              GraphBreak::DynamicShapeOperator, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> DynamicShapeRule::kinds() const {
  static const std::array<const syntax::Kind*, 2> kKinds{&kind::call, &kind::subscript};
  return kKinds;
}

std::unique_ptr<FilePass> DynamicShapeRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  auto report = [this, &ctx, &sink](ir::Node n, std::string what) {
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("{} has a data-dependent output shape; the graph is split here ({})", what,
                    cite(GraphBreak::DynamicShapeOperator)),
        capture_remedy(ctx, n, CapturedValue::Sized, kCaptureDynamicOutputShapeOps,
                       "use a static-shape form (torch.where with a fill value, nonzero_static)")));
  };
  return file_pass([&ctx, &m = ctx.module, report](ir::Node n) {
    if (n.is(kind::call)) {
      ir::Node fn = n.field(field::function);
      ir::Node args = n.field(field::arguments);
      auto q = callee_name(m, n);
      if (q && analysis::api::has(analysis::api::Space::Global, *q, analysis::api::Fact::DynamicShape)) {
        if (*q == "torch.repeat_interleave" &&
            !(args && args.named_child_count() >= 2 &&
              ctx.types.type_of(m, args.named_child(1)).tensor_like())) {
          return true;
        }
        report(n, fmt::format("`{}`", *q));
        return true;
      }
      if (q && *q == "torch.where" && args && args.named_child_count() == 1) {
        report(n, "single-argument `torch.where`");
        return true;
      }
      if (fn.is(kind::attribute) &&
          analysis::api::has(analysis::api::Space::TensorMethod, m.text(fn.field(field::attribute)),
                             analysis::api::Fact::DynamicShape) &&
          ctx.types.type_of(m, fn.field(field::object)).tensor_like()) {
        // `t.repeat_interleave(2)` has a static shape; only tensor repeats make it data-dependent.
        if (m.text(fn.field(field::attribute)) == "repeat_interleave" &&
            !(args && args.named_child_count() >= 1 && ctx.types.type_of(m, args.named_child(0)).tensor_like())) {
          return true;
        }
        report(n, fmt::format("`.{}()`", m.text(fn.field(field::attribute))));
      }
      return true;
    }
    if (n.is(kind::subscript)) {
      // Boolean-mask indexing: x[mask] with a bool tensor index, read (a store keeps the shape).
      if (stored_by_assignment(n)) return true;
      for (ir::Node index : n.children_by_field(field::subscript)) {
        if (ctx.types.boolean_mask_index(m, n.field(field::value), index)) {
          report(n, "boolean-mask indexing");
          break;
        }
      }
    }
    return true;
  });
}

}  // namespace graphmend::rules
