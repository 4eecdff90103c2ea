// The unified IR of one Python module: a typed view over the tree-sitter nodes, scopes and
// symbols with Python's binding rules, imports with their qualified names, and per-function
// control-flow graphs with reaching definitions (def-use).
#pragma once

#include <atomic>
#include <deque>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <functional>
#include <stdexcept>
#include <utility>
#include <variant>
#include <vector>

#include "graphmend/ir/cfg.h"
#include "graphmend/source/generated.h"
#include "graphmend/source/source_file.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::ir {

using syntax::Node;

enum class ScopeKind { Module, Class, Function, Lambda, Comprehension };

enum class BindingKind {
  Parameter,
  Assignment,           // x = value (value set when x is the whole target)
  AugmentedAssignment,  // x += value
  AnnotatedAssignment,  // x: T = value / x: T
  For,                  // for x in ...
  With,                 // with ... as x
  Except,               // except E as x
  Walrus,               // (x := value)
  Import,               // import / from-import
  FunctionDef,
  ClassDef,
  Delete,
  ComprehensionTarget,
  MatchCapture,
};

struct Binding {
  BindingKind kind = BindingKind::Assignment;
  int symbol = -1;
  Node target;     // the identifier bound
  Node statement;  // enclosing statement / clause / parameter
  Node value;      // RHS when the identifier is the whole target; else null
  Node annotation; // for parameters and annotated assignments
  // Import: the qualified name bound ("torch", "torch.nn", "torch.where"), kept by the module.
  std::string_view import_path;
  int function = -1;        // FunctionDef: index into Module::functions
  int klass = -1;           // ClassDef: index into Module::classes
};

struct Symbol {
  std::string name;
  int scope = -1;
  // Indices into Module::bindings, in source order: a run of one array the module keeps.
  std::span<const int> bindings;
  bool declared_global = false;
  bool declared_nonlocal = false;
};

// A scope's names, each with its symbol (a Module::symbols index), sorted by name: views of the
// symbols' own names, filled once the module is built (a map per scope took 26 MB of transformers'
// IR; this takes 7).
class SymbolTable {
 public:
  using Entry = std::pair<std::string_view, int>;
  using const_iterator = std::vector<Entry>::const_iterator;

  [[nodiscard]] const_iterator begin() const { return entries_.begin(); }
  [[nodiscard]] const_iterator end() const { return entries_.end(); }
  [[nodiscard]] size_t size() const { return entries_.size(); }
  [[nodiscard]] const_iterator find(std::string_view name) const;
  [[nodiscard]] bool contains(std::string_view name) const { return find(name) != end(); }
  // Sorts `entries`, which name each symbol once, and keeps them.
  void assign(std::vector<Entry> entries);

 private:
  std::vector<Entry> entries_;
};

struct Scope {
  ScopeKind kind = ScopeKind::Module;
  Node node;
  int parent = -1;
  // Bytes evaluated in this scope, and holes inside them evaluated in the parent (default values
  // of a function, the first iterable of a comprehension). Children are sorted by start.
  source::TextRange inner;
  std::vector<source::TextRange> holes;
  std::vector<int> children;
  SymbolTable symbols;
  int function = -1;  // Function scopes: index into Module::functions
  int klass = -1;     // Class scopes: index into Module::classes
};

struct Parameter {
  enum class Kind { Regular, VarArgs, KeywordOnly, VarKeyword };
  std::string name;
  Node node;
  Node annotation;
  // The type a PEP 484 type comment gives it (ir/type_comments.h); empty where none does.
  source::TextRange type_comment;
  Node default_value;
  Kind kind = Kind::Regular;
};

struct Function {
  Node node;           // function_definition
  Node outer;          // decorated_definition if decorated, else `node`
  std::string name;
  std::string qualname;  // Class.method, outer.<locals>.inner
  int scope = -1;        // its own scope
  int enclosing_function = -1;
  int klass = -1;        // set when defined directly in a class body
  std::vector<Parameter> params;
  std::vector<Node> decorators;  // decorator expressions
};

struct Class {
  Node node;  // class_definition
  Node outer;
  std::string name;
  std::string qualname;
  int scope = -1;
  std::vector<Node> bases;  // positional superclass expressions
  std::vector<Node> decorators;
  std::unordered_map<std::string, int> methods;  // name -> Module::functions index
};

