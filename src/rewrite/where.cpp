#include "graphmend/rewrite/where.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/tensor_meta.h"
#include "graphmend/analysis/totality.h"
#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/item_effect.h"
#include "graphmend/rewrite/trap.h"
#include "graphmend/rewrite/where_buffer.h"
#include "graphmend/rewrite/python_layout.h"
#include "graphmend/rewrite/where_identity.h"

namespace graphmend::rewrite {

using analysis::TruthKind;
using analysis::Truth;
using analysis::callee_name;
using analysis::classify_truth;
using analysis::is_validation_guard;

namespace {

bool may_alias(const ir::Module& m, ir::Node value) {
  value = ir::unparenthesize(value);
  if (value.is(kind::identifier) || value.is(kind::attribute) || value.is(kind::subscript)) return true;
  if (value.is(kind::call)) {
    ir::Node fn = value.field(field::function);
    if (fn.is(kind::attribute) && analysis::api::has(analysis::api::Space::TensorMethod,
                                                     m.text(fn.field(field::attribute)), analysis::api::Fact::MayAlias)) {
      return true;
    }
    auto q = m.qualified_name(fn);
    if (q && analysis::api::torch_function_may_alias(*q)) return true;
  }
  return false;
}

struct Assignment {
  ir::Node statement;  // expression_statement, or a guard's if_statement
  ir::Node target;     // identifier (null for a guard)
  ir::Node value;
  std::optional<GuardPlan> guard;  // `if <tensor cond>: raise E(msg)` inside the branch
};

std::set<std::string> names_read(const ir::Module& m, ir::Node n);

Decline attribute_store_reason(const ir::Module& m, ir::Node target) {
  return decline<DeclineCode::AssignsAttribute>(snippet(m, target));
}

// `a, b = x, y` as the assignments `a = x` and `b = y`: the same when the targets are distinct
// names and no value reads one of them (Python evaluates every value before binding any name;
// the selection computes them in the same order). Empty with `why` unset when `assignment` is
// no such statement; empty with `why` set when it is one that cannot be split.
std::vector<std::pair<ir::Node, ir::Node>> split_tuple_assignment(const ir::Module& m, ir::Node assignment,
                                                                  std::optional<Decline>& why) {
  const ir::Node left = assignment.field(field::left);
  const ir::Node right = assignment.field(field::right);
  if (!left || !right || assignment.field(field::type) ||
      !(left.is(kind::pattern_list) || left.is(kind::tuple_pattern) || left.is(kind::list_pattern))) {
    return {};
  }
  const std::vector<ir::Node> targets = ir::children_without_comments(left);
  for (ir::Node t : targets) {
    if (ir::unparenthesize(t).is(kind::attribute)) {
      why = attribute_store_reason(m, t);
      return {};
    }
  }
  if (!(right.is(kind::expression_list) || right.is(kind::tuple) || right.is(kind::list))) return {};
  const std::vector<ir::Node> values = ir::children_without_comments(right);
  if (values.size() != targets.size()) return {};
  std::set<std::string> names;
  for (ir::Node t : targets) {
    if (!t.is(kind::identifier) || !names.insert(std::string(m.text(t))).second) return {};
  }
  std::vector<std::pair<ir::Node, ir::Node>> out;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i].is(kind::list_splat)) return {};
    for (const std::string& r : names_read(m, values[i])) {
      if (names.contains(r)) {
        why = decline<DeclineCode::TupleReadsItsTarget>(snippet(m, assignment), r);
        return {};
      }
    }
    out.emplace_back(targets[i], values[i]);
  }
  return out;
}

// A branch body as plain `name = value` assignments (a tuple of names = a tuple of values counts
// as one per name), or why not.
std::optional<std::vector<Assignment>> assignments_of(const analysis::FileContext& ctx, ir::Node block,
                                                      std::optional<Decline>& why) {
  std::vector<Assignment> out;
  for (ir::Node s : block.named_children()) {
    if (s.is(kind::comment)) continue;
    if (s.is(kind::if_statement) && is_validation_guard(ctx.module, s)) {
      const TruthKind kind = classify_truth(ctx, s.field(field::condition)).kind;
      if (kind == TruthKind::TensorTruth || kind == TruthKind::DataOperator) {
        auto g = plan_guard(ctx, s);
        if (auto* d = std::get_if<Declined>(&g)) {
          why = decline<DeclineCode::GuardCannotRun>(render(d->reason));
          return std::nullopt;
        }
        if (auto bad = branch_effect(ctx, s.field(field::condition), "a guard's condition")) {
          why = std::move(bad);
          return std::nullopt;
        }
        out.push_back({s, {}, {}, std::get<GuardPlan>(g)});
        continue;
      }
    }
    ir::Node a = ir::sole_expression(s);
    if (a && a.is(kind::assignment)) {
      std::optional<Decline> unsplittable;
      const auto pairs = split_tuple_assignment(ctx.module, a, unsplittable);
      if (unsplittable) {
        why = std::move(unsplittable);
        return std::nullopt;
      }
      for (const auto& [target, value] : pairs) {
        if (auto bad = branch_effect(ctx, value)) {
          why = std::move(bad);
          return std::nullopt;
        }
        out.push_back({s, target, value, std::nullopt});
      }
      if (!pairs.empty()) continue;
    }
    if (a && a.is(kind::assignment) && ir::unparenthesize(a.field(field::left)).is(kind::attribute)) {
      why = attribute_store_reason(ctx.module, a.field(field::left));
      return std::nullopt;
    }
    if (!a || !a.is(kind::assignment) || !a.field(field::left).is(kind::identifier) || !a.field(field::right) ||
        a.field(field::type)) {
      why = decline<DeclineCode::UnselectableStatement>(snippet(ctx.module, s));
      return std::nullopt;
    }
    if (auto bad = branch_effect(ctx, a.field(field::right))) {
      why = std::move(bad);
      return std::nullopt;
    }
    out.push_back({s, a.field(field::left), a.field(field::right), std::nullopt});
  }
  return out;
}

std::set<std::string> names_read(const ir::Module& m, ir::Node n) {
  std::set<std::string> out;
  syntax::walk(n, [&](ir::Node c) {
    if (c.is(kind::identifier)) out.insert(std::string(m.text(c)));
    return true;
  });
  return out;
}

// True when the identifier `n` is a name being bound (`n = ...`, an element of an unpacking
// target, `(n := ...)`), not read.
bool binds_name(ir::Node n) {
  ir::Node child = n;
  ir::Node p = n.parent();
  while (p && (p.is(kind::pattern_list) || p.is(kind::tuple_pattern) || p.is(kind::list_pattern) ||
               p.is(kind::parenthesized_expression))) {
    child = p;
    p = p.parent();
  }
  if (!p) return false;
  if (p.is(kind::assignment) || p.is(kind::augmented_assignment)) {
    return p.field(field::left) == child && !p.is(kind::augmented_assignment);
  }
  return p.is(kind::named_expression) && p.field(field::name) == n;
}

