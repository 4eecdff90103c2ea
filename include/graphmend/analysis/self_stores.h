// The stores to `self.<name>` in a class's own methods, as tree nodes: what the type oracle and
// GM416 read of a class, and what its summary's StoreFacts are taken from.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::analysis {

// A store to `self.<name>` in one of a class's methods: an assignment's value, or the tensor passed
// to `self.register_buffer("<name>", value)`.
struct SelfStore {
  ir::Node value;
  bool buffer = false;
};
using SelfStores = std::unordered_map<std::string, std::vector<SelfStore>>;

// Every self-attribute store in a class's own methods (not its bases), in one walk.
SelfStores index_self_stores(const ir::Module& module, const ir::Class& cls);

}  // namespace graphmend::analysis
