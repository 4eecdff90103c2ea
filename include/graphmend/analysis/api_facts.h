// What graphmend knows of torch and Python APIs, in one table (src/analysis/api_facts.cpp): each
// name, in the space it is looked up in, with the facts the analyses and rewrites rely on. A name
// or fact the table does not list is unknown, and every user of the table reads "unknown" as the
// conservative answer (not pure, not static, may alias, ...).
#pragma once

#include <cstdint>
#include <string_view>

namespace graphmend::analysis::api {

// Where a name is looked up.
enum class Space : uint8_t {
  Global,           // a module-level name by its qualified name ("torch.where"); builtins bare ("len")
  TensorMethod,     // a method of torch.Tensor ("sum")
  TensorAttribute,  // an attribute of torch.Tensor ("shape")
  LoggerMethod,     // a method of logging.Logger ("warning")
  ModuleMethod,     // a method of torch.nn.Module ("eval")
};

enum class Fact : uint32_t {
  Pure = 1u << 0,             // no effect beyond its result, whatever its arguments
  Static = 1u << 1,           // its result is a Python value fixed at trace time (a shape, a dtype)
  Io = 1u << 2,               // a builtin that reads or writes outside the program (print, open)
  ReturnsTensor = 1u << 3,    // its value is a tensor
  ReturnsBool = 1u << 4,      // its value is a bool tensor
  ReturnsTuple = 1u << 5,     // an nn module class whose call returns a tuple, not a tensor
  ReturnsSelf = 1u << 6,      // returns its receiver (`model.eval()`)
  TensorEvidence = 1u << 7,   // a method torch.Tensor has: calling it suggests the receiver is one
  DataDependent = 1u << 8,    // its Python result needs a tensor's value (`torch.equal`)
  DynamicShape = 1u << 9,     // its result's shape depends on tensor values (`nonzero`)
  MayAlias = 1u << 10,        // its result may share storage with its receiver (`view`)
  StaticType = 1u << 11,      // as an annotation: a value fixed at trace time (`int`, `torch.dtype`)
  ExceptionClass = 1u << 12,  // a builtin exception whose construction has no effect
  WarningCategory = 1u << 13, // a builtin warning category
  Logs = 1u << 14,            // emits a log record
  LoggingLevel = 1u << 15,    // a logging level constant
  Allocates = 1u << 16,       // its tensor result is new storage: never an argument, a view of one,
                              // or a tensor held elsewhere (`clamp`, `cat`; not `to`, `contiguous`)
};

// True if the table lists `name` in `space` with `fact`.
bool has(Space space, std::string_view name, Fact fact);

// True if the qualified name lies in a torch namespace whose functions are not tensor
// operations (`torch.cuda.`, `torch.distributed.`, ...): their results are of unknown type.
bool in_opaque_torch_namespace(std::string_view qualified_name);

}  // namespace graphmend::analysis::api
