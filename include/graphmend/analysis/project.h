// The set of modules analysed in one run, and name resolution across them.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphmend/analysis/summary.h"
#include "graphmend/ir/module.h"

namespace graphmend::analysis {

struct FunctionRef {
  const ir::Module* module = nullptr;
  int function = -1;
  friend bool operator==(const FunctionRef&, const FunctionRef&) = default;
};

struct ClassRef {
  const ir::Module* module = nullptr;
  int klass = -1;
  friend bool operator==(const ClassRef&, const ClassRef&) = default;
};

// The directory a loose script's absolute imports search first: its file's real directory (a linked
// script: its target's), which Python puts first on sys.path. Null for a package module (named by
// its packages) and a notebook (named `<path>`): a script is the module named by its file's stem.
std::optional<std::filesystem::path> script_search_directory(const std::filesystem::path& file,
                                                             std::string_view module_name);

class Project {
 public:
  // Adds a module, with its summary when the caller took one already (else taken here).
  void add(const ir::Module* module, std::shared_ptr<const ModuleSummary> summary = nullptr);

  [[nodiscard]] const std::vector<const ir::Module*>& modules() const { return modules_; }
  // The analysed module that `importer` reaches by the absolute name `dotted`. Two analysed files
  // may share a name: scripts outside any package are named by their stem, so `a/model.py` and
  // `b/model.py` are both `model`. Python then finds the one under the directory it searches
  // first: a script's real directory (a linked script: its target's), a notebook's folder, or for
  // a package module the directory its top package is found under. So that one is chosen (a module
  // naming itself gets itself); where no candidate, or more than one, lies there, or there is no
  // importer, the shared name reaches none of them rather than a guess. A name only one analysed
  // file has reaches that file from any importer.
  [[nodiscard]] const ir::Module* find_module(std::string_view dotted, const ir::Module* importer) const;

  // Resolves a qualified name ("pkg.mod.func", "pkg.mod.Class.method", re-exports followed), as
  // `importer` imports it, to a definition in the analysed files. A re-export is followed as
  // `importer` would find it too: sys.path is the process's, whichever module imports.
  [[nodiscard]] std::optional<FunctionRef> resolve_function(std::string_view qualified,
                                                            const ir::Module* importer) const;
  [[nodiscard]] std::optional<ClassRef> resolve_class(std::string_view qualified, const ir::Module* importer) const;

  // Resolves an expression in `module` to a class / function definition.
  [[nodiscard]] std::optional<ClassRef> class_of_expr(const ir::Module& module, ir::Node expr) const;
  [[nodiscard]] std::optional<FunctionRef> function_of_expr(const ir::Module& module,
                                                            ir::Node expr) const;

  // The same for a name as a module's summary records it (ModuleSummary::NameRef) in `module`.
  [[nodiscard]] std::optional<ClassRef> class_of(const ir::Module& module, const ModuleSummary::NameRef& name) const;
  [[nodiscard]] std::optional<FunctionRef> function_of(const ir::Module& module,
                                                       const ModuleSummary::NameRef& name) const;

  // Method lookup through the class and its (analysed) bases, in MRO-like order.
  [[nodiscard]] std::optional<FunctionRef> find_method(ClassRef cls, std::string_view name) const;
  [[nodiscard]] std::vector<ClassRef> bases_of(ClassRef cls) const;
  // What other modules read of an added module: its summary, taken when it was added.
  [[nodiscard]] const ModuleSummary& summary_of(const ir::Module& module) const;
  [[nodiscard]] const ModuleSummary::FunctionFacts& facts_of(FunctionRef f) const {
    return summary_of(*f.module).functions[static_cast<size_t>(f.function)];
  }

  // Where each added module is found, as find_module reads it: its name and the directories it is
  // found under and searches first, in the order added. Two projects with the same layout find the
  // same module, by position, for every name and importer.
  [[nodiscard]] std::vector<std::string> layout() const;
  // One module's entry of the layout: its name, and where it is found and searches first. Two
  // modules of one name and text type alike only where this is the same too (`import base` in
  // a script finds the `base` beside it).
  [[nodiscard]] std::string place_of(const ir::Module& module) const;

  // The modules an answer depended on, for memoising it (call_evidence.h, EvidenceMemo). While a
  // ReadLog lives, this thread's lookups note each module they find or whose summary they read,
  // and a TypeOracle each module whose code it types (note_read). A log opened inside another
  // takes the notes until it closes.
  class ReadLog {
   public:
    explicit ReadLog(std::vector<const ir::Module*>& modules);
    ~ReadLog();
    ReadLog(const ReadLog&) = delete;
    ReadLog& operator=(const ReadLog&) = delete;

   private:
    std::vector<const ir::Module*>* outer_;
  };
  static void note_read(const ir::Module& module);

 private:
  enum class DefKind { Function, Class };
  struct Def {
    DefKind kind;
    const ir::Module* module;
    int index;
  };
  // What one top-level query may spend: a name resolved through a class's method (`A.m`) looks
  // through the class's bases, which are names to resolve in turn, so the steps are shared by the
  // whole query and nested ones count against its depth. A class based on its own method
  // (`class B(B.m)`) or a long chain of such names ends there, unresolved.
  struct Budget {
    int depth = 0;
    int steps = 256;
  };
  [[nodiscard]] std::optional<Def> resolve(std::string_view qualified, const ir::Module* importer, Budget& budget) const;
  [[nodiscard]] std::optional<ClassRef> resolve_class(std::string_view qualified, const ir::Module* importer,
                                                      Budget& budget) const;
  [[nodiscard]] std::optional<FunctionRef> find_method(ClassRef cls, std::string_view name, Budget& budget) const;
  [[nodiscard]] std::vector<ClassRef> bases_of(ClassRef cls, Budget& budget) const;

  std::vector<const ir::Module*> modules_;
  std::unordered_map<const ir::Module*, std::shared_ptr<const ModuleSummary>> summaries_;
  // Looked up by a view, without a copy of the name.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
  };
  std::unordered_map<std::string, std::vector<const ir::Module*>, NameHash, std::equal_to<>> by_name_;  // in the order added
  struct Roots {
    std::string found_under;  // the directory on sys.path the module is found under (links resolved)
    std::string searched;     // the directory its own absolute imports search first
  };
  std::unordered_map<const ir::Module*, Roots> roots_;  // set by add(), for modules with a name
  std::unordered_map<std::string, std::string> real_dirs_;  // a directory -> the same with links resolved
};

// Calls visit(parameter index, argument) for each argument of `call` (in `caller`) that binds a
// parameter of `callee` (its parameters as the project's summary has them): positional ones in
// order after an implicit receiver, keywords by name; a splat ends what can be known. Returns
// false when a splat hid some arguments.
bool for_each_argument(const Project& project, const ir::Module& caller, ir::Node call, FunctionRef callee,
                       bool receiver_bound, const std::function<void(int, ir::Node)>& visit);
// The same for a call's arguments as the caller's summary records them, and the callee's
// parameters.
bool for_each_argument(const std::vector<ModuleSummary::Parameter>& params, const ModuleSummary& caller,
                       const std::vector<ModuleSummary::Argument>& args, bool receiver_bound,
                       const std::function<void(int, const ModuleSummary::Argument&)>& visit);

}  // namespace graphmend::analysis
