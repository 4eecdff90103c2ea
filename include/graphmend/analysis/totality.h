// Totality: whether a tensor operation can raise on the shapes and dtypes it is given. Code the
// original may skip and [Where] runs on every call must not raise where the original did not, and
// Dynamo runs every operation on the real shapes and dtypes while it traces. What torch accepts
// for every shape, by dtype class, is measured on real tensors by scripts/torch_totality.py into
// src/analysis/torch_totality.inc; an operation that table does not list may raise.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graphmend/analysis/tensor_types.h"

namespace graphmend::analysis {

struct Totality {
  enum class Kind {
    Total,          // cannot raise for any tensor `operand` may be
    NeedsTensor,    // cannot raise once `operand` (which may be None) is checked to be a tensor
    NeedsNonBool,   // cannot raise once `operand` is checked to be a tensor of any dtype but bool
    NeedsFloating,  // cannot raise once `operand` is checked to be a floating-point tensor
    MayRaise,       // may raise: `why` says on what
  };
  Kind kind = Kind::Total;
  ir::Node operand;  // the tensor whose dtype the operation depends on
  std::string why;   // MayRaise: "`x.view(2, -1)` may raise on ..."
  // Names the operation uses as Python numbers that graphmend cannot prove numbers (a parameter,
  // `h > limit`): it holds only once each is checked to be one (a tensor there may not broadcast).
  std::vector<ir::Node> numbers;
};

// The totality of the operator or call `n` (one node: not its operands) when it operates on one
// tensor: a unary operator on a tensor, a binary operator between a tensor and a Python number
// (or the same name twice), a call of a torch function, functional or Tensor method with a
// tensor and number parameters, a builtin call with a tensor argument, an attribute of a tensor
// read without a call (`h.mT`). A number that is a name
// of unknown or static type goes to `numbers`; any other value that is not a number may raise. nullopt when `n` operates on no tensor, or on two
// (broadcasting: shape_raises_of's other cases).
std::optional<Totality> totality_of(const ir::Module& module, TypeOracle& types, ir::Node n);

// Why `n`, whose totality is `t`, is unproven until the rewrite checks what it needs: "`n` may
// raise unless `operand` is a (floating-point) tensor" (NeedsTensor, NeedsFloating), and for
// each of `t.numbers`, "`n` may raise unless `number` is a Python number".
std::string tensor_demand(const ir::Module& module, ir::Node n, const Totality& t);
std::string number_demand(const ir::Module& module, ir::Node n, ir::Node number);

// True if `e` is a Python number: a numeric literal, arithmetic of numbers, `float("inf")`,
// `math.inf`, an attribute of `torch.finfo(...)` / `torch.iinfo(...)`, or a local name every
// binding of which is one.
bool is_python_number(const ir::Module& module, ir::Node e);

// False when `e`, a Python number (is_python_number), may be an int beyond int64: torch cannot
// hold it, so an operation on it raises while Dynamo traces (eager mode computes `h * 2**70`).
// True for floats, for ints proven within int64, and for what is_python_number does not prove.
bool python_number_fits_torch(const ir::Module& module, ir::Node e);

// The first Python arithmetic in `root` (outside lambdas) that may raise when it runs: a
// division or modulo (`/`, `//`, `%`) of values no tensor takes part in, unless by a nonzero
// literal; a power unless of literals whose result Python computes (`10.0 ** 400` overflows,
// `0 ** -1` divides by zero); a call of a `math` function, or `int`/`float` of anything but a
// literal. Tensor operations are not its business (totality_of). Null when there is none.
// An all-mode [Where] selection computes every branch in eager mode too, where the original
// may never run it. `skip`: a subtree of `root` not looked at.
ir::Node python_arithmetic_may_raise(const ir::Module& module, TypeOracle& types, ir::Node root, ir::Node skip = {});

// The first Python arithmetic in `root` (lambdas included) that may overflow a float: a power no
// tensor takes part in, unless of literals whose result is finite, or with an exponent literal
// between -1 and 1 (`d ** -0.5`: only an int base of 2**1024 or more overflows, which this takes
// as absent, as for `float(name)`); `float(...)` of a literal too large or of a power. Dynamo 2.13 does not trace such an
// overflow as Python raises it: tracing fails with an internal error (measured: `10.0 ** 400`,
// `1e200 ** 2`, `float(10 ** 400)`), so a frame that holds one can fail before any of its
// graph runs. Null when there is none.
ir::Node python_arithmetic_may_crash_tracing(const ir::Module& module, TypeOracle& types, ir::Node root);

}  // namespace graphmend::analysis
