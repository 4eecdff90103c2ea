#include "graphmend/analysis/truth.h"

#include <algorithm>
#include <span>

namespace graphmend::analysis {

namespace {

// graphmend's own spelling: `_graphmend.compiling`, or graphmend 0.1's `_graphmend_compiling`.
bool is_runtime_compiling(const ir::Module& module, ir::Node fn) {
  const std::string_view text = module.text(fn);
  return (fn.is(kind::attribute) && text == "_graphmend.compiling") ||
         (fn.is(kind::identifier) && text == "_graphmend_compiling");
}

// `_graphmend.compiling()` (or graphmend 0.1's spelling) called.
bool is_runtime_compiling_call(const ir::Module& module, ir::Node expr) {
  return is_compiling_check(module, expr) &&
         is_runtime_compiling(module, ir::unparenthesize(expr).field(field::function));
}

// graphmend's gate, `not _graphmend.compiling() or <grad enabled> [or <checks>]`: its
// consequence keeps the original statement, its else-branch has the compiled form.
bool is_runtime_gate(const ir::Module& module, ir::Node cond) {
  cond = ir::unparenthesize(cond);
  if (!cond.is(kind::boolean_operator) || module.text(cond.field(field::operator_)) != "or") return false;
  ir::Node left = ir::unparenthesize(cond.field(field::left));
  while (left.is(kind::boolean_operator) && module.text(left.field(field::operator_)) == "or") {
    left = ir::unparenthesize(left.field(field::left));  // `a or b or c` is `(a or b) or c`
  }
  return left.is(kind::not_operator) && is_runtime_compiling_call(module, left.field(field::argument));
}

// A loop whose iterations the gate just before it does in compiled form (rewrite::compile_before_loop):
// the loop runs over a name that the gate's else-branch binds, as its last statement, to `()`.
bool replaced_by_gate_before(const ir::Module& module, ir::Node loop) {
  ir::Node iterated = ir::unparenthesize(loop.field(field::right));
  if (!iterated.is(kind::identifier) || loop.field(field::alternative)) return false;
  ir::Node gate = ir::previous_statement(loop);
  if (!gate || !gate.is(kind::if_statement) || !is_runtime_gate(module, gate.field(field::condition))) return false;
  const std::vector<ir::Node> arms = gate.children_by_field(field::alternative);
  if (arms.size() != 1 || !arms[0].is(kind::else_clause)) return false;
  const std::vector<ir::Node> body = ir::children_without_comments(arms[0].field(field::body));
  ir::Node last = body.empty() ? ir::Node{} : ir::sole_expression(body.back());
  if (!last || !last.is(kind::assignment)) return false;
  ir::Node target = last.field(field::left), value = last.field(field::right);
  return target.is(kind::identifier) && module.text(target) == module.text(iterated) && value.is(kind::tuple) &&
         value.named_child_count() == 0;
}

}  // namespace

bool is_compiling_check(const ir::Module& module, ir::Node expr) {
  expr = ir::unparenthesize(expr);
  if (!expr.is(kind::call) || expr.field(field::arguments).named_child_count() != 0) return false;
  ir::Node fn = expr.field(field::function);
  if (is_runtime_compiling(module, fn)) return true;
  auto q = module.qualified_name(fn);
  if (!q) return false;
  return *q == "torch.compiler.is_compiling" || *q == "torch.compiler.is_dynamo_compiling" ||
         *q == "torch._dynamo.is_compiling" || *q == "torch._dynamo.external_utils.is_compiling" ||
         *q == "torch._utils.is_compiling" || q->ends_with("is_torchdynamo_compiling");
}

namespace {

// Calls TorchDynamo answers with a constant while tracing (torch/_dynamo/variables/torch.py,
// tracing_state_functions), by their truth. torch.compiler.is_exporting is left out: Dynamo reads it.
std::optional<bool> folded_call_truth(const ir::Module& module, ir::Node expr) {
  if (is_compiling_check(module, expr)) return true;
  if (!expr.is(kind::call) || expr.field(field::arguments).named_child_count() != 0) return std::nullopt;
  const auto q = module.qualified_name(expr.field(field::function));
  if (q && (*q == "torch.jit.is_scripting" || *q == "torch.jit.is_tracing" || *q == "torch._C._get_tracing_state" ||
            *q == "torch.fx._symbolic_trace.is_fx_tracing" || *q == "torch.fx._symbolic_trace.is_fx_symbolic_tracing" ||
            *q == "torch.onnx.is_in_onnx_export")) {
    return false;
  }
  return std::nullopt;
}

// A local name whose every binding reaching `use` is `name = <value decided alike>`, followed at
// most kMaxHops names deep (transformers' `is_tracing = torch.jit.is_tracing() or ... or
// is_torchdynamo_compiling()`).
constexpr int kMaxHops = 4;
std::optional<bool> truth_of(const ir::Module& module, ir::Node expr, int hops);

std::optional<bool> local_name_truth(const ir::Module& module, ir::Node use, int hops) {
  if (hops >= kMaxHops) return std::nullopt;
  // Cheap first: some binding of the name must be an assignment (the flow analysis runs only then).
  const std::span<const int> all = module.bindings_of(use);
  const auto plain = [&](int b) {
    const ir::Binding& binding = module.bindings[static_cast<size_t>(b)];
    return binding.kind == ir::BindingKind::Assignment && binding.value;
  };
  if (all.empty() || !std::all_of(all.begin(), all.end(), plain)) return std::nullopt;
  const std::optional<std::vector<int>> reaching = module.ordered_reaching_bindings(use);
  if (!reaching || reaching->empty()) return std::nullopt;
  std::optional<bool> decided;
  for (int b : *reaching) {
    const std::optional<bool> t = truth_of(module, module.bindings[static_cast<size_t>(b)].value, hops + 1);
    if (!t || (decided && *decided != *t)) return std::nullopt;
    decided = t;
  }
  return decided;
}

std::optional<bool> truth_of(const ir::Module& module, ir::Node expr, int hops) {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::not_operator)) {
    const std::optional<bool> inner = truth_of(module, expr.field(field::argument), hops);
    return inner ? std::optional<bool>(!*inner) : std::nullopt;
  }
  if (expr.is(kind::boolean_operator)) {
    const bool is_and = module.text(expr.field(field::operator_)) == "and";
    // graphmend's gate before an assert it checks in the graph, `__debug__ and
    // _graphmend.compiling()`: true under Dynamo wherever the assert exists at all (`python -O`
    // removes it, and the gate's else-branch is then empty of it too).
    const ir::Node first = ir::unparenthesize(expr.field(field::left));
    if (is_and && first.is(kind::identifier) && module.text(first) == "__debug__" &&
        is_runtime_compiling_call(module, expr.field(field::right))) {
      return true;
    }
    const std::optional<bool> left = truth_of(module, expr.field(field::left), hops);
    if (left && *left != is_and) return left;  // `False and ...`, `True or ...`: the right side never runs
    const std::optional<bool> right = truth_of(module, expr.field(field::right), hops);
    if (left) return right;
    // `x and False` is false and `x or True` true, whatever x is (x is still evaluated).
    if (right && *right != is_and) return right;
    return std::nullopt;
  }
  if (expr.is(kind::identifier)) return local_name_truth(module, expr, hops);
  return folded_call_truth(module, expr);
}

}  // namespace

