// Which functions run under torch.compile: entry points plus everything statically reachable.
// Found from the modules' summaries alone: no module's tree is read.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphmend/analysis/project.h"

namespace graphmend::analysis {

struct RegionEntry {
  std::string reason;  // why this function is compiled code
  bool entry = false;  // compiled directly, not only reached from a compiled function
};

// A call in a compiled function that resolves to a function of the analysed files.
struct CompiledCall {
  FunctionRef caller;
  uint32_t call_index = 0;  // the call expression's index in the caller's tree (ModuleSummary::CallSite)
  FunctionRef callee;
  bool receiver_bound = false;  // the callee's first parameter (self, cls) is not in the arguments
  // The call expression, while the caller's tree is held.
  [[nodiscard]] ir::Node call_node() const { return ir::Node(caller.module->root().tree_data(), call_index); }
};

class CompileRegions {
 public:
  explicit CompileRegions(const Project& project);

  [[nodiscard]] const RegionEntry* find(const ir::Module& module, int function) const;
  [[nodiscard]] bool is_compiled(const ir::Module& module, int function) const {
    return find(module, function) != nullptr;
  }
  // True if `cls` derives from torch.nn.Module (through analysed bases; an unresolvable base of a
  // class that defines `forward` is assumed to be a Module). Settled for every class of the
  // project when the regions are built; false for a class of a module the project lacks.
  [[nodiscard]] bool is_nn_module(ClassRef cls) const;
  [[nodiscard]] size_t size() const { return regions_.size(); }
  // Every call from a compiled function to an analysed one, in a deterministic order.
  [[nodiscard]] const std::vector<CompiledCall>& calls() const { return calls_; }
  // The analysed function a compiled function's `call` (a node of `module`'s tree) resolves to, if
  // calls() has it.
  [[nodiscard]] std::optional<FunctionRef> callee_of(const ir::Module& module, ir::Node call) const;
  // The compiled functions with a call in calls() to `callee`, each once, in calls() order.
  [[nodiscard]] std::vector<FunctionRef> callers_of(FunctionRef callee) const;
  // The compiled functions that `wrapper`, a decorator's closure, stands in for (those decorated
  // with it), each once, in the order they were found; empty for any other function.
  [[nodiscard]] std::span<const FunctionRef> wrapped_by(FunctionRef wrapper) const;

 private:
  void seed(const ir::Module& module);
  void close_over_calls();
  void follow_decorators(FunctionRef f);
  void add(FunctionRef f, std::string reason, bool entry);
  void add_call(FunctionRef caller, uint32_t call, FunctionRef callee, bool via_attribute, std::string reason);
  void add_class_forward(ClassRef cls, const std::string& reason, bool entry);
  std::optional<ClassRef> instance_class(const ir::Module& module, const ModuleSummary::Instance& instance) const;
  // The classes whose instances `owner`'s methods store in `self.<attr>`: `self.attr = Cls(...)`,
  // or `self.attr = param` with `param` an `__init__` parameter, from what subclasses pass it
  // through `super().__init__(...)`.
  std::vector<ClassRef> stored_classes(ClassRef owner, std::string_view attr);
  std::vector<ClassRef> classes_passed_to_init(ClassRef owner, std::string_view param, int depth);
  std::vector<ClassRef> classes_passed_to_init_uncached(ClassRef owner, std::string_view param, int depth);
  std::map<std::tuple<const ir::Module*, int, std::string, int>, std::vector<ClassRef>> passed_to_init_;
  const std::vector<ClassRef>& subclasses_of(ClassRef cls);
  bool is_nn_module_impl(ClassRef cls, int depth);

  const Project& project_;
  std::map<std::pair<const ir::Module*, int>, RegionEntry> regions_;
  // Functions under torch.compiler.disable(recursive=False) that compiled code calls: never traced
  // themselves, but what they call Dynamo compiles as new frames, so their calls are followed.
  std::set<std::pair<const ir::Module*, int>> shallow_disabled_;
  std::vector<FunctionRef> worklist_;
  std::vector<CompiledCall> calls_;
  struct CallKeyHash {
    size_t operator()(const std::pair<const ir::Module*, uint32_t>& k) const {
      return std::hash<const void*>()(k.first) ^ (std::hash<uint32_t>()(k.second) * 0x9E3779B97F4A7C15ULL);
    }
  };
  // (caller's module, call index) -> its first entry in calls_
  std::unordered_map<std::pair<const ir::Module*, uint32_t>, size_t, CallKeyHash> entry_of_call_;
  std::map<std::pair<const ir::Module*, int>, std::vector<size_t>> calls_to_;  // callee -> its entries in calls_
  std::map<std::pair<const ir::Module*, int>, std::vector<FunctionRef>> wrapped_;  // wrapper -> decorated functions
  std::map<std::pair<const ir::Module*, int>, bool> module_class_cache_;  // every class's is_nn_module
  // Direct subclasses among the analysed classes, by base class; built on first use.
  std::optional<std::map<std::pair<const ir::Module*, int>, std::vector<ClassRef>>> subclasses_;
};

}  // namespace graphmend::analysis
