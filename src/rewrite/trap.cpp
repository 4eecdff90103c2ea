#include "graphmend/rewrite/trap.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/item_effect.h"

namespace graphmend::rewrite {

using analysis::TruthKind;
using analysis::callee_name;
using analysis::classify_truth;

namespace {

// The condition as the helper call passes it: `torch.equal(a, b)` becomes `_graphmend.equal(a, b)`
// (a tensor, so the test can run in the graph); everything else stays as written. Declines a
// condition whose evaluation itself tests a tensor's truth (`t1 and t2`, `not t` inside).
struct LoweredCondition {
  std::string text;
  bool uses_equal = false;
};

std::variant<LoweredCondition, Declined> lower_condition(const analysis::FileContext& ctx, ir::Node cond) {
  const ir::Module& m = ctx.module;
  std::vector<std::pair<source::TextRange, std::string>> replacements;
  std::optional<Declined> declined;
  auto validate = [&](auto&& self, ir::Node e) -> void {
    if (declined) return;
    e = ir::unparenthesize(e);
    if (e.is(kind::boolean_operator)) {
      if (classify_truth(ctx, e.field(field::left)).kind != TruthKind::Static) {
        declined = Declined{decline<DeclineCode::TruthBeforeLastOperand>()};
        return;
      }
      self(self, e.field(field::right));
      return;
    }
    if (e.is(kind::not_operator)) {
      if (classify_truth(ctx, e.field(field::argument)).kind != TruthKind::Static) {
        declined = Declined{decline<DeclineCode::NotTestsTruth>()};
      }
      return;
    }
    if (e.is(kind::call)) {
      auto q = callee_name(m, e);
      if (q && (*q == "torch.allclose" || *q == "torch.is_nonzero")) {
        declined = Declined{decline<DeclineCode::BoolFromTensorData>(*q)};
        return;
      }
      if (q && *q == "torch.equal") {
        ir::Node args = e.field(field::arguments);
        std::vector<ir::Node> pos;
        for (ir::Node a : args.named_children()) {
          if (!a.is(kind::comment)) pos.push_back(a);
        }
        if (pos.size() != 2 || pos[0].is(kind::keyword_argument) || pos[1].is(kind::keyword_argument) ||
            pos[0].is(kind::list_splat) || pos[1].is(kind::list_splat)) {
          declined = Declined{decline<DeclineCode::EqualArguments>()};
          return;
        }
        replacements.push_back({e.field(field::function).range(), "_graphmend.equal"});
      }
    }
  };
  validate(validate, cond);
  if (declined) return *declined;
  LoweredCondition out;
  out.uses_equal = !replacements.empty();
  uint32_t cursor = cond.start();
  std::sort(replacements.begin(), replacements.end());
  for (const auto& [range, text] : replacements) {
    out.text += m.text().substr(cursor, range.start - cursor);
    out.text += text;
    cursor = range.end;
  }
  out.text += m.text().substr(cursor, cond.end() - cursor);
  // Line breaks inside a parenthesised condition are copied as they are.
  out.text = with_raw_newlines(out.text);
  return out;
}

bool inside_try(ir::Node n) {
  for (ir::Node p = n.parent(); p; p = p.parent()) {
    if (p.is(kind::try_statement) || p.is(kind::with_statement)) return p.is(kind::try_statement);
    if (p.is(kind::function_definition) || p.is(kind::module_)) return false;
  }
  return false;
}

// An in-place update of a tensor earlier in the function: under AOT autograd it is applied when
// the graph returns, so a guard that raises inside the same graph would leave it undone.
std::optional<std::string> earlier_in_place_update(const analysis::FileContext& ctx, ir::Node guard) {
  const int fi = ctx.module.function_of(guard);
  if (fi < 0) return std::nullopt;
  std::optional<std::string> found;
  analysis::walk_body(ctx.module.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
    if (found || n.start() >= guard.start()) return false;
    if (!n.is(kind::expression_statement) && !n.is(kind::assignment) && !n.is(kind::augmented_assignment)) return true;
    if (n.end() > guard.start()) return true;
    for (const analysis::Effect& e : analysis::effects_of(ctx.module, ctx.types, n)) {
      if (e.kind == analysis::EffectKind::InPlaceMutation) {
        found = e.what.empty() ? snippet(ctx.module, e.node) : e.what;
        return false;
      }
    }
    return false;
  });
  return found;
}

}  // namespace

ir::Node assert_testing_item(ir::Node item_call) {
  ir::Node p = item_call.parent();
  while (p && p.is(kind::parenthesized_expression)) p = p.parent();
  if (p && p.is(kind::comparison_operator)) {
    p = p.parent();
    while (p && p.is(kind::parenthesized_expression)) p = p.parent();
  }
  if (!p || !p.is(kind::assert_statement)) return {};
  // Only in the condition, not in the message.
  ir::Node cond = p.named_child(0);
  return cond && cond.start() <= item_call.start() && item_call.end() <= cond.end() ? p : ir::Node{};
}

