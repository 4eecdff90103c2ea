#include "graphmend/rewrite/where_parts.h"

#include <fmt/format.h>

#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/site.h"

namespace graphmend::rewrite {

using analysis::callee_name;
using analysis::classify_truth;
using analysis::Truth;
using analysis::TruthKind;

// A statement's effects that stop the rewrite (what may run unconditionally and be reordered is
// pure, non-raising tensor code), with the reason.
std::optional<Decline> branch_effect(const analysis::FileContext& ctx, ir::Node node, std::string_view part) {
  for (const analysis::Effect& e : analysis::effects_of(ctx.module, ctx.types, node)) {
    switch (e.kind) {
      case analysis::EffectKind::AttributeStore:
        return decline<DeclineCode::PartStoresAttribute>(part, e.what);
      case analysis::EffectKind::UnknownCall:
        return decline<DeclineCode::PartNotProvenPure>(part, e.what);
      case analysis::EffectKind::ControlTransfer:
        return decline<DeclineCode::PartTransfersControl>(part, e.what);
      default:
        return decline<DeclineCode::PartHasEffect>(part, e.what, analysis::effect_kind_name(e.kind));
    }
  }
  return std::nullopt;
}

// The tensor part of a condition as one boolean tensor: and/or/not of tensor atoms become
// logical ops (every atom is pure and cannot raise, so losing the short-circuit is invisible).
namespace {

std::optional<std::string> lower(const analysis::FileContext& ctx, ir::Node e, bool& uses_equal,
                                 std::optional<Decline>& why, int depth);

}  // namespace

std::optional<std::string> lower_tensor_condition(const analysis::FileContext& ctx, ir::Node e, bool& uses_equal,
                                                  std::optional<Decline>& why) {
  return lower(ctx, e, uses_equal, why, 0);
}

namespace {

std::optional<std::string> lower(const analysis::FileContext& ctx, ir::Node e, bool& uses_equal,
                                 std::optional<Decline>& why, int depth) {
  const ir::Module& m = ctx.module;
  e = ir::unparenthesize(e);
  if ((e.is(kind::not_operator) || e.is(kind::boolean_operator)) && depth >= kMaxLoweredNesting) {
    // Each level becomes a nested call in the generated code, and CPython rejects more than 200
    // nested parentheses; the recursion stays shallow too.
    why = decline<DeclineCode::ConditionTooNested>(std::to_string(kMaxLoweredNesting));
    return std::nullopt;
  }
  if (e.is(kind::not_operator)) {
    auto inner = lower(ctx, e.field("argument"), uses_equal, why, depth + 1);
    if (!inner) return std::nullopt;
    return fmt::format("_graphmend.torch.logical_not({})", *inner);
  }
  if (e.is(kind::boolean_operator)) {
    auto l = lower(ctx, e.field("left"), uses_equal, why, depth + 1);
    if (!l) return std::nullopt;
    auto r = lower(ctx, e.field("right"), uses_equal, why, depth + 1);
    if (!r) return std::nullopt;
    const bool is_and = m.text(e.field("operator")) == "and";
    return fmt::format("_graphmend.torch.logical_{}({}, {})", is_and ? "and" : "or", *l, *r);
  }
  const Truth t = classify_truth(ctx, e);
  if (t.kind == TruthKind::Static) {
    why = decline<DeclineCode::PythonValueInCondition>(snippet(m, e));
    return std::nullopt;
  }
  if (auto bad = branch_effect(ctx, e, "the condition")) {
    why = std::move(bad);
    return std::nullopt;
  }
  if (t.kind == TruthKind::DataOperator) {
    auto q = callee_name(m, e);
    if (!q || *q != "torch.equal") {
      why = decline<DeclineCode::NoTensorForm>(snippet(m, e));
      return std::nullopt;
    }
    uses_equal = true;
    std::string text = copied(m, e);
    const std::string_view fn = m.text(e.field("function"));
    return "_graphmend.equal" + text.substr(fn.size());
  }
  if (t.kind != TruthKind::TensorTruth) {
    why = decline<DeclineCode::NotSelectableTensor>(snippet(m, e));
    return std::nullopt;
  }
  return "(" + copied(m, e) + ")";
}

}  // namespace

const FunctionIndex::Facts& FunctionIndex::facts(int function) {
  auto [it, fresh] = by_function_.try_emplace(function);
  if (!fresh) return it->second;
  Facts& f = it->second;
  const ir::Module& m = ctx_.module;
  const ir::Function& fn = m.functions[static_cast<size_t>(function)];
  syntax::walk(fn.node.field("body"), [&](ir::Node n) {
    if (n.is(kind::identifier)) {
      uint32_t& last = f.last_occurrence[std::string(m.text(n))];
      last = std::max(last, n.start());
    } else if (n.is(kind::call) && !f.inspects_frame) {
      const auto q = m.qualified_name(n.field("function"));
      f.inspects_frame = q && (*q == "locals" || *q == "vars" || *q == "eval" || *q == "exec" ||
                               *q == "sys._getframe" || *q == "inspect.currentframe");
    }
    return true;
  });
  // Statements of this function's own body (a nested def's statements run when it is called).
  analysis::walk_body(fn, [&](ir::Node n) {
    if (!n.is(kind::expression_statement) && !n.is(kind::assignment) && !n.is(kind::augmented_assignment)) return true;
    std::optional<std::string> what;
    for (const analysis::Effect& e : analysis::effects_of(m, ctx_.types, n)) {
      if (e.kind == analysis::EffectKind::InPlaceMutation || e.kind == analysis::EffectKind::SubscriptStore) what = e.what;
    }
    if (what) f.updates.emplace_back(n.start(), std::move(*what));
    return false;
  });
  return f;
}

LaterNames FunctionIndex::names_after(int function, ir::Node node) {
  return LaterNames(facts(function).last_occurrence, node.end());
}

std::optional<std::string> FunctionIndex::update_after(int function, ir::Node node) {
  const auto& updates = facts(function).updates;
  auto it = std::lower_bound(updates.begin(), updates.end(), node.end(),
                             [](const std::pair<uint32_t, std::string>& u, uint32_t at) { return u.first < at; });
  if (it == updates.end()) return std::nullopt;
  return it->second;
}

}  // namespace graphmend::rewrite