std::optional<bool> compile_time_truth(const ir::Module& module, ir::Node expr) { return truth_of(module, expr, 0); }

namespace {

// True for an `and`/`or` whose left side decides it while Dynamo traces (`not is_compiling() and
// t`, `is_compiling() or t`): its right side never runs under torch.compile.
bool right_never_runs(const ir::Module& module, ir::Node boolean_operator) {
  const std::optional<bool> left = compile_time_truth(module, boolean_operator.field(field::left));
  return left && *left != (module.text(boolean_operator.field(field::operator_)) == "and");
}

}  // namespace

std::vector<source::TextRange> compile_dead_ranges(const FileContext& ctx) {
  std::vector<source::TextRange> out;
  for (int fi : ctx.compiled_functions()) {
    walk_body(ctx.module.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (n.is(kind::for_statement) && replaced_by_gate_before(ctx.module, n)) {
        out.push_back(n.range());  // handled, as the statements a gate keeps are
        return true;
      }
      if (n.is(kind::boolean_operator)) {
        if (right_never_runs(ctx.module, n)) out.push_back(n.field(field::right).range());
        return true;
      }
      if (n.is(kind::conditional_expression) && n.named_child_count() == 3) {
        // `a if <condition> else b`
        const std::optional<bool> truth = compile_time_truth(ctx.module, n.named_child(1));
        if (truth) out.push_back(n.named_child(*truth ? 2 : 0).range());
        return true;
      }
      if (n.is(kind::elif_clause)) {
        const std::optional<bool> truth = compile_time_truth(ctx.module, n.field(field::condition));
        if (truth && !*truth) out.push_back(n.field(field::consequence).range());
        if (truth && *truth) {
          // The clauses after a true elif.
          for (ir::Node next = n.next_named_sibling(); next; next = next.next_named_sibling()) {
            if (next.is(kind::elif_clause) || next.is(kind::else_clause)) out.push_back(next.range());
          }
        }
        return true;
      }
      if (!n.is(kind::if_statement)) return true;
      // graphmend's gate: the original statement it keeps is already handled (its compiled form
      // is in the else-branch).
      if (is_runtime_gate(ctx.module, n.field(field::condition))) {
        out.push_back(n.field(field::consequence).range());
        return true;
      }
      const std::optional<bool> truth = compile_time_truth(ctx.module, n.field(field::condition));
      if (truth && !*truth) out.push_back(n.field(field::consequence).range());
      if (truth && *truth) {
        for (ir::Node alt : n.children_by_field(field::alternative)) out.push_back(alt.range());
      }
      return true;
    });
  }
  return out;
}