std::variant<Fix, Declined> plan_item_assert(const analysis::FileContext& ctx, ir::Node item_call, SiteNamer& names) {
  const ir::Module& m = ctx.module;
  const ir::Node statement = assert_testing_item(item_call);
  if (!statement) return Declined{decline<DeclineCode::ItemAssertForm>()};
  if (auto failing = tracing_may_fail(ctx, item_call)) return *failing;
  const std::vector<ir::Node> parts = ir::children_without_comments(statement);
  const ir::Node cond = ir::unparenthesize(parts[0]);
  const ir::Node receiver = item_call.field(field::function).field(field::object);
  std::string tested;  // the tensor expression passed to the check
  if (cond == item_call) {
    tested = fmt::format("_graphmend.item_compare({}, \"!=\", 0)", with_raw_newlines(m.text(receiver)));
  } else {
    // `<item> <op> <operand>`: one operator, `.item()` on the left.
    const std::vector<ir::Node> operands = ir::children_without_comments(cond);
    const ir::Node op = cond.child(1);
    static constexpr std::string_view kOperators[] = {"<", "<=", ">", ">=", "==", "!="};
    if (operands.size() != 2 || ir::unparenthesize(operands[0]) != item_call || !op ||
        std::find(std::begin(kOperators), std::end(kOperators), m.text(op)) == std::end(kOperators)) {
      return Declined{decline<DeclineCode::ItemAssertForm>()};
    }
    ir::Node operand = ir::unparenthesize(operands[1]);
    const bool literal = is_number_literal(m, operand) && m.text(operand).find_first_of("jJ") == std::string_view::npos;
    if (!literal && !(operand.is(kind::identifier) && m.always_bound_at(operand))) {
      return Declined{decline<DeclineCode::ItemAssertOperand>(snippet(m, operand))};
    }
    tested = fmt::format("_graphmend.item_compare({}, \"{}\", {})", with_raw_newlines(m.text(receiver)), m.text(op),
                         m.text(operand));
  }
  // The message, evaluated only when the test fails: literals and names the helper evaluates
  // itself, nothing carried from the call point.
  std::string raised = "raise AssertionError";
  std::optional<std::string> literal_args = "";  // the check names the class itself: no helper
  if (parts.size() > 1) {
    SiteRenderer renderer(ctx);
    const std::optional<std::string> message = renderer.render(parts[1]);
    if (!message || !renderer.holes().empty()) return Declined{decline<DeclineCode::ItemAssertMessage>()};
    raised += "(" + renderer.finish(*message) + ")";
    literal_args =
        is_carried_literal(m, parts[1]) ? std::optional(", " + with_raw_newlines(m.text(parts[1]))) : std::nullopt;
  }
  if (inside_try(statement)) return Declined{decline<DeclineCode::GuardInTry>()};
  if (auto update = earlier_in_place_update(ctx, statement)) {
    return Declined{decline<DeclineCode::EarlierInPlaceUpdate>(*update)};
  }
  const int fi = m.function_of(statement);
  const std::string function = fi >= 0 ? m.functions[static_cast<size_t>(fi)].name : "module";
  Fix fix;
  fix.applicability = source::Applicability::Safe;
  fix.title = "test the assert inside the compiled graph on the tensor, compared as `.item()` compares; a "
              "failing input still raises AssertionError (eager path and `python -O` unchanged)";
  std::string raising = "AssertionError";  // the check's first argument: the class, or a site helper
  if (!literal_args) {
    // Named from its text: copies of one guard ("Copied from") name the same helper.
    raising = names.shared("raise", helper_signature(site_helper("", "", raised)));
    fix.helpers = {site_helper(raising, "", raised)};
  }
  const std::string check = fmt::format("_graphmend.check({}, {}, True{})", raising, tested, literal_args.value_or(""));
  // Under `python -O` the assert is gone: the eager branch, where it was, runs then.
  if (auto declined = compile_before_statement(m, statement, "__debug__ and _graphmend.compiling()", check, fix)) {
    return *declined;
  }
  return fix;
}

