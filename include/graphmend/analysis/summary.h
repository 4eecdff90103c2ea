// What other modules read of a module when they resolve a name into it, as plain data: no tree
// nodes, so that it can outlive the module's tree (docs/incremental.md, the design's first fact:
// a module's scope and its classes). analysis::Project answers name resolution, base classes and
// method lookup from these alone.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::analysis {

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
  // A positional base class, as the class's own module names it: a class bound to that name in the
  // module (`class B(A)` with `class A` beside it), else a qualified name to resolve through the
  // project, else neither.
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

  // The module-scope names with at least one definition, sorted by name; each name's definitions in
  // source order.
  std::vector<std::pair<std::string, std::vector<Definition>>> names;
  std::vector<ClassFacts> classes;  // one per ir::Module::classes entry, in that order

  [[nodiscard]] const std::vector<Definition>* definitions_of(std::string_view name) const;
  // The method `name` that class `klass` defines itself (not through a base), or -1.
  [[nodiscard]] int method_of(int klass, std::string_view name) const;
  friend bool operator==(const ModuleSummary&, const ModuleSummary&) = default;
};

// Takes the summary from a built module, in one pass over its module scope and classes.
ModuleSummary summarize(const ir::Module& module);

}  // namespace graphmend::analysis