// A local of the `if`'s function that the selection reads and the original may not: in a branch
// (the selection computes every branch) or an `elif` condition (it computes every condition),
// not bound there earlier in the same branch, and possibly unbound when the `if` starts (a path
// that does not bind it, a `del`). The original reads it only on the path that takes that
// branch; the selection would raise UnboundLocalError on the others. The branches' statements
// are `name = value` assignments run in order, so a binding earlier in the branch is the one read.
// With `first_condition_skipped`, the first condition counts too: Python values hoisted before it
// (split_static_conjuncts) make the selection skip it on paths where the original reads it.
std::optional<std::string> unbound_branch_read(const ir::Module& m, int fi, ir::Node if_statement,
                                               const std::vector<std::pair<ir::Node, ir::Node>>& arms,
                                               const std::vector<ir::Node>& blocks, bool first_condition_skipped) {
  const ir::Function& fn = m.functions[static_cast<size_t>(fi)];
  const ir::Node start = if_statement.field(field::condition);
  std::map<int, bool> bound;  // by symbol
  std::optional<std::string> found;
  auto visit_region = [&](ir::Node region, bool branch) {
    std::map<int, uint32_t> bound_in_branch;  // symbol -> where the branch first binds it
    syntax::walk(region, [&](ir::Node n) {
      if (found) return false;
      if (n.is(kind::lambda) || n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
      if (!n.is(kind::identifier)) return true;
      const ir::Node parent = n.parent();
      if (parent && ((parent.is(kind::attribute) && parent.field(field::attribute) == n) ||
                     (parent.is(kind::keyword_argument) && parent.field(field::name) == n))) {
        return true;
      }
      const int symbol = m.lookup_at(n);
      if (symbol < 0 || m.symbols[static_cast<size_t>(symbol)].scope != fn.scope) return true;
      if (binds_name(n)) {
        if (branch) bound_in_branch.emplace(symbol, n.start());
        return true;
      }
      if (const auto own = bound_in_branch.find(symbol); own != bound_in_branch.end() && own->second < n.start()) {
        return true;
      }
      auto [it, inserted] = bound.emplace(symbol, false);
      if (inserted) it->second = m.always_bound_at(fi, symbol, start);
      if (!it->second) found = std::string(m.text(n));
      return true;
    });
  };
  for (size_t i = first_condition_skipped ? 0 : 1; i < arms.size(); ++i) visit_region(arms[i].first, false);
  for (ir::Node block : blocks) visit_region(block, true);
  return found;
}

// A name a branch binds besides the target of its `name = value` statements: the inner target of
// `y = z = v` or the name of a walrus anywhere in it. The selection binds only each statement's
// target, so such a name would keep whichever branch's value was computed last.
std::optional<Decline> binding_besides_target(const ir::Module& m, ir::Node block) {
  std::optional<Decline> found;
  syntax::walk(block, [&](ir::Node n) {
    if (found) return false;
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (n.is(kind::assignment) && n.field(field::right) && n.field(field::right).is(kind::assignment)) {
      found = decline<DeclineCode::BindsBesidesTarget>(snippet(m, n), snippet(m, n.field(field::right).field(field::left)));
    } else if (n.is(kind::named_expression)) {
      found = decline<DeclineCode::BindsBesidesTarget>(snippet(m, n), m.text(n.field(field::name)));
    }
    return !found;
  });
  return found;
}

// A `continue` or `break` in a branch (not inside a loop of its own): the condition decides
// which statements run next.
ir::Node control_statement(ir::Node block) {
  ir::Node found;
  syntax::walk(block, [&](ir::Node n) {
    if (found) return false;
    if (n.is(kind::continue_statement) || n.is(kind::break_statement)) {
      found = n;
      return false;
    }
    return !(n.is(kind::for_statement) || n.is(kind::while_statement) || n.is(kind::function_definition) ||
             n.is(kind::class_definition) || n.is(kind::lambda));
  });
  return found;
}

// A value that is never a tensor: `_graphmend.selectable` rejects it at trace time, so a
// selection of it would never run.
bool is_python_literal(const ir::Module& m, ir::Node value) {
  value = ir::unparenthesize(value);
  return is_number_literal(m, value) || value.is(kind::true_) || value.is(kind::false_) || value.is(kind::none) ||
         value.is(kind::string) || value.is(kind::concatenated_string) || value.is(kind::list) ||
         value.is(kind::tuple) || value.is(kind::dictionary) || value.is(kind::set);
}

// A name used after the `if` that a branch sets to a Python literal (`to_drop = True`), or a
// `return` of one, also as the statement right after an else-less `if` that returns
// (`if m.any(): return m` then `return None`): no selection can take it, whatever the other
// branches hold.
std::optional<Decline> python_value_selected(const ir::Module& m, ir::Node if_statement,
                                             const std::vector<ir::Node>& blocks, bool has_else,
                                             const LaterNames& later) {
  if (!has_else) {
    ir::Node next = if_statement.next_named_sibling();
    while (next && next.is(kind::comment)) next = next.next_named_sibling();
    bool branch_returns = false;
    for (ir::Node block : blocks) {
      for (ir::Node s : block.named_children()) branch_returns |= s.is(kind::return_statement);
    }
    if (branch_returns && next && next.is(kind::return_statement) && next.named_child_count() == 1 &&
        is_python_literal(m, next.named_child(0))) {
      return decline<DeclineCode::PythonValueSelected>("the returned value", snippet(m, next.named_child(0)));
    }
  }
  for (ir::Node block : blocks) {
    for (ir::Node s : block.named_children()) {
      if (s.is(kind::return_statement) && s.named_child_count() == 1 && is_python_literal(m, s.named_child(0))) {
        return decline<DeclineCode::PythonValueSelected>("the returned value", snippet(m, s.named_child(0)));
      }
      ir::Node a = ir::sole_expression(s);
      if (!a || !a.is(kind::assignment) || a.field(field::type) || !a.field(field::left).is(kind::identifier)) continue;
      const std::string name(m.text(a.field(field::left)));
      if (a.field(field::right) && later.contains(name) && is_python_literal(m, a.field(field::right))) {
        return decline<DeclineCode::PythonValueSelected>(fmt::format("`{}`", name), snippet(m, a.field(field::right)));
      }
    }
  }
  return std::nullopt;
}

// True when this occurrence is used as only a tensor can be: the receiver of a Tensor method
// (`x.abs()`), or an operand of a comparison or operator whose result is (`(mask == 0).all()`).
bool used_as_tensor(const ir::Module& m, ir::Node id) {
  ir::Node n = id;
  for (int hops = 0; hops < 4; ++hops) {
    ir::Node p = n.parent();
    while (p && p.is(kind::parenthesized_expression)) {
      n = p;
      p = p.parent();
    }
    if (!p) return false;
    // The tensor operand of a torch operation (`torch.isinf(h)`): the first positional argument.
    if (p.is(kind::argument_list) && p.parent() && p.parent().is(kind::call)) {
      const std::vector<ir::Node> args = ir::children_without_comments(p);
      const auto q = m.qualified_name(ir::unparenthesize(p.parent().field(field::function)));
      return !args.empty() && args[0] == n && q && analysis::api::op_meta(*q) != nullptr;
    }
    if (p.is(kind::attribute) && p.field(field::object) == n) {
      return analysis::api::has(analysis::api::Space::TensorMethod, m.text(p.field(field::attribute)),
                                analysis::api::Fact::TensorEvidence);
    }
    if (!p.is(kind::comparison_operator) && !p.is(kind::binary_operator)) return false;
    n = p;
  }
  return false;
}

// Parameters of unknown type (unannotated, Optional, ...) that the `if` uses as tensors and that
// nothing rebinds before the `if` ends: the planner assumes they are plain tensors, and the gate
// checks it at trace time (`_graphmend.plain_tensors(...)`), running the original otherwise.
std::vector<std::string> assumable_tensors(const analysis::FileContext& ctx, const ir::Function& fn, ir::Node if_statement) {
  const ir::Module& m = ctx.module;
  std::vector<std::string> out;
  const ir::Scope& scope = m.scopes[static_cast<size_t>(fn.scope)];
  // A parameter (bound only as one before the `if`) or a local bound before it, of unknown type,
  // that the `if` uses as a tensor, and that it rebinds only by `name = value` statements no read
  // in the `if` follows: every read there (a value's own read included, which comes before its
  // binding) sees the value it held when the `if` started, the one the gate checks.
  // `if (x.abs() > 5).any(): x = torch.clamp(x, -5, 5)`. A read after any of those statements is
  // a read after the first, so one walk from its end.
  auto consider = [&](const std::string& name) {
    const auto sym = scope.symbols.find(name);
    if (sym == scope.symbols.end()) return;
    const ir::Symbol& symbol = m.symbols[static_cast<size_t>(sym->second)];
    if (symbol.declared_global || symbol.declared_nonlocal) return;
    bool rebound = false;
    ir::Node first_rebinding;
    for (int b : symbol.bindings) {  // in source order
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.target.start() >= if_statement.end()) break;
      if (binding.kind == ir::BindingKind::Parameter) continue;
      if (binding.target.start() < if_statement.start()) continue;  // the gate checks the value the `if` sees
      const ir::Node assignment = binding.target.parent();
      rebound = binding.kind != ir::BindingKind::Assignment || !binding.value || !assignment.is(kind::assignment) ||
                !(assignment.field(field::left) == binding.target);
      if (rebound) break;
      if (!first_rebinding) first_rebinding = assignment;
    }
    if (!rebound && first_rebinding) {
      syntax::walk(if_statement, [&](ir::Node n) {
        rebound |= n.start() >= first_rebinding.end() && n.is(kind::identifier) && m.text(n) == name;
        return !rebound;
      });
    }
    if (rebound) return;
    bool used = false;
    analysis::ValueType type;
    syntax::walk(if_statement, [&](ir::Node n) {
      if (used) return false;
      if (n.is(kind::identifier) && m.text(n) == name && used_as_tensor(m, n)) {
        used = true;
        type = ctx.types.type_of(m, n);
      }
      return true;
    });
    if (!used) return;
    if (type.kind == analysis::ValueKind::Unknown || type.kind == analysis::ValueKind::LikelyTensor ||
        type.kind == analysis::ValueKind::OptionalTensor) {
      out.push_back(name);
    }
  };
  std::set<std::string> parameters;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Parameter& p = fn.params[i];
    if (i == 0 && fn.klass >= 0) continue;  // self
    parameters.insert(p.name);
    if (p.kind != ir::Parameter::Kind::Regular && p.kind != ir::Parameter::Kind::KeywordOnly) continue;
    consider(p.name);
  }
  // Locals, in a deterministic order; only those the `if` mentions.
  std::set<std::string> mentioned;
  syntax::walk(if_statement, [&](ir::Node n) {
    if (n.is(kind::identifier)) mentioned.insert(std::string(m.text(n)));
    return true;
  });
  for (const std::string& name : mentioned) {
    const auto sym = scope.symbols.find(name);
    if (parameters.contains(name) || sym == scope.symbols.end() || name == "self") continue;
    consider(name);
  }
  return out;
}

}  // namespace

namespace {

// An expression that needs no parentheses as an operand of `|`, `&` or `~`.
bool primary(ir::Node n) {
  n = n.is(kind::parenthesized_expression) ? n : n;
  return n.is(kind::call) || n.is(kind::attribute) || n.is(kind::subscript) || n.is(kind::identifier) ||
         n.is(kind::parenthesized_expression);
}

// A condition as one boolean tensor expression, with its metadata and what it needs checked.
struct TensorCondition {
  LayoutExpr expr;
  analysis::TensorMeta meta;
  std::vector<std::string> checks;  // trace-time: `a.shape == b.shape` for a torch.equal
  bool is_primary = true;           // needs no parentheses as an operand
};

class ConditionRenderer {
 public:
  ConditionRenderer(const analysis::FileContext& ctx, std::string torch, const analysis::MetaFacts& facts)
      : ctx_(ctx), m_(ctx.module), torch_(std::move(torch)), facts_(facts) {}

