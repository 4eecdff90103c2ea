// What both [Where] forms (the selection in rewrite/where.h, the buffer selection in
// rewrite/where_buffer.h) share.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/decline.h"

namespace graphmend::rewrite {

// When every [Where] rewrite selects: in compiled code with grad disabled. The original statement
// runs in eager mode and, because the selection's gradients are not proven identical, in compiled
// code with grad enabled.
inline constexpr std::string_view kWhereCompiled = "_graphmend.compiling() and not _graphmend.torch.is_grad_enabled()";

// Why a branch statement (or expression) cannot run unconditionally, or nullopt when it is pure
// and cannot raise. `part` names what is checked in the reason ("a branch", "the condition", ...).
// Code the original evaluates just the same (`as_in_original`: the static conjunct, the first
// atom of the condition) may raise on its tensors' shapes: it raises where the original does.
// `raises_first`: such code also runs before anything the rewrite adds that is not pure and
// unable to raise, so it may raise on anything (`cache_position[0]` on an empty tensor or None):
// the original's exception, at the same point.
std::optional<Decline> branch_effect(const analysis::FileContext& ctx, ir::Node node,
                                     std::string_view part = "a branch", bool as_in_original = false,
                                     bool raises_first = false);

// A name the gate checks at trace time (a constant under Dynamo) before the compiled form runs:
// a plain tensor, and a floating-point one when `floating`; or a Python number when `number`.
struct DtypeCheck {
  std::string name;
  bool floating = false;
  bool non_bool = false;  // any dtype but bool (`-x`, `x - 1`); a floating check implies it
  bool number = false;
};

// The trace-time checks that keep the operations in `node` (code the compiled form runs where the
// original may not) from raising on dtypes or on a value that is not a tensor:
// - `torch.finfo` raises TypeError on a dtype that is not floating-point. `torch.finfo(X.dtype)`
//   needs `X` floating-point; a floating dtype named outright needs nothing.
// - An operation that torch accepts for every shape only on some dtypes (analysis/totality.h:
//   `t.abs()`, `-t`, `torch.clamp(t, min=v)`) needs its operand floating-point; one that accepts
//   every dtype needs a value that may be None (or is a tensor only by its uses) to be a tensor.
// - A name used as a number that graphmend cannot prove one (`h > limit` with a parameter
//   `limit`) is checked to be a Python number.
// An operand resolves to the names it is computed from, through branch-local names, arithmetic
// with numbers and dtype-keeping calls (`torch.clamp(h * 2, ...)` needs `h`), and `.float()`
// makes a floating-point tensor outright. Each name is one the `if` does not rebind before the
// use; a floating one is proven by a static conjunct `X.dtype == torch.<floating dtype>` or
// checked in the gate (appended to `checks`, each once; floating wins). Anything else declines,
// as does a check needed by a form without a gate to hold it (`checks` null). Nothing inside
// `skip` (the condition's first atom, which the original evaluates too) is looked at.
std::optional<Decline> dtype_preconditions(const analysis::FileContext& ctx, ir::Node node, ir::Node static_part,
                                           ir::Node if_statement, std::vector<DtypeCheck>* checks,
                                           ir::Node skip = {}, std::string_view part = "a branch");

// The names a static conjunct proves floating-point: `X.dtype == torch.float16` (either side), in
// any conjunct of an `and` chain.
std::set<std::string> floating_names(const ir::Module& m, ir::Node static_part);

// The atom of a condition that is evaluated first (through `not`, parentheses and the left
// operands of `and`/`or`): the original evaluates it on every run of the `if`.
ir::Node first_atom(ir::Node condition);

// True when `n` is inside a loop or `try` of its own function. A `with` body runs once, in order,
// like the code around it (its manager's enter and exit bracket both the original `if` and the
// selection); a loop body runs again and reads what the last iteration selected, and a `try`
// hands an exception's partial state to its handlers.
bool inside_loop_or_try(ir::Node n);
// The outermost `for` or `while` of its own function that encloses `n` (its body or `else`), or
// null: the code a later iteration runs again after `n`.
ir::Node outermost_loop(ir::Node n);
// True when `n` is inside a `try` statement of its own function.
bool in_try_statement(ir::Node n);

// The names whose values, as a statement binds them, may be used after it. A name is used after
// `if` only when it occurs after it and, unless the `if` is in a loop, some read of it there may
// see a binding the `if` made (reaching definitions): a temporary that every later path assigns
// anew before reading (`clamp_value` in two guards in a row) is not. In a loop, a read anywhere in
// the loop counts too (the next iteration runs it), except one in the `if`'s own branch after
// that branch bound the name. A local that a nested
// function, lambda or comprehension reads (wherever it is defined), `del`, augmented assignment
// and frame inspection count as uses; so does every name that is not a plain local.
class FunctionIndex;
class LaterNames {
 public:
  [[nodiscard]] bool contains(const std::string& name) const;

