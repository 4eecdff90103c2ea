#include "graphmend/rules/tensor_truthiness.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/site.h"

namespace graphmend::rules {

using rewrite::is_plain_string;

const RuleInfo& TensorTruthinessRule::info() const {
  static const RuleInfo kInfo{"GM102", "tensor-truthiness",
                              "a tensor's truth value is taken outside an `if`", GraphBreak::DataDependentBranching,
                              RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

namespace {

// The outermost boolean/not operator of an expression tree.
bool is_outermost_bool_op(ir::Node n) {
  ir::Node p = n.parent();
  while (p && p.is(kind::parenthesized_expression)) p = p.parent();
  return !(p && (p.is(kind::boolean_operator) || p.is(kind::not_operator)));
}

}  // namespace

std::span<const syntax::Kind* const> TensorTruthinessRule::kinds() const {
  static const std::array<const syntax::Kind*, 5> kKinds{&kind::conditional_expression, &kind::boolean_operator,
                                                         &kind::not_operator, &kind::if_clause,
                                                         &kind::assert_statement};
  return kKinds;
}

std::unique_ptr<FilePass> TensorTruthinessRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  auto report = [this, &sink](ir::Node atom, std::string_view what) {
    sink.report(make_diagnostic(
        info(), atom,
        fmt::format("{} asks a tensor for its truth value ({})", what, cite(GraphBreak::DataDependentBranching)),
        "use torch.where / torch.logical_and / torch.logical_or so the value stays a tensor"));
  };
  return file_pass([&ctx, report](ir::Node n) {
    if (n.is(kind::conditional_expression)) {
      auto kids = n.named_children();
      if (kids.size() == 3) {
        Truth t = classify_truth(ctx, kids[1]);
        if (t.kind == TruthKind::TensorTruth) report(t.atom, "conditional expression");
      }
      return true;
    }
    if ((n.is(kind::boolean_operator) || n.is(kind::not_operator)) && is_outermost_bool_op(n) &&
        !inside_branch_condition(n)) {
      // Inside a conditional expression's test or an assert, those sites report.
      ir::Node p = n.parent();
      while (p && p.is(kind::parenthesized_expression)) p = p.parent();
      if (p && p.is(kind::conditional_expression) && p.named_child_count() == 3 &&
          p.named_child(1) == n) {
        return true;
      }
      if (p && (p.is(kind::assert_statement) || p.is(kind::if_clause))) return true;
      // As a value, `a and b` / `a or b` tests only `a`'s truth and returns `b` as it is.
      Truth t = classify_truth(ctx, n.is(kind::not_operator) ? n : n.field(field::left));
      if (t.kind == TruthKind::TensorTruth) {
        report(t.atom, n.is(kind::not_operator) ? "`not`" : "`and`/`or`");
      }
      return true;
    }
    if (n.is(kind::if_clause)) {
      Truth t = classify_truth(ctx, n.named_child(0));
      if (t.kind == TruthKind::TensorTruth) report(t.atom, "comprehension filter");
      return true;
    }
    if (n.is(kind::assert_statement)) {
      // Dynamo rewrites `assert <tensor>, "literal"` into torch._assert_async; other forms break.
      ir::Node cond = n.named_child(0);
      ir::Node msg = n.named_child_count() > 1 ? n.named_child(1) : ir::Node();
      Truth t = classify_truth(ctx, cond);
      if (t.kind == TruthKind::TensorTruth && msg && !is_plain_string(msg)) {
        report(t.atom, "`assert` with a non-literal message");
      }
      return true;
    }
    return true;
  });
}

}  // namespace graphmend::rules
