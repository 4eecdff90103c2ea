// What both [Where] forms (the selection in rewrite/where.h, the buffer selection in
// rewrite/where_buffer.h) share.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphmend/analysis/context.h"
#include "graphmend/rewrite/decline.h"

namespace graphmend::rewrite {

// The gate of every [Where] rewrite: the original statement runs in eager mode and, because the
// selection's gradients are not proven identical, in compiled code with grad enabled.
inline constexpr std::string_view kWhereGate = "not _graphmend.compiling() or _graphmend.torch.is_grad_enabled()";

// Why a branch statement (or expression) cannot run unconditionally, or nullopt when it is pure
// and cannot raise. `part` names what is checked in the reason ("a branch", "the condition", ...).
std::optional<Decline> branch_effect(const analysis::FileContext& ctx, ir::Node node,
                                     std::string_view part = "a branch");

// The names whose values may be used after a statement: every identifier of the function that
// occurs after it ends, nested functions and lambdas included (a closure may read them later).
class LaterNames {
 public:
  LaterNames(const std::unordered_map<std::string, uint32_t>& last_occurrence, uint32_t after)
      : last_(&last_occurrence), after_(after) {}
  [[nodiscard]] bool contains(const std::string& name) const {
    auto it = last_->find(name);
    return it != last_->end() && it->second >= after_;
  }

 private:
  const std::unordered_map<std::string, uint32_t>* last_;
  uint32_t after_;
};

// What [Where] planning asks of a whole function at each site, indexed once per function on first
// use, so that n sites in one function cost O(n) rather than O(n^2). One per rule pass over a
// file; not thread-safe.
class FunctionIndex {
 public:
  explicit FunctionIndex(const analysis::FileContext& ctx) : ctx_(ctx) {}
  [[nodiscard]] LaterNames names_after(int function, ir::Node node);
  // The first statement starting after `node` ends that updates a tensor in place (an in-place
  // method or a subscript store): what it does, or nullopt.
  [[nodiscard]] std::optional<std::string> update_after(int function, ir::Node node);
  // True when the function calls locals(), vars(), eval, exec or reads its own frame: then any
  // local may be reached by name.
  [[nodiscard]] bool inspects_frame(int function) { return facts(function).inspects_frame; }

 private:
  struct Facts {
    std::unordered_map<std::string, uint32_t> last_occurrence;  // identifier -> start of its last occurrence
    std::vector<std::pair<uint32_t, std::string>> updates;       // (statement start, what), by start
    bool inspects_frame = false;
  };
  const Facts& facts(int function);

  const analysis::FileContext& ctx_;
  std::unordered_map<int, Facts> by_function_;
};

// The tensor part of a condition as one boolean tensor expression: and/or/not of tensor atoms
// become logical ops. Sets `uses_equal` when torch.equal was lowered; nullopt with `why` when the
// condition has no tensor form.
inline constexpr int kMaxLoweredNesting = 64;
std::optional<std::string> lower_tensor_condition(const analysis::FileContext& ctx, ir::Node condition, bool& uses_equal,
                                                  std::optional<Decline>& why);

}  // namespace graphmend::rewrite
