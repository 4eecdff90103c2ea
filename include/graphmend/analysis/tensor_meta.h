// Tensor metadata: the shape, dtype and device a tensor expression has, in terms of the tensors it
// is computed from ("roots": names and attribute chains bound before the code at hand), and
// whether its backward sends exactly zero to its inputs when it receives zero. [Where] reads it to
// prove statically what a selection needs: every candidate of one name has the same shape, dtype
// and device (so torch.where neither broadcasts nor promotes), the condition is one element, and
// with grad enabled the branch not taken contributes exactly nothing to any gradient. What it
// cannot prove it says as checks on the roots that Dynamo evaluates while it traces
// (`h.is_floating_point()`, `a.shape == b.shape`), or as unknown. The per-operation facts are in
// analysis/api_facts.h (api::op_meta), tested against real torch by tests/runtime.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "graphmend/analysis/tensor_types.h"

namespace graphmend::analysis {

// A Python scalar's promotion category, lowest first (bool < int < float).
enum class ScalarCategory : uint8_t { None, Bool, Int, Float, Unknown };

struct TensorMeta {
  bool tensor = false;  // a tensor at all (else every other field is meaningless)
  // The broadcast of the roots' shapes (an empty set: a 0-d tensor); unknown when !shape_known.
  bool shape_known = false;
  std::set<std::string> shape_roots;
  // The dtype: a fixed one ("torch.bool", "torch.float16"), the dtype of `dtype_root` promoted
  // with a Python scalar of category `scalar` (None: exactly the root's), or unknown.
  enum class Dtype : uint8_t { Unknown, Fixed, OfRoot } dtype = Dtype::Unknown;
  std::string fixed_dtype;
  std::string dtype_root;
  ScalarCategory scalar = ScalarCategory::None;
  // Floating-point whatever its exact dtype: the output of a torch.nn module `__init__` made as
  // one whose output is (LayerNorm, Linear, ...). Like every fact about `self.norm(...)`, it holds
  // while nothing replaces or hooks the module after construction.
  bool floating = false;
  // The device: that of every root in the set (an empty set with a known device: a CPU tensor made
  // without a device), or unknown.
  bool device_known = false;
  std::set<std::string> device_roots;
  // The backward maps a zero gradient to exactly zero for every value its inputs may hold (inf and
  // NaN included), and the expression is cheap (elementwise operations and reductions: no module,
  // matmul or call of the analysed files).
  bool zero_grad_safe = false;
  bool cheap = false;
  // The roots a gradient may reach through it. A selection between candidates that read different
  // roots sends gradients (zeros) where the original sends none: a parameter's `.grad` becomes a
  // zero tensor instead of None, which optimizers treat differently, and the result may require
  // grad where the original did not.
  std::set<std::string> grad_reads;
  // Roots taken for tensors on the code's word only (a tensor by its uses, or Optional): what is
  // said above holds once each is checked to be a plain tensor while Dynamo traces.
  std::set<std::string> unproven_roots;
  std::string why_not_grad_safe;  // the first operation that is not, for messages
};

// What the roots are known to be, where the code at hand runs: floating-point roots (a static
// conjunct `h.dtype == torch.float16`), and which names stand for branch-local values (a
// temporary `t = h * 2` read by a candidate is the expression it was bound to).
struct MetaFacts {
  std::set<std::string> floating_roots;
  std::function<ir::Node(ir::Node identifier)> local_value;  // null node: not a local value
};

// The metadata of `expr`.
TensorMeta tensor_meta(const ir::Module& module, TypeOracle& types, ir::Node expr, const MetaFacts& facts);

// Whether two candidates' metadata are equal: proven, true once `checks` hold (Python expressions
// over the roots, static under Dynamo), or unknown (`why`).
struct MetaEquality {
  bool proven = false;
  std::vector<std::string> checks;
  std::string why;
  [[nodiscard]] bool unknown() const { return !proven && checks.empty(); }
};
MetaEquality meta_equal(const TensorMeta& a, const TensorMeta& b, const MetaFacts& facts, std::string_view torch_name);

// True when `t` is a floating-point tensor whatever its roots hold.
bool proven_floating(const TensorMeta& t, const MetaFacts& facts);

// The category of a Python number expression (an int, a float), as Python promotes it.
ScalarCategory python_scalar_category(const ir::Module& module, ir::Node expr);
// True when the Python number `expr` is finite: literals and torch.finfo limits, with +, - and
// unary minus between them (a product could overflow to inf).
bool is_finite_python_number(const ir::Module& module, ir::Node expr);

}  // namespace graphmend::analysis
