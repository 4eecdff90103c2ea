#include "graphmend/analysis/compile_regions.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "graphmend/analysis/api_facts.h"

namespace graphmend::analysis {
namespace {

bool is_torch_module_base(const std::string& q) {
  return q == "torch.nn.Module" || q == "torch.nn.modules.module.Module" ||
         (q.starts_with("torch.nn.") && q.find("functional") == std::string::npos &&
          q.rfind('.') != std::string::npos && std::isupper(static_cast<unsigned char>(q[q.rfind('.') + 1])));
}

// Candidate classes are few (one or two per attribute): a vector searched in order keeps them
// in the order found.
void add_once(std::vector<ClassRef>& out, ClassRef c) {
  if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
}

}  // namespace

CompileRegions::CompileRegions(const Project& project) : project_(project) {
  // Every class's answer is settled here, in the project's order, so that rules running side by
  // side only read it, and a chain of bases deeper than the limit answers the same whichever of
  // its classes is asked first.
  for (const ir::Module* m : project.modules()) {
    const size_t classes = project.summary_of(*m).classes.size();
    for (size_t ci = 0; ci < classes; ++ci) is_nn_module_impl({m, static_cast<int>(ci)}, 0);
  }
  for (const ir::Module* m : project.modules()) {
    if (project.summary_of(*m).mentions_torch) seed(*m);
  }
  close_over_calls();
}

std::optional<FunctionRef> CompileRegions::callee_of(const ir::Module& module, ir::Node call) const {
  if (call.tree_data() != module.root().tree_data()) return std::nullopt;  // a node of another tree
  const auto it = entry_of_call_.find({&module, call.index()});
  if (it == entry_of_call_.end()) return std::nullopt;
  return calls_[it->second].callee;
}

const RegionEntry* CompileRegions::find(const ir::Module& module, int function) const {
  auto it = regions_.find({&module, function});
  return it == regions_.end() ? nullptr : &it->second;
}

void CompileRegions::add(FunctionRef f, std::string reason, bool entry) {
  auto key = std::make_pair(f.module, f.function);
  auto it = regions_.find(key);
  if (it != regions_.end()) {
    if (entry && !it->second.entry) it->second = {std::move(reason), true};
    return;
  }
  // Only a function not yet in regions_ is asked: one kept out of Dynamo never enters it.
  switch (project_.facts_of(f).trace_exclusion) {
    case TraceExclusion::None:
      break;
    case TraceExclusion::Disabled:
    case TraceExclusion::Opaque:
      return;  // neither it nor anything it calls is traced
    case TraceExclusion::DisabledShallow:
      if (shallow_disabled_.insert(key).second) worklist_.push_back(f);  // only its callees are traced
      return;
  }
  regions_.emplace(key, RegionEntry{std::move(reason), entry});
  worklist_.push_back(f);
}

std::vector<FunctionRef> CompileRegions::callers_of(FunctionRef callee) const {
  std::vector<FunctionRef> callers;
  auto it = calls_to_.find({callee.module, callee.function});
  if (it == calls_to_.end()) return callers;
  for (size_t k : it->second) {
    if (std::find(callers.begin(), callers.end(), calls_[k].caller) == callers.end()) callers.push_back(calls_[k].caller);
  }
  return callers;
}

void CompileRegions::add_call(FunctionRef caller, uint32_t call, FunctionRef callee, bool via_attribute,
                              std::string reason) {
  // Through an attribute, a method receives its instance or class first, unless it is static.
  const ModuleSummary::FunctionFacts& fn = project_.facts_of(callee);
  const bool bound = via_attribute && fn.klass >= 0 && !fn.staticmethod;
  entry_of_call_.try_emplace(std::pair{caller.module, call}, calls_.size());
  calls_to_[{callee.module, callee.function}].push_back(calls_.size());
  calls_.push_back({caller, call, callee, bound});
  add(callee, std::move(reason), false);
}

void CompileRegions::add_class_forward(ClassRef cls, const std::string& reason, bool entry) {
  if (auto fwd = project_.find_method(cls, "forward")) add(*fwd, reason, entry);
}

bool CompileRegions::is_nn_module(ClassRef cls) const {
  const auto it = module_class_cache_.find({cls.module, cls.klass});
  return it != module_class_cache_.end() && it->second;
}

bool CompileRegions::is_nn_module_impl(ClassRef cls, int depth) {
  if (depth > 16) return false;
  auto key = std::make_pair(cls.module, cls.klass);
  if (auto it = module_class_cache_.find(key); it != module_class_cache_.end()) return it->second;
  module_class_cache_[key] = false;  // cycle guard
  const ModuleSummary& summary = project_.summary_of(*cls.module);
  const bool defines_forward = summary.method_of(cls.klass, "forward") >= 0;
  bool result = false;
  for (const ModuleSummary::Base& base : summary.classes[static_cast<size_t>(cls.klass)].bases) {
    if (is_torch_module_base(base.qualified)) {
      result = true;
      break;
    }
    std::optional<ClassRef> b;
    if (base.local_class >= 0) {
      b = ClassRef{cls.module, base.local_class};
    } else if (!base.qualified.empty()) {
      b = project_.resolve_class(base.qualified, cls.module);
    }
    if (b) {
      if (is_nn_module_impl(*b, depth + 1)) {
        result = true;
        break;
      }
      continue;
    }
    // A base outside the analysed files: a class that defines forward() is taken to be a Module.
    const std::string& q = base.qualified;
    if (defines_forward && (q.empty() || (q != "object" && !q.starts_with("typing.") && !q.starts_with("abc.")))) {
      result = true;
      break;
    }
  }
  module_class_cache_[key] = result;
  return result;
}

// The class of an instance expression, when each of its constructors names the same class.
std::optional<ClassRef> CompileRegions::instance_class(const ir::Module& module,
                                                       const ModuleSummary::Instance& instance) const {
  std::optional<ClassRef> found;
  for (const ModuleSummary::NameRef& constructor : instance) {
    auto c = project_.class_of(module, constructor);
    if (!c) return std::nullopt;
    if (found && !(*found == *c)) return std::nullopt;
    found = c;
  }
  return found;
}

const std::vector<ClassRef>& CompileRegions::subclasses_of(ClassRef cls) {
  if (!subclasses_) {
    subclasses_.emplace();
    for (const ir::Module* m : project_.modules()) {
      for (size_t ci = 0; ci < project_.summary_of(*m).classes.size(); ++ci) {
        const ClassRef sub{m, static_cast<int>(ci)};
        for (ClassRef base : project_.bases_of(sub)) (*subclasses_)[{base.module, base.klass}].push_back(sub);
      }
    }
  }
  static const std::vector<ClassRef> none;
  auto it = subclasses_->find({cls.module, cls.klass});
  return it == subclasses_->end() ? none : it->second;
}

std::vector<ClassRef> CompileRegions::stored_classes(ClassRef owner, std::string_view attr) {
  std::vector<ClassRef> out;
  const ModuleSummary& summary = project_.summary_of(*owner.module);
  const std::vector<ModuleSummary::StoreFact>* stores = summary.self_stores_of(owner.klass, attr);
  if (!stores) return out;
  for (const ModuleSummary::StoreFact& store : *stores) {
    if (store.init_parameter >= 0) {
      for (ClassRef c : classes_passed_to_init(owner, summary.interned(store.init_parameter), 0)) add_once(out, c);
    } else if (auto c = project_.class_of(*owner.module, store.constructor)) {
      add_once(out, *c);
    }
  }
  return out;
}

// What the subclasses of `owner` pass to its `__init__` parameter `param` through
// `super().__init__(...)` in their own `__init__`: an instance `Cls(...)` (or a name bound only to
// one), or a parameter of their own, followed to their subclasses in turn.
std::vector<ClassRef> CompileRegions::classes_passed_to_init(ClassRef owner, std::string_view param, int depth) {
  if (depth > 4) return {};
  // Each question answered once: subclasses that pass their parameter up many times over (or
  // many subclasses passing the same one) would otherwise ask it again for every call, to the
  // power of the depth.
  const auto key = std::tuple{owner.module, owner.klass, std::string(param), depth};
  if (const auto it = passed_to_init_.find(key); it != passed_to_init_.end()) return it->second;
  std::vector<ClassRef> out = classes_passed_to_init_uncached(owner, param, depth);
  passed_to_init_.emplace(key, out);
  return out;
}

std::vector<ClassRef> CompileRegions::classes_passed_to_init_uncached(ClassRef owner, std::string_view param,
                                                                      int depth) {
  std::vector<ClassRef> out;
  auto init = project_.find_method(owner, "__init__");
  if (!init || init->module != owner.module) return out;
  const std::vector<ModuleSummary::Parameter>& params = project_.facts_of(*init).params;
  int param_index = -1;
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name == param) param_index = static_cast<int>(i);
  }
  if (param_index < 0) return out;
  for (ClassRef sub : subclasses_of(owner)) {  // the index is complete before any recursion reads it
    const ModuleSummary& ss = project_.summary_of(*sub.module);
    const int sub_init = ss.method_of(sub.klass, "__init__");
    if (sub_init < 0) continue;
    for (const std::vector<ModuleSummary::Argument>& call : ss.functions[static_cast<size_t>(sub_init)].super_init_calls) {
      for_each_argument(params, ss, call, true, [&](int index, const ModuleSummary::Argument& arg) {
        if (index != param_index) return;
        if (auto c = instance_class(*sub.module, arg.instance)) {
          add_once(out, *c);
        } else if (arg.identifier >= 0) {
          for (ClassRef passed : classes_passed_to_init(sub, ss.interned(arg.identifier), depth + 1)) add_once(out, passed);
        }
      });
    }
  }
  return out;
}

