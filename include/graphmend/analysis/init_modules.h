// The submodules a class's `__init__` makes: `self.norm = nn.LayerNorm(...)`. What a method can
// know statically of `self.norm(...)`: which torch.nn class it was made as (it may be replaced or
// hooked after construction, which no reading of the code shows).
#pragma once

#include <optional>
#include <string>

#include "graphmend/ir/module.h"

namespace graphmend::analysis {

// The value `__init__` of `fn`'s class assigns to `self.<attr>`, for the callee `self.<attr>` in
// the method `fn`, when `__init__` assigns it exactly once; null otherwise.
ir::Node sole_init_value(const ir::Module& m, const ir::Function& fn, ir::Node callee);

// `self.norm` in a method of a class whose `__init__` assigns `self.norm = torch.nn.K(...)` once:
// K, when it is a torch.nn class whose forward returns new storage, of a floating-point dtype
// (LayerNorm, Linear, Conv1d/2d/3d, Embedding, GroupNorm, RMSNorm).
std::optional<std::string> allocating_module_class(const ir::Module& m, const ir::Function& fn, ir::Node callee);

}  // namespace graphmend::analysis