  // `first`: the original evaluates this condition's leftmost atom on every run of the `if`.
  std::optional<TensorCondition> render(ir::Node e, bool first, std::optional<Decline>& why) {
    first_ = first;
    return visit(e, why, 0);
  }

 private:
  std::optional<TensorCondition> visit(ir::Node e, std::optional<Decline>& why, int depth) {
    e = ir::unparenthesize(e);
    if ((e.is(kind::not_operator) || e.is(kind::boolean_operator)) && depth >= kMaxLoweredNesting) {
      why = decline<DeclineCode::ConditionTooNested>(std::to_string(kMaxLoweredNesting));
      return std::nullopt;
    }
    if (e.is(kind::not_operator)) {
      auto inner = visit(e.field(field::argument), why, depth + 1);
      if (!inner) return std::nullopt;
      const std::string text = inner->is_primary ? inner->expr.flat() : "(" + inner->expr.flat() + ")";
      inner->expr = LayoutExpr::atom("~" + text);
      inner->is_primary = false;
      return inner;
    }
    if (e.is(kind::boolean_operator)) {
      const std::string op = m_.text(e.field(field::operator_)) == "and" ? "&" : "|";
      auto l = visit(e.field(field::left), why, depth + 1);
      if (!l) return std::nullopt;
      auto r = visit(e.field(field::right), why, depth + 1);
      if (!r) return std::nullopt;
      TensorCondition out;
      std::vector<LayoutExpr> operands;
      for (TensorCondition* side : {&*l, &*r}) {
        if (side->expr.kind == LayoutExpr::Kind::Chain && side->expr.text == op) {
          for (LayoutExpr& part : side->expr.parts) operands.push_back(std::move(part));
        } else if (side->is_primary) {
          operands.push_back(std::move(side->expr));
        } else {
          operands.push_back(LayoutExpr::atom("(" + side->expr.flat() + ")"));
        }
        out.checks.insert(out.checks.end(), side->checks.begin(), side->checks.end());
      }
      out.expr = LayoutExpr::chain(op, std::move(operands));
      out.meta = combine(l->meta, r->meta);
      out.is_primary = false;
      return out;
    }
    const Truth t = classify_truth(ctx_, e);
    if (t.kind == TruthKind::Static) {
      why = decline<DeclineCode::PythonValueInCondition>(snippet(m_, e));
      return std::nullopt;
    }
    // Only the leftmost atom runs whenever the original's condition does; `and`/`or` may skip the
    // others. The selection evaluates it first (`torch.where(c, ...)`'s first argument, after only
    // pure temporaries that cannot raise), so whatever it raises is the original's exception.
    const bool as_in_original = std::exchange(first_, false);
    if (auto bad = branch_effect(ctx_, e, "the condition", as_in_original, as_in_original)) {
      why = std::move(bad);
      return std::nullopt;
    }
    if (t.kind == TruthKind::DataOperator) return equal(e, why);
    if (t.kind != TruthKind::TensorTruth) {
      why = decline<DeclineCode::NotSelectableTensor>(snippet(m_, e));
      return std::nullopt;
    }
    auto expr = layout_expr(m_, e);
    if (!expr) {
      why = decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, e));
      return std::nullopt;
    }
    TensorCondition out;
    out.meta = analysis::tensor_meta(m_, ctx_.types, e, facts_);
    out.is_primary = primary(e);
    // `if t:` is t's truth; torch.where wants a boolean tensor.
    if (out.meta.dtype != analysis::TensorMeta::Dtype::Fixed || out.meta.fixed_dtype != "torch.bool") {
      const std::string base = out.is_primary ? expr->flat() : "(" + expr->flat() + ")";
      expr = LayoutExpr::atom(base + ".bool()");
      out.is_primary = true;
      out.meta.dtype = analysis::TensorMeta::Dtype::Fixed;
      out.meta.fixed_dtype = "torch.bool";
    }
    out.expr = std::move(*expr);
    return out;
  }

  // `torch.equal(a, b)`: the same shape, and every element equal (with torch.equal's promotion and
  // NaN != NaN). Different shapes make it False, which `(a == b).all()` would broadcast past: the
  // shapes are proven equal, or checked while Dynamo traces.
  std::optional<TensorCondition> equal(ir::Node e, std::optional<Decline>& why) {
    const auto q = callee_name(m_, e);
    const std::vector<ir::Node> args = ir::children_without_comments(e.field(field::arguments));
    if (!q || *q != "torch.equal" || args.size() != 2 || args[0].is(kind::keyword_argument) ||
        args[1].is(kind::keyword_argument) || args[0].is(kind::list_splat) || args[1].is(kind::list_splat)) {
      why = decline<DeclineCode::NoTensorForm>(snippet(m_, e));
      return std::nullopt;
    }
    const auto a = one_line_text(m_, args[0]);
    const auto b = one_line_text(m_, args[1]);
    if (!a || !b) {
      why = decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, e));
      return std::nullopt;
    }
    const analysis::TensorMeta ma = analysis::tensor_meta(m_, ctx_.types, args[0], facts_);
    const analysis::TensorMeta mb = analysis::tensor_meta(m_, ctx_.types, args[1], facts_);
    TensorCondition out;
    if (!ma.tensor || !mb.tensor || !ma.shape_known || !mb.shape_known) {
      why = decline<DeclineCode::NoTensorForm>(snippet(m_, e));
      return std::nullopt;
    }
    if (ma.shape_roots != mb.shape_roots) {
      out.checks.push_back(fmt::format("{}.shape == {}.shape", primary(args[0]) ? *a : "(" + *a + ")",
                                       primary(args[1]) ? *b : "(" + *b + ")"));
    }
    out.expr = LayoutExpr::atom(fmt::format("({} == {}).all()", *a, *b));
    out.meta = combine(ma, mb);
    out.meta.shape_roots.clear();  // a full reduction
    out.meta.dtype = analysis::TensorMeta::Dtype::Fixed;
    out.meta.fixed_dtype = "torch.bool";
    out.is_primary = true;
    return out;
  }

  static analysis::TensorMeta combine(const analysis::TensorMeta& a, const analysis::TensorMeta& b) {
    analysis::TensorMeta out = a;
    out.tensor = a.tensor && b.tensor;
    out.shape_known = a.shape_known && b.shape_known;
    out.shape_roots.insert(b.shape_roots.begin(), b.shape_roots.end());
    return out;
  }

  const analysis::FileContext& ctx_;
  const ir::Module& m_;
  std::string torch_;
  const analysis::MetaFacts& facts_;
  bool first_ = true;
};

// A read of `name` in the `if` that sees the value it held when the `if` started (in a condition,
// or in a branch before that branch binds it), or null: what the kept value's metadata is read from.
ir::Node name_node(const ir::Module& m, ir::Node if_statement, std::string_view name) {
  ir::Node found;
  ir::Node bound_in;  // the block of the latest binding seen, in source order
  uint32_t bound_at = 0;
  syntax::walk(if_statement, [&](ir::Node n) {
    if (found) return false;
    if (n.is(kind::lambda) || n.is(kind::function_definition)) return false;
    if (!n.is(kind::identifier) || m.text(n) != name) return true;
    const ir::Node parent = n.parent();
    if (parent && ((parent.is(kind::attribute) && parent.field(field::attribute) == n) ||
                   (parent.is(kind::keyword_argument) && parent.field(field::name) == n))) {
      return true;
    }
    ir::Node block = n;
    while (block && !block.is(kind::block) && block != if_statement) block = block.parent();
    if (binds_name(n)) {
      bound_in = block;
      bound_at = n.start();
      return true;
    }
    if (!(bound_in && block == bound_in && bound_at < n.start())) found = n;
    return true;
  });
  return found;
}

// The statements of a compiled form laid out at `indent`: the file's line break between lines.
std::string joined_lines(const std::vector<std::string>& lines, std::string_view newline) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? std::string(newline) : "") + lines[i];
  return out;
}

// A statement of a branch (a temporary, a comment) re-indented from `from` to `to`: its first
// line's indentation is replaced, and each later line moves by the same amount, except lines inside
// a multi-line string (its value).
std::string reindent_statement(const ir::Module& m, ir::Node s, std::string_view from, std::string_view to) {
  std::string text(m.text(s));
  std::string out;
  size_t pos = 0;
  std::vector<source::TextRange> strings;
  syntax::walk(s, [&](ir::Node n) {
    if (n.is(kind::string) && m.text(n).find('\n') != std::string_view::npos) {
      strings.push_back(n.range());
      return false;
    }
    return true;
  });
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(pos, end - pos);
    const uint32_t absolute = s.start() + static_cast<uint32_t>(pos);
    const bool in_string = std::any_of(strings.begin(), strings.end(), [&](const source::TextRange& r) {
      return r.start < absolute && absolute < r.end;
    });
    if (pos > 0 && !in_string && line.starts_with(from)) {
      out += to;
      line.remove_prefix(from.size());
    }
    out += line;
    if (end == text.size()) break;
    out += '\n';
    pos = end + 1;
  }
  return out;
}