std::variant<GuardPlan, Declined> plan_guard(const analysis::FileContext& ctx, ir::Node if_statement) {
  const ir::Module& m = ctx.module;
  ir::Node raise;
  for (ir::Node s : if_statement.field(field::consequence).named_children()) {
    if (s.is(kind::raise_statement)) raise = s;
  }
  if (!raise || raise.named_child_count() == 0) return Declined{decline<DeclineCode::BareRaise>()};
  if (raise.field(field::cause)) return Declined{decline<DeclineCode::RaiseFrom>()};

  // The exception: a builtin class, called with a message graphmend can carry (or not called).
  ir::Node exc = ir::unparenthesize(raise.named_child(0));
  ir::Node cls = exc.is(kind::call) ? exc.field(field::function) : exc;
  if (!cls.is(kind::identifier) || m.lookup_at(cls) >= 0 || !analysis::api::has(analysis::api::Space::Global, m.text(cls), analysis::api::Fact::ExceptionClass)) {
    return Declined{decline<DeclineCode::NotBuiltinException>(snippet(m, cls))};
  }
  GuardPlan plan;
  plan.exception = std::string(m.text(cls));
  SiteRenderer renderer(ctx);
  std::string raised(m.text(cls));
  plan.literal_args = "";
  if (exc.is(kind::call)) {
    ir::Node args = exc.field(field::arguments);
    if (!args.is(kind::argument_list)) return Declined{decline<DeclineCode::GeneratorException>()};
    std::vector<std::string> rendered;
    for (ir::Node a : args.named_children()) {
      if (a.is(kind::comment)) continue;
      if (a.is(kind::keyword_argument) || a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
        return Declined{decline<DeclineCode::ExceptionKeywords>()};
      }
      auto r = renderer.render(a);
      if (!r) return Declined{*renderer.declined()};
      rendered.push_back(*r);
      if (plan.literal_args && is_carried_literal(m, a)) {
        *plan.literal_args += ", " + with_raw_newlines(m.text(a));
      } else {
        plan.literal_args.reset();
      }
    }
    // A tensor field is carried into the check, which formats the message from it only when the
    // guard fails, as the original does: only a name bound on every path to the guard, so that
    // passing it on every call computes nothing and cannot raise.
    for (ir::Node h : renderer.holes()) {
      if (!ctx.types.type_of(m, h).tensor_like()) continue;
      const ir::Node field = ir::unparenthesize(h);
      if (!field.is(kind::identifier)) return Declined{decline<DeclineCode::MessageFromTensor>(snippet(m, h))};
      if (!m.always_bound_at(field)) return Declined{decline<DeclineCode::MessageTensorUnbound>(snippet(m, h))};
    }
    renderer.choose_names(m.text(raise));
    std::vector<std::string> finished;
    for (const std::string& r : rendered) finished.push_back(renderer.finish(r));
    raised = helper_call(raised, finished, 4 + std::string_view("raise ").size());
    if (rendered.size() == 1 && renderer.holes().empty() && is_literal(args.named_child(0))) {
      plan.literal_message = std::string(m.text(args.named_child(0)));
    }
  }
  plan.raise_body = "raise " + raised;
  plan.params = renderer.params();
  plan.hole_args = renderer.hole_args();
  plan.holes = renderer.holes();

  ir::Node cond = ir::unparenthesize(if_statement.field(field::condition));
  if (cond.is(kind::not_operator)) {
    plan.negate = true;
    cond = ir::unparenthesize(cond.field(field::argument));
  }
  plan.condition = cond;
  auto lowered = lower_condition(ctx, cond);
  if (auto* d = std::get_if<Declined>(&lowered)) return *d;
  plan.condition_text = std::get<LoweredCondition>(lowered).text;
  plan.uses_equal = std::get<LoweredCondition>(lowered).uses_equal;
  return plan;
}

std::variant<Fix, Declined> plan_trap(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names) {
  const ir::Module& m = ctx.module;
  if (inside_try(if_statement)) {
    return Declined{decline<DeclineCode::GuardInTry>()};
  }
  auto planned = plan_guard(ctx, if_statement);
  if (auto* d = std::get_if<Declined>(&planned)) return *d;
  if (auto dead = cannot_run(m, if_statement)) return *dead;
  if (auto failing = tracing_may_fail(ctx, if_statement)) return *failing;
  const GuardPlan& g = std::get<GuardPlan>(planned);
  if (auto update = earlier_in_place_update(ctx, if_statement)) {
    return Declined{decline<DeclineCode::EarlierInPlaceUpdate>(*update)};
  }

  const int fi = m.function_of(if_statement);
  const std::string function = fi >= 0 ? m.functions[static_cast<size_t>(fi)].name : "module";
  Fix fix;
  fix.applicability = source::Applicability::Safe;
  std::string compiled;
  if (ctx.options.trap_async) {
    if (!g.literal_message) {
      return Declined{decline<DeclineCode::AsyncNeedsLiteral>()};
    }
    fix.title = "assert the guard asynchronously with torch._assert_async (opt-in tier: raises RuntimeError, not " +
                g.exception + "; on CUDA a device-side assert, reported later)";
    compiled = fmt::format("_graphmend.assert_async({}, {}, {})", g.condition_text, g.negate ? "True" : "False",
                           *g.literal_message);
  } else {
    fix.title = fmt::format("check the guard inside the compiled graph; a failing input still raises {} (eager "
                            "path unchanged)",
                            g.exception);
    // The class and its literal arguments, read at the site; else a site helper that makes the
    // message from the values carried to it.
    std::string raising = g.exception;
    if (!g.literal_args) {
      // Named from its text: copies of one guard ("Copied from") name the same helper.
      raising = names.shared("raise", helper_signature(site_helper("", g.params, g.raise_body)));
      fix.helpers = {site_helper(raising, g.params, g.raise_body)};
    }
    compiled = fmt::format("_graphmend.check({}, {}, {}{})", raising, g.condition_text, g.negate ? "True" : "False",
                           g.literal_args.value_or(g.hole_args));
  }
  if (auto declined = compile_before_if(m, if_statement, "_graphmend.compiling()", compiled, fix)) return *declined;
  return fix;
}

}  // namespace graphmend::rewrite
