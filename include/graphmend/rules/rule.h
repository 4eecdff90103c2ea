// A rule: static metadata plus one entry point over a file's IR. Rules do no I/O and keep no
// global state; everything they need arrives in the RuleContext.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/tensor_types.h"
#include "graphmend/rules/diagnostic.h"

namespace graphmend::rules {

enum class FixAvailability { None, Sometimes };

enum class RuleFamily { Where, Defer, Trap, Report, Meta };

struct RuleInfo {
  std::string_view code;            // GM101
  std::string_view name;            // kebab-case
  std::string_view summary;         // one line
  std::string_view graph_break_id;  // the PyTorch registry id it corresponds to
  RuleFamily family;
  FixAvailability fix;
};

struct RuleOptions {
  bool trap_async = false;  // [Trap]: use torch._assert_async (opt-in tier)
};

struct RuleContext {
  const ir::Module& module;
  const analysis::Project& project;
  const analysis::CompileRegions& regions;
  analysis::TypeOracle& types;
  const RuleOptions& options;

  // Functions of this module that run under torch.compile, in source order.
  [[nodiscard]] std::vector<int> compiled_functions() const;
};

class DiagnosticSink {
 public:
  void report(Diagnostic d) { diagnostics_.push_back(std::move(d)); }
  [[nodiscard]] std::vector<Diagnostic>& diagnostics() { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

class Rule {
 public:
  virtual ~Rule() = default;
  [[nodiscard]] virtual const RuleInfo& info() const = 0;
  virtual void check(const RuleContext& ctx, DiagnosticSink& sink) const = 0;
};

// Visits the nodes of a function body, not descending into nested functions, classes or lambdas
// (those are separate regions).
template <typename F>
void walk_body(const ir::Function& fn, F&& visit) {
  syntax::walk(fn.node.field("body"), [&](ir::Node n) {
    if (n.is("function_definition") || n.is("class_definition") || n.is("decorated_definition") ||
        n.is("lambda")) {
      return false;
    }
    return visit(n);
  });
}

}  // namespace graphmend::rules
