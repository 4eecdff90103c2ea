// [Defer] of an effect decided by a `.item()` value (GM401; doc: rules/GM401.md):
//     scale = out.abs().max().item()
//     if scale > 1e4:
//         warnings.warn("activations are large", RuntimeWarning)
// The value is used only to compare with a number in the `if` right after it, and the `if` only
// prints or warns. Under torch.compile the value stays a tensor (_graphmend.scalar: float64 when
// the tensor is one floating-point element, so the comparison is Python's), and the call is
// deferred with the comparison's result: its helper prints or warns when that result is true.
// Eager, both statements run as written.
#pragma once

#include <variant>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

// `<tensor>.item()`: a call of `.item()` without arguments on a value the type oracle does not
// prove static (GM401 reports exactly these).
bool is_tensor_item_call(const analysis::FileContext& ctx, ir::Node call);

// A numeric literal (imaginary ones included), or a negated one.
bool is_number_literal(const ir::Module& m, ir::Node n);

// The rewrite of the `.item()` call `item_call` and the `if` after it, or why it is declined.
std::variant<source::Fix, Declined> plan_item_effect(const analysis::FileContext& ctx, ir::Node item_call,
                                                     SiteNamer& names, FunctionIndex& index);

// True when `call` (a print or warning) is the body of an `if` that plan_item_effect rewrites
// with the `.item()` before it: that rewrite defers the call, so [Defer] leaves it alone.
bool decided_by_item_effect(const analysis::FileContext& ctx, ir::Node call, FunctionIndex& index);

}  // namespace graphmend::rewrite