void CompileRegions::seed(const ir::Module& m) {
  const ModuleSummary& summary = project_.summary_of(m);
  // forward of every nn.Module subclass, and classes decorated with torch.compile.
  for (size_t ci = 0; ci < summary.classes.size(); ++ci) {
    ClassRef cls{&m, static_cast<int>(ci)};
    const ModuleSummary::ClassFacts& c = summary.classes[ci];
    if (c.compiled) {
      for (const auto& [name, fi] : c.methods) {
        add({&m, fi}, fmt::format("method of @torch.compile class {}", c.qualname), true);
      }
    }
    const int forward = summary.method_of(static_cast<int>(ci), "forward");
    if (forward >= 0 && is_nn_module(cls)) {
      add({&m, forward}, fmt::format("forward of nn.Module subclass {}", c.qualname), true);
    }
  }
  for (size_t fi = 0; fi < summary.functions.size(); ++fi) {
    if (summary.functions[fi].compiled) add({&m, static_cast<int>(fi)}, "decorated with @torch.compile", true);
  }
  // torch.compile(target, ...) calls and target.compile(...) calls anywhere in the module.
  for (const ModuleSummary::CompileSite& site : summary.compile_sites) {
    if (site.kind == ModuleSummary::CompileSite::Kind::ObjectCompile) {
      if (auto cls = instance_class(m, site.instance)) {
        add_class_forward(*cls, fmt::format("module compiled with .compile() at line {}", site.line), true);
      }
      continue;
    }
    const std::string why = fmt::format("passed to torch.compile at line {}", site.line);
    if (auto f = project_.function_of(m, site.function)) {
      add(*f, why, true);
    } else if (auto cls = instance_class(m, site.instance)) {
      add_class_forward(*cls, why, true);
    } else if (site.attribute >= 0) {
      // torch.compile(obj.method) / torch.compile(self.forward)
      const std::string& name = summary.interned(site.attribute);
      if (auto owner = instance_class(m, site.owner)) {
        if (auto meth = project_.find_method(*owner, name)) add(*meth, why, true);
      } else if (site.self_class >= 0) {
        if (auto meth = project_.find_method(ClassRef{&m, site.self_class}, name)) add(*meth, why, true);
      }
    }
  }
}