// A deferred module (Module::Deferred) could not be built as it stood: its text no longer parses,
// or the module differs from its stored summary. The run that deferred it builds every module
// afresh and starts again (driver/run.cpp).
class DeferredBuildFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Module {
 public:
  // Builds the IR. `module_name` is the dotted import name (used for relative imports).
  Module(const source::SourceFile& file, syntax::Tree tree, std::string module_name);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // A module whose tree and IR wait until something reads them (a check of a few files of a
  // large project reads few of the others): `parse` gives the file's tree, and `accept` checks
  // the built module against what stood for it until then (its stored summary). Either may fail,
  // with a reason; ensure_built() then throws DeferredBuildFailed.
  struct Deferred {
    std::function<std::variant<syntax::Tree, std::string>(const source::SourceFile&)> parse;  // or a reason
    std::function<std::optional<std::string>(const Module&)> accept;  // a reason where it does not fit
    // Runs the build (parse, IR, accept) it is given, in the module's own setting: a check counts
    // it against the deferred file's budget, not the reader's. Absent: the build runs as it is.
    std::function<void(const std::function<void()>&)> within;
  };
  Module(const source::SourceFile& file, std::string module_name, Deferred deferred);
  // Builds a deferred module, once, on the first call from any thread; a built one returns at
  // once. The accessors that take no node of the module call it (root(), lookup(scope, name),
  // cfg(), module_function() and the like, generated()). The public tables below are empty until
  // then: code that reaches a module through another one (a FunctionRef, a ClassRef, a compiled
  // call's caller) and reads them directly calls this first. A node of the module exists only
  // once it is built, so the accessors that take one need not.
  void ensure_built() const;
  [[nodiscard]] bool is_deferred() const { return deferred_ != nullptr; }
  // A deferred module that no reader has built yet (or whose build failed).
  [[nodiscard]] bool is_unbuilt() const { return deferred_ && !deferred_->built.load(std::memory_order_acquire); }

  [[nodiscard]] const source::SourceFile& file() const { return *file_; }
  [[nodiscard]] std::string_view text() const { return file_->text; }
  [[nodiscard]] std::string_view text(Node n) const { return n.text(file_->text); }
  [[nodiscard]] Node root() const {
    ensure_built();
    return tree_->root();
  }
  [[nodiscard]] const std::string& module_name() const { return module_name_; }
  [[nodiscard]] bool is_package_init() const;
  // The marker lines of graphmend's generated block in this module (scanned once).
  [[nodiscard]] const source::GeneratedMarkers& generated() const {
    ensure_built();
    return generated_;
  }

  std::vector<Scope> scopes;
  std::vector<Symbol> symbols;
  std::vector<Binding> bindings;
  std::vector<Function> functions;
  std::vector<Class> classes;

  // The innermost scope whose body contains `n`.
  [[nodiscard]] int scope_of(Node n) const;
  // The innermost function (index) whose body contains `n`, or -1.
  [[nodiscard]] int function_of(Node n) const;
  // Python name resolution from `scope` (class scopes are skipped for nested scopes). -1 if unbound.
  [[nodiscard]] int lookup(int scope, std::string_view name) const;
  [[nodiscard]] int lookup_at(Node use) const;  // lookup of an identifier at its position

  // The control-flow graph of function `function` (an index into `functions`), built on the first
  // call. Thread-safe.
  [[nodiscard]] const Cfg& cfg(int function) const;

  // Bindings of the name used at `use` that may reach it: flow-sensitive for function locals,
  // every binding of the symbol otherwise.
  [[nodiscard]] std::vector<int> reaching_bindings(Node use) const;
  // The bindings that reach `use` along the control flow, for a use inside the function that owns
  // the name; nullopt where bindings are unordered (module and class scope, closures).
  [[nodiscard]] std::optional<std::vector<int>> ordered_reaching_bindings(Node use) const;
  // Every binding of the name used at `use`, in source order, without a copy.
  [[nodiscard]] std::span<const int> bindings_of(Node use) const;
  // True when reading the function-local `symbol` at `at` (a node inside the function `function`)
  // cannot raise UnboundLocalError: a parameter, or a local that every path from the function's
  // entry to `at` binds first; either way with no `del` of it. A binding inside a `try` or `with`
  // that does not also enclose `at` does not count: an exception there can skip it (handled, or
  // suppressed by the context manager) and still reach `at`. A name of any other scope: false.
  [[nodiscard]] bool always_bound_at(int function, int symbol, Node at) const;
  // The same for an identifier `use`, at that use.
  [[nodiscard]] bool always_bound_at(Node use) const;

