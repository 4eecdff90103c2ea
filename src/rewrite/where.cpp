#include "graphmend/rewrite/where.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/item_effect.h"
#include "graphmend/rewrite/trap.h"
#include "graphmend/rewrite/where_buffer.h"
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
std::optional<std::string> unbound_branch_read(const ir::Module& m, int fi, ir::Node if_statement,
                                               const std::vector<std::pair<ir::Node, ir::Node>>& arms,
                                               const std::vector<ir::Node>& blocks) {
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
      if (inserted) it->second = always_bound_at(m, fi, symbol, start);
      if (!it->second) found = std::string(m.text(n));
      return true;
    });
  };
  for (size_t i = 1; i < arms.size(); ++i) visit_region(arms[i].first, false);
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
  for (size_t i = 0; i < fn.params.size(); ++i) {
    const ir::Parameter& p = fn.params[i];
    if (i == 0 && fn.klass >= 0) continue;  // self
    if (p.kind != ir::Parameter::Kind::Regular && p.kind != ir::Parameter::Kind::KeywordOnly) continue;
    const auto sym = scope.symbols.find(p.name);
    if (sym == scope.symbols.end()) continue;
    const ir::Symbol& symbol = m.symbols[static_cast<size_t>(sym->second)];
    if (symbol.declared_global || symbol.declared_nonlocal) continue;
    // Bound only as the parameter before the `if` (which is not inside a loop), and inside it
    // only by `name = value` statements that no read in the `if` follows: every read there (a
    // value's own read included, which comes before its binding) sees the parameter's value,
    // the one the gate checks. `if (x.abs() > 5).any(): x = torch.clamp(x, -5, 5)`.
    // A read after any of those statements is a read after the first, so one walk from its end.
    bool rebound = false;
    ir::Node first_rebinding;
    for (int b : symbol.bindings) {  // in source order
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.target.start() >= if_statement.end()) break;
      if (binding.kind == ir::BindingKind::Parameter) continue;
      const ir::Node assignment = binding.target.parent();
      rebound = binding.target.start() < if_statement.start() || binding.kind != ir::BindingKind::Assignment ||
                !binding.value || !assignment.is(kind::assignment) ||
                !(assignment.field(field::left) == binding.target);
      if (rebound) break;
      if (!first_rebinding) first_rebinding = assignment;
    }
    if (!rebound && first_rebinding) {
      syntax::walk(if_statement, [&](ir::Node n) {
        rebound |= n.start() >= first_rebinding.end() && n.is(kind::identifier) && m.text(n) == p.name;
        return !rebound;
      });
    }
    if (rebound) continue;
    bool used = false;
    analysis::ValueType type;
    syntax::walk(if_statement, [&](ir::Node n) {
      if (used) return false;
      if (n.is(kind::identifier) && m.text(n) == p.name && used_as_tensor(m, n)) {
        used = true;
        type = ctx.types.type_of(m, n);
      }
      return true;
    });
    if (!used) continue;
    if (type.kind == analysis::ValueKind::Unknown || type.kind == analysis::ValueKind::LikelyTensor ||
        type.kind == analysis::ValueKind::OptionalTensor) {
      out.push_back(p.name);
    }
  }
  return out;
}

}  // namespace

