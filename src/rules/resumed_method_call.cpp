#include "graphmend/rules/resumed_method_call.h"

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {

namespace {

// The calls `t.method(...)` on a tensor `t` whose arguments hold `site`, innermost first, up to
// the site's frame (a lambda, a comprehension or a nested function is a frame of its own). Python
// 3.11 loads `t.method` before it evaluates the arguments; when Dynamo breaks the graph inside
// them, it resumes in a new frame that receives the bound method from the stack, and it cannot
// call a builtin method it did not load itself (measured on torch 2.13:
// tests/e2e/test_resumed_method_calls.py). `torch.cat([..., x[m]])` is not one: a torch function
// is known by identity.
std::vector<ir::Node> bound_tensor_methods_around(const RuleContext& ctx, ir::Node site) {
  std::vector<ir::Node> out;
  for (ir::Node child = site, n = site.parent(); n; child = n, n = n.parent()) {
    if (n.is(kind::function_definition) || n.is(kind::lambda) || n.is(kind::list_comprehension) ||
        n.is(kind::set_comprehension) || n.is(kind::dictionary_comprehension) ||
        n.is(kind::generator_expression)) {
      break;
    }
    if (!n.is(kind::call) || child != n.field(field::arguments)) continue;
    const ir::Node fn = ir::unparenthesize(n.field(field::function));
    if (fn.is(kind::attribute) && ctx.types.type_of(ctx.module, fn.field(field::object)).tensor_like()) {
      out.push_back(n);
    }
  }
  return out;
}

}  // namespace

const RuleInfo& ResumedMethodCallRule::info() const {
  static const RuleInfo kInfo{"GM415", "resumed-method-call",
                              "a tensor method whose arguments break the graph on a data-dependent shape: Dynamo "
                              "resumes with the method bound and cannot call it",
                              GraphBreak::SkippedFunction, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> ResumedMethodCallRule::kinds() const { return {}; }

std::unique_ptr<FilePass> ResumedMethodCallRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  struct Pass final : FilePass {
    Pass(const RuleInfo& info, const RuleContext& ctx, DiagnosticSink& sink) : info_(info), ctx_(ctx), sink_(sink) {}

    bool on_node(ir::Node /*n*/) override { return false; }

    void finish(std::span<const Diagnostic> found) override {
      const ir::Module& m = ctx_.module;
      std::vector<std::pair<int, Diagnostic>> reports;
      std::set<size_t> reported;
      std::optional<source::LineIndex> lines;
      for (const Diagnostic& d : found) {
        if (d.graph_break != GraphBreak::DynamicShapeOperator || d.consequence) continue;
        // In a function Dynamo skips for a break in a loop or a `try` there is no resuming.
        if (loop_that_skips(m, found, d.function_index) || try_that_skips(m, found, d.function_index)) continue;
        const ir::Node site = m.root().named_descendant_for_range(d.range.start, d.range.end);
        if (!site) continue;
        const int function = m.function_of(site);
        if (function < 0) continue;
        for (ir::Node call : bound_tensor_methods_around(ctx_, site)) {
          if (!reported.insert(call.start()).second) continue;
          if (!lines) lines.emplace(m.text());
          const ir::Node method = ir::unparenthesize(call.field(field::function));
          Diagnostic diagnostic = make_diagnostic(
              info_, call,
              fmt::format("the break at line {} ({}) is inside the arguments of `{}`, which Python bound before "
                          "them: Dynamo resumes after that break with the bound method and cannot call it ({})",
                          lines->line_of(d.range.start), cite(GraphBreak::DynamicShapeOperator),
                          ir::snippet(m, method), cite(GraphBreak::SkippedFunction)),
              fmt::format("it goes with the break at line {}: bind that argument to a name in a statement of "
                          "its own before the call, and only that break is left",
                          lines->line_of(d.range.start)));
          diagnostic.consequence = true;
          reports.emplace_back(function, std::move(diagnostic));
        }
      }
      for (auto& [function, d] : reports) {
        report_in_function(ctx_, sink_, function, std::move(d));
      }
    }

    const RuleInfo& info_;
    const RuleContext& ctx_;
    DiagnosticSink& sink_;
  };
  return std::make_unique<Pass>(info(), ctx, sink);
}

}  // namespace graphmend::rules
