// [Dense]: expert dispatch in fixed shapes (GM407; doc: rules/GM407.md). A mixture-of-experts layer
// gathers each expert's tokens with a data-dependent shape:
//     expert_hit = (expert_mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()
//     for expert_idx in expert_hit:                       # or: in range(self.num_experts)
//         expert_layer = self.experts[expert_idx]
//         idx, top_x = torch.where(expert_mask[expert_idx])
//         current_state = hidden_states[None, top_x].reshape(-1, hidden_dim)
//         current_hidden_states = expert_layer(current_state) * routing_weights[top_x, idx, None]
//         final_hidden_states.index_add_(0, top_x, current_hidden_states.to(hidden_states.dtype))
// Under torch.compile (grad disabled) the loop runs over every expert with every token, and each
// token's contribution from an expert that did not route it is masked to zero before the same
// index_add_:
//         idx, top_x = mask[e].argmax(0), arange(tokens)       # each token's slot for expert e
//         ... the two statements above, as written ...
//         final_hidden_states.index_add_(0, top_x, where(routed[:, None], <as written>, 0))
// The original loop keeps its lines (rewrite::compile_before_loop): under torch.compile it runs
// over no experts.
// What is proven: each token selects an expert at most once (the mask is one_hot of torch.topk's
// indices), so argmax finds its slot and the weight is the one the original gathers; the output
// starts as zeros and nothing else touches it, so it never holds -0.0 and adding a masked +0.0
// leaves it bit for bit as it was; each routed token gets the same single addition, in the same
// expert order. What is not: the experts run on every token, not only the routed ones, so the
// fix is unsafe (an expert is assumed to treat tokens independently, as an MLP does, and a matrix
// product over all the tokens may round differently from one over the routed ones).
#pragma once

#include <variant>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

// The `torch.where(mask[e])` call that gathers the tokens in the body of `for_statement`, when the
// body unpacks a single-argument torch.where into two names and passes the second to an
// `index_add_` (what GM407 reports), else null.
ir::Node expert_gather_call(const analysis::FileContext& ctx, ir::Node for_statement);

// The fixed-shape rewrite of the expert loop `for_statement`, or why it is declined.
std::variant<source::Fix, Declined> plan_expert_dispatch(const analysis::FileContext& ctx, ir::Node for_statement,
                                                         FunctionIndex& index);

// The masked-store form (Switch Transformers, GPTSan):
//     for idx in expert_hit:          # or range(...), or: for idx, expert in enumerate(experts)
//         [mask = router_mask[:, :, idx].bool()]
//         out[mask] = expert(hidden[mask])          # or `.to(...)` of it
// Under torch.compile (grad disabled) every expert computes every row and its rows are selected
// into the output in place: `_graphmend_rows = expert(hidden)`, cast to `out.dtype`, then
// `out.copy_(_graphmend_rows.where(mask[..., None], out))`. Unsafe for the same reasons: the
// expert is assumed to treat rows independently.

// The boolean-mask read `hidden[mask]` in the body of `for_statement` whose result, passed to a
// call, is stored back with the same mask (`out[mask] = f(hidden[mask])`), else null.
ir::Node expert_masked_gather(const analysis::FileContext& ctx, ir::Node for_statement);

// The fixed-shape rewrite of that loop, or why it is declined.
std::variant<source::Fix, Declined> plan_masked_dispatch(const analysis::FileContext& ctx, ir::Node for_statement,
                                                         FunctionIndex& index);

}  // namespace graphmend::rewrite
