// A `.item()` value kept a tensor where it is only the number in arithmetic with the tensor it was
// taken from (GM401; doc: rules/GM401.md):
//     scale = x.abs().amax().item()
//     y = x / scale
// becomes `scale = x.abs().amax().detach().nan_to_num(torch.nan, torch.inf, -torch.inf)`. The value
// is the amax or amin of the whole tensor `x`, so it has x's dtype and is one of x's elements
// (exactly representable, never rounded); every use of the name is `x op scale` with an operation
// measured to give the same bits for a 0-d tensor of x's dtype as for the Python number, in eager,
// aot_eager and inductor (bench/item_exactness.py, bench/RESULTS.md). `nan_to_num` gives a NaN
// value the canonical NaN's bits, which the number carries into the compiled graph and Inductor's
// reduction does not; `.detach()` keeps the gradient path cut, as the Python number did.
#pragma once

#include <variant>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

// True when the `.item()` call `item_call` is assigned to a name that some binary operator in the
// same function takes as an operand beside a tensor, directly or through arithmetic on the value
// (`x / (v * 2)`): the form plan_item_tensor rewrites, or says
// why it does not.
bool item_used_with_tensor(const analysis::FileContext& ctx, ir::Node item_call);

// The rewrite of `name = x.<amax|amin>().item()` (optionally of `x.abs()`) into
// `.detach().nan_to_num(...)`, or why it is declined.
std::variant<source::Fix, Declined> plan_item_tensor(const analysis::FileContext& ctx, ir::Node item_call,
                                                     FunctionIndex& index);

}  // namespace graphmend::rewrite
