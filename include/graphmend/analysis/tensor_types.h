// Tensor-ness: a small lattice of what a Python expression evaluates to, as far as graph breaks
// are concerned. Flow-sensitive through reaching definitions; interprocedural through the return
// values of analysed functions and module forwards.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphmend/analysis/project.h"
#include "graphmend/analysis/self_stores.h"

namespace graphmend::analysis {

enum class ValueKind : uint8_t {
  Unknown,
  Tensor,          // proven torch.Tensor
  LikelyTensor,    // tensor by usage (a Tensor-only method on an unknown receiver)
  OptionalTensor,  // Tensor or None
  DataScalar,      // a Python value computed from tensor data (.item(), int(t), torch.equal)
  Static,          // a non-tensor value Dynamo treats as a constant or shape: int, str, dtype, ...
  None,
  Module,          // an nn.Module instance
  TensorTuple,     // a tuple or list whose elements are all tensors (or likely so)
  Bottom,          // no information yet (a definition still being evaluated); join identity
};

struct ValueType {
  ValueKind kind = ValueKind::Unknown;
  bool bool_tensor = false;  // element type known to be torch.bool (masks)
  friend bool operator==(const ValueType&, const ValueType&) = default;

  [[nodiscard]] bool tensor_like() const {
    return kind == ValueKind::Tensor || kind == ValueKind::LikelyTensor;
  }
  // A tensor, or one that may be None: its methods are tensor methods wherever it is not None.
  [[nodiscard]] bool tensor_or_optional() const { return tensor_like() || kind == ValueKind::OptionalTensor; }
};

ValueType join(ValueType a, ValueType b);

// Parameters observed receiving a tensor (or a tuple of tensors) at a compiled call site, keyed
// by (module, function index, parameter index); analysis/call_evidence.h gathers it. Evidence,
// not proof: a parameter may receive other values at other calls.
struct ParameterKey {
  const ir::Module* module = nullptr;
  int function = -1;
  int parameter = -1;
  friend auto operator<=>(const ParameterKey&, const ParameterKey&) = default;
};
using ParameterEvidence = std::map<ParameterKey, ValueType>;

class TypeOracle {
 public:
  explicit TypeOracle(const Project& project, const ParameterEvidence* evidence = nullptr)
      : project_(project), evidence_(evidence) {}

  ValueType type_of(const ir::Module& module, ir::Node expr);
  // True when `value[index]` selects with a boolean mask: `index` a boolean tensor, `value` a
  // tensor or of unknown type (only a tensor takes a boolean tensor as an index). The value's
  // type is asked first.
  bool boolean_mask_index(const ir::Module& module, ir::Node value, ir::Node index);
  [[nodiscard]] const Project& project() const { return project_; }
  // From now on, appends to `reads` each function whose parameters' evidence this oracle
  // consults, found or not: what its answers depend on, of the evidence (call_evidence.cpp
  // re-types a caller only when one of those changed).
  void record_evidence_reads(std::vector<FunctionRef>* reads) { evidence_reads_ = reads; }
  // The type function `function`'s body gives its parameter `index` (annotation, call evidence,
  // a static default): what a use of the name in the body starts from.
  ValueType parameter_type(const ir::Module& module, int function, size_t index);

  // A planner's hypothesis, which the code it emits checks at trace time: while an Assumption
  // lives, every identifier inside `region` of `module` that names one of `names` as bound in
  // `scope` is a plain tensor. Not another variable of the same name (a comprehension's, a
  // lambda's), nor an identifier of another module at the same offsets (typing a callee reads its
  // module). Types computed meanwhile are kept apart and dropped with it; assumptions do not nest.
  class Assumption {
   public:
    Assumption(TypeOracle& oracle, const ir::Module& module, int scope, source::TextRange region,
               const std::vector<std::string>& names);
    ~Assumption();
    Assumption(const Assumption&) = delete;
    Assumption& operator=(const Assumption&) = delete;

   private:
    TypeOracle& oracle_;
  };

 private:
  ValueType compute(const ir::Module& module, ir::Node expr);
  ValueType identifier(const ir::Module& module, ir::Node id);
  ValueType binding(const ir::Module& module, int binding);
  ValueType binding_uncached(const ir::Module& module, int binding);
  // A loop's or a comprehension's target: the element of `iterable` at `path`, its place in the
  // unpacking pattern (index of width, outermost first).
  struct Unpack {
    size_t index = 0;
    size_t width = 0;
  };
  ValueType iterated_element(const ir::Module& module, ir::Node iterable, std::span<const Unpack> path);
  ValueType parameter(const ir::Module& module, const ir::Binding& binding);
  void end_outermost_query(ValueType& result);
  ValueType unordered_plain_definitions(const ir::Module& module, std::span<const int> bindings);
  ValueType call(const ir::Module& module, ir::Node call);
  ValueType attribute(const ir::Module& module, ir::Node attr);
  ValueType annotation(const ir::Module& module, ir::Node annotation);
  // A type written in a PEP 484 type comment (ir/type_comments.h): text, not a tree.
  ValueType comment_type(const ir::Module& module, std::string_view type);
  ValueType function_return(FunctionRef f);
  ValueType self_attribute(const ir::Module& module, int klass, std::string_view name);

  const SelfStores& self_stores(ClassRef cls);

  struct Assumed {
    const ir::Module* module;
    source::TextRange region;
    std::vector<int> symbols;  // Module::symbols indices
  };
  std::optional<Assumed> assumed_;
  // A cached answer, or a query still being answered (met again: a cycle). One entry per key
  // answers both questions with one lookup.
  struct Memo {
    ValueType type;
    bool in_progress = false;
  };
  std::unordered_map<const void*, Memo> saved_memo_;  // the real caches, while assuming
  std::unordered_map<const void*, Memo> saved_binding_memo_;
  std::unordered_map<const void*, ValueType> saved_unordered_plain_;
  std::unordered_map<const void*, ValueType> saved_returns_;
  std::unordered_map<const void*, SelfStores> saved_self_stores_;

  const Project& project_;
  const ParameterEvidence* evidence_;
  std::vector<FunctionRef>* evidence_reads_ = nullptr;
  std::unordered_map<const void*, SelfStores> self_stores_;  // by class node
  std::unordered_map<const void*, Memo> memo_;          // by expression node
  std::unordered_map<const void*, Memo> binding_memo_;  // by binding target node
  std::unordered_map<const void*, ValueType> provisional_bindings_;  // reached under a cycle
  std::unordered_map<const void*, ValueType> unordered_plain_;  // by a name's binding list
  std::unordered_map<const void*, ValueType> returns_;  // keyed by function node id
  int depth_ = 0;
  int cycles_ = 0;  // cycle hits since the outermost query began
  int binding_steps_ = 0;  // definitions evaluated since the outermost query began
  static constexpr int kMaxBindingSteps = 4096;
};


}  // namespace graphmend::analysis
