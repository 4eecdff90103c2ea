// [Where], buffer form: an `if`/`else` on a one-element tensor whose branches each end by
// rebinding the same non-persistent buffer (`self.register_buffer("inv_freq", X, persistent=False)`,
// the Phi-3 LongRoPE update), after at most an existence-guarded memo initialisation and a
// same-device `.to()` move. Under torch.compile the buffer holds the torch.where selection of the
// two candidates. Doc: rules/GM101.md, "Buffer selection".
#pragma once

#include <optional>
#include <variant>

#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

// nullopt when no branch of `if_statement` ends with a register_buffer call (not
// this form). `later`: the names read after the `if`.
std::optional<std::variant<source::Fix, Declined>> plan_buffer_selection(const analysis::FileContext& ctx, ir::Node if_statement,
                                                                         const LaterNames& later);

}  // namespace graphmend::rewrite