// What to write for one `if`, every proof done: rendering a plan cannot decline.
struct WherePlan {
  enum class Form {
    AllModes,             // eager, grad and compiled alike
    Compiled,             // under torch.compile; the original kept as the `elif`
    CompiledWithoutGrad,  // under torch.compile without grad
  };
  // One statement binding a name (or returning) the selection of `values`, one per arm, then the
  // value when no arm is taken. `flat`: one line per arm into the name itself (a long chain).
  struct Selection {
    std::string prefix;  // `name = ` or `return `
    std::string name;
    std::vector<LayoutExpr> values;
    bool flat = false;
  };
  Form form = Form::AllModes;
  std::string torch;
  ir::Node if_statement;
  ir::Node first_condition;  // replaced by the static conjunct in the all-modes form
  ir::Node first_block;
  std::vector<std::string> static_atoms;    // the static conjuncts, kept as a Python `if` (joined by `and`)
  std::vector<LayoutExpr> conditions;      // each arm's, as a boolean tensor
  std::vector<std::string> checks;         // trace-time checks of the compile-gated form
  std::vector<LayoutExpr> guard_checks;    // guards in branches, checked in the graph
  std::vector<source::Helper> helpers;
  std::vector<ir::Node> kept_statements;   // temporaries and comments, run before the selections
  std::vector<Selection> selections;
  std::optional<Unsafe> unsafe_reason;
};

Fix render_where(const ir::Module& m, const WherePlan& plan);

// The analysis of one `if` into a WherePlan, in steps; each returns a coded decline, or nothing
// to go on. The steps share what the earlier ones found (the members below).
class WherePlanner {
 public:
  WherePlanner(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names, FunctionIndex& index)
      : ctx_(ctx),
        m_(ctx.module),
        if_(if_statement),
        names_(names),
        index_(index),
        fi_(m_.function_of(if_statement)),
        fn_(&m_.functions[static_cast<size_t>(fi_)]),
        later_(index.names_after(fi_, if_statement)) {}

  std::variant<Fix, Declined> plan();

 private:
  void read_chain();
  std::optional<Decline> inexpressible() const;
  std::optional<Decline> read_conditions();
  std::optional<Decline> split_static_conjuncts(ir::Node& cond);
  bool static_hoistable(ir::Node e);
  std::optional<Decline> read_returns();
  std::optional<Decline> read_assignments();
  std::optional<Decline> classify_names();
  std::optional<Decline> check_reads();
  std::optional<Decline> check_inlined() const;
  std::optional<Decline> prove_kept_values();
  std::optional<Decline> collect_candidates();
  std::optional<Decline> check_dtypes();
  std::optional<Decline> prove_same_metadata();
  std::optional<Decline> plan_guards(WherePlan& plan);
  std::optional<Decline> plan_selections(WherePlan& plan);
  std::optional<Decline> long_chain_reads_selected() const;
  std::optional<Decline> one_element(TensorCondition& c);
  std::optional<Decline> same_meta(const std::vector<analysis::TensorMeta>& metas, std::string_view what);
  std::optional<LayoutExpr> value_expr(size_t branch, ir::Node value) const;
  analysis::TensorMeta candidate_meta(size_t branch, ir::Node value) const;
  analysis::TensorMeta kept_meta(const std::string& name) const;
  void add_check(const std::string& c);
  std::optional<Decline> python_may_raise() const;

  const analysis::FileContext& ctx_;
  const ir::Module& m_;
  ir::Node if_;
  SiteNamer& names_;
  FunctionIndex& index_;
  int fi_;
  const ir::Function* fn_;
  LaterNames later_;  // names read after the `if`
  // The chain: (condition, block) for the `if` and each `elif`; the `else` block if any.
  std::vector<std::pair<ir::Node, ir::Node>> arms_;
  ir::Node else_block_;
  std::vector<ir::Node> blocks_;
  std::string torch_;
  std::vector<std::string> assumed_;  // parameters of unknown type planned as plain tensors
  ir::Node static_part_;                // the Python values before the tensor part
  std::vector<ir::Node> hoisted_statics_;  // the Python values after it, tested first here
  std::vector<ir::Node> tensor_parts_;
  analysis::MetaFacts facts_;
  std::vector<TensorCondition> conds_;
  std::vector<std::string> checks_;
  bool aliasing_ = false;                     // a candidate is an existing object (a name, a view)
  std::optional<Unsafe> unsafe_reason_;  // a kept prior object whose replacement may be seen
  bool grad_safe_ = true;
  bool cheap_ = true;
  bool return_form_ = false;
  std::vector<ir::Node> returns_;
  // What the selection reads, per branch: candidates for each selected name (absent: the name's
  // own value from before the `if`), and the temporaries that run first.
  std::vector<std::string> selected_;  // in order of first assignment; empty for the return form
  std::vector<std::map<std::string, ir::Node>> candidates_;
  std::vector<std::vector<ir::Node>> kept_statements_;       // temporaries and comments, in order
  std::vector<std::map<std::string, ir::Node>> temporaries_;  // name -> value
  std::set<std::string> temporary_names_;
  std::set<std::string> inlined_;  // temporaries written where they are read
  std::map<std::string, int> assigned_in_;  // name -> number of branches assigning it
  std::set<std::string> assigned_anywhere_;
  std::vector<std::vector<Assignment>> branches_;
  std::vector<std::pair<size_t, const Assignment*>> guards_;  // validation guards, by branch
};

void WherePlanner::add_check(const std::string& c) {
  if (std::find(checks_.begin(), checks_.end(), c) == checks_.end()) checks_.push_back(c);
}

// Python arithmetic that may raise (`1 / n`, `10.0 ** 400`) in code the original may skip:
// every branch, every condition but the first's first atom. The all-mode form would raise in
// eager mode; under the compile gate Dynamo may fail on it while tracing (an overflowing power
// is an internal error on torch 2.13), so neither form is written.
std::optional<Decline> WherePlanner::python_may_raise() const {
  for (size_t i = 0; i < blocks_.size() + tensor_parts_.size(); ++i) {
    const bool block = i < blocks_.size();
    const ir::Node root = block ? blocks_[i] : tensor_parts_[i - blocks_.size()];
    const ir::Node skipped = i == blocks_.size() && hoisted_statics_.empty() ? first_atom(root) : ir::Node{};
    if (const ir::Node n = analysis::python_arithmetic_may_raise(m_, ctx_.types, root, skipped)) {
      return decline<DeclineCode::PythonArithmeticMayRaise>(snippet(m_, n));
    }
  }
  return std::nullopt;
}

void WherePlanner::read_chain() {
  arms_ = {{if_.field(field::condition), if_.field(field::consequence)}};
  for (ir::Node alt : if_.children_by_field(field::alternative)) {
    if (alt.is(kind::elif_clause)) {
      arms_.push_back({alt.field(field::condition), alt.field(field::consequence)});
    } else {
      else_block_ = alt.field(field::body);
    }
  }
  for (const auto& arm : arms_) blocks_.push_back(arm.second);
  if (else_block_) blocks_.push_back(else_block_);
}

// What no selection can express, wherever the `if` is.
std::optional<Decline> WherePlanner::inexpressible() const {
  for (ir::Node block : blocks_) {
    if (ir::Node jump = control_statement(block)) return decline<DeclineCode::BranchDecidesControl>(snippet(m_, jump));
    if (auto extra = binding_besides_target(m_, block)) return extra;
  }
  // Every form binds names on paths where the original does not (its temporaries, computed on
  // every call), which a function reading its own frame would see.
  if (index_.inspects_frame(fi_)) return decline<DeclineCode::FrameInspected>();
  if (auto literal = python_value_selected(m_, if_, blocks_, bool(else_block_), later_)) return literal;
  // Inside a loop the `if` is planned per iteration (rules/GM101.md, "Inside loops"): every name
  // it binds counts as read later (LaterNames), a kept value is proven only from a definition
  // earlier in the same iteration, and the loop's code before the `if` counts as after it.
  if (in_try_statement(if_)) return decline<DeclineCode::InsideTry>();
  return std::nullopt;
}

// Conditions: an optional static conjunct (single `if` only) kept as a Python `if`; the tensor
// part of each arm as one boolean tensor expression.
std::optional<Decline> WherePlanner::read_conditions() {
  // `(m := v)` in a condition binds `m` when the original evaluates it. The selection evaluates
  // every arm's condition and every operand of an and/or, where the original stops at the first
  // that decides; a walrus is kept only where the original always evaluates it: in the condition
  // of a lone `if` that is one atom.
  for (const auto& arm : arms_) {
    ir::Node walrus, boolean;
    syntax::walk(arm.first, [&](ir::Node n) {
      if (n.is(kind::lambda)) return false;
      if (n.is(kind::named_expression) && !walrus) walrus = n;
      if ((n.is(kind::boolean_operator) || n.is(kind::conditional_expression)) && !boolean) boolean = n;
      return true;
    });
    if (walrus && (arms_.size() > 1 || boolean)) {
      return decline<DeclineCode::WalrusInCondition>(m_.text(walrus.field(field::name)));
    }
  }
  for (size_t i = 0; i < arms_.size(); ++i) {
    ir::Node cond = ir::unparenthesize(arms_[i].first);
    if (i == 0 && arms_.size() == 1) {
      if (auto bad = split_static_conjuncts(cond)) return bad;
    }
    tensor_parts_.push_back(cond);
  }
  if (static_part_) facts_.floating_roots = floating_names(m_, static_part_);
  ConditionRenderer renderer(ctx_, torch_, facts_);
  std::optional<Decline> why;
  for (size_t i = 0; i < tensor_parts_.size(); ++i) {
    auto c = renderer.render(tensor_parts_[i], i == 0 && hoisted_statics_.empty(), why);
    if (!c) return why;
    conds_.push_back(std::move(*c));
  }
  for (const std::string& name : assumed_) add_check(fmt::format("_graphmend.plain_tensors({})", name));
  return std::nullopt;
}