 private:
  friend class FunctionIndex;
  LaterNames(const FunctionIndex& index, int function, ir::Node statement)
      : index_(&index), function_(function), statement_(statement) {}
  const FunctionIndex* index_;
  int function_;
  ir::Node statement_;
};

// True when a call of `qualified` reads the caller's locals by other means than names (locals(),
// vars(), eval, exec, the frame itself): then any local may be reached.
bool reads_frame(std::string_view qualified);

// What [Where] planning asks of a whole function at each site, indexed once per function on first
// use, so that n sites in one function cost O(n) rather than O(n^2). One per rule pass over a
// file; not thread-safe.
class FunctionIndex {
 public:
  explicit FunctionIndex(const analysis::FileContext& ctx) : ctx_(ctx) {}
  [[nodiscard]] LaterNames names_after(int function, ir::Node node);
  // The first statement that may run after `node` and updates a tensor in place (an in-place
  // method or a subscript store): what it does, or nullopt. Inside a loop, the statements of the
  // loop before `node` run again after it, in the next iteration.
  [[nodiscard]] std::optional<std::string> update_after(int function, ir::Node node);
  // True when the function calls locals(), vars(), eval, exec or reads its own frame: then any
  // local may be reached by name.
  [[nodiscard]] bool inspects_frame(int function) { return facts(function).inspects_frame; }

 private:
  friend class LaterNames;
  struct Facts {
    std::unordered_map<std::string, std::vector<ir::Node>> occurrences;  // identifier -> occurrences, by start
    std::unordered_map<uint32_t, ir::BindingKind> targets;  // start of a binding target in the function's scope
    std::unordered_set<std::string> captured;  // locals a nested scope reads (a closure may run any time)
    std::vector<std::pair<uint32_t, std::string>> updates;  // (statement start, what), by start
    bool inspects_frame = false;
  };
  const Facts& facts(int function);
  // LaterNames::contains past the textual test: `uses` are the name's occurrences in the function,
  // some after `statement`.
  [[nodiscard]] bool read_after(const Facts& f, int function, ir::Node statement, const std::string& name,
                                const std::vector<ir::Node>& uses) const;

  const analysis::FileContext& ctx_;
  std::unordered_map<int, Facts> by_function_;
};

// The tensor part of a condition as one boolean tensor expression: and/or/not of tensor atoms
// become logical ops. Sets `uses_equal` when torch.equal was lowered; nullopt with `why` when the
// condition has no tensor form. `evaluated_first`: the original evaluates this condition first,
// so its leftmost atom runs under the same circumstances in both (the `if`'s own, not an `elif`'s).
inline constexpr int kMaxLoweredNesting = 64;
std::optional<std::string> lower_tensor_condition(const analysis::FileContext& ctx, ir::Node condition, bool& uses_equal,
                                                  std::optional<Decline>& why, bool evaluated_first);

}  // namespace graphmend::rewrite
