// Shared classification of truth tests: where Python asks a tensor for a bool.
#pragma once

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

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

Truth classify_truth(const RuleContext& ctx, ir::Node condition);

// True for `if` statements whose body is exactly one `raise` and which have no elif/else.
bool is_validation_guard(const ir::Module& module, ir::Node if_statement);

// True if `n` lies inside the condition of an if/elif/while (not its body).
bool inside_branch_condition(ir::Node n);

// The qualified name of a call's callee, if it resolves.
std::optional<std::string> callee_name(const ir::Module& module, ir::Node call);

Diagnostic make_diagnostic(const RuleInfo& info, ir::Node site, std::string message, std::string help = {});

}  // namespace graphmend::rules