// A condition `and`-ing Python values with tensor atoms: the Python values stay a Python `if`
// around the selection, and the tensor atoms (contiguous, and a single atom unless they come
// first) become its condition. A Python value the original tests only after a tensor atom
// (`if t.any() and flag:`) is tested first here, and the tensor atoms only when every Python
// value is true, where the original tests them on every run: the Python value must be unable to
// raise or to run code (static_hoistable), and the tensor atoms unable to raise and of one
// element (the first atom loses its exemption from the proofs).
std::optional<Decline> WherePlanner::split_static_conjuncts(ir::Node& cond) {
  std::vector<ir::Node> atoms;
  for (ir::Node e = cond; ; e = e.field(field::left)) {
    if (!e.is(kind::boolean_operator) || m_.text(e.field(field::operator_)) != "and") {
      atoms.push_back(e);
      break;
    }
    atoms.push_back(e.field(field::right));
  }
  std::reverse(atoms.begin(), atoms.end());
  if (atoms.size() < 2) return std::nullopt;
  std::vector<bool> is_static;
  for (ir::Node a : atoms) is_static.push_back(classify_truth(ctx_, a).kind == TruthKind::Static);
  const auto first_tensor = static_cast<size_t>(std::find(is_static.begin(), is_static.end(), false) - is_static.begin());
  if (first_tensor == atoms.size()) return std::nullopt;  // no tensor atom: not this rule's `if`
  size_t end_tensor = first_tensor;
  while (end_tensor < atoms.size() && !is_static[end_tensor]) ++end_tensor;
  if (first_tensor == 0 && end_tensor == atoms.size()) return std::nullopt;  // tensor atoms only
  if (std::find(is_static.begin() + static_cast<long>(end_tensor), is_static.end(), false) != is_static.end()) {
    // Tensor atoms on both sides of a Python value: the tensor part is not one expression.
    const auto between = std::find(is_static.begin() + static_cast<long>(first_tensor), is_static.end(), true);
    return decline<DeclineCode::PythonValueInCondition>(snippet(m_, atoms[static_cast<size_t>(between - is_static.begin())]));
  }
  if (first_tensor > 0 && end_tensor - first_tensor > 1) {
    // `s and t1 and t2` nests as `(s and t1) and t2`: the tensor atoms are no one node.
    return decline<DeclineCode::PythonValueInCondition>(snippet(m_, atoms[0]));
  }
  if (first_tensor > 0) {
    // The Python values before the tensor part: the node that `and`s them (`a and b` nests left).
    ir::Node prefix = atoms[first_tensor].parent();
    static_part_ = prefix.field(field::left);
    if (auto bad = branch_effect(ctx_, static_part_, "the static conjunct", true, true)) return bad;
  }
  for (size_t i = end_tensor; i < atoms.size(); ++i) {
    if (!static_hoistable(atoms[i])) {
      return decline<DeclineCode::StaticAfterTensor>(snippet(m_, atoms[i]));
    }
    hoisted_statics_.push_back(atoms[i]);
  }
  if (first_tensor == 0) {
    // `t1 and t2 and s`: the tensor atoms are the left operand `end_tensor` levels down.
    ir::Node prefix = atoms[end_tensor].parent();
    cond = prefix.field(field::left);
  } else {
    cond = atoms[first_tensor];
  }
  return std::nullopt;
}

// A Python value tested where the original may not test it (split_static_conjuncts): evaluating
// it and taking its truth cannot raise or run code. `is None` and `is not None` of a name bound
// on every path to the `if`, `not` of these, and such a name itself once the gate checks it is a
// bool (`isinstance(flag, bool)`, static under Dynamo): an annotation is no proof, and the truth
// of anything else may call `__bool__` (a tensor of several elements raises).
bool WherePlanner::static_hoistable(ir::Node e) {
  e = ir::unparenthesize(e);
  if (e.is(kind::not_operator)) return static_hoistable(e.field(field::argument));
  const auto bound_name = [&](ir::Node n) {
    n = ir::unparenthesize(n);
    return n.is(kind::identifier) && m_.lookup_at(n) >= 0 && m_.always_bound_at(n);
  };
  if (e.is(kind::comparison_operator)) {
    const std::vector<ir::Node> operands = e.named_children();
    const std::optional<std::string_view> op = ir::comparison_operator(m_, e);
    if (!op || (*op != "is" && *op != "is not") || !ir::unparenthesize(operands[1]).is(kind::none)) return false;
    return bound_name(operands[0]);
  }
  if (!bound_name(e)) return false;
  add_check(fmt::format("isinstance({}, bool)", m_.text(e)));
  return true;
}

// A condition of one element: `if t:` raises on more, and torch.where would broadcast it. Not
// provably 0-d (`if c:` on an argument): each root checked to hold one element while Dynamo
// traces, and the condition reshaped to 0-d, so that it broadcasts with nothing.
std::optional<Decline> WherePlanner::one_element(TensorCondition& c) {
  for (const std::string& check : c.checks) add_check(check);
  for (const std::string& root : c.meta.unproven_roots) add_check(fmt::format("_graphmend.plain_tensors({})", root));
  if (!c.meta.shape_known) return decline<DeclineCode::ConditionShapeUnknown>(c.expr.flat().substr(0, 40));
  if (c.meta.shape_roots.empty()) return std::nullopt;
  for (const std::string& root : c.meta.shape_roots) add_check(fmt::format("{}.numel() == 1", root));
  c.expr = LayoutExpr::atom((c.is_primary ? c.expr.flat() : "(" + c.expr.flat() + ")") + ".reshape(())");
  c.is_primary = true;
  return std::nullopt;
}

// Candidates' metadata, each read with its own branch's temporaries as their values.
analysis::TensorMeta WherePlanner::candidate_meta(size_t branch, ir::Node value) const {
  analysis::MetaFacts local = facts_;
  local.local_value = [this, branch](ir::Node id) -> ir::Node {
    const auto it = temporaries_[branch].find(std::string(m_.text(id)));
    return it == temporaries_[branch].end() || id.start() < blocks_[branch].start() ? ir::Node{} : it->second;
  };
  return analysis::tensor_meta(m_, ctx_.types, value, local);
}

// What a name holds when the `if` starts: read where the `if` reads it, else from its one
// definition before the `if` (`bias = torch.zeros_like(x)`), outside any loop.
analysis::TensorMeta WherePlanner::kept_meta(const std::string& name) const {
  if (const ir::Node read = name_node(m_, if_, name)) return analysis::tensor_meta(m_, ctx_.types, read, facts_);
  const ir::Scope& scope = m_.scopes[static_cast<size_t>(fn_->scope)];
  const auto sym = scope.symbols.find(name);
  ir::Node value;
  int before = 0;
  if (sym != scope.symbols.end()) {
    for (int b : m_.symbols[static_cast<size_t>(sym->second)].bindings) {
      const ir::Binding& binding = m_.bindings[static_cast<size_t>(b)];
      if (binding.target.start() >= if_.start()) break;
      ++before;
      value = binding.kind == ir::BindingKind::Assignment ? binding.value : ir::Node{};
    }
  }
  if (before != 1 || !value || outermost_loop(if_)) return analysis::TensorMeta{};
  return analysis::tensor_meta(m_, ctx_.types, value, facts_);
}

// Every candidate of one selection has the first one's metadata (proven, or checked).
std::optional<Decline> WherePlanner::same_meta(const std::vector<analysis::TensorMeta>& metas, std::string_view what) {
  for (const analysis::TensorMeta& t : metas) {
    grad_safe_ &= t.zero_grad_safe;
    cheap_ &= t.cheap;
    for (const std::string& root : t.unproven_roots) add_check(fmt::format("_graphmend.plain_tensors({})", root));
  }
  for (size_t i = 1; i < metas.size(); ++i) {
    grad_safe_ &= metas[i].grad_reads == metas[0].grad_reads;  // else a branch's gradient may be lost
    const analysis::MetaEquality eq = analysis::meta_equal(metas[0], metas[i], facts_, torch_);
    if (eq.unknown()) return decline<DeclineCode::CandidatesMayDiffer>(what, eq.why);
    for (const std::string& c : eq.checks) add_check(c);
  }
  return std::nullopt;
}

// Every branch a single `return <value>`, with an `else`: one `return torch.where(...)`.
std::optional<Decline> WherePlanner::read_returns() {
  if (static_part_ || !hoisted_statics_.empty()) return decline<DeclineCode::StaticConjunctWithReturns>();
  for (ir::Node r : returns_) {
    if (auto bad = branch_effect(ctx_, r)) return bad;
    aliasing_ |= may_alias(m_, r);
  }
  return std::nullopt;
}

