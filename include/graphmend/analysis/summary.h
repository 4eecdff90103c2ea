// What other modules read of a module, as plain data: no tree nodes, so that it can outlive the
// module's tree (docs/incremental.md). So far: its scope's definitions; its classes' bases,
// methods and self-attribute stores; its functions' signatures, decorators and calls; and where it
// hands something to torch.compile. analysis::Project answers name resolution, base classes and
// method lookup from these alone, and the compile regions are found from them alone.
#pragma once

#include <cstdint>
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

// True if the qualified name of a callee names a logger factory (`logging.getLogger`, a
// `get_logger` helper).
bool is_logger_factory(std::string_view qualified);
// How many bindings deep a name is followed to find whether it binds a logger; past it, it binds
// none.
inline constexpr int kMaxLoggerDepth = 4;

// True if `expr` (a decorator or callee) names torch.compile (any import spelling).
bool is_torch_compile(const ir::Module& module, ir::Node expr);


struct ModuleSummary {
  // A module-scope binding that resolution follows. Bindings of other kinds (assignments, loops)
  // are kept as Other only beside a definition, so that a name bound by more than imports is
  // known to be; resolution passes over them.
  struct Definition {
    enum class Kind { Function, Class, Import, Other };
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
  // A name where the module uses it (a callee, a decorator, a constructor): the first function or
  // class of this module its scopes bind it to, and its qualified name through imports, which the
  // project resolves otherwise (Project::function_of, class_of read it as function_of_expr and
  // class_of_expr read the expression).
  struct NameRef {
    int local_function = -1;
    int local_class = -1;
    int qualified = -1;  // an index into `strings`; -1 for none
    [[nodiscard]] bool empty() const { return local_function < 0 && local_class < 0 && qualified < 0; }
    friend bool operator==(const NameRef&, const NameRef&) = default;
  };
  // An expression known to hold an instance: `Cls(...)`, or a name that every binding reaching it
  // binds to a call (`Cls(...).eval()` chains keep the instance). The constructors, one per
  // binding; empty when nothing is known.
  using Instance = std::vector<NameRef>;

  // A store to `self.<attr>` in one of a class's own methods that can tell the attribute's class:
  // `self.attr = Cls(...)` (the constructor), or `self.attr = attr` in `__init__` with `attr` bound
  // only as its parameter (the parameter's name). Buffers and other values tell nothing.
  struct StoreFact {
    NameRef constructor;
    int init_parameter = -1;  // into `strings`
    friend bool operator==(const StoreFact&, const StoreFact&) = default;
  };
  struct ClassFacts {
    std::string qualname;
    std::vector<Base> bases;
    std::vector<std::pair<std::string, int>> methods;  // by name: an index into the module's functions
    bool compiled = false;  // decorated with torch.compile
    // By attribute name, sorted; each attribute's stores in the order its methods were walked.
    std::vector<std::pair<std::string, std::vector<StoreFact>>> self_stores;
    friend bool operator==(const ClassFacts&, const ClassFacts&) = default;
  };

  // An argument of a call, as for_each_argument binds it to a parameter.
  struct Argument {
    enum class Kind : uint8_t { Positional, Keyword, ListSplat, DictSplat };
    Kind kind = Kind::Positional;
    int keyword = -1;     // Keyword: the parameter it names, into `strings`
    Instance instance;    // the value, when it holds an instance
    int identifier = -1;  // the value, when it is a bare name: the name, into `strings`
    friend bool operator==(const Argument&, const Argument&) = default;
  };
  // A call in a function's own body (nested functions and classes have their own) whose callee is
  // a name the project could resolve (of this module, or dotted) or a method of its own instance.
  struct CallSite {
    // A method call on the function's own instance, which only a method (a function defined directly
    // in a class) resolves: `self.m()`, `self.x.m()`, `super().m()`.
    enum class Receiver : uint8_t { None, Self, SelfMember, Super };
    uint32_t call_index = 0;  // the call's index in the module's tree, stable for a given text
    NameRef callee;     // the callee as a name
    bool via_attribute = false;  // the callee is an attribute (`obj.m`): a method gets its receiver
    Receiver receiver = Receiver::None;
    int attribute = -1;  // Self, SelfMember, Super: `m`, into `strings`
    int member = -1;     // SelfMember: `x`, into `strings`
    friend bool operator==(const CallSite&, const CallSite&) = default;
  };
  // A decorator that names something: `@d` or `@d(...)`.
  struct Decorator {
    NameRef callee;
    bool call = false;  // `@d(...)`: what `d` returns decorates
    friend bool operator==(const Decorator&, const Decorator&) = default;
  };
  // A binding of a module-scope name that may bind a logger, as rules::is_logger follows a name
  // another module imports: an import (its path, followed), or a value (into logger_values).
  struct LoggerBinding {
    int import_path = -1;  // into `strings`
    int value = -1;
    friend bool operator==(const LoggerBinding&, const LoggerBinding&) = default;
  };
  // A value that may be a logger: a call of a logger factory (`logging.getLogger(...)`), or a
  // name, with the bindings that reach it.
  struct LoggerValue {
    bool factory = false;
    std::vector<LoggerBinding> bound_by;  // a name: the bindings that reach it
    friend bool operator==(const LoggerValue&, const LoggerValue&) = default;
  };

