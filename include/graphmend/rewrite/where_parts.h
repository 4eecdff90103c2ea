// What both [Where] forms (the selection in rewrite/where.h, the buffer selection in
// rewrite/where_buffer.h) share.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "graphmend/analysis/context.h"

namespace graphmend::rewrite {

// The gate of every [Where] rewrite: the original statement runs in eager mode and, because the
// selection's gradients are not proven identical, in compiled code with grad enabled.
inline constexpr std::string_view kWhereGate = "not _graphmend.compiling() or _graphmend.torch.is_grad_enabled()";

// Why a branch statement (or expression) cannot run unconditionally, or nullopt when it is pure
// and cannot raise. Reasons start with "a branch ".
std::optional<std::string> branch_effect(const analysis::FileContext& ctx, ir::Node node);

// The identifiers that occur in `fn` after `node` ends: the names whose values are used later.
std::set<std::string> names_after(const ir::Module& m, const ir::Function& fn, ir::Node node);

// The tensor part of a condition as one boolean tensor expression: and/or/not of tensor atoms
// become logical ops. Sets `uses_equal` when torch.equal was lowered; nullopt with `why` when the
// condition has no tensor form.
inline constexpr int kMaxLoweredNesting = 64;
std::optional<std::string> lower_tensor_condition(const analysis::FileContext& ctx, ir::Node condition, bool& uses_equal,
                                                  std::string& why);

}  // namespace graphmend::rewrite