// Branches of `name = value` assignments (and guards).
std::optional<Decline> WherePlanner::read_assignments() {
  std::optional<Decline> why;
  for (ir::Node block : blocks_) {
    auto a = assignments_of(ctx_, block, why);
    if (!a) return why;
    branches_.push_back(std::move(*a));
  }
  // A name declared `global` or `nonlocal` outlives the function: a branch's binding of it is
  // seen by other code, so it is never a temporary, and a selection would bind it on every path.
  const ir::Scope& scope = m_.scopes[static_cast<size_t>(fn_->scope)];
  for (const auto& branch : branches_) {
    for (const Assignment& a : branch) {
      if (a.guard) continue;
      const auto sym = scope.symbols.find(std::string(m_.text(a.target)));
      if (sym == scope.symbols.end()) continue;
      const ir::Symbol& symbol = m_.symbols[static_cast<size_t>(sym->second)];
      if (symbol.declared_global || symbol.declared_nonlocal) {
        return decline<DeclineCode::BindsOuterName>(m_.text(a.target), symbol.declared_global ? "global" : "nonlocal");
      }
    }
  }
  if (auto bad = classify_names()) return bad;
  if (auto bad = check_reads()) return bad;
  if (auto bad = check_inlined()) return bad;
  if (auto bad = prove_kept_values()) return bad;
  // Nothing after the `if` may update a value in place: the selection is a new tensor.
  if (const std::optional<std::string> later_update = index_.update_after(fi_, if_)) {
    return decline<DeclineCode::LaterInPlaceUpdate>(*later_update);
  }
  return collect_candidates();
}

// Which assigned names are used after the `if` (selected) and which are branch temporaries. A
// temporary runs before every selection, on every call: one branch's only, read by no condition
// and no other branch (the selections read what the names held before the `if`). One that
// several branches assign is written into the one place each branch reads it instead
// (`y = torch.where(c, h * 3 + 1, ...)`), as the runs of several branches cannot share it.
std::optional<Decline> WherePlanner::classify_names() {
  size_t guard_count = 0;
  for (const auto& branch : branches_) {
    std::map<std::string, int> here;
    for (const Assignment& a : branch) {
      if (a.guard) {
        ++guard_count;
        continue;
      }
      const std::string name(m_.text(a.target));
      const bool first_anywhere = assigned_anywhere_.insert(name).second;
      if (++here[name] == 1) ++assigned_in_[name];
      if (here[name] > 1) return decline<DeclineCode::AssignedTwice>(name);
      if (later_.contains(name) && first_anywhere) selected_.push_back(name);
    }
  }
  if (selected_.empty() && guard_count == 0) return decline<DeclineCode::NothingUsedAfter>();
  for (const std::string& name : assigned_anywhere_) {
    if (later_.contains(name)) continue;
    temporary_names_.insert(name);
    if (assigned_in_[name] > 1) inlined_.insert(name);
  }
  return std::nullopt;
}

// What each statement reads: a guard only values from before the `if`; a value no other branch's
// temporary, nor a name its own branch selects after binding it, nor a temporary before its own.
std::optional<Decline> WherePlanner::check_reads() {
  std::vector<std::map<std::string, uint32_t, std::less<>>> first_assigned(branches_.size());
  for (size_t b = 0; b < branches_.size(); ++b) {
    for (const Assignment& a : branches_[b]) {
      if (!a.guard) first_assigned[b].emplace(std::string(m_.text(a.target)), a.statement.start());
    }
  }
  for (size_t b = 0; b < branches_.size(); ++b) {
    for (const Assignment& a : branches_[b]) {
      if (a.guard) {
        // A guard is checked before the selections: it may read only values from before the
        // `if` (its message too), none a branch assigns.
        for (const std::string& r : names_read(m_, a.guard->condition)) {
          if (assigned_anywhere_.contains(r)) return decline<DeclineCode::GuardTestsSelected>(r);
        }
        for (ir::Node h : a.guard->holes) {
          for (const std::string& r : names_read(m_, h)) {
            if (assigned_anywhere_.contains(r)) return decline<DeclineCode::GuardMessageReadsSelected>(r);
          }
        }
        guards_.push_back({b, &a});
        continue;
      }
      for (const std::string& r : names_read(m_, a.value)) {
        const auto own = first_assigned[b].find(r);
        const bool assigned_here = own != first_assigned[b].end();
        if (temporary_names_.contains(r) && !assigned_here) return decline<DeclineCode::TemporaryAcrossBranches>(r);
        if (assigned_here && later_.contains(r) && own->second < a.statement.start()) {
          return decline<DeclineCode::ReadAfterOwnBranch>(r);
        }
        if (assigned_here && temporary_names_.contains(r) && own->second >= a.statement.start()) {
          return decline<DeclineCode::TemporaryReadBeforeAssigned>(r);
        }
      }
    }
  }
  for (ir::Node cond : tensor_parts_) {
    for (const std::string& r : names_read(m_, cond)) {
      if (temporary_names_.contains(r)) return decline<DeclineCode::TemporaryReadByCondition>(r);
    }
  }
  return std::nullopt;
}

// An inlined temporary: a plain `name = value`, read at most once in its branch.
std::optional<Decline> WherePlanner::check_inlined() const {
  for (const auto& branch : branches_) {
    for (const Assignment& a : branch) {
      if (a.guard) continue;
      const std::string name(m_.text(a.target));
      if (!inlined_.contains(name)) continue;
      if (!ir::sole_expression(a.statement) || ir::sole_expression(a.statement).field(field::left) != a.target) {
        return decline<DeclineCode::TemporaryAcrossBranches>(name);
      }
      int reads = 0;
      for (const Assignment& other : branch) {
        if (other.guard) continue;
        syntax::walk(other.value, [&](ir::Node n) {
          reads += n.is(kind::identifier) && m_.text(n) == name && !binds_name(n) ? 1 : 0;
          return true;
        });
      }
      if (reads > 1) return decline<DeclineCode::TemporaryAcrossBranches>(name);
    }
  }
  return std::nullopt;
}

// A name some block does not assign keeps its value from before the `if`: the prior object
// itself, which the selection replaces by a new tensor (safe only where that is unobservable).
std::optional<Decline> WherePlanner::prove_kept_values() {
  const ir::Scope& scope = m_.scopes[static_cast<size_t>(fn_->scope)];
  for (const std::string& name : selected_) {
    if (else_block_ && assigned_in_[name] == static_cast<int>(branches_.size())) continue;
    const auto sym = scope.symbols.find(name);
    if (sym == scope.symbols.end() || !m_.always_bound_at(fi_, sym->second, if_.field(field::condition))) {
      return decline<DeclineCode::NotBoundBefore>(name);
    }
    ir::Node kept_value;
    auto proof = prove_kept_value_unobservable(ctx_, *fn_, index_.inspects_frame(fi_), if_, name, &kept_value);
    if (kept_value && is_python_literal(m_, kept_value)) {
      return decline<DeclineCode::PythonValueSelected>(fmt::format("`{}`", name), snippet(m_, kept_value));
    }
    // A proof may rest on modules `__init__` made (a LayerNorm's output is new storage): taken
    // as made, as every fact about `self.norm(...)` is (rules/GM101.md, "Kept values").
    if (!std::holds_alternative<KeptValueProof>(proof) && !unsafe_reason_) {
      unsafe_reason_ = std::get<Unsafe>(proof);
    }
  }
  return std::nullopt;
}

// The candidates, and what runs before them.
std::optional<Decline> WherePlanner::collect_candidates() {
  for (size_t b = 0; b < branches_.size(); ++b) {
    for (const Assignment& a : branches_[b]) {
      if (a.guard) continue;
      const std::string name(m_.text(a.target));
      if (temporary_names_.contains(name)) {
        temporaries_[b][name] = a.value;
      } else {
        candidates_[b][name] = a.value;
        aliasing_ |= may_alias(m_, a.value);
      }
    }
    for (ir::Node s : blocks_[b].named_children()) {
      if (s.is(kind::comment)) {
        kept_statements_[b].push_back(s);
        continue;
      }
      if (s.is(kind::if_statement)) continue;  // a guard, checked in the graph
      const ir::Node e = ir::sole_expression(s);
      const ir::Node left = e && e.is(kind::assignment) ? e.field(field::left) : ir::Node{};
      // A tuple assignment of temporaries and selected names together cannot be split here.
      bool temp = false, sel = false;
      syntax::walk(left ? left : s, [&](ir::Node n) {
        if (n.is(kind::identifier)) {
          temp |= temporary_names_.contains(std::string(m_.text(n)));
          sel |= !temporary_names_.contains(std::string(m_.text(n)));
        }
        return true;
      });
      if (temp && sel) return decline<DeclineCode::UnselectableStatement>(snippet(m_, s));
      if (temp && !(left && left.is(kind::identifier) && inlined_.contains(std::string(m_.text(left))))) {
        kept_statements_[b].push_back(s);
      }
    }
  }
  return std::nullopt;
}

