// Truth tests: where Python asks a tensor for a bool, and which code never runs under
// torch.compile. Shared by the detection rules and the rewrite planners.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graphmend/analysis/context.h"

namespace graphmend::analysis {

enum class TruthKind {
  Static,        // decided from Python values, shapes, dtypes: no break
  TensorTruth,   // bool() of a tensor: GB0170 at this point
  DataOperator,  // torch.equal / allclose: GB0033 at the call
  Extraction,    // a value already pulled out of a tensor (.item() ...): its own rule reports it
};

struct Truth {
  TruthKind kind = TruthKind::Static;
  ir::Node atom;  // the operand whose truth needs tensor data
};

Truth classify_truth(const FileContext& ctx, ir::Node condition);

// True for `if` statements whose body is exactly one `raise` and which have no elif/else.
bool is_validation_guard(const ir::Module& module, ir::Node if_statement);

// True if `n` lies inside the condition of an if/elif/while (not its body).
bool inside_branch_condition(ir::Node n);

// True for a call TorchDynamo folds to True while tracing: torch.compiler.is_compiling() and its
// spellings (transformers' is_torchdynamo_compiling, graphmend's own _graphmend.compiling).
bool is_compiling_check(const ir::Module& module, ir::Node expr);

// The truth of `expr` while TorchDynamo traces, where calls Dynamo folds to constants decide it
// (is_compiling_check's are True; torch.jit.is_tracing(), torch.jit.is_scripting() and the other
// tracing-state calls false), also through a local name every reaching binding of which assigns
// such a value: `not is_compiling()` is false; `is_compiling() or t` is true and
// `not is_compiling() and t` false without `t` ever being evaluated. nullopt where anything else
// decides it.
std::optional<bool> compile_time_truth(const ir::Module& module, ir::Node expr);

// Code of the module's compiled functions that never runs under torch.compile: the branches of an
// if/elif whose condition compile_time_truth decides (`if not is_compiling():`, the else-branches of
// `if is_compiling():`), the arm of `a if <decided> else b` not taken, and the operand `and`/`or`
// skips after a decided one. Nothing there breaks a graph.
std::vector<source::TextRange> compile_dead_ranges(const FileContext& ctx);

// The qualified name of a call's callee, if it resolves.
std::optional<std::string> callee_name(const ir::Module& module, ir::Node call);

}  // namespace graphmend::analysis