std::span<const FunctionRef> CompileRegions::wrapped_by(FunctionRef wrapper) const {
  const auto it = wrapped_.find({wrapper.module, wrapper.function});
  if (it == wrapped_.end()) return {};
  return it->second;
}

// Wrapper closures of decorators defined in the analysed files: what `@d` (or, for `@d(...)`,
// the decorator `d` returns) returns in place of the function, and only a closure that calls the
// function it wraps. A decorator that edits and returns the function itself (a docstring helper)
// runs at import time and adds nothing.
void CompileRegions::follow_decorators(FunctionRef f) {
  const ModuleSummary::FunctionFacts& fn = project_.facts_of(f);
  for (const ModuleSummary::Decorator& d : fn.decorators) {
    const std::optional<FunctionRef> dec = project_.function_of(*f.module, d.callee);
    if (!dec) continue;
    const ModuleSummary& ds = project_.summary_of(*dec->module);
    const ModuleSummary::FunctionFacts& decorator = ds.functions[static_cast<size_t>(dec->function)];
    std::vector<int> layers{dec->function};
    if (d.call) {
      layers = decorator.returned;
    } else {
      layers.insert(layers.end(), decorator.applied_in_return.begin(), decorator.applied_in_return.end());
    }
    for (int layer : layers) {
      for (int wrapper : ds.functions[static_cast<size_t>(layer)].returned) {
        if (!ds.functions[static_cast<size_t>(wrapper)].calls_enclosing_parameter) continue;
        add({dec->module, wrapper}, fmt::format("wrapper of decorator on {}", fn.qualname), false);
        std::vector<FunctionRef>& wrapped = wrapped_[{dec->module, wrapper}];
        if (std::find(wrapped.begin(), wrapped.end(), f) == wrapped.end()) wrapped.push_back(f);
      }
    }
  }
}

