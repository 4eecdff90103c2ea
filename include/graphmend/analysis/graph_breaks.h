// The graph breaks graphmend reports, as data: one row per PyTorch break id (GBxxxx, the key of
// torch/_dynamo/graph_break_registry.json), with Dynamo's words for it as graphmend's messages cite
// them and a short remedy. A rule names a break by its enumerator: in its RuleInfo, in a diagnostic
// that reports another break than its rule's, and in its message, where
// `cite(GraphBreak::DataDependentBranching)` is "GB0170: Data-dependent branching". No other file
// writes an id. A new break is one enumerator and one row, both in id order (checked when this
// compiles); docs/graph_breaks.md is generated from the table (scripts/graph_break_table.py).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace graphmend::analysis {

enum class GraphBreak : std::uint8_t {
  SkippedFunction,
  DataDependentOperator,
  DynamicShapeOperator,
  BuiltinOperator,
  ObservedException,
  DisabledCall,
  DisabledInline,
  TensorTolist,
  TensorItem,
  UnsupportedMethodCall,
  DataDependentBranching,
  RequiresGradSetattr,
  NonTensorResult,
  LoggerMethod,
  UnsupportedNumpy,
  OpaqueObject,
  TensorRepr,
  TensorDeepcopy,
  MissingIterNext,
  PythonTypeCall,
  GraphBreakInLoop,
};

struct GraphBreakEntry {
  GraphBreak graph_break;
  std::string_view id;    // PyTorch's registry id: "GB0170"
  std::string_view text;  // Dynamo's words, as graphmend's messages cite them
  std::string_view hint;  // what to do about it, in a few words
};

inline constexpr auto kGraphBreakTable = std::to_array<GraphBreakEntry>({
    {GraphBreak::SkippedFunction, "GB0007", "Attempted to call function marked as skipped",
     "move the call out of the compiled region; `warnings.warn` is deferred by GM203"},
    {GraphBreak::DataDependentOperator, "GB0033", "Data dependent operator",
     "keep the result a tensor: `(a == b).all()` after a static shape/dtype check, `torch.sqrt(t)` for "
     "`math.sqrt(t)`"},
    {GraphBreak::DynamicShapeOperator, "GB0036", "Dynamic shape operator",
     "use a static-shape form (torch.where with a fill value, nonzero_static), or set "
     "`torch._dynamo.config.capture_dynamic_output_shape_ops = True`"},
    {GraphBreak::BuiltinOperator, "GB0059", "Failed to trace builtin operator",
     "move the call out of the compiled region; `print` is deferred by GM201"},
    {GraphBreak::ObservedException, "GB0088", "Observed exception",
     "the traced code raises where eager code does not: make the value it reads exist under torch.compile too"},
    {GraphBreak::DisabledCall, "GB0098", "Skip calling `torch.compiler.disable()`d function",
     "make the function traceable and remove the disable, or call it outside the compiled region"},
    {GraphBreak::DisabledInline, "GB0099", "Skip inlining `torch.compiler.disable()`d function",
     "make the function traceable and remove the disable, or call it outside the compiled region"},
    {GraphBreak::TensorTolist, "GB0109", "Tensor.tolist()", "keep the values as tensors inside the compiled region"},
    {GraphBreak::TensorItem, "GB0124", "Unsupported Tensor.item() call with capture_scalar_outputs=False",
     "keep the value as a tensor, or set `torch._dynamo.config.capture_scalar_outputs = True`"},
    {GraphBreak::UnsupportedMethodCall, "GB0156", "Unsupported method call",
     "move the call out of the compiled region"},
    {GraphBreak::DataDependentBranching, "GB0170", "Data-dependent branching",
     "select values with torch.where (GM101 rewrites such an `if`), or use torch.cond"},
    {GraphBreak::RequiresGradSetattr, "GB0206", "setattr() on Tensor.requires_grad",
     "set requires_grad outside the compiled region"},
    {GraphBreak::NonTensorResult, "GB0208", "torch.* op returned non-Tensor",
     "read the value once outside the compiled region and pass it in"},
    {GraphBreak::LoggerMethod, "GB0291", "logging.Logger method not supported",
     "log calls are deferred by GM202; read a logger's level outside the compiled region and pass it in"},
    {GraphBreak::UnsupportedNumpy, "GB0294", "attempted to trace numpy function unsupported by PyTorch",
     "use the torch equivalent, or draw the value outside the compiled region"},
    {GraphBreak::OpaqueObject, "GB0363", "An opaque object was created in the middle of the program",
     "create the object before calling the compiled code and pass it in"},
    {GraphBreak::TensorRepr, "GB0569", "repr() on tensor", "format the tensor outside the compiled region"},
    {GraphBreak::TensorDeepcopy, "GB4198", "Attempted to copy.deepcopy a tensor",
     "copy with `t.clone()`, or deepcopy outside the compiled region"},
    {GraphBreak::MissingIterNext, "GB4347", "Missing tp_iternext",
     "it follows from the break that makes Dynamo skip the function: remove that one (a tuple, `range` or tensor "
     "iterable is taken as it is)"},
    {GraphBreak::PythonTypeCall, "GB4841", "Unsupported python_type() call",
     "Dynamo cannot inspect the object: `logging.*` calls are deferred by GM202; a buffer made with `nn.Buffer` is "
     "kept in a local rather than stored back (GM416)"},
    {GraphBreak::GraphBreakInLoop, "GB7000", "graph break in loop",
     "remove the break inside the loop: Dynamo cannot resume there and runs the whole function eagerly"},
});

namespace detail {
constexpr bool graph_break_table_in_order() {
  for (size_t i = 0; i < kGraphBreakTable.size(); ++i) {
    if (static_cast<size_t>(kGraphBreakTable[i].graph_break) != i) return false;
    if (kGraphBreakTable[i].id.size() != 6 || !kGraphBreakTable[i].id.starts_with("GB")) return false;
    if (i > 0 && !(kGraphBreakTable[i - 1].id < kGraphBreakTable[i].id)) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::graph_break_table_in_order(),
              "kGraphBreakTable lists every GraphBreak once, in the enum's order, by increasing id");
static_assert(static_cast<size_t>(GraphBreak::GraphBreakInLoop) + 1 == kGraphBreakTable.size(),
              "kGraphBreakTable must end with the last GraphBreak");

constexpr const GraphBreakEntry& entry_of(GraphBreak graph_break) {
  return kGraphBreakTable[static_cast<size_t>(graph_break)];
}

// "GB0170"
constexpr std::string_view id_of(GraphBreak graph_break) { return entry_of(graph_break).id; }

// "GB0170: Data-dependent branching", as a message cites the break.
std::string cite(GraphBreak graph_break);

// The break with this id ("GB0170"), by binary search of the table: how the result cache reads an
// id back.
constexpr std::optional<GraphBreak> graph_break_with_id(std::string_view id) {
  const auto it = std::lower_bound(kGraphBreakTable.begin(), kGraphBreakTable.end(), id,
                                   [](const GraphBreakEntry& e, std::string_view key) { return e.id < key; });
  if (it == kGraphBreakTable.end() || it->id != id) return std::nullopt;
  return it->graph_break;
}

}  // namespace graphmend::analysis
