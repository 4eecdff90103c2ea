// [Where]: when the object an `if` keeps for a name may be replaced by a torch.where selection.
// A branch that skips a name (the else-less update `if c: h = torch.clamp(h, ...)`) keeps the very
// object `h` held; the selection is a new tensor of the same value. Nobody can tell them apart when
// that object is new storage this frame made (an allocating op, or a user module's forward shown to
// return one) and nothing but the name ever held it: every use between its definition and the end
// of the `if` only reads it. Nor when, whatever the object, after the `if` the name is only read by
// value and nothing else runs that could write into it. Doc: rules/GM101.md, "Kept values".
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/unsafe.h"

namespace graphmend::rewrite {

// A module the selection must check at trace time (static under Dynamo): that `module` (its source
// text, `self.norm`) is exactly torch.nn.<cls>, or, for a class of the user's own (`user_class`),
// exactly the class the name `cls` binds in the function's module, whose own `forward` graphmend
// proved to return new storage; with no hook that could replace its result either way.
struct ModuleCheck {
  std::string module;
  std::string cls;
  bool user_class = false;
  friend bool operator==(const ModuleCheck&, const ModuleCheck&) = default;
};

// The trace-time call that checks `check` (runtime: allocating_module or user_module).
std::string module_check_call(const ModuleCheck& check);

struct KeptValueProof {
  std::vector<ModuleCheck> modules;  // each once
};

// The proof that the object `name` holds when `if_statement` starts is unobservable once
// replaced (either way above), or why it is not (both ways' reasons: kept-object-replaced).
// `inspects_frame`: the function reads its locals by other means than names (locals(), eval, ...).
// Each call costs a bounded amount of work, whatever the size of the function.
// `kept_value`, when given, is set to the value of the definition found to reach the `if` (null
// when none was found), whatever the verdict.
std::variant<KeptValueProof, Unsafe> prove_kept_value_unobservable(const analysis::FileContext& ctx,
                                                                         const ir::Function& fn, bool inspects_frame,
                                                                         ir::Node if_statement, std::string_view name,
                                                                         ir::Node* kept_value = nullptr);

}  // namespace graphmend::rewrite
