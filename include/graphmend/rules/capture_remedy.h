// What the capture flags make of a site that moves tensor data into Python (GM401-GM404, GM411,
// GM412): torch._dynamo.config.capture_scalar_outputs keeps a number read out of a tensor in the
// graph as a symbol, capture_dynamic_output_shape_ops an output whose size depends on data. On
// torch 2.13 a symbol is taken as it is by tensor arithmetic, a size, a slice bound or an index
// (a size gets its own check that it is not negative, made when the graph runs), so such a site
// needs the flag and nothing more; a Python branch or loop on it still cannot be traced: Dynamo
// cannot guard on a value it does not know (tests/e2e/test_capture_remedies.py). The remedy a
// finding gives is derived from how the value is used in its function.
#pragma once

#include <string>
#include <string_view>

#include "graphmend/rules/rule.h"

namespace graphmend::rules {

enum class CapturedValue {
  Number,  // a Python number (or a list of them): `.item()`, `int(t)`, `.tolist()`
  Sized,   // a tensor whose size depends on data: only its size (`.shape`, `len()`, ...) is a number
};

// The first place where the value of `site`, or of a name it is assigned to (followed through a
// few assignments in its function), decides Python control flow: the condition of an `if`,
// `elif`, `while` or `a if c else b`, an `assert`'s test, the count of `range()`, or (for a Sized
// value) the iterable of a `for` loop. Null when there is none.
ir::Node control_flow_use(const RuleContext& ctx, ir::Node site, CapturedValue value);

// The flags, by their names in torch._dynamo.config.
inline constexpr std::string_view kCaptureScalarOutputs = "capture_scalar_outputs";
inline constexpr std::string_view kCaptureDynamicOutputShapeOps = "capture_dynamic_output_shape_ops";

// The remedy of a site: the flag that keeps it in the graph and whether that is enough, or the
// Python control flow on its value that no flag helps. `value` is what `site` evaluates to (a
// tensor size or slice bound makes a tensor whose size depends on data); `alternative` is the
// site's other remedy, said last ("keep the value as a tensor").
std::string capture_remedy(const RuleContext& ctx, ir::Node site, CapturedValue value, std::string_view flag,
                           std::string_view alternative);

}  // namespace graphmend::rules
