#include "graphmend/rewrite/where_parts.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/tensor_meta.h"
#include "graphmend/analysis/totality.h"
#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/site.h"

namespace graphmend::rewrite {

using analysis::callee_name;
using analysis::classify_truth;
using analysis::Truth;
using analysis::TruthKind;

// A statement's effects that stop the rewrite (what may run unconditionally and be reordered is
// pure, non-raising tensor code), with the reason.
std::optional<Decline> branch_effect(const analysis::FileContext& ctx, ir::Node node, std::string_view part,
                                     bool as_in_original, bool raises_first) {
  std::vector<analysis::Effect> effects = analysis::effects_of(ctx.module, ctx.types, node);
  if (!as_in_original) {
    std::vector<analysis::Effect> shapes = analysis::shape_raises_of(ctx.module, ctx.types, node);
    effects.insert(effects.end(), std::make_move_iterator(shapes.begin()), std::make_move_iterator(shapes.end()));
  }
  for (const analysis::Effect& e : effects) {
    if (raises_first && e.kind == analysis::EffectKind::MayRaise) continue;
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
                                 std::optional<Decline>& why, bool& first, int depth);

}  // namespace

std::optional<std::string> lower_tensor_condition(const analysis::FileContext& ctx, ir::Node e, bool& uses_equal,
                                                  std::optional<Decline>& why, bool evaluated_first) {
  bool first = evaluated_first;
  return lower(ctx, e, uses_equal, why, first, 0);
}

namespace {

std::optional<std::string> lower(const analysis::FileContext& ctx, ir::Node e, bool& uses_equal,
                                 std::optional<Decline>& why, bool& first, int depth) {
  const ir::Module& m = ctx.module;
  e = ir::unparenthesize(e);
  if ((e.is(kind::not_operator) || e.is(kind::boolean_operator)) && depth >= kMaxLoweredNesting) {
    // Each level becomes a nested call in the generated code, and CPython rejects more than 200
    // nested parentheses; the recursion stays shallow too.
    why = decline<DeclineCode::ConditionTooNested>(std::to_string(kMaxLoweredNesting));
    return std::nullopt;
  }
  if (e.is(kind::not_operator)) {
    auto inner = lower(ctx, e.field(field::argument), uses_equal, why, first, depth + 1);
    if (!inner) return std::nullopt;
    return fmt::format("_graphmend.torch.logical_not({})", *inner);
  }
  if (e.is(kind::boolean_operator)) {
    auto l = lower(ctx, e.field(field::left), uses_equal, why, first, depth + 1);
    if (!l) return std::nullopt;
    auto r = lower(ctx, e.field(field::right), uses_equal, why, first, depth + 1);
    if (!r) return std::nullopt;
    const bool is_and = m.text(e.field(field::operator_)) == "and";
    return fmt::format("_graphmend.torch.logical_{}({}, {})", is_and ? "and" : "or", *l, *r);
  }
  const Truth t = classify_truth(ctx, e);
  if (t.kind == TruthKind::Static) {
    why = decline<DeclineCode::PythonValueInCondition>(snippet(m, e));
    return std::nullopt;
  }
  // Only the leftmost atom runs whenever the original's condition does; `and`/`or` may skip the others.
  const bool as_in_original = std::exchange(first, false);
  if (auto bad = branch_effect(ctx, e, "the condition", as_in_original)) {
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
    const std::string_view fn = m.text(e.field(field::function));
    return "_graphmend.equal" + text.substr(fn.size());
  }
  if (t.kind != TruthKind::TensorTruth) {
    why = decline<DeclineCode::NotSelectableTensor>(snippet(m, e));
    return std::nullopt;
  }
  return "(" + copied(m, e) + ")";
}

}  // namespace

namespace {

bool floating_dtype(const ir::Module& m, ir::Node e) {
  static const std::set<std::string, std::less<>> kFloating = {
      "torch.float16", "torch.half", "torch.bfloat16", "torch.float32", "torch.float", "torch.float64", "torch.double"};
  const auto q = m.qualified_name(ir::unparenthesize(e));
  return q && kFloating.contains(*q);
}

// `X.dtype == torch.<floating dtype>` (either side), for the identifier X.
bool conjunct_proves_floating(const ir::Module& m, ir::Node conjunct, std::string_view x) {
  conjunct = conjunct ? ir::unparenthesize(conjunct) : conjunct;
  if (!conjunct || !conjunct.is(kind::comparison_operator)) return false;
  const std::vector<ir::Node> sides = conjunct.named_children();
  if (sides.size() != 2) return false;
  const std::string_view between = m.text().substr(sides[0].end(), sides[1].start() - sides[0].end());
  if (between.find("==") == std::string_view::npos || between.find('#') != std::string_view::npos) return false;
  for (int i = 0; i < 2; ++i) {
    const ir::Node dtype = ir::unparenthesize(sides[static_cast<size_t>(i)]);
    if (dtype.is(kind::attribute) && m.text(dtype.field(field::attribute)) == "dtype" &&
        ir::unparenthesize(dtype.field(field::object)).is(kind::identifier) &&
        m.text(ir::unparenthesize(dtype.field(field::object))) == x &&
        floating_dtype(m, sides[static_cast<size_t>(1 - i)])) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::set<std::string> floating_names(const ir::Module& m, ir::Node static_part) {
  std::set<std::string> out;
  std::vector<ir::Node> pending{static_part};
  while (!pending.empty()) {
    const ir::Node c = pending.back() ? ir::unparenthesize(pending.back()) : ir::Node{};
    pending.pop_back();
    if (!c) continue;
    if (c.is(kind::boolean_operator) && m.text(c.field(field::operator_)) == "and") {
      pending.push_back(c.field(field::left));
      pending.push_back(c.field(field::right));
      continue;
    }
    if (!c.is(kind::comparison_operator)) continue;
    for (ir::Node side : c.named_children()) {
      side = ir::unparenthesize(side);
      if (side.is(kind::attribute) && m.text(side.field(field::attribute)) == "dtype" &&
          ir::unparenthesize(side.field(field::object)).is(kind::identifier)) {
        const std::string_view name = m.text(ir::unparenthesize(side.field(field::object)));
        if (conjunct_proves_floating(m, c, name)) out.insert(std::string(name));
      }
    }
  }
  return out;
}

namespace {

// Calls whose result is floating-point when their tensor operand is (and a tensor when it is one).
bool keeps_floating(std::string_view callable) {
  static const std::set<std::string_view, std::less<>> kKeeps = {
      "abs", "neg", "negative", "positive", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sqrt",
      "rsqrt", "sigmoid", "tanh", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "erf", "erfc",
      "relu", "relu6", "gelu", "silu", "mish", "selu", "celu", "elu", "leaky_relu", "hardtanh", "hardswish",
      "hardsigmoid", "logsigmoid", "softplus", "softsign", "tanhshrink", "floor", "ceil", "round", "trunc",
      "frac", "sign", "sgn", "reciprocal", "square", "nan_to_num", "clone", "detach", "contiguous", "clamp",
      "clip", "clamp_min", "clamp_max", "pow", "add", "sub", "mul", "div", "true_divide", "fmod", "remainder",
      "zeros_like", "ones_like", "full_like", "sum", "prod", "mean", "nansum", "norm"};
  return kKeeps.contains(callable);
}

bool floating_result(std::string_view callable) {
  return callable == "float" || callable == "double" || callable == "half" || callable == "bfloat16";
}

// The last dotted part of a call's callee, and its tensor operand (the receiver of a method, else
// the first positional argument).
std::pair<std::string_view, ir::Node> callee_and_operand(const ir::Module& m, ir::Node call) {
  const ir::Node fn = ir::unparenthesize(call.field(field::function));
  std::string_view name = m.text(fn);
  if (const size_t dot = name.rfind('.'); dot != std::string_view::npos) name = name.substr(dot + 1);
  const auto q = m.qualified_name(fn);
  if (q && q->starts_with("torch.")) {
    for (ir::Node a : ir::children_without_comments(call.field(field::arguments))) {
      if (!a.is(kind::keyword_argument) && !a.is(kind::list_splat) && !a.is(kind::dictionary_splat)) return {name, a};
    }
    return {name, {}};
  }
  if (fn.is(kind::attribute)) return {name, fn.field(field::object)};
  return {name, {}};
}

// A check for the gate, each once (floating wins over a plain tensor); false without a gate.
bool add_dtype_check(std::vector<DtypeCheck>* checks, const std::string& name, bool floating, bool number,
                     bool non_bool) {
  if (!checks) return false;
  auto it = std::find_if(checks->begin(), checks->end(),
                         [&](const DtypeCheck& c) { return c.name == name && c.number == number; });
  if (it == checks->end()) {
    checks->push_back({name, floating, non_bool, number});
  } else {
    it->floating |= floating;
    it->non_bool |= non_bool;
  }
  return true;
}

}  // namespace

std::optional<Decline> dtype_preconditions(const analysis::FileContext& ctx, ir::Node node, ir::Node static_part,
                                           ir::Node if_statement, std::vector<DtypeCheck>* checks, ir::Node skip,
                                           std::string_view part) {
  const ir::Module& m = ctx.module;
  std::optional<Decline> why;
  auto raises = [&](const std::string& what) {
    why = decline<DeclineCode::PartHasEffect>(part, what, analysis::effect_kind_name(analysis::EffectKind::MayRaise));
    return false;
  };
  const source::TextRange in_if{if_statement.start(), if_statement.end()};
  // A binding that reaches `use` from earlier in this run of the `if`: in its text before the
  // use, and complete (`h = h - 1` binds after its use). Others hold what the name held at the
  // gate: from before the `if`, from another branch (whose selected names the compiled form
  // binds under new names), or, in a loop, from the last iteration.
  const auto this_run = [&](int b, ir::Node use) {
    const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
    return binding.target && in_if.contains(binding.target.range()) && binding.statement &&
           binding.statement.end() <= use.start();
  };
  const auto add_check = [&](const std::string& name, bool floating, bool number, bool non_bool = false) {
    return add_dtype_check(checks, name, floating, number, non_bool);
  };
  // `x`, used as a number, checked to be one in the gate.
  auto require_number = [&](ir::Node x, const std::string& what) {
    const std::vector<int> reaching = m.reaching_bindings(x);
    if (std::any_of(reaching.begin(), reaching.end(), [&](int b) { return this_run(b, x); })) {
      return raises(what + ", and the `if` binds `" + std::string(m.text(x)) + "` before it");
    }
    if (!add_check(std::string(m.text(x)), false, true)) return raises(what + ", and this form has no gate to check it in");
    return true;
  };
  // Resolves `operand`, which an operation needs a (floating-point) tensor, to checks on names bound
  // before the `if`; false (with the reason) when it cannot.
  // The metadata analysis's word on a name before the `if`: floating-point, or never bool (an
  // integer promotion of anything: `h = x * 2`).
  analysis::MetaFacts meta_facts;
  if (static_part) meta_facts.floating_roots = floating_names(m, static_part);
  auto proven_dtype = [&](ir::Node x, bool floating) {
    const analysis::TensorMeta t = analysis::tensor_meta(m, ctx.types, x, meta_facts);
    if (analysis::proven_floating(t, meta_facts)) return true;
    if (floating || !t.tensor) return false;
    using D = analysis::TensorMeta::Dtype;
    return (t.dtype == D::OfRoot && t.scalar >= analysis::ScalarCategory::Int &&
            t.scalar != analysis::ScalarCategory::Unknown) ||
           (t.dtype == D::Fixed && !t.fixed_dtype.empty() && t.fixed_dtype != "torch.bool");
  };
  auto require = [&](ir::Node operand, bool floating, const std::string& what, bool non_bool = false) {
    std::vector<ir::Node> pending{operand};
    for (int budget = 32; !pending.empty(); --budget) {
      if (budget == 0) return raises(what);
      const ir::Node x = ir::unparenthesize(pending.back());
      pending.pop_back();
      if (!x) return raises(what);
      // Any operation's result is a tensor once it ran (its own demands are checked apart).
      if (!floating && !non_bool && !x.is(kind::identifier) && ctx.types.type_of(m, x).kind == analysis::ValueKind::Tensor) {
        continue;
      }
      if (non_bool && !x.is(kind::identifier) && proven_dtype(x, false)) continue;
      if (x.is(kind::identifier)) {
        const std::vector<int> reaching = m.reaching_bindings(x);
        const auto from_this_run = std::count_if(reaching.begin(), reaching.end(), [&](int b) { return this_run(b, x); });
        const std::string name(m.text(x));
        if (from_this_run == 0) {
          if (floating && conjunct_proves_floating(m, static_part, name)) continue;
          if ((floating || non_bool) && proven_dtype(x, floating)) continue;
          if (!add_check(name, floating, false, non_bool)) {
            return raises(what + ", and this form has no gate to check it in");
          }
          continue;
        }
        // A name this run binds first: what its bindings compute.
        if (static_cast<size_t>(from_this_run) != reaching.size()) {
          return raises(what + ", and the `if` rebinds `" + name + "` before it on some paths");
        }
        for (int b : reaching) {
          const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
          if (binding.kind != ir::BindingKind::Assignment || !binding.value) {
            return raises(what + ", and the `if` rebinds `" + name + "` before it");
          }
          pending.push_back(binding.value);
        }
        continue;
      }
      if (x.is(kind::unary_operator) && m.text(x.field(field::operator_)) != "~") {
        pending.push_back(x.field(field::argument));
        continue;
      }
      if (x.is(kind::binary_operator)) {
        static const std::set<std::string_view, std::less<>> kArithmetic = {"+", "-", "*", "/", "//", "%", "**"};
        if (!kArithmetic.contains(m.text(x.field(field::operator_)))) return raises(what);
        const ir::Node l = x.field(field::left);
        const ir::Node r = x.field(field::right);
        if (analysis::is_python_number(m, r)) {
          pending.push_back(l);
        } else if (analysis::is_python_number(m, l)) {
          pending.push_back(r);
        } else {
          return raises(what);
        }
        continue;
      }
      if (x.is(kind::call)) {
        const auto [callee, inner] = callee_and_operand(m, x);
        if (floating_result(callee) && inner) continue;  // `.float()`: the call checks its own receiver
        if (!keeps_floating(callee) || !inner) return raises(what);
        pending.push_back(inner);
        continue;
      }
      return raises(what);
    }
    return true;
  };
  syntax::walk(node, [&](ir::Node n) {
    if (why) return false;
    if (skip && n == skip) return false;
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (n.is(kind::call)) {
      const auto q = m.qualified_name(n.field(field::function));
      if (q && *q == "torch.finfo") {
        const std::vector<ir::Node> args = ir::children_without_comments(n.field(field::arguments));
        const ir::Node arg = args.size() == 1 ? ir::unparenthesize(args[0]) : ir::Node{};
        if (arg && floating_dtype(m, arg)) return true;
        const ir::Node x = arg && arg.is(kind::attribute) && m.text(arg.field(field::attribute)) == "dtype"
                               ? ir::unparenthesize(arg.field(field::object))
                               : ir::Node{};
        const std::string what = fmt::format("`{}` raises on a dtype that is not floating-point", m.text(n));
        if (!x || !x.is(kind::identifier)) return raises(what);
        return require(x, true, what);
      }
    }
    const std::optional<analysis::Totality> t = analysis::totality_of(m, ctx.types, n);
    if (!t) return true;
    if (t->kind == analysis::Totality::Kind::MayRaise) return raises(t->why);
    for (ir::Node number : t->numbers) {
      if (!require_number(number, analysis::number_demand(m, n, number))) return false;
    }
    if (t->kind == analysis::Totality::Kind::Total) return true;
    return require(t->operand, t->kind == analysis::Totality::Kind::NeedsFloating, analysis::tensor_demand(m, n, *t),
                   t->kind == analysis::Totality::Kind::NeedsNonBool);
  });
  return why;
}

ir::Node first_atom(ir::Node condition) {
  ir::Node atom = ir::unparenthesize(condition);
  while (atom.is(kind::not_operator) || atom.is(kind::boolean_operator)) {
    atom = ir::unparenthesize(atom.is(kind::not_operator) ? atom.field(field::argument) : atom.field(field::left));
  }
  return atom;
}

ir::Node outermost_loop(ir::Node n) {
  ir::Node loop;
  for (ir::Node p = n.parent(); p && !p.is(kind::function_definition); p = p.parent()) {
    if (p.is(kind::for_statement) || p.is(kind::while_statement)) loop = p;
  }
  return loop;
}

bool in_try_statement(ir::Node n) {
  for (ir::Node p = n.parent(); p && !p.is(kind::function_definition); p = p.parent()) {
    if (p.is(kind::try_statement)) return true;
  }
  return false;
}

bool inside_loop_or_try(ir::Node n) { return outermost_loop(n) || in_try_statement(n); }

namespace {

// True when `use`, inside one of the branches of `if_statement`, follows a `name = value`
// statement of that branch's own block: it reads the value that branch bound in the same run.
bool bound_earlier_in_own_branch(const ir::Module& m, ir::Node if_statement, ir::Node use, std::string_view name) {
  if (!if_statement.range().contains(use.range())) return false;
  ir::Node block;
  for (ir::Node p = use.parent(); p && p != if_statement; p = p.parent()) {
    const ir::Node owner = p.parent();
    if (p.is(kind::block) && owner &&
        (owner == if_statement ||
         ((owner.is(kind::elif_clause) || owner.is(kind::else_clause)) && owner.parent() == if_statement))) {
      block = p;
      break;
    }
  }
  if (!block) return false;
  for (ir::Node s : block.named_children()) {
    if (s.end() > use.start()) break;
    if (!s.is(kind::expression_statement) || s.named_child_count() != 1) continue;
    const ir::Node a = s.named_child(0);
    if (a.is(kind::assignment) && a.field(field::left).is(kind::identifier) && m.text(a.field(field::left)) == name) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool LaterNames::contains(const std::string& name) const {
  const auto& facts = index_->by_function_.at(function_);
  if (facts.captured.contains(name)) return true;  // a closure may read it whenever it is called
  const auto occurrences = facts.occurrences.find(name);
  if (occurrences == facts.occurrences.end()) return false;
  if (const ir::Node loop = outermost_loop(statement_)) {
    // The next iteration runs the loop again, the `if` included: a read anywhere in the loop may
    // see what the `if` bound, except one in the `if`'s own branch after that branch bound the
    // name anew. Past kMaxLoopReadsExamined occurrences the name counts as read (linear cost).
    constexpr size_t kMaxLoopReadsExamined = 64;
    const std::vector<ir::Node>& uses = occurrences->second;
    auto it = std::lower_bound(uses.begin(), uses.end(), loop.start(),
                               [](ir::Node n, uint32_t at) { return n.start() < at; });
    for (size_t examined = 0; it != uses.end() && it->start() < loop.end(); ++it) {
      if (++examined > kMaxLoopReadsExamined) return true;
      if (const auto target = facts.targets.find(it->start());
          target != facts.targets.end() && target->second != ir::BindingKind::AugmentedAssignment &&
          target->second != ir::BindingKind::Delete) {
        continue;  // a binding, not a read
      }
      if (!bound_earlier_in_own_branch(index_->ctx_.module, statement_, *it, name)) return true;
    }
  }
  if (occurrences->second.back().start() < statement_.end()) return false;
  return index_->read_after(facts, function_, statement_, name, occurrences->second);
}

bool FunctionIndex::read_after(const Facts& f, int function, ir::Node statement, const std::string& name,
                               const std::vector<ir::Node>& uses) const {
  // Past this many later occurrences the name counts as used: the answer stays conservative and
  // a function with n sites costs O(n), not O(n^2).
  constexpr size_t kMaxOccurrencesExamined = 64;
  if (f.inspects_frame || inside_loop_or_try(statement)) return true;
  const ir::Module& m = ctx_.module;
  const ir::Scope& scope = m.scopes[static_cast<size_t>(m.functions[static_cast<size_t>(function)].scope)];
  const auto sym = scope.symbols.find(name);
  if (sym == scope.symbols.end()) return true;
  const ir::Symbol& symbol = m.symbols[static_cast<size_t>(sym->second)];
  if (symbol.declared_global || symbol.declared_nonlocal) return true;
  auto it = std::lower_bound(uses.begin(), uses.end(), statement.end(),
                             [](ir::Node n, uint32_t at) { return n.start() < at; });
  uint32_t overwritten_at = UINT32_MAX;  // the end of a statement that assigns the name on every path
  for (size_t examined = 0; it != uses.end(); ++it) {
    const ir::Node use = *it;
    if (use.start() >= overwritten_at) return false;
    if (++examined > kMaxOccurrencesExamined) return true;
    if (const auto target = f.targets.find(use.start()); target != f.targets.end()) {
      // A plain binding writes without reading; `x += 1` and `del x` read the name first.
      if (target->second != ir::BindingKind::AugmentedAssignment && target->second != ir::BindingKind::Delete) {
        // `name = value` as a later statement of the `if`'s own block runs on every path from
        // the `if` to what follows it: nothing after it can see the `if`'s binding (its value,
        // read first, is checked like any read).
        const ir::Node assignment = use.parent();
        if (assignment && assignment.is(kind::assignment) && assignment.field(field::left) == use) {
          const ir::Node s = assignment.parent();
          if (s && s.is(kind::expression_statement) && s.parent() == statement.parent()) {
            overwritten_at = std::min(overwritten_at, s.end());
          }
        }
        continue;
      }
    }
    if (m.lookup_at(use) != sym->second) continue;  // another scope's own name
    const auto reaching = m.ordered_reaching_bindings(use);
    if (!reaching) return true;  // a closure's read: any time later
    for (int b : *reaching) {
      const ir::Node bound = m.bindings[static_cast<size_t>(b)].target;
      if (statement.range().contains(bound.range())) return true;
    }
  }
  return false;
}

bool reads_frame(std::string_view qualified) {
  return qualified == "locals" || qualified == "vars" || qualified == "eval" || qualified == "exec" ||
         qualified == "sys._getframe" || qualified == "inspect.currentframe";
}

const FunctionIndex::Facts& FunctionIndex::facts(int function) {
  auto [it, fresh] = by_function_.try_emplace(function);
  if (!fresh) return it->second;
  Facts& f = it->second;
  const ir::Module& m = ctx_.module;
  const ir::Function& fn = m.functions[static_cast<size_t>(function)];
  syntax::walk(fn.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::identifier)) {
      std::string name(m.text(n));
      // A nested function, lambda or comprehension that reads this function's own local.
      if (m.scope_of(n) != fn.scope && !f.captured.contains(name)) {
        const int symbol = m.lookup_at(n);
        if (symbol >= 0 && m.symbols[static_cast<size_t>(symbol)].scope == fn.scope) f.captured.insert(name);
      }
      f.occurrences[std::move(name)].push_back(n);  // the walk visits them in source order
    } else if (n.is(kind::call) && !f.inspects_frame) {
      const auto q = m.qualified_name(n.field(field::function));
      f.inspects_frame = q && reads_frame(*q);
    }
    return true;
  });
  for (const auto& [name, symbol] : m.scopes[static_cast<size_t>(fn.scope)].symbols) {
    for (int b : m.symbols[static_cast<size_t>(symbol)].bindings) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.target) f.targets.emplace(binding.target.start(), binding.kind);
    }
  }
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
  facts(function);
  return LaterNames(*this, function, node);
}

std::optional<std::string> FunctionIndex::update_after(int function, ir::Node node) {
  const auto& updates = facts(function).updates;
  const auto first_from = [&](uint32_t at) {
    return std::lower_bound(updates.begin(), updates.end(), at,
                            [](const std::pair<uint32_t, std::string>& u, uint32_t from) { return u.first < from; });
  };
  if (const ir::Node loop = outermost_loop(node)) {
    // The loop's statements before `node`, which the next iteration runs after it.
    if (auto it = first_from(loop.start()); it != updates.end() && it->first < node.start()) return it->second;
  }
  auto it = first_from(node.end());
  if (it == updates.end()) return std::nullopt;
  return it->second;
}

}  // namespace graphmend::rewrite
