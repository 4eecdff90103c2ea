#include "graphmend/analysis/project.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <set>

namespace graphmend::analysis {

namespace {

namespace fs = std::filesystem;

// How many packages `module` is nested in, from its name: `pkg.sub.model` two, a script's stem
// (which may hold dots: `train.v2`) none.
size_t package_levels(const ir::Module& module) {
  const std::string& name = module.module_name();
  if (module.is_package_init()) return static_cast<size_t>(std::count(name.begin(), name.end(), '.')) + 1;
  const std::string stem = module.file().path.stem().string();
  if (name == stem || !name.ends_with("." + stem)) return 0;
  const std::string_view packages = std::string_view(name).substr(0, name.size() - stem.size() - 1);
  return static_cast<size_t>(std::count(packages.begin(), packages.end(), '.')) + 1;
}

fs::path real(const fs::path& path) {
  std::error_code error;
  fs::path out = fs::weakly_canonical(path, error);
  return error ? path : out;
}

}  // namespace

std::optional<fs::path> script_search_directory(const fs::path& file, std::string_view module_name) {
  if (module_name != file.stem().string()) return std::nullopt;
  return real(fs::absolute(file)).parent_path();
}

void Project::add(const ir::Module* module, std::shared_ptr<const ModuleSummary> summary) {
  modules_.push_back(module);
  summaries_.emplace(module, summary ? std::move(summary) : std::make_shared<const ModuleSummary>(summarize(*module)));
  if (module->module_name().empty()) return;
  by_name_[module->module_name()].push_back(module);
  // The directory on sys.path the module is found under: its file's directory, left once for each
  // package it is nested in, then with links resolved (memoised: most modules share a few).
  fs::path dir = fs::absolute(module->file().path).lexically_normal().parent_path();
  for (size_t levels = package_levels(*module); levels > 0; --levels) dir = dir.parent_path();
  auto [known, added] = real_dirs_.try_emplace(dir.string());
  if (added) known->second = real(dir).string();
  const std::optional<fs::path> script_dir = script_search_directory(module->file().path, module->module_name());
  roots_.emplace(module, Roots{known->second, script_dir ? script_dir->string() : known->second});
}

const ir::Module* Project::find_module(std::string_view dotted, const ir::Module* importer) const {
  auto it = by_name_.find(dotted);
  if (it == by_name_.end()) return nullptr;
  const std::vector<const ir::Module*>& candidates = it->second;
  if (candidates.size() == 1) {
    note_read(*candidates.front());
    return candidates.front();
  }
  if (importer && importer->module_name() == dotted) return importer;  // its own names
  const auto importer_roots = importer ? roots_.find(importer) : roots_.end();
  if (importer_roots == roots_.end()) return nullptr;
  const ir::Module* found = nullptr;
  for (const ir::Module* candidate : candidates) {
    if (roots_.at(candidate).found_under != importer_roots->second.searched) continue;
    if (found) return nullptr;
    found = candidate;
  }
  if (found) note_read(*found);
  return found;
}

std::optional<Project::Def> Project::resolve(std::string_view qualified, const ir::Module* importer,
                                             Budget& budget) const {
  if (budget.depth > 8 || --budget.steps < 0) return std::nullopt;
  // One level deeper for what this resolution asks in turn (a re-export, a class's bases).
  struct Deeper {
    Budget& b;
    explicit Deeper(Budget& budget_) : b(budget_) { ++b.depth; }
    ~Deeper() { --b.depth; }
    Deeper(const Deeper&) = delete;
    Deeper& operator=(const Deeper&) = delete;
  } deeper(budget);
  // Longest module prefix, then the remaining attribute path.
  // Views of `qualified` throughout: a project's compile regions resolve every call site's name.
  const std::string_view q = qualified;
  for (size_t cut = q.size(); cut != std::string_view::npos && cut > 0; cut = q.rfind('.', cut - 1)) {
    const ir::Module* m = find_module(q.substr(0, cut), importer);
    if (!m) {
      if (cut == 0) break;
      continue;
    }
    if (cut == q.size()) return std::nullopt;  // a module, not a definition
    const std::string_view rest = q.substr(cut + 1);
    const size_t dot = rest.find('.');
    const std::string_view head = rest.substr(0, dot);
    const std::string_view tail = dot == std::string_view::npos ? std::string_view() : rest.substr(dot + 1);
    const std::vector<ModuleSummary::Definition>* defs = summary_of(*m).definitions_of(head);
    if (!defs) return std::nullopt;
    for (const ModuleSummary::Definition& d : *defs) {
      using Kind = ModuleSummary::Definition::Kind;
      if (d.kind == Kind::Function && tail.empty()) return Def{DefKind::Function, m, d.index};
      if (d.kind == Kind::Class) {
        if (tail.empty()) return Def{DefKind::Class, m, d.index};
        if (tail.find('.') == std::string_view::npos) {
          auto meth = find_method(ClassRef{m, d.index}, tail, budget);
          if (meth) return Def{DefKind::Function, meth->module, meth->function};
        }
        return std::nullopt;
      }
      if (d.kind == Kind::Import) {
        // A re-export (`from .x import f` in a package): follow it.
        std::string target(d.import_path);
        if (!tail.empty()) {
          target += '.';
          target += tail;
        }
        if (target != q) return resolve(target, importer, budget);
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<FunctionRef> Project::resolve_function(std::string_view qualified, const ir::Module* importer) const {
  Budget budget;
  auto d = resolve(qualified, importer, budget);
  if (!d || d->kind != DefKind::Function) return std::nullopt;
  return FunctionRef{d->module, d->index};
}

std::optional<ClassRef> Project::resolve_class(std::string_view qualified, const ir::Module* importer) const {
  Budget budget;
  return resolve_class(qualified, importer, budget);
}

std::optional<ClassRef> Project::resolve_class(std::string_view qualified, const ir::Module* importer,
                                               Budget& budget) const {
  auto d = resolve(qualified, importer, budget);
  if (!d || d->kind != DefKind::Class) return std::nullopt;
  return ClassRef{d->module, d->index};
}

std::optional<ClassRef> Project::class_of_expr(const ir::Module& module, ir::Node expr) const {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::identifier)) {
    if (const ir::Binding* b = module.first_binding_at(expr, ir::BindingKind::ClassDef)) {
      return ClassRef{&module, b->klass};
    }
  }
  auto q = module.qualified_name(expr);
  if (!q) return std::nullopt;
  return resolve_class(*q, &module);
}

std::optional<FunctionRef> Project::function_of_expr(const ir::Module& module, ir::Node expr) const {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::identifier)) {
    if (const ir::Binding* b = module.first_binding_at(expr, ir::BindingKind::FunctionDef)) {
      return FunctionRef{&module, b->function};
    }
  }
  auto q = module.qualified_name(expr);
  if (!q) return std::nullopt;
  return resolve_function(*q, &module);
}

std::optional<ClassRef> Project::class_of(const ir::Module& module, const ModuleSummary::NameRef& name) const {
  if (name.local_class >= 0) return ClassRef{&module, name.local_class};
  if (name.qualified < 0) return std::nullopt;
  return resolve_class(summary_of(module).interned(name.qualified), &module);
}

std::optional<FunctionRef> Project::function_of(const ir::Module& module, const ModuleSummary::NameRef& name) const {
  if (name.local_function >= 0) return FunctionRef{&module, name.local_function};
  if (name.qualified < 0) return std::nullopt;
  return resolve_function(summary_of(module).interned(name.qualified), &module);
}

namespace {
thread_local std::vector<const ir::Module*>* module_reads = nullptr;  // the open ReadLog's, if any
}  // namespace

Project::ReadLog::ReadLog(std::vector<const ir::Module*>& modules) : outer_(module_reads) { module_reads = &modules; }

Project::ReadLog::~ReadLog() { module_reads = outer_; }

void Project::note_read(const ir::Module& module) {
  // Most notes repeat the last one (a query types many expressions of one module).
  if (module_reads && (module_reads->empty() || module_reads->back() != &module)) module_reads->push_back(&module);
}

const ModuleSummary& Project::summary_of(const ir::Module& module) const {
  note_read(module);
  return *summaries_.at(&module);
}

std::vector<std::string> Project::layout() const {
  std::vector<std::string> out;
  out.reserve(modules_.size());
  for (const ir::Module* m : modules_) out.push_back(place_of(*m));
  return out;
}

std::string Project::place_of(const ir::Module& module) const {
  const auto roots = roots_.find(&module);
  return roots == roots_.end()
             ? module.module_name()
             : module.module_name() + '\0' + roots->second.found_under + '\0' + roots->second.searched;
}

std::vector<ClassRef> Project::bases_of(ClassRef cls) const {
  Budget budget;
  return bases_of(cls, budget);
}

std::vector<ClassRef> Project::bases_of(ClassRef cls, Budget& budget) const {
  std::vector<ClassRef> out;
  for (const ModuleSummary::Base& base : summary_of(*cls.module).classes[static_cast<size_t>(cls.klass)].bases) {
    if (base.local_class >= 0) {
      out.push_back(ClassRef{cls.module, base.local_class});
    } else if (!base.qualified.empty()) {
      if (auto b = resolve_class(base.qualified, cls.module, budget)) out.push_back(*b);
    }
  }
  return out;
}

std::optional<FunctionRef> Project::find_method(ClassRef cls, std::string_view name) const {
  Budget budget;
  return find_method(cls, name, budget);
}

std::optional<FunctionRef> Project::find_method(ClassRef cls, std::string_view name, Budget& budget) const {
  std::set<std::pair<const ir::Module*, int>> seen;
  std::vector<ClassRef> queue{cls};
  for (size_t i = 0; i < queue.size() && i < 64; ++i) {
    ClassRef c = queue[i];
    if (!seen.insert({c.module, c.klass}).second) continue;
    const int method = summary_of(*c.module).method_of(c.klass, name);
    if (method >= 0) return FunctionRef{c.module, method};
    for (ClassRef b : bases_of(c, budget)) queue.push_back(b);
  }
  return std::nullopt;
}

namespace {

// Binds arguments to parameters as Python does, as far as it can be known: positional ones in
// order after an implicit receiver, keywords by name; a splat ends what can be known. `read`
// tells an argument's kind and, for a keyword, its name.
template <typename Arguments, typename Read, typename Visit>
bool bind_arguments(const std::vector<ModuleSummary::Parameter>& params, const Arguments& args, bool receiver_bound,
                    Read read, Visit visit) {
  using Kind = ModuleSummary::Argument::Kind;
  size_t next = receiver_bound ? 1 : 0;
  bool positional_open = true, complete = true;
  for (const auto& a : args) {
    const auto [kind, keyword] = read(a);
    if (kind == Kind::ListSplat || kind == Kind::DictSplat) {
      positional_open = complete = false;
      continue;
    }
    if (kind == Kind::Keyword) {
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].name == keyword && params[i].kind != ir::Parameter::Kind::VarArgs &&
            params[i].kind != ir::Parameter::Kind::VarKeyword) {
          visit(static_cast<int>(i), a);
        }
      }
      continue;
    }
    if (!positional_open) continue;
    if (next >= params.size() || params[next].kind != ir::Parameter::Kind::Regular) {
      positional_open = complete = false;
      continue;
    }
    visit(static_cast<int>(next++), a);
  }
  return complete;
}

}  // namespace

