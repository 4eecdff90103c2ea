// A rule: static metadata plus one entry point over a file's IR. Rules do no I/O and keep no
// global state; everything they need arrives in the RuleContext.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/site.h"
#include "graphmend/rules/diagnostic.h"
#include "graphmend/syntax/kinds.h"

namespace graphmend::rules {

using RuleOptions = analysis::FixOptions;
// What every rule's pass over one file is given: the analysis context, and the file's one namer
// of site helpers. Rules share it: two namers could give two different helpers one name (a
// warning [Defer] and an `.item()`-decided warning, both `_graphmend_warn_forward_0`), and the
// generated block keeps one helper per name.
struct RuleContext : analysis::FileContext {
  rewrite::SiteNamer& names;
};
using analysis::walk_body;

class DiagnosticSink {
 public:
  // The compiled function being walked (check_file sets it): every diagnostic reported from here
  // on names it, and why it is compiled code.
  void enter_function(int function, std::string_view qualname, std::string_view region_reason) {
    function_index_ = function;
    function_ = qualname;
    region_reason_ = region_reason;
  }
  void report(Diagnostic d) {
    d.function_index = function_index_;
    d.function = function_;
    d.region_reason = region_reason_;
    diagnostics_.push_back(std::move(d));
  }
  [[nodiscard]] std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  int function_index_ = -1;
  std::string_view function_;
  std::string_view region_reason_;
  std::vector<Diagnostic> diagnostics_;
};

// One rule's pass over one file, holding whatever the rule keeps per file (helper names, plans
// shared by the arms of an if/elif chain).
class FilePass {
 public:
  virtual ~FilePass() = default;
  // Called with each node of the rule's kinds() in a compiled function body, in source order.
  // Returning false skips the node's subtree, for this rule only.
  virtual bool on_node(ir::Node node) = 0;
  // Called once every rule has walked every compiled function, with what all of them found (the
  // sink's diagnostics so far): for a rule whose sites depend on other rules' findings. Reporting
  // appends to what `found` views, so a pass reads all of it before it reports.
  virtual void finish(std::span<const Diagnostic> /*found*/) {}
};

class Rule {
 public:
  virtual ~Rule() = default;
  [[nodiscard]] virtual const RuleInfo& info() const = 0;
  // The node kinds this rule looks at: check_file walks each compiled function once and hands
  // every rule only the nodes of its kinds.
  [[nodiscard]] virtual std::span<const syntax::Kind* const> kinds() const = 0;
  [[nodiscard]] virtual std::unique_ptr<FilePass> start(const RuleContext& ctx, DiagnosticSink& sink) const = 0;
  // True for a rule whose sites follow from the breaks other rules find (FilePass::finish): those
  // breaks happen whether or not their rules are selected, so they run too, and their findings are
  // then left out of the report.
  [[nodiscard]] virtual bool reads_other_findings() const { return false; }
};

// A FilePass from a callable `bool(ir::Node)` that carries its own per-file state.
template <typename Visit>
std::unique_ptr<FilePass> file_pass(Visit visit) {
  struct Pass final : FilePass {
    explicit Pass(Visit v) : visit_(std::move(v)) {}
    bool on_node(ir::Node node) override { return visit_(node); }
    Visit visit_;
  };
  return std::make_unique<Pass>(std::move(visit));
}

// The loop of `function` (an index into the module's functions) whose body holds one of `found`'s graph breaks, the
// first in source order: Dynamo cannot resume inside a loop, so it skips that function's frame and
// runs its own code eagerly (GB7000). Null when there is none. A break inside a nested function, a
// lambda or a comprehension is not one: those are frames of their own.
ir::Node loop_that_skips(const ir::Module& m, std::span<const Diagnostic> found, int function);

// The same for a `try` statement whose body holds one of `found`'s graph breaks: Python 3.11's
// Dynamo cannot resume inside a `try` either, and skips the function (a `with` it resumes in).
ir::Node try_that_skips(const ir::Module& m, std::span<const Diagnostic> found, int function);

// In a decorator's wrapper (`function`, an index into ctx.module.functions), the `try` whose body
// calls the function it wraps (a parameter of the decorator directly around it): when that
// function breaks the graph, the break is inside the `try`, and Dynamo skips the wrapper. Null
// when there is none.
ir::Node try_around_wrapped_call(const RuleContext& ctx, int function);
// The same test in any module, for any function: a `try` whose body calls a parameter of the
// function directly around `function`.
ir::Node try_around_outer_parameter_call(const ir::Module& m, int function);

// Reports `d` as a finding of compiled `function` (an index into ctx.module.functions), for a
// pass that reports from FilePass::finish, after the walk that names each function.
void report_in_function(const RuleContext& ctx, DiagnosticSink& sink, int function, Diagnostic d);

// Runs `rules` over the compiled functions of ctx.module: one walk of each body, each node handed
// to the rules that declared its kind. Diagnostics go to `sink`, each rule's in source order.
// `unselected` rules run in the same walk for what a rule that reads_other_findings() needs, with
// their own namer of site helpers (`unselected_names`), so that the helpers of the selected rules'
// fixes are named as without them; the caller leaves their findings out.
void check_file(const RuleContext& ctx, std::span<const Rule* const> rules, DiagnosticSink& sink,
                std::span<const Rule* const> unselected = {}, rewrite::SiteNamer* unselected_names = nullptr);

}  // namespace graphmend::rules