// What the branches' and the conditions' later operations need not to raise (torch.finfo,
// `t.abs()`): operations torch accepts for every shape, on dtypes the static conjunct proves or
// the compile-gated form checks.
std::optional<Decline> WherePlanner::check_dtypes() {
  std::vector<DtypeCheck> dtype_checks;
  for (ir::Node block : blocks_) {
    if (auto bad = dtype_preconditions(ctx_, block, static_part_, if_, &dtype_checks)) return bad;
  }
  for (size_t i = 0; i < arms_.size(); ++i) {
    const ir::Node cond = tensor_parts_[i];
    const bool as_in_original = i == 0 && hoisted_statics_.empty();
    if (auto bad = dtype_preconditions(ctx_, cond, static_part_, if_, &dtype_checks, as_in_original ? first_atom(cond) : ir::Node{},
                                       "the condition")) {
      return bad;
    }
  }
  for (DtypeCheck check : dtype_checks) {
    bool renamed = false;
    // A name computed from another by integer promotion (`h = x * 2`) has a floating (non-bool)
    // dtype exactly when that one has: the check goes to the root, where it is shared.
    if (!check.number && (check.floating || check.non_bool)) {
      if (const ir::Node read = name_node(m_, if_, check.name)) {
        const analysis::TensorMeta t = analysis::tensor_meta(m_, ctx_.types, read, facts_);
        if (t.tensor && t.dtype == analysis::TensorMeta::Dtype::OfRoot && t.dtype_root != check.name &&
            t.scalar != analysis::ScalarCategory::Float && t.scalar != analysis::ScalarCategory::Unknown &&
            t.dtype_root.find('.') == std::string::npos) {
          check.name = t.dtype_root;
          renamed = true;  // a root the metadata analysis follows is a tensor
        }
      }
    }
    if (check.number) {
      add_check(fmt::format("_graphmend.numbers({})", check.name));
      continue;
    }
    // A name proven a tensor needs no check that it is one: `is_floating_point()` reads it.
    const ir::Node read = name_node(m_, if_, check.name);
    const bool proven = renamed || (read && ctx_.types.type_of(m_, read).kind == analysis::ValueKind::Tensor);
    const bool reads_dtype = check.floating || check.non_bool;
    if (std::find(assumed_.begin(), assumed_.end(), check.name) == assumed_.end() && !(proven && reads_dtype)) {
      add_check(fmt::format("_graphmend.plain_tensors({})", check.name));
    }
    if (check.floating) {
      add_check(fmt::format("{}.is_floating_point()", check.name));
    } else if (check.non_bool) {
      add_check(fmt::format("{}.dtype != {}.bool", check.name, torch_));
    }
  }
  return std::nullopt;
}

// Every candidate of one selection has the same shape, dtype and device (proven, or checked):
// last, so that a site no selection may run says why first.
std::optional<Decline> WherePlanner::prove_same_metadata() {
  if (return_form_) {
    std::vector<analysis::TensorMeta> metas;
    for (size_t b = 0; b < returns_.size(); ++b) metas.push_back(candidate_meta(b, returns_[b]));
    if (auto bad = same_meta(metas, "the returned value")) return bad;
  }
  for (const std::string& name : selected_) {
    std::vector<analysis::TensorMeta> metas;
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const auto it = candidates_[b].find(name);
      metas.push_back(it == candidates_[b].end() ? kept_meta(name) : candidate_meta(b, it->second));
    }
    if (!else_block_) metas.push_back(kept_meta(name));
    if (auto bad = same_meta(metas, fmt::format("`{}`", name))) return bad;
  }
  for (TensorCondition& c : conds_) {
    if (auto bad = one_element(c)) return bad;
  }
  return std::nullopt;
}

// Guards inside branches: checked in the graph by [Trap]'s op, each raising where the original
// does, when its branch is the one taken (only in the compile-gated form).
std::optional<Decline> WherePlanner::plan_guards(WherePlan& plan) {
  auto operand = [](const TensorCondition& c) { return c.is_primary ? c.expr.flat() : "(" + c.expr.flat() + ")"; };
  for (const auto& [branch, assignment] : guards_) {
    const GuardPlan& g = *assignment->guard;
    ConditionRenderer renderer(ctx_, torch_, facts_);
    std::optional<Decline> why;
    auto fires = renderer.render(g.condition, false, why);
    if (!fires) return why;
    if (auto bad = one_element(*fires)) return bad;
    std::vector<std::string> parts;
    for (size_t i = 0; i < conds_.size() && i <= branch; ++i) {
      parts.push_back(i == branch ? operand(conds_[i]) : "~" + operand(conds_[i]));
    }
    parts.push_back(g.negate ? "~" + operand(*fires) : operand(*fires));
    std::string active;
    for (size_t i = 0; i < parts.size(); ++i) active += (i ? " & " : "") + parts[i];
    const std::string site = names_.shared("branch_raise", helper_signature(site_helper("", g.params, g.raise_body)));
    std::vector<LayoutExpr> args{LayoutExpr::atom(site), LayoutExpr::atom(active), LayoutExpr::atom("False")};
    for (ir::Node h : g.holes) {
      auto text = one_line_text(m_, h);
      if (!text) return decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, h));
      args.push_back(LayoutExpr::atom(*text));
    }
    plan.guard_checks.push_back(LayoutExpr::call("_graphmend.check", std::move(args)));
    plan.helpers.push_back(site_helper(site, g.params, g.raise_body));
  }
  return std::nullopt;
}

// A branch's value with its inlined temporaries written in, each in parentheses unless it is a
// primary (a name, a call, an attribute).
std::optional<LayoutExpr> WherePlanner::value_expr(size_t branch, ir::Node value) const {
  Replacements replacements;
  std::function<bool(ir::Node)> fill = [&](ir::Node n) -> bool {
    bool ok = true;
    syntax::walk(n, [&](ir::Node id) {
      if (!ok || !id.is(kind::identifier) || binds_name(id)) return ok;
      const std::string name(m_.text(id));
      const auto t = temporaries_[branch].find(name);
      if (!inlined_.contains(name) || t == temporaries_[branch].end()) return true;
      if (!fill(t->second)) {
        ok = false;
        return false;
      }
      auto text = one_line_text(m_, t->second, replacements);
      if (!text) {
        ok = false;
        return false;
      }
      replacements[id.start()] = primary(ir::unparenthesize(t->second)) ? *text : "(" + *text + ")";
      return true;
    });
    return ok;
  };
  if (!fill(value)) return std::nullopt;
  return layout_expr(m_, value, replacements);
}

// More than two conditions, or more than one selected name: one selection per line, each
// rebinding a name, exact only when no condition or value reads a selected name (a value may read
// its own name when it is the only one, and the chain is short: its line is the first).
std::optional<Decline> WherePlanner::long_chain_reads_selected() const {
  const bool one_line_each = conds_.size() > 2 || selected_.size() > 1;
  if (!one_line_each) return std::nullopt;
  const std::set<std::string> selected(selected_.begin(), selected_.end());
  for (ir::Node cond : tensor_parts_) {
    for (const std::string& r : names_read(m_, cond)) {
      if (selected.contains(r)) return decline<DeclineCode::LongChainReadsSelected>(fmt::format("`{}`", r));
    }
  }
  for (const auto& branch : candidates_) {
    for (const auto& [name, value] : branch) {
      for (const std::string& r : names_read(m_, value)) {
        if (selected.contains(r)) return decline<DeclineCode::LongChainReadsSelected>(fmt::format("`{}`", r));
      }
    }
  }
  return std::nullopt;
}

std::optional<Decline> WherePlanner::plan_selections(WherePlan& plan) {
  for (const TensorCondition& c : conds_) plan.conditions.push_back(c.expr);
  for (const auto& statements : kept_statements_) {
    plan.kept_statements.insert(plan.kept_statements.end(), statements.begin(), statements.end());
  }
  if (return_form_) {
    WherePlan::Selection s{"return ", "", {}, false};
    for (size_t b = 0; b < returns_.size(); ++b) {
      auto v = value_expr(b, returns_[b]);
      if (!v) return decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, returns_[b]));
      s.values.push_back(std::move(*v));
    }
    if (conds_.size() > 2) return decline<DeclineCode::LongChainReadsSelected>("the returned value");
    plan.selections.push_back(std::move(s));
    return std::nullopt;
  }
  if (auto bad = long_chain_reads_selected()) return bad;
  for (const std::string& name : selected_) {
    WherePlan::Selection s{name + " = ", name, {}, conds_.size() > 2};
    for (size_t b = 0; b < blocks_.size(); ++b) {
      const auto it = candidates_[b].find(name);
      if (it == candidates_[b].end()) {
        s.values.push_back(LayoutExpr::atom(name));
        continue;
      }
      auto v = value_expr(b, it->second);
      if (!v) return decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, it->second));
      s.values.push_back(std::move(*v));
    }
    if (!else_block_) s.values.push_back(LayoutExpr::atom(name));
    plan.selections.push_back(std::move(s));
  }
  return std::nullopt;
}