  // A `torch.compile(target, ...)` or `obj.compile(...)` call anywhere in the module.
  struct CompileSite {
    enum class Kind : uint8_t { Target, ObjectCompile };
    Kind kind = Kind::Target;
    uint32_t line = 0;
    NameRef function;     // Target: the target as a function
    Instance instance;    // Target: the target as an instance; ObjectCompile: `obj`
    Instance owner;       // Target `obj.m`: `obj`
    int attribute = -1;   // Target `obj.m`: `m`, into `strings`
    int self_class = -1;  // Target `self.m` in a method: the method's class
    friend bool operator==(const CompileSite&, const CompileSite&) = default;
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
    bool compiled = false;      // decorated with torch.compile
    // Its return annotation is a list, set or dict: `-> dict`, `-> list[str]` (not a union).
    bool returns_container = false;
    std::vector<Decorator> decorators;
    std::vector<CallSite> calls;  // in pre-order
    // The functions nested directly in it (indices into the module's functions) that it returns
    // by name (`return wrapper`), and those it calls with one of its parameters in a `return`
    // (`return wrap(func)`), each in index order.
    std::vector<int> returned;
    std::vector<int> applied_in_return;
    bool calls_enclosing_parameter = false;  // a nested function that calls its enclosing one's parameter
    // A method `__init__`: the arguments of each `super().__init__(...)` in its own body.
    std::vector<std::vector<Argument>> super_init_calls;
    friend bool operator==(const FunctionFacts&, const FunctionFacts&) = default;
  };

  // The module-scope names with at least one definition, sorted by name; each name's definitions in
  // source order.
  std::vector<std::pair<std::string, std::vector<Definition>>> names;
  std::vector<ClassFacts> classes;        // one per ir::Module::classes entry, in that order
  std::vector<FunctionFacts> functions;  // one per ir::Module::functions entry, in that order
  std::vector<CompileSite> compile_sites;  // in source order; none taken where torch is not mentioned
  // The module-scope names bound by at least one value, each of whose bindings may bind a logger:
  // every binding, in source order; sorted by name. A name bound only by imports is read from
  // `names`, and any other name binds no logger.
  std::vector<std::pair<std::string, std::vector<LoggerBinding>>> loggers;
  std::vector<LoggerValue> logger_values;
  bool mentions_torch = false;
  std::vector<std::string> strings;  // the names the facts above refer to by index, each once

  [[nodiscard]] const std::vector<Definition>* definitions_of(std::string_view name) const;
  // The method `name` that class `klass` defines itself (not through a base), or -1.
  [[nodiscard]] int method_of(int klass, std::string_view name) const;
  // The bindings of `name` if `loggers` has it, or null.
  [[nodiscard]] const std::vector<LoggerBinding>* logger_bindings_of(std::string_view name) const;
  // The stores to `self.<attr>` in class `klass`'s own methods, or null.
  [[nodiscard]] const std::vector<StoreFact>* self_stores_of(int klass, std::string_view attr) const;
  [[nodiscard]] const std::string& interned(int index) const { return strings[static_cast<size_t>(index)]; }
  friend bool operator==(const ModuleSummary&, const ModuleSummary&) = default;
};

// Takes the summary from a built module: its scopes, and a walk of each function's body.
ModuleSummary summarize(const ir::Module& module);

// True if `summary` can stand for `module` where readers hold both: as many functions and classes,
// and each call site's index names a call of the module's tree. A stored summary is checked so
// before it is used (its key names the module's text, so this fails only for damaged bytes that
// kept their checksum).
bool fits(const ModuleSummary& summary, const ir::Module& module);

}  // namespace graphmend::analysis
