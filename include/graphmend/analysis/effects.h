// Effects: what a statement or expression may do besides computing a value. Used by rules to
// prove that speculating or reordering code is invisible.
#pragma once

#include <string>
#include <vector>

#include "graphmend/analysis/tensor_types.h"

namespace graphmend::analysis {

enum class EffectKind {
  InPlaceMutation,  // x.add_(...), out=..., x[i] = ... on a tensor
  AttributeStore,   // obj.a = ...
  SubscriptStore,   // obj[i] = ...
  GlobalWrite,      // a global / nonlocal rebinding
  IO,               // print, logging, warnings, open, ...
  UnknownCall,      // a call not on the pure allow-list
  MayRaise,         // a construct that can raise on some inputs
  ControlTransfer,  // return / raise / break / continue / yield
};

struct Effect {
  EffectKind kind;
  ir::Node node;
  std::string what;  // short, for decline reasons
};

std::string_view effect_kind_name(EffectKind k);

// All effects of `node` (a statement or expression), not descending into nested scopes.
std::vector<Effect> effects_of(const ir::Module& module, TypeOracle& types, ir::Node node);

// What in `node` may raise on its tensors' shapes: an operator between two values that may be
// tensors (broadcasting; `@` on any tensor), a call that combines two tensors (`torch.mul(a, b)`,
// `a.add(b)`, `torch.cat([a, b])`), a subscript of a tensor (an index out of range, too many
// indices), and a call of a function of the analysed files whose body holds any of these or an
// operation on one tensor that is not total for every dtype (analysis/totality.h). Harmless where
// the original evaluates it anyway; where code that the original may skip runs unconditionally
// ([Where]), each is a way to raise that it did not. Operations on one tensor in `node` itself are
// left to the caller (totality_of), which may check their dtypes at trace time.
std::vector<Effect> shape_raises_of(const ir::Module& module, TypeOracle& types, ir::Node node);

// Pure, non-raising-on-matching-metadata torch functions / Tensor methods (an allow-list).
bool is_pure_torch_function(std::string_view qualified_name);
bool is_pure_tensor_method(std::string_view name);

}  // namespace graphmend::analysis