void CompileRegions::close_over_calls() {
  using Receiver = ModuleSummary::CallSite::Receiver;
  while (!worklist_.empty()) {
    FunctionRef f = worklist_.back();
    worklist_.pop_back();
    const ir::Module& m = *f.module;
    const ModuleSummary& summary = project_.summary_of(m);
    const ModuleSummary::FunctionFacts& fn = project_.facts_of(f);
    const std::string why =
        shallow_disabled_.contains({f.module, f.function})
            ? fmt::format("called from {} (under torch.compiler.disable(recursive=False): Dynamo compiles what it calls)",
                          fn.qualname)
            : fmt::format("called from compiled {}", fn.qualname);
    follow_decorators(f);
    const std::optional<ClassRef> own_class =
        fn.klass >= 0 ? std::optional<ClassRef>(ClassRef{&m, fn.klass}) : std::nullopt;
    for (const ModuleSummary::CallSite& call : fn.calls) {
      if (auto target = project_.function_of(m, call.callee)) {
        add_call(f, call.call_index, *target, call.via_attribute, why);
        continue;
      }
      if (auto cls = project_.class_of(m, call.callee)) {
        if (auto init = project_.find_method(*cls, "__init__")) add(*init, why, false);
        continue;
      }
      // A receiver is recorded only for a method's calls.
      if (!own_class) continue;
      switch (call.receiver) {
        case Receiver::None:
          break;
        case Receiver::Self: {
          const std::string& attr = summary.interned(call.attribute);
          if (auto meth = project_.find_method(*own_class, attr)) {
            add_call(f, call.call_index, *meth, true, why);
            break;
          }
          // self.sub(...) where self.sub = SomeModule(...) somewhere in the class.
          for (ClassRef sub : stored_classes(*own_class, attr)) {
            if (auto fwd = project_.find_method(sub, "forward")) add_call(f, call.call_index, *fwd, true, why);
          }
          break;
        }
        case Receiver::SelfMember:
          // self.sub.method(...), with self.sub's class known the same way.
          for (ClassRef sub : stored_classes(*own_class, summary.interned(call.member))) {
            if (auto meth = project_.find_method(sub, summary.interned(call.attribute))) {
              add_call(f, call.call_index, *meth, true, why);
            }
          }
          break;
        case Receiver::Super:
          for (ClassRef base : project_.bases_of(*own_class)) {
            if (auto meth = project_.find_method(base, summary.interned(call.attribute))) {
              add_call(f, call.call_index, *meth, true, why);
              break;
            }
          }
          break;
      }
    }
  }
}

}  // namespace graphmend::analysis