std::variant<Fix, Declined> WherePlanner::plan() {
  read_chain();
  if (auto bad = inexpressible()) return Declined{std::move(*bad)};
  if (auto buffer = plan_buffer_selection(ctx_, if_, later_)) {
    if (std::holds_alternative<source::Fix>(*buffer)) {
      if (auto unbound = unbound_branch_read(m_, fi_, if_, arms_, blocks_, false)) {
        return Declined{decline<DeclineCode::BranchReadsUnbound>(*unbound)};
      }
    }
    return std::move(*buffer);
  }
  const std::optional<std::string> torch_name = ir::torch_name_at(m_, if_);
  if (!torch_name) return Declined{decline<DeclineCode::NoTorchName>()};
  torch_ = *torch_name;
  // Parameters of unknown type that the `if` uses as tensors: planned as plain tensors, checked
  // at trace time by the compile-gated form.
  assumed_ = assumable_tensors(ctx_, *fn_, if_);
  std::optional<analysis::TypeOracle::Assumption> assumption;
  if (!assumed_.empty()) {
    assumption.emplace(ctx_.types, m_, fn_->scope, source::TextRange{fn_->node.start(), if_.end()}, assumed_);
  }
  if (auto bad = read_conditions()) return Declined{std::move(*bad)};

  auto single_return = [](ir::Node block) -> ir::Node {
    ir::Node only;
    int count = 0;
    for (ir::Node st : block.named_children()) {
      if (st.is(kind::comment)) continue;
      ++count;
      only = st;
    }
    return count == 1 && only.is(kind::return_statement) && only.named_child_count() == 1 ? only.named_child(0)
                                                                                        : ir::Node{};
  };
  for (ir::Node b : blocks_) returns_.push_back(single_return(b));
  return_form_ = else_block_ && std::all_of(returns_.begin(), returns_.end(), [](ir::Node r) { return bool(r); });
  candidates_.resize(blocks_.size());
  kept_statements_.resize(blocks_.size());
  temporaries_.resize(blocks_.size());
  if (auto bad = return_form_ ? read_returns() : read_assignments()) return Declined{std::move(*bad)};
  if (auto unbound = unbound_branch_read(m_, fi_, if_, arms_, blocks_, false)) {
    return Declined{decline<DeclineCode::BranchReadsUnbound>(*unbound)};
  }
  if (!hoisted_statics_.empty()) {
    if (auto unbound = unbound_branch_read(m_, fi_, if_, arms_, {}, true)) {
      return Declined{decline<DeclineCode::ConditionReadsUnbound>(*unbound)};
    }
  }
  if (auto bad = python_may_raise()) return Declined{std::move(*bad)};
  if (auto bad = check_dtypes()) return Declined{std::move(*bad)};
  if (auto bad = prove_same_metadata()) return Declined{std::move(*bad)};

  // The form. Everywhere (eager, with grad, compiled) when nothing needs checking at trace time,
  // the branches' backward contributes exactly zero where not selected, and they are cheap enough
  // to compute on every call; else only under torch.compile, the original kept for the rest.
  WherePlan plan;
  if (auto bad = plan_guards(plan)) return Declined{std::move(*bad)};
  // A floating-point check makes a not-bool one redundant.
  const std::set<std::string> all_checks(checks_.begin(), checks_.end());
  std::erase_if(checks_, [&](const std::string& c) {
    const size_t dot = c.find(".dtype != ");
    return dot != std::string::npos && c.ends_with(".bool") &&
           all_checks.contains(c.substr(0, dot) + ".is_floating_point()");
  });
  const bool all_modes = checks_.empty() && grad_safe_ && cheap_ && guards_.empty();
  plan.form = all_modes ? WherePlan::Form::AllModes
              : grad_safe_ ? WherePlan::Form::Compiled
                           : WherePlan::Form::CompiledWithoutGrad;
  const StatementLayout l = layout_of(m_, if_);
  if (!l.starts_line || !if_.parent().is(kind::block)) return Declined{decline<DeclineCode::SharesLine>()};
  const bool uses_runtime = !guards_.empty() || std::any_of(checks_.begin(), checks_.end(), [](const std::string& c) {
    return c.starts_with("_graphmend.");
  });
  if (!all_modes && uses_runtime) {
    if (auto taken = runtime_unavailable(m_)) return *taken;
  }
  // The Python values, in their order: those before the tensor part, then those after it.
  std::vector<ir::Node> statics = hoisted_statics_;
  if (static_part_) statics.insert(statics.begin(), static_part_);
  for (ir::Node s : statics) {
    const std::optional<std::string> text = one_line_text(m_, s);
    if (!text) return Declined{decline<DeclineCode::SpansLinesUnformatted>(snippet(m_, s))};
    plan.static_atoms.push_back(*text);
  }
  if (auto bad = plan_selections(plan)) return Declined{std::move(*bad)};
  plan.torch = torch_;
  plan.if_statement = if_;
  plan.first_condition = arms_[0].first;
  plan.first_block = blocks_[0];
  plan.checks = checks_;
  plan.unsafe_reason = aliasing_ ? unsafe<UnsafeCode::BoundObjectReplaced>() : unsafe_reason_;
  return render_where(m_, plan);
}

// The plan as text: the selections laid out at the `if`'s indentation (or its block's, under a
// kept static `if` or the compile gate), replacing the `if` or inserted before it as an `if`
// whose `elif` is the original.
Fix render_where(const ir::Module& m, const WherePlan& plan) {
  const StatementLayout l = layout_of(m, plan.if_statement);
  const bool gated = plan.form != WherePlan::Form::AllModes;
  const bool keeps_static_if = !plan.static_atoms.empty();
  const std::string body_indent = gated || keeps_static_if ? l.inner : std::string(l.indent);
  std::vector<std::string> lines;
  auto emit = [&](std::string_view prefix, const LayoutExpr& e) {
    for (std::string& line : lay_out(body_indent, prefix, e, "", l.unit)) lines.push_back(std::move(line));
  };
  for (const LayoutExpr& g : plan.guard_checks) emit("", g);
  for (ir::Node s : plan.kept_statements) {
    const std::string stmt_indent(m.text().substr(line_start(m, s), s.start() - line_start(m, s)));
    lines.push_back(body_indent + reindent_statement(m, s, stmt_indent, body_indent));
  }
  const std::string where = plan.torch + ".where";
  for (const WherePlan::Selection& s : plan.selections) {
    std::vector<LayoutExpr> values = s.values;
    if (s.flat) {
      // One line per arm, from the last up, into the name itself: nesting never grows with the chain.
      LayoutExpr acc = std::move(values.back());
      for (size_t i = plan.conditions.size(); i-- > 0;) {
        emit(s.prefix, LayoutExpr::call(where, {plan.conditions[i], std::move(values[i]), std::move(acc)}));
        acc = LayoutExpr::atom(s.name);
      }
      continue;
    }
    // where(c0, v0, where(c1, v1, v2)): at most three values nest.
    LayoutExpr out = std::move(values.back());
    for (size_t i = plan.conditions.size(); i-- > 0;) {
      out = LayoutExpr::call(where, {plan.conditions[i], std::move(values[i]), std::move(out)});
    }
    emit(s.prefix, out);
  }

  Fix fix;
  fix.helpers = plan.helpers;
  const std::string form = plan.form == WherePlan::Form::AllModes ? "with torch.where (eager, grad and compiled alike)"
                           : plan.form == WherePlan::Form::Compiled
                               ? "with torch.where under torch.compile (eager code unchanged)"
                               : "with torch.where under torch.compile without grad (eager and grad-enabled code unchanged)";
  fix.title = plan.unsafe_reason ? fmt::format("select {} (unsafe: {})", form, mark_unsafe(fix, *plan.unsafe_reason))
                                 : "select " + form;
  const std::string& nl = l.newline;
  if (!gated) {
    if (keeps_static_if) {
      // `if <static>:` with the selection as its block; an `else` stays for a false static part.
      fix.edits.push_back(source::Edit::replace({plan.first_condition.start(), plan.first_condition.end()},
                                                fmt::format("{}", fmt::join(plan.static_atoms, " and "))));
      const uint32_t first_line = line_start(m, plan.first_block.named_child(0));
      fix.edits.push_back(source::Edit::replace({first_line, plan.first_block.end()}, joined_lines(lines, nl)));
    } else {
      const uint32_t start = line_start(m, plan.if_statement);
      fix.edits.push_back(source::Edit::replace({start, plan.if_statement.end()}, joined_lines(lines, nl)));
    }
    return fix;
  }
  // Compile-gated: `if torch.compiler.is_compiling() [and <checks>]:` with the selection, and the
  // original `if` as its `elif`, which runs in eager mode, with grad enabled (unless the selection
  // is exact there too) and where a check fails at trace time.
  std::vector<LayoutExpr> gate{LayoutExpr::atom(plan.torch + ".compiler.is_compiling()")};
  if (plan.form == WherePlan::Form::CompiledWithoutGrad) {
    gate.push_back(LayoutExpr::atom(fmt::format("not {}.is_grad_enabled()", plan.torch)));
  }
  for (const std::string& c : plan.checks) gate.push_back(LayoutExpr::atom(c));
  for (const std::string& s : plan.static_atoms) gate.push_back(LayoutExpr::atom(s));
  const LayoutExpr gate_expr = gate.size() == 1 ? gate[0] : LayoutExpr::chain("and", gate);
  const std::vector<std::string> head = lay_out_header(l.indent, "if ", gate_expr, ":", l.unit);
  const std::string inserted = joined_lines(head, nl).substr(l.indent.size()) + nl + joined_lines(lines, nl) + nl +
                               std::string(l.indent) + "el";
  fix.edits.push_back(source::Edit::insertion(plan.if_statement.start(), inserted));
  return fix;
}

}  // namespace

std::variant<Fix, Declined> plan_where(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names,
                                       FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  if (if_statement.is(kind::elif_clause)) if_statement = if_statement.parent();  // planned with its `if`
  if (!if_statement.is(kind::if_statement)) return Declined{decline<DeclineCode::NotAnIf>()};
  if (m.function_of(if_statement) < 0) return Declined{decline<DeclineCode::NotInFunction>()};
  return WherePlanner(ctx, if_statement, names, index).plan();
}

}  // namespace graphmend::rewrite
