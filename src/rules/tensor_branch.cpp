#include "graphmend/rules/tensor_branch.h"

#include <array>

#include <fmt/format.h>

#include <unordered_map>

#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where.h"

namespace graphmend::rules {

using rewrite::SiteNamer;
using rewrite::plan_where;

namespace {

// The original `if` a [Where] rewrite keeps as its fallback: it runs only when the selection's
// static checks fail: the `elif` arms after `if _graphmend_done: pass`, or, in a file an earlier
// graphmend patched, a copy in the else-branch of `if _graphmend.selectable(...)`.
bool is_where_fallback(const ir::Module& m, ir::Node if_statement) {
  if (if_statement.is(kind::elif_clause)) {
    const ir::Node chain = if_statement.parent();
    if (!chain.is(kind::if_statement)) return false;
    // The compile-gated form: `if torch.compiler.is_compiling() and <checks>:` selects, and the
    // original runs as its `elif` where a check fails while Dynamo traces.
    ir::Node gate = ir::unparenthesize(chain.field(field::condition));
    while (gate.is(kind::boolean_operator) && m.text(gate.field(field::operator_)) == "and") {
      gate = ir::unparenthesize(gate.field(field::left));
    }
    if (analysis::is_compiling_check(m, gate)) return true;
    return m.text(ir::unparenthesize(chain.field(field::condition))) == rewrite::kDoneFlag;
  }
  ir::Node block = if_statement.parent();
  ir::Node clause = block ? block.parent() : ir::Node{};
  ir::Node owner = clause && clause.is(kind::else_clause) ? clause.parent() : ir::Node{};
  if (!owner || !owner.is(kind::if_statement)) return false;
  // `_graphmend.selectable(...)`, possibly the first of an `and` chain of static preconditions.
  ir::Node cond = ir::unparenthesize(owner.field(field::condition));
  while (cond.is(kind::boolean_operator) && m.text(cond.field(field::operator_)) == "and") {
    cond = ir::unparenthesize(cond.field(field::left));
  }
  if (!cond.is(kind::call)) return false;
  const std::string_view fn = m.text(cond.field(field::function));
  return fn == "_graphmend.selectable" || fn == "_graphmend_selectable";  // graphmend 0.1's spelling too
}

}  // namespace

const RuleInfo& TensorBranchRule::info() const {
  static const RuleInfo kInfo{"GM101", "tensor-branch",
                              "`if` on a tensor value splits the graph", GraphBreak::DataDependentBranching,
                              RuleFamily::Where, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorBranchRule::kinds() const {
  static const std::array<const syntax::Kind*, 2> kKinds{&kind::if_statement, &kind::elif_clause};
  return kKinds;
}

namespace {

class TensorBranchPass final : public FilePass {
 public:
  TensorBranchPass(const TensorBranchRule& rule, const RuleContext& ctx, DiagnosticSink& sink)
      : rule_(rule), ctx_(ctx), m_(ctx.module), sink_(sink), names_(ctx.names), index_(ctx) {}

  bool on_node(ir::Node n) override {
    if (is_where_fallback(m_, n)) return false;
    // A single-raise guard is the [Trap] rule's (GM301).
    if (n.is(kind::if_statement) && is_validation_guard(m_, n)) return true;
    const Truth truth = classify_truth(ctx_, n.field(field::condition));
    if (truth.kind == TruthKind::TensorTruth) {
      Diagnostic d = make_diagnostic(rule_.info(), n.field(field::condition),
                                     fmt::format("`{}` branches on a tensor value; Dynamo cannot trace data-dependent "
                                                 "control flow ({})",
                                                 n.is(kind::elif_clause) ? "elif" : "if",
                                                 cite(GraphBreak::DataDependentBranching)),
                                     "predicate both branches with torch.where, or use torch.cond");
      attach_chain_plan(d, n);
      sink_.report(std::move(d));
    } else if (truth.kind == TruthKind::DataOperator) {
      Diagnostic d = make_diagnostic(
          rule_.info(), n.field(field::condition),
          fmt::format("`{}` branches on `{}`, whose Python bool depends on tensor data ({})",
                      n.is(kind::elif_clause) ? "elif" : "if", m_.text(truth.atom.field(field::function)),
                      cite(GraphBreak::DataDependentOperator)),
          "compare with (a == b).all() after a static shape/dtype check, then predicate with torch.where");
      d.graph_break = GraphBreak::DataDependentOperator;
      attach_chain_plan(d, n);
      sink_.report(std::move(d));
    }
    return true;
  }

 private:
  // An `if` and its `elif`s are rewritten together: the chain is planned once and every arm's
  // diagnostic shares the plan (planning per arm would cost O(arms^2) and name helpers twice).
  void attach_chain_plan(Diagnostic& d, ir::Node arm) {
    const ir::Node chain = arm.is(kind::elif_clause) ? arm.parent() : arm;
    auto it = chains_.find(chain.start());
    if (it == chains_.end()) it = chains_.emplace(chain.start(), share(plan_where(ctx_, chain, names_, index_))).first;
    attach_plan(d, it->second);
  }

  const TensorBranchRule& rule_;
  const RuleContext& ctx_;
  const ir::Module& m_;
  DiagnosticSink& sink_;
  SiteNamer& names_;
  rewrite::FunctionIndex index_;
  std::unordered_map<uint32_t, SharedPlan> chains_;  // by the `if`'s start
};

}  // namespace

std::unique_ptr<FilePass> TensorBranchRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return std::make_unique<TensorBranchPass>(*this, ctx, sink);
}

}  // namespace graphmend::rules
