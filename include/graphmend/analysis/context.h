// What every per-file analysis, detection rule and rewrite planner sees of one file: its IR,
// the project's cross-file facts, the compiled regions, the type oracle and the fix options.
#pragma once

#include <vector>

#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/tensor_types.h"

namespace graphmend::analysis {

struct FixOptions {
  bool trap_async = false;  // [Trap]: use torch._assert_async (opt-in tier)
};

struct FileContext {
  const ir::Module& module;
  const analysis::Project& project;
  const analysis::CompileRegions& regions;
  analysis::TypeOracle& types;
  const FixOptions& options;

  // Functions of this module that run under torch.compile, in source order.
  [[nodiscard]] std::vector<int> compiled_functions() const;
};

// Visits the nodes of a function body, not descending into nested functions, classes or lambdas
// (those are separate regions).
template <typename F>
void walk_body(const ir::Function& fn, F&& visit) {
  syntax::walk(fn.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::decorated_definition) ||
        n.is(kind::lambda)) {
      return false;
    }
    return visit(n);
  });
}

}  // namespace graphmend::analysis