  // Resolves an identifier / attribute chain to a dotted qualified name through imports:
  // `T.where` -> "torch.where" after `import torch as T`. Local (non-import) roots resolve to
  // "<module_name>.<name>" only for module-level defs/classes; otherwise nullopt.
  // Aliases are followed at most kMaxAliasHops deep: a cycle (`import os; os = os.path`, or
  // `a = b.x; b = a.y`) has no qualified name.
  [[nodiscard]] std::optional<std::string> qualified_name(Node expr) const { return qualified_name(expr, 0); }
  static constexpr int kMaxAliasHops = 32;

  // The parameter a Parameter binding binds, or null for any other binding.
  [[nodiscard]] const Parameter* parameter_of(const Binding& binding) const;

  // Module-level function or class by name.
  [[nodiscard]] int module_function(std::string_view name) const;
  [[nodiscard]] int module_class(std::string_view name) const;
  // The module-level symbol `name`, or null.
  [[nodiscard]] const Symbol* module_symbol_named(std::string_view name) const;
  // The module-level symbol the name at `use` refers to, or null (a local, a builtin).
  [[nodiscard]] const Symbol* module_symbol(Node use) const;
  // The first binding of `kind`, in source order, of the name the identifier `use` refers to
  // (lookup_at), or null: the class a name defines, for `class B(A)` or `A()`.
  [[nodiscard]] const Binding* first_binding_at(Node use, BindingKind kind) const;
  // True when `symbol` is bound at least once, and only by bindings of `kinds`.
  [[nodiscard]] bool bound_only_by(const Symbol& symbol, std::initializer_list<BindingKind> kinds) const;

  // True if the text mentions "torch" at all (cheap pre-filter).
  [[nodiscard]] bool mentions_torch() const { return mentions_torch_; }

 private:
  friend class Builder;
  // ordered_reaching_bindings for the symbol `sym` that `use` names.
  [[nodiscard]] std::optional<std::vector<int>> ordered_reaching(Node use, int sym) const;
  const source::SourceFile* file_;
  std::optional<syntax::Tree> tree_;  // absent until a deferred module is built
  std::string module_name_;
  struct DeferredState {
    Deferred how;
    std::once_flag once;
    std::optional<std::string> failure;  // why it could not be built; set at most once, under `once`
    std::atomic<bool> built{false};
  };
  std::unique_ptr<DeferredState> deferred_;  // null for a module built when constructed
  void build();
  void discard_build();  // back to a deferred module's state before its build
  bool mentions_torch_ = false;
  source::GeneratedMarkers generated_;
  std::unordered_map<const void*, int> scope_by_node_;     // scope-introducing node -> scope
  std::vector<int> symbol_bindings_;  // what Symbol::bindings view, symbol by symbol
  std::deque<std::string> import_paths_;  // what Binding::import_path views: a deque never moves them
  // Each function's control-flow graph, built on its first use (cfg()): most functions never run
  // under torch.compile and never need one, so only a flag and a pointer each stay empty.
  std::unique_ptr<std::once_flag[]> cfg_built_;
  std::unique_ptr<std::unique_ptr<Cfg>[]> cfgs_;
  void index_scopes();
  [[nodiscard]] std::optional<std::string> qualified_name(Node expr, int alias_hops) const;
};


// Strips parentheses around an expression.
Node unparenthesize(Node n);
// The operator of a comparison of exactly two operands (`a < b`, `h is not None`), spelled as
// Python spells it ("is not", "not in", "<", ...) whatever the spacing; nullopt for a chain.
std::optional<std::string_view> comparison_operator(const Module& m, Node comparison);
// The root identifier of a dotted name (`a` of `a.b.c`), or null.
Node dotted_root(Node n);

// A block's statements, a call's arguments or a sequence's elements, without comments.
std::vector<Node> children_without_comments(Node n);
// The statement before `statement` in its block, comments skipped, or null.
Node previous_statement(Node statement);
// The one expression an expression statement consists of (`x = f()`, `y += 1`, `f(x)`), or null.
Node sole_expression(Node statement);

// Source text for a diagnostic: one line, at most 40 characters.
std::string snippet(const Module& m, Node n);

// The name module `m` binds torch to (`import torch`, `import torch as th`) as the code at `at`
// sees it, so that generated code writes `torch.where` the way the module writes it; `torch`
// when several names qualify equally. Only a name bound by imports of torch that run whenever the
// module does counts: at module level or under its `if`s (`if is_torch_available():`), not under
// `if TYPE_CHECKING:`, in a `try` or in a function; one imported unconditionally is preferred.
// Null when none.
std::optional<std::string> torch_name_at(const Module& m, Node at);

}  // namespace graphmend::ir
