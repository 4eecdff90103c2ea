// What other modules read of a module, as plain data: no tree nodes, so that it can outlive the
// module's tree (docs/incremental.md). So far: its scope's definitions, its classes' bases and
// methods, and its functions' signatures and decorators. analysis::Project answers name
// resolution, base classes and method lookup from these alone, and the compile regions read a
// function's parameters and decorators from them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::analysis {

// How a decorator keeps a function's body out of what Dynamo traces:
// - Disabled: `@torch.compiler.disable` (or `@torch._dynamo.disable`), recursive=True by default:
//   neither the function nor anything it calls is traced, and a call to it from compiled code
//   breaks the graph;
// - DisabledShallow: the same with `recursive=False`: what it calls is compiled as new frames;
// - Opaque: `@torch.library.custom_op(...)`, `@torch.compiler.allow_in_graph`,
//   `@torch._dynamo.assume_constant_result`: the call is one node of the graph (or a constant), and
//   the body runs outside Dynamo; no break.
enum class TraceExclusion { None, Disabled, DisabledShallow, Opaque };
TraceExclusion trace_exclusion(const ir::Module& module, const ir::Function& function);

struct ModuleSummary {
  // A module-scope binding that resolution follows; bindings of other kinds (assignments, loops)
  // are left out, since resolution passes over them.
  struct Definition {
    enum class Kind { Function, Class, Import };
    Kind kind = Kind::Function;
    int index = -1;           // Function, Class: an index into the module's functions or classes
    std::string import_path;  // Import: the qualified name it binds ("pkg.mod.f")
    friend bool operator==(const Definition&, const Definition&) = default;
  };
  // A positional base class, as the class's own module names it: the class bound to that name in
  // the module (`class B(A)` with `class A` beside it), if any; and its qualified name (empty when
  // it has none, as `make()` has not), which resolves it through the project otherwise.
  struct Base {
    int local_class = -1;
    std::string qualified;
    friend bool operator==(const Base&, const Base&) = default;
  };
  struct ClassFacts {
    std::vector<Base> bases;
    std::vector<std::pair<std::string, int>> methods;  // by name: an index into the module's functions
    friend bool operator==(const ClassFacts&, const ClassFacts&) = default;
  };

  struct Parameter {
    std::string name;
    ir::Parameter::Kind kind = ir::Parameter::Kind::Regular;
    friend bool operator==(const Parameter&, const Parameter&) = default;
  };
  struct FunctionFacts {
    std::string qualname;
    int klass = -1;  // the class it is defined directly in: an index into the module's classes
    std::vector<Parameter> params;
    TraceExclusion trace_exclusion = TraceExclusion::None;
    bool staticmethod = false;  // decorated with `@staticmethod`
    friend bool operator==(const FunctionFacts&, const FunctionFacts&) = default;
  };

  // The module-scope names with at least one definition, sorted by name; each name's definitions in
  // source order.
  std::vector<std::pair<std::string, std::vector<Definition>>> names;
  std::vector<ClassFacts> classes;        // one per ir::Module::classes entry, in that order
  std::vector<FunctionFacts> functions;  // one per ir::Module::functions entry, in that order

  [[nodiscard]] const std::vector<Definition>* definitions_of(std::string_view name) const;
  // The method `name` that class `klass` defines itself (not through a base), or -1.
  [[nodiscard]] int method_of(int klass, std::string_view name) const;
  friend bool operator==(const ModuleSummary&, const ModuleSummary&) = default;
};

// Takes the summary from a built module, in one pass over its module scope and classes.
ModuleSummary summarize(const ir::Module& module);

}  // namespace graphmend::analysis