std::variant<Fix, Declined> plan_where(const analysis::FileContext& ctx, ir::Node if_statement, SiteNamer& names,
                                       FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  if (if_statement.is(kind::elif_clause)) if_statement = if_statement.parent();  // planned with its `if`
  if (!if_statement.is(kind::if_statement)) return Declined{decline<DeclineCode::NotAnIf>()};
  const int fi = m.function_of(if_statement);
  if (fi < 0) return Declined{decline<DeclineCode::NotInFunction>()};

  // 1. The chain: (condition, block) for the `if` and each `elif`, then the `else` block if any.
  std::vector<std::pair<ir::Node, ir::Node>> arms = {
      {if_statement.field(field::condition), if_statement.field(field::consequence)}};
  ir::Node else_block;
  for (ir::Node alt : if_statement.children_by_field(field::alternative)) {
    if (alt.is(kind::elif_clause)) {
      arms.push_back({alt.field(field::condition), alt.field(field::consequence)});
    } else {
      else_block = alt.field(field::body);
    }
  }
  std::vector<ir::Node> blocks;
  for (const auto& arm : arms) blocks.push_back(arm.second);
  if (else_block) blocks.push_back(else_block);
  // Which names are read after the `if`.
  const LaterNames later = index.names_after(fi, if_statement);

  // First what no selection can express, wherever the `if` is.
  for (ir::Node block : blocks) {
    if (ir::Node jump = control_statement(block)) {
      return Declined{decline<DeclineCode::BranchDecidesControl>(snippet(m, jump))};
    }
    if (auto extra = binding_besides_target(m, block)) return Declined{std::move(*extra)};
  }
  // Every form binds names on paths where the original does not (its temporaries, computed on
  // every call), which a function reading its own frame would see.
  if (index.inspects_frame(fi)) return Declined{decline<DeclineCode::FrameInspected>()};
  if (auto literal = python_value_selected(m, if_statement, blocks, bool(else_block), later)) {
    return Declined{std::move(*literal)};
  }
  // Inside a loop the `if` is planned per iteration (rules/GM101.md, "Inside loops"): every name
  // it binds counts as read later (LaterNames), a kept value is proven only from a definition
  // earlier in the same iteration, and the loop's code before the `if` counts as after it.
  if (in_try_statement(if_statement)) {
    return Declined{decline<DeclineCode::InsideTry>()};
  }
  const ir::Function& fn = m.functions[static_cast<size_t>(fi)];
  if (auto buffer = plan_buffer_selection(ctx, if_statement, later)) {
    if (std::holds_alternative<source::Fix>(*buffer)) {
      if (auto unbound = unbound_branch_read(m, fi, if_statement, arms, blocks)) {
        return Declined{decline<DeclineCode::BranchReadsUnbound>(*unbound)};
      }
    }
    return std::move(*buffer);
  }
  // Parameters of unknown type that the `if` uses as tensors: planned as plain tensors, checked
  // by the gate at trace time.
  const std::vector<std::string> assumed = assumable_tensors(ctx, fn, if_statement);
  std::optional<analysis::TypeOracle::Assumption> assumption;
  if (!assumed.empty()) assumption.emplace(ctx.types, source::TextRange{fn.node.start(), if_statement.end()}, assumed);
  std::string gate(kWhereCompiled);
  if (!assumed.empty()) gate += fmt::format(" and _graphmend.plain_tensors({})", fmt::join(assumed, ", "));

  // `(m := v)` in a condition binds `m` when the original evaluates it. The selection evaluates
  // every arm's condition and every operand of an and/or, where the original stops at the first
  // that decides; a walrus is kept only where the original always evaluates it: in the condition
  // of a lone `if` that is one atom.
  for (size_t i = 0; i < arms.size(); ++i) {
    ir::Node walrus, boolean;
    syntax::walk(arms[i].first, [&](ir::Node n) {
      if (n.is(kind::lambda)) return false;
      if (n.is(kind::named_expression) && !walrus) walrus = n;
      if ((n.is(kind::boolean_operator) || n.is(kind::conditional_expression)) && !boolean) boolean = n;
      return true;
    });
    if (walrus && (arms.size() > 1 || boolean)) {
      return Declined{decline<DeclineCode::WalrusInCondition>(m.text(walrus.field(field::name)))};
    }
  }
  // 2. Conditions: an optional static conjunct (single `if` only) kept as a Python `if`; the
  // tensor part of each arm lowered to one boolean tensor.
  ir::Node static_part;
  bool uses_equal = false;
  std::optional<Decline> why;
  std::vector<std::string> conds;
  for (size_t i = 0; i < arms.size(); ++i) {
    ir::Node cond = ir::unparenthesize(arms[i].first);
    if (i == 0 && arms.size() == 1 && cond.is(kind::boolean_operator) &&
        m.text(cond.field(field::operator_)) == "and" &&
        classify_truth(ctx, cond.field(field::left)).kind == TruthKind::Static) {
      static_part = cond.field(field::left);
      if (auto bad = branch_effect(ctx, static_part, "the static conjunct", true)) return Declined{std::move(*bad)};
      cond = cond.field(field::right);
    }
    auto lowered_cond = lower_tensor_condition(ctx, cond, uses_equal, why, i == 0);
    if (!lowered_cond) return Declined{std::move(*why)};
    conds.push_back(*lowered_cond);
  }
  CompiledCode compiled;  // the compiled form, at the gate's body's indentation
  auto cond_name = [&](size_t i) { return conds.size() == 1 ? std::string("_graphmend_c") : fmt::format("_graphmend_c{}", i); };
  std::string cond_tuple;
  for (size_t i = 0; i < conds.size(); ++i) cond_tuple += (i ? ", " : "") + cond_name(i);
  if (conds.size() > 1) cond_tuple = "(" + cond_tuple + ")";
  // where(c0, v0, where(c1, v1, ... v_last)), one value per block.
  // Built front to back, so that a chain of n arms costs O(n), not O(n^2).
  auto selection = [&](const std::vector<std::string>& values) {
    std::string out;
    for (size_t i = 0; i < conds.size(); ++i) out += fmt::format("_graphmend.where({}, {}, ", cond_name(i), values[i]);
    out += values.back();
    out.append(conds.size(), ')');
    return out;
  };
  bool aliasing = false;                     // a candidate is an existing object (a name, a view)
  std::optional<std::string> unsafe_reason;  // a kept prior object whose replacement may be seen
  std::vector<std::string> trace_checks;     // what the kept objects' proofs check at trace time
  std::vector<std::string> guard_names;
  std::vector<source::Helper> guard_helpers;

  auto single_return = [&](ir::Node block) -> ir::Node {
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
  std::vector<ir::Node> returns;
  for (ir::Node b : blocks) returns.push_back(single_return(b));
  const bool return_form =
      else_block && std::all_of(returns.begin(), returns.end(), [](ir::Node r) { return bool(r); });

  if (return_form) {
    if (static_part) return Declined{decline<DeclineCode::StaticConjunctWithReturns>()};
    std::vector<std::string> values;
    for (size_t b = 0; b < returns.size(); ++b) {
      if (auto bad = branch_effect(ctx, returns[b])) return Declined{std::move(*bad)};
      aliasing |= may_alias(m, returns[b]);
      values.push_back(fmt::format("_graphmend_v{}_0", b));
    }
    for (size_t i = 0; i < conds.size(); ++i) compiled.line(cond_name(i) + " = " + conds[i]);
    for (size_t b = 0; b < returns.size(); ++b) compiled.line(values[b] + " = " + copied(m, returns[b]));
    std::string group = "(";
    for (size_t b = 0; b < values.size(); ++b) group += (b ? ", " : "") + values[b];
    compiled.line(fmt::format("{} = _graphmend.selectable({}, {}))", kDoneFlag, cond_tuple, group));
    compiled.line(fmt::format("if {}:", kDoneFlag));
    ++compiled.level;
    compiled.line("return " + selection(values));
  } else {
    // Branches of `name = value` assignments.
    std::vector<std::vector<Assignment>> branches;
    for (ir::Node block : blocks) {
      auto a = assignments_of(ctx, block, why);
      if (!a) return Declined{std::move(*why)};
      branches.push_back(std::move(*a));
    }
    // A name declared `global` or `nonlocal` outlives the function: a branch's binding of it is
    // seen by other code, so it is never a temporary, and a selection would bind it on every path.
    {
      const ir::Scope& scope = m.scopes[static_cast<size_t>(fn.scope)];
      for (const auto& branch : branches) {
        for (const Assignment& a : branch) {
          if (a.guard) continue;
          const auto sym = scope.symbols.find(std::string(m.text(a.target)));
          if (sym == scope.symbols.end()) continue;
          const ir::Symbol& symbol = m.symbols[static_cast<size_t>(sym->second)];
          if (symbol.declared_global || symbol.declared_nonlocal) {
            return Declined{decline<DeclineCode::BindsOuterName>(m.text(a.target),
                                                                 symbol.declared_global ? "global" : "nonlocal")};
          }
        }
      }
    }
    // Which assigned names are used after the `if` (selected) and which are branch temporaries.
    std::vector<std::string> selected;       // in order of first assignment
    std::map<std::string, int> assigned_in;  // name -> number of branches assigning it
    std::set<std::string> assigned_anywhere;
    size_t guard_count = 0;
    for (const auto& branch : branches) {
      std::map<std::string, int> here;
      for (const Assignment& a : branch) {
        if (a.guard) {
          ++guard_count;
          continue;
        }
        const std::string name(m.text(a.target));
        const bool first_anywhere = assigned_anywhere.insert(name).second;
        if (++here[name] == 1) ++assigned_in[name];
        if (here[name] > 1 && later.contains(name)) {
          return Declined{decline<DeclineCode::AssignedTwice>(name)};
        }
        if (later.contains(name) && first_anywhere) selected.push_back(name);
      }
    }
    if (selected.empty() && guard_count == 0) {
      return Declined{decline<DeclineCode::NothingUsedAfter>()};
    }
    // A temporary several branches assign is fine as long as each of them reads only its own
    // value: the branches run one after another, and the temporary is dead after the `if`.
    auto shared_temporary = [&](const std::string& name) {
      const auto in = assigned_in.find(name);
      return !later.contains(name) && in != assigned_in.end() && in->second > 1;
    };
    // Per branch: where each name is first assigned (indexed, so a chain of n arms costs O(n)).
    std::vector<std::map<std::string, uint32_t, std::less<>>> first_assigned(branches.size());
    for (size_t b = 0; b < branches.size(); ++b) {
      for (const Assignment& a : branches[b]) {
        if (!a.guard) first_assigned[b].emplace(std::string(m.text(a.target)), a.statement.start());
      }
    }
    // A branch reads only values from before the `if` and its own temporaries.
    for (size_t b = 0; b < branches.size(); ++b) {
      for (const Assignment& a : branches[b]) {
        if (a.guard) {
          // A guard is checked once every branch value is computed: it may read only values from
          // before the `if` (its message may also read temporaries).
          for (const std::string& r : names_read(m, a.guard->condition)) {
            if (assigned_anywhere.contains(r)) {
              return Declined{decline<DeclineCode::GuardTestsSelected>(r)};
            }
          }
          for (ir::Node h : a.guard->holes) {
            for (const std::string& r : names_read(m, h)) {
              if (later.contains(r) && assigned_anywhere.contains(r)) {
                return Declined{decline<DeclineCode::GuardMessageReadsSelected>(r)};
              }
              if (shared_temporary(r)) {
                return Declined{decline<DeclineCode::GuardMessageReadsShared>(r)};
              }
            }
          }
          continue;
        }
        for (const std::string& r : names_read(m, a.value)) {
          const auto own = first_assigned[b].find(r);
          const bool assigned_here = own != first_assigned[b].end();
          const auto in = assigned_in.find(r);
          const int elsewhere = (in == assigned_in.end() ? 0 : in->second) - (assigned_here ? 1 : 0);
          // Selected names are assigned under new names, so other branches read the prior value.
          if (elsewhere > 0 && !later.contains(r) && !assigned_here) {
            return Declined{decline<DeclineCode::TemporaryAcrossBranches>(r)};
          }
          if (assigned_here && later.contains(r) && own->second < a.statement.start()) {
            return Declined{decline<DeclineCode::ReadAfterOwnBranch>(r)};
          }
          // Before its own assignment it would read another branch's value, not the prior one.
          if (assigned_here && shared_temporary(r) && own->second >= a.statement.start()) {
            return Declined{decline<DeclineCode::TemporaryReadBeforeAssigned>(r)};
          }
        }
      }
    }
    // A name some block does not assign keeps its value from before the `if`: the prior object
    // itself, which the selection replaces by a new tensor (safe only where that is unobservable).
    const bool all_blocks = bool(else_block);
    for (const std::string& name : selected) {
      const bool everywhere = all_blocks && assigned_in[name] == static_cast<int>(branches.size());
      if (everywhere) continue;
      // The selection reads the name's value from before the `if` on every path: it must be
      // bound on every path there, where the original reads it only after the `if`.
      const ir::Scope& scope = m.scopes[static_cast<size_t>(fn.scope)];
      const auto sym = scope.symbols.find(name);
      if (sym == scope.symbols.end() ||
          !always_bound_at(m, fi, sym->second, if_statement.field(field::condition))) {
        return Declined{decline<DeclineCode::NotBoundBefore>(name)};
      }
      ir::Node kept_value;
      auto proof = prove_kept_value_unobservable(ctx, fn, index.inspects_frame(fi), if_statement, name, &kept_value);
      if (kept_value && is_python_literal(m, kept_value)) {
        return Declined{decline<DeclineCode::PythonValueSelected>(fmt::format("`{}`", name), snippet(m, kept_value))};
      }
      if (auto* kept = std::get_if<KeptValueProof>(&proof)) {
        for (const ModuleCheck& c : kept->modules) {
          const std::string check = module_check_call(c);
          if (std::find(trace_checks.begin(), trace_checks.end(), check) == trace_checks.end()) trace_checks.push_back(check);
        }
      } else if (!unsafe_reason) {
        unsafe_reason = std::get<std::string>(proof);
      }
    }
    // Nothing after the `if` may update a value in place: the selection is a new tensor.
    const std::optional<std::string> later_update = index.update_after(fi, if_statement);
    if (later_update) {
      return Declined{decline<DeclineCode::LaterInPlaceUpdate>(*later_update)};
    }

    if (static_part) {
      // A false static conjunct: the flag stays False, so the original `if` runs, its condition
      // stopping at that conjunct (no tensor is tested), and takes its `else`, if any.
      compiled.line("if " + copied(m, static_part) + ":");
      ++compiled.level;
    }
    for (size_t i = 0; i < conds.size(); ++i) compiled.line(cond_name(i) + " = " + conds[i]);
    // Guards in branches: their conditions are computed up front (they read values from before
    // the `if`), checked for one element with the others, and raise only when their branch runs.
    std::vector<std::string> checks;
    for (size_t b = 0; b < branches.size(); ++b) {
      const bool guarded = std::any_of(branches[b].begin(), branches[b].end(), [](const Assignment& a) { return bool(a.guard); });
      if (!guarded) continue;
      // The branch runs when its condition holds and no earlier one does (else: none holds):
      // and(...and(and(t0, t1), t2)..., tb), built front to back in O(b).
      const size_t terms = std::min(b + 1, conds.size());
      std::string active;
      for (size_t i = 1; i < terms; ++i) active += "_graphmend.torch.logical_and(";
      for (size_t i = 0; i < terms; ++i) {
        if (i > 0) active += ", ";
        active += i == b ? cond_name(i) : fmt::format("_graphmend.torch.logical_not({})", cond_name(i));
        if (i > 0) active += ")";
      }
      for (const Assignment& a : branches[b]) {
        if (!a.guard) continue;
        const GuardPlan& g = *a.guard;
        const std::string gname = fmt::format("_graphmend_g{}", guard_names.size());
        guard_names.push_back(gname);
        compiled.line(gname + " = " + g.condition_text);
        const std::string fires = g.negate ? fmt::format("_graphmend.torch.logical_not({})", gname) : gname;
        // Its own kind: [Trap]'s rule names `raise` helpers with a namer of its own in the same pass.
        const std::string site = names.next("branch_raise", fn.name);
        checks.push_back(fmt::format("_graphmend.check({}, _graphmend.torch.logical_and({}, {}), False{})", site,
                                     active, fires, g.hole_args));
        guard_helpers.push_back(site_helper(site, g.params, g.raise_body));
      }
    }
    // Each branch runs its temporaries in order and computes its candidates under new names.
    std::vector<std::map<std::string, std::string>> candidate(branches.size());
    for (size_t b = 0; b < branches.size(); ++b) {
      int k = 0;
      for (const Assignment& a : branches[b]) {
        if (a.guard) continue;
        const std::string name(m.text(a.target));
        std::string target = name;
        if (later.contains(name)) {
          target = fmt::format("_graphmend_v{}_{}", b, k++);
          candidate[b][name] = target;
          aliasing |= may_alias(m, a.value);
        }
        compiled.line(target + " = " + reindented(m, a.value, compiled.level));
      }
    }
    std::string groups;
    std::vector<std::string> selections;
    for (const std::string& name : selected) {
      std::vector<std::string> values;
      for (size_t b = 0; b < conds.size() + 1; ++b) {
        if (b >= branches.size()) {
          values.push_back(name);  // no else: the value from before the `if`
          continue;
        }
        auto it = candidate[b].find(name);
        values.push_back(it == candidate[b].end() ? name : it->second);
      }
      std::string group = "(";
      for (size_t b = 0; b < values.size(); ++b) group += (b ? ", " : "") + values[b];
      groups += ", " + group + ")";
      selections.push_back(name + " = " + selection(values));
    }
    std::string all_conds = cond_tuple;
    if (!guard_names.empty()) {
      // At least two: a condition and a guard, so no trailing comma is needed.
      std::vector<std::string> tested;
      for (size_t i = 0; i < conds.size(); ++i) tested.push_back(cond_name(i));
      tested.insert(tested.end(), guard_names.begin(), guard_names.end());
      all_conds = fmt::format("({})", fmt::join(tested, ", "));
    }
    std::string also;
    for (const std::string& check : trace_checks) also += " and " + check;
    compiled.line(fmt::format("{} = _graphmend.selectable({}{}){}", kDoneFlag, all_conds, groups, also));
    compiled.line(fmt::format("if {}:", kDoneFlag));
    ++compiled.level;
    for (const std::string& c : checks) compiled.line(c);
    for (const std::string& sel : selections) compiled.line(sel);
  }

  if (auto unbound = unbound_branch_read(m, fi, if_statement, arms, blocks)) {
    return Declined{decline<DeclineCode::BranchReadsUnbound>(*unbound)};
  }
  // What the branches' and the conditions' later operations need not to raise (torch.finfo,
  // `t.abs()`; last, so that a site nothing selects says so first): operations torch accepts
  // for every shape, on dtypes the static conjunct proves or the gate checks.
  std::vector<DtypeCheck> dtype_checks;
  for (ir::Node block : blocks) {
    if (auto bad = dtype_preconditions(ctx, block, static_part, if_statement, &dtype_checks)) return Declined{std::move(*bad)};
  }
  for (size_t i = 0; i < arms.size(); ++i) {
    ir::Node cond = ir::unparenthesize(arms[i].first);
    if (static_part) cond = cond.field(field::right);
    if (auto bad = dtype_preconditions(ctx, cond, static_part, if_statement, &dtype_checks, i == 0 ? first_atom(cond) : ir::Node{})) {
      return Declined{std::move(*bad)};
    }
  }
  // `and plain and floating`: one short line each; a name the gate already checks as a plain
  // tensor is one when its dtype is read.
  for (const DtypeCheck& check : dtype_checks) {
    if (check.number) {
      gate += fmt::format(" and _graphmend.numbers({})", check.name);
      continue;
    }
    if (std::find(assumed.begin(), assumed.end(), check.name) == assumed.end()) {
      gate += fmt::format(" and _graphmend.plain_tensors({})", check.name);
    }
    if (check.floating) gate += fmt::format(" and {}.is_floating_point()", check.name);
  }
  Fix fix;
  if (aliasing) unsafe_reason = "the selected tensor is a new object, where the original kept or bound an existing one";
  fix.applicability = unsafe_reason ? source::Applicability::Unsafe : source::Applicability::Safe;
  fix.title = unsafe_reason ? fmt::format("select with torch.where under torch.compile (unsafe: {})", *unsafe_reason)
                            : "select with torch.where under torch.compile (eager, and grad-enabled code, unchanged)";
  fix.helpers = std::move(guard_helpers);
  if (auto declined = select_before_if(m, if_statement, compiled.text, fix, gate)) {
    return *declined;
  }
  return fix;
}

}  // namespace graphmend::rewrite