std::optional<std::string> callee_name(const ir::Module& module, ir::Node call) {
  return module.qualified_name(call.field(field::function));
}

Truth classify_truth(const FileContext& ctx, ir::Node condition) {
  ir::Node e = ir::unparenthesize(condition);
  if (e.is(kind::not_operator)) return classify_truth(ctx, e.field(field::argument));
  if (e.is(kind::boolean_operator)) {
    // Operands are tested left to right; the first one needing tensor data is where it breaks.
    Truth t = classify_truth(ctx, e.field(field::left));
    if (t.kind != TruthKind::Static) return t;
    if (right_never_runs(ctx.module, e)) return {};
    return classify_truth(ctx, e.field(field::right));
  }
  if (e.is(kind::call)) {
    auto q = callee_name(ctx.module, e);
    if (q && (*q == "torch.equal" || *q == "torch.allclose" || *q == "torch.is_nonzero")) {
      return {TruthKind::DataOperator, e};
    }
  }
  const analysis::ValueType t = ctx.types.type_of(ctx.module, e);
  if (t.tensor_like()) return {TruthKind::TensorTruth, e};
  if (t.kind == ValueKind::DataScalar) return {TruthKind::Extraction, e};
  return {};
}

bool is_validation_guard(const ir::Module& module, ir::Node if_statement) {
  (void)module;
  if (!if_statement.is(kind::if_statement)) return false;
  if (!if_statement.children_by_field(field::alternative).empty()) return false;
  ir::Node body = if_statement.field(field::consequence);
  std::vector<ir::Node> stmts;
  for (ir::Node s : body.named_children()) {
    if (!s.is(kind::comment)) stmts.push_back(s);
  }
  return stmts.size() == 1 && stmts[0].is(kind::raise_statement);
}

bool inside_branch_condition(ir::Node n) {
  for (ir::Node child = n, p = n.parent(); p; child = p, p = p.parent()) {
    if ((p.is(kind::if_statement) || p.is(kind::elif_clause) || p.is(kind::while_statement)) &&
        child == p.field(field::condition)) {
      return true;
    }
    if (p.is(kind::block) || p.is(kind::module_)) return false;
  }
  return false;
}

}  // namespace graphmend::analysis