bool for_each_argument(const Project& project, const ir::Module& caller, ir::Node call, FunctionRef callee,
                       bool receiver_bound, const std::function<void(int, ir::Node)>& visit) {
  using Kind = ModuleSummary::Argument::Kind;
  ir::Node args = call.field(field::arguments);
  if (!args || !args.is(kind::argument_list)) return false;
  std::vector<ir::Node> list = ir::children_without_comments(args);
  return bind_arguments(
      project.facts_of(callee).params, list, receiver_bound,
      [&](ir::Node a) -> std::pair<Kind, std::string_view> {
        if (a.is(kind::list_splat)) return {Kind::ListSplat, {}};
        if (a.is(kind::dictionary_splat)) return {Kind::DictSplat, {}};
        if (a.is(kind::keyword_argument)) return {Kind::Keyword, caller.text(a.field(field::name))};
        return {Kind::Positional, {}};
      },
      [&](int index, ir::Node a) { visit(index, a.is(kind::keyword_argument) ? a.field(field::value) : a); });
}

bool for_each_argument(const std::vector<ModuleSummary::Parameter>& params, const ModuleSummary& caller,
                       const std::vector<ModuleSummary::Argument>& args, bool receiver_bound,
                       const std::function<void(int, const ModuleSummary::Argument&)>& visit) {
  return bind_arguments(
      params, args, receiver_bound,
      [&](const ModuleSummary::Argument& a) {
        return std::pair<ModuleSummary::Argument::Kind, std::string_view>{
            a.kind, a.keyword >= 0 ? std::string_view(caller.interned(a.keyword)) : std::string_view()};
      },
      visit);
}

}  // namespace graphmend::analysis
