#include "graphmend/rules/conditions.h"

#include "graphmend/source/generated.h"

namespace graphmend::rules {

using analysis::ValueKind;

std::vector<int> RuleContext::compiled_functions() const {
  // graphmend's own generated helpers are verified once, by graphmend's tests, not per module.
  const auto block = source::find_generated_block(module.text());
  const auto generated = block ? std::optional(block->range) : std::nullopt;
  std::vector<int> out;
  for (size_t i = 0; i < module.functions.size(); ++i) {
    if (generated && generated->contains(module.functions[i].node.range())) continue;
    if (regions.is_compiled(module, static_cast<int>(i))) out.push_back(static_cast<int>(i));
  }
  return out;
}

// graphmend's own spelling: `_graphmend.compiling`, or graphmend 0.1's `_graphmend_compiling`.
bool is_runtime_compiling(const ir::Module& module, ir::Node fn) {
  const std::string_view text = module.text(fn);
  return (fn.is("attribute") && text == "_graphmend.compiling") || (fn.is("identifier") && text == "_graphmend_compiling");
}

bool is_compiling_check(const ir::Module& module, ir::Node expr) {
  expr = ir::unparenthesize(expr);
  if (!expr.is("call") || expr.field("arguments").named_child_count() != 0) return false;
  ir::Node fn = expr.field("function");
  if (is_runtime_compiling(module, fn)) return true;
  auto q = module.qualified_name(fn);
  if (!q) return false;
  return *q == "torch.compiler.is_compiling" || *q == "torch.compiler.is_dynamo_compiling" ||
         *q == "torch._dynamo.is_compiling" || *q == "torch._dynamo.external_utils.is_compiling" ||
         *q == "torch._utils.is_compiling" || q->ends_with("is_torchdynamo_compiling");
}

std::vector<source::TextRange> compile_dead_ranges(const RuleContext& ctx) {
  std::vector<source::TextRange> out;
  for (int fi : ctx.compiled_functions()) {
    walk_body(ctx.module.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
      if (!n.is("if_statement")) return true;
      ir::Node cond = ir::unparenthesize(n.field("condition"));
      // graphmend's [Where] gate, `not _graphmend.compiling() or <grad enabled>`: the original
      // statement it keeps is already handled (its selection is in the else-branch).
      if (cond.is("boolean_operator") && ctx.module.text(cond.field("operator")) == "or") {
        ir::Node left = ir::unparenthesize(cond.field("left"));
        if (left.is("not_operator") && is_compiling_check(ctx.module, left.field("argument")) &&
            is_runtime_compiling(ctx.module, ir::unparenthesize(left.field("argument")).field("function"))) {
          out.push_back(n.field("consequence").range());
          return true;
        }
      }
      const bool negated = cond.is("not_operator");
      if (negated) cond = cond.field("argument");
      if (!is_compiling_check(ctx.module, cond)) return true;
      if (negated) {
        out.push_back(n.field("consequence").range());
      } else {
        for (ir::Node alt : n.children_by_field("alternative")) out.push_back(alt.range());
      }
      return true;
    });
  }
  return out;
}

std::optional<std::string> callee_name(const ir::Module& module, ir::Node call) {
  return module.qualified_name(call.field("function"));
}

Truth classify_truth(const RuleContext& ctx, ir::Node condition) {
  ir::Node e = ir::unparenthesize(condition);
  if (e.is("not_operator")) return classify_truth(ctx, e.field("argument"));
  if (e.is("boolean_operator")) {
    // Operands are tested left to right; the first one needing tensor data is where it breaks.
    for (ir::Node side : {e.field("left"), e.field("right")}) {
      Truth t = classify_truth(ctx, side);
      if (t.kind != TruthKind::Static) return t;
    }
    return {};
  }
  if (e.is("call")) {
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
  if (!if_statement.is("if_statement")) return false;
  if (!if_statement.children_by_field("alternative").empty()) return false;
  ir::Node body = if_statement.field("consequence");
  std::vector<ir::Node> stmts;
  for (ir::Node s : body.named_children()) {
    if (!s.is("comment")) stmts.push_back(s);
  }
  return stmts.size() == 1 && stmts[0].is("raise_statement");
}

bool inside_branch_condition(ir::Node n) {
  for (ir::Node child = n, p = n.parent(); p; child = p, p = p.parent()) {
    if ((p.is("if_statement") || p.is("elif_clause") || p.is("while_statement")) &&
        child == p.field("condition")) {
      return true;
    }
    if (p.is("block") || p.is("module")) return false;
  }
  return false;
}

Diagnostic make_diagnostic(const RuleInfo& info, ir::Node site, std::string message, std::string help) {
  Diagnostic d;
  d.code = info.code;
  d.range = site.range();
  d.message = std::move(message);
  d.graph_break_id = info.graph_break_id;
  d.help = std::move(help);
  return d;
}

}  // namespace graphmend::rules
