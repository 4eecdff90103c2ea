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

bool is_torch_compile(const ir::Module& module, ir::Node expr) {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::call)) expr = expr.field(field::function);
  auto q = module.qualified_name(expr);
  return q && (*q == "torch.compile" || *q == "torch._dynamo.optimize" ||
               *q == "torch.compiler.compile");
}

CompileRegions::CompileRegions(const Project& project) : project_(project) {
  // Every class's answer is settled here, in the project's order, so that rules running side by
  // side only read it, and a chain of bases deeper than the limit answers the same whichever of
  // its classes is asked first.
  for (const ir::Module* m : project.modules()) {
    const size_t classes = project.summary_of(*m).classes.size();
    for (size_t ci = 0; ci < classes; ++ci) is_nn_module_impl({m, static_cast<int>(ci)}, 0);
  }
  for (const ir::Module* m : project.modules()) {
    if (m->mentions_torch()) seed(*m);
  }
  close_over_calls();
}

std::optional<FunctionRef> CompileRegions::callee_of(ir::Node call) const {
  const auto it = call_index_.find(call.id());
  if (it == call_index_.end()) return std::nullopt;
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

void CompileRegions::add_call(FunctionRef caller, ir::Node call, FunctionRef callee, bool via_attribute,
                              std::string reason) {
  // Through an attribute, a method receives its instance or class first, unless it is static.
  const ModuleSummary::FunctionFacts& fn = project_.facts_of(callee);
  const bool bound = via_attribute && fn.klass >= 0 && !fn.staticmethod;
  call_index_.try_emplace(call.id(), calls_.size());
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

// The class of an instance expression: `Cls(...)`, or a name bound only to `Cls(...)`.
std::optional<ClassRef> CompileRegions::instance_class(const ir::Module& module, ir::Node expr) const {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::call)) return project_.class_of_expr(module, expr.field(field::function));
  if (expr.is(kind::identifier)) {
    std::optional<ClassRef> found;
    for (int bi : module.reaching_bindings(expr)) {
      const ir::Binding& b = module.bindings[static_cast<size_t>(bi)];
      if (!b.value || !ir::unparenthesize(b.value).is(kind::call)) return std::nullopt;
      ir::Node value = ir::unparenthesize(b.value);
      // `model = Model().eval()` style chains keep the instance.
      while (value.is(kind::call) && value.field(field::function).is(kind::attribute) &&
             value.field(field::function).field(field::object).is(kind::call)) {
        auto attr = module.text(value.field(field::function).field(field::attribute));
        if (!api::has(api::Space::ModuleMethod, attr, api::Fact::ReturnsSelf)) break;
        value = value.field(field::function).field(field::object);
      }
      auto c = project_.class_of_expr(module, value.field(field::function));
      if (!c) return std::nullopt;
      if (found && !(*found == *c)) return std::nullopt;
      found = c;
    }
    return found;
  }
  return std::nullopt;
}

const SelfStores& CompileRegions::self_stores_of(ClassRef cls) {
  const ir::Class& k = cls.module->classes[static_cast<size_t>(cls.klass)];
  auto cached = self_stores_.find(k.node.id());
  if (cached == self_stores_.end()) cached = self_stores_.emplace(k.node.id(), index_self_stores(*cls.module, k)).first;
  return cached->second;
}

const std::vector<ClassRef>& CompileRegions::subclasses_of(ClassRef cls) {
  if (!subclasses_) {
    subclasses_.emplace();
    for (const ir::Module* m : project_.modules()) {
      for (size_t ci = 0; ci < m->classes.size(); ++ci) {
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
  const ir::Module& m = *owner.module;
  const SelfStores& stores = self_stores_of(owner);
  auto st = stores.find(std::string(attr));
  if (st == stores.end()) return out;
  for (const SelfStore& store : st->second) {
    ir::Node right = ir::unparenthesize(store.value);
    if (store.buffer) continue;
    if (right.is(kind::call)) {
      if (auto c = project_.class_of_expr(m, right.field(field::function))) add_once(out, *c);
      continue;
    }
    // `self.attr = attr` in __init__, with `attr` one of its parameters.
    if (!right.is(kind::identifier)) continue;
    const int fi = m.function_of(right);
    if (fi < 0 || m.functions[static_cast<size_t>(fi)].name != "__init__") continue;
    const std::vector<int> bindings = m.reaching_bindings(right);
    const bool parameter_only = !bindings.empty() && std::all_of(bindings.begin(), bindings.end(), [&](int b) {
      return m.bindings[static_cast<size_t>(b)].kind == ir::BindingKind::Parameter;
    });
    if (!parameter_only) continue;
    for (ClassRef c : classes_passed_to_init(owner, m.text(right), 0)) add_once(out, c);
  }
  return out;
}

// What the subclasses of `owner` pass to its `__init__` parameter `param` through
// `super().__init__(...)` in their own `__init__`: an instance `Cls(...)` (or a name bound only to
// one), or a parameter of their own, followed to their subclasses in turn.
std::vector<ClassRef> CompileRegions::classes_passed_to_init(ClassRef owner, std::string_view param, int depth) {
  std::vector<ClassRef> out;
  if (depth > 4) return out;
  auto init = project_.find_method(owner, "__init__");
  if (!init || init->module != owner.module) return out;
  const ir::Function& init_fn = init->module->functions[static_cast<size_t>(init->function)];
  int param_index = -1;
  for (size_t i = 0; i < init_fn.params.size(); ++i) {
    if (init_fn.params[i].name == param) param_index = static_cast<int>(i);
  }
  if (param_index < 0) return out;
  for (ClassRef sub : subclasses_of(owner)) {  // the index is complete before any recursion reads it
    const ir::Module& sm = *sub.module;
    const ir::Class& sc = sm.classes[static_cast<size_t>(sub.klass)];
    auto sub_init = sc.methods.find("__init__");
    if (sub_init == sc.methods.end()) continue;
    const ir::Function& sub_fn = sm.functions[static_cast<size_t>(sub_init->second)];
    syntax::walk(sub_fn.node.field(field::body), [&](ir::Node n) {
      if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
      if (!n.is(kind::call)) return true;
      ir::Node callee = ir::unparenthesize(n.field(field::function));
      if (!callee.is(kind::attribute) || sm.text(callee.field(field::attribute)) != "__init__") return true;
      ir::Node obj = ir::unparenthesize(callee.field(field::object));
      if (!obj.is(kind::call) || sm.text(obj.field(field::function)) != "super") return true;
      for_each_argument(project_, sm, n, *init, true, [&](int index, ir::Node arg) {
        if (index != param_index) return;
        arg = ir::unparenthesize(arg);
        if (auto c = instance_class(sm, arg)) {
          add_once(out, *c);
        } else if (arg.is(kind::identifier)) {
          for (ClassRef passed : classes_passed_to_init(sub, sm.text(arg), depth + 1)) add_once(out, passed);
        }
      });
      return true;
    });
  }
  return out;
}

void CompileRegions::seed(const ir::Module& m) {
  // forward of every nn.Module subclass, and classes decorated with torch.compile.
  for (size_t ci = 0; ci < m.classes.size(); ++ci) {
    ClassRef cls{&m, static_cast<int>(ci)};
    const ir::Class& c = m.classes[ci];
    bool decorated = false;
    for (ir::Node d : c.decorators) decorated |= is_torch_compile(m, d);
    if (decorated) {
      for (const auto& [name, fi] : c.methods) {
        add({&m, fi}, fmt::format("method of @torch.compile class {}", c.qualname), true);
      }
    }
    auto it = c.methods.find("forward");
    if (it != c.methods.end() && is_nn_module(cls)) {
      add({&m, it->second}, fmt::format("forward of nn.Module subclass {}", c.qualname), true);
    }
  }
  for (size_t fi = 0; fi < m.functions.size(); ++fi) {
    for (ir::Node d : m.functions[fi].decorators) {
      if (is_torch_compile(m, d)) {
        add({&m, static_cast<int>(fi)}, "decorated with @torch.compile", true);
      }
    }
  }
  // torch.compile(target, ...) calls and target.compile(...) calls anywhere in the module; a
  // module whose text names neither `compile` nor `optimize` has none, and is not walked.
  if (m.text().find("compile") == std::string_view::npos && m.text().find("optimize") == std::string_view::npos) {
    return;
  }
  const source::LineIndex lines(m.text());
  syntax::walk(m.root(), [&](ir::Node n) {
    if (!n.is(kind::call)) return true;
    ir::Node fn = n.field(field::function);
    ir::Node args = n.field(field::arguments);
    if (is_torch_compile(m, fn) && args && args.named_child_count() > 0) {
      ir::Node target = ir::unparenthesize(args.named_child(0));
      if (target.is(kind::keyword_argument)) return true;
      const std::string why = fmt::format("passed to torch.compile at line {}",
                                          lines.line_of(n.start()));
      if (auto f = project_.function_of_expr(m, target)) {
        add(*f, why, true);
      } else if (auto cls = instance_class(m, target)) {
        add_class_forward(*cls, why, true);
      } else if (target.is(kind::attribute)) {
        // torch.compile(obj.method) / torch.compile(self.forward)
        ir::Node obj = target.field(field::object);
        auto name = m.text(target.field(field::attribute));
        if (auto owner = instance_class(m, obj)) {
          if (auto meth = project_.find_method(*owner, name)) add(*meth, why, true);
        } else if (obj.is(kind::identifier) && m.text(obj) == "self") {
          const int enclosing = m.function_of(n);
          if (enclosing >= 0 && m.functions[static_cast<size_t>(enclosing)].klass >= 0) {
            ClassRef self_class{&m, m.functions[static_cast<size_t>(enclosing)].klass};
            if (auto meth = project_.find_method(self_class, name)) add(*meth, why, true);
          }
        }
      }
    } else if (fn.is(kind::attribute) && m.text(fn.field(field::attribute)) == "compile") {
      if (auto cls = instance_class(m, fn.field(field::object))) {
        add_class_forward(*cls, fmt::format("module compiled with .compile() at line {}",
                                            lines.line_of(n.start())),
                          true);
      }
    }
    return true;
  });
}

namespace {

// The functions nested directly in `outer` that it returns by name; with `calling_outer_params`,
// only those that call one of `outer`'s parameters (a wrapper calls the function it wraps).
std::vector<int> returned_closures(const ir::Module& m, int outer, bool calling_outer_params) {
  const ir::Function& o = m.functions[static_cast<size_t>(outer)];
  std::set<std::string_view> returned;
  syntax::walk(o.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (n.is(kind::return_statement) && n.named_child_count() == 1) {
      ir::Node value = ir::unparenthesize(n.named_child(0));
      if (value.is(kind::identifier)) returned.insert(m.text(value));
    }
    return true;
  });
  std::vector<int> out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    const ir::Function& inner = m.functions[i];
    if (inner.enclosing_function != outer || !returned.contains(inner.name)) continue;
    if (calling_outer_params) {
      // A call whose callee resolves (through the scopes) to a parameter of `outer`.
      const auto is_outer_parameter = [&](ir::Node f) {
        const int sym = f.is(kind::identifier) ? m.lookup_at(f) : -1;
        if (sym < 0 || m.symbols[static_cast<size_t>(sym)].scope != o.scope) return false;
        const auto& bindings = m.symbols[static_cast<size_t>(sym)].bindings;
        return std::any_of(bindings.begin(), bindings.end(), [&](int b) {
          return m.bindings[static_cast<size_t>(b)].kind == ir::BindingKind::Parameter;
        });
      };
      bool calls = false;
      syntax::walk(inner.node.field(field::body), [&](ir::Node n) {
        if (calls || n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
        calls = n.is(kind::call) && is_outer_parameter(ir::unparenthesize(n.field(field::function)));
        return !calls;
      });
      if (!calls) continue;
    }
    out.push_back(static_cast<int>(i));
  }
  return out;
}

// The functions nested directly in `outer` that it calls, with one of its parameters, in a
// `return`: `return wrapped_fn(func)`, a decorator usable bare and with arguments
// (`def capture_outputs(func=None, *, flag=True)`), whose wrapper is `wrapped_fn`'s closure.
std::vector<int> closures_applied_in_return(const ir::Module& m, int outer) {
  const ir::Function& o = m.functions[static_cast<size_t>(outer)];
  std::set<std::string_view> applied;
  syntax::walk(o.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (!n.is(kind::return_statement) || n.named_child_count() != 1) return true;
    const ir::Node value = ir::unparenthesize(n.named_child(0));
    if (!value.is(kind::call)) return true;
    const ir::Node fn = ir::unparenthesize(value.field(field::function));
    const std::vector<ir::Node> args = ir::children_without_comments(value.field(field::arguments));
    const bool passes_parameter = args.size() == 1 && args[0].is(kind::identifier) &&
                                  std::any_of(o.params.begin(), o.params.end(),
                                              [&](const ir::Parameter& p) { return p.name == m.text(args[0]); });
    if (fn.is(kind::identifier) && passes_parameter) applied.insert(m.text(fn));
    return true;
  });
  std::vector<int> out;
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (m.functions[i].enclosing_function == outer && applied.contains(m.functions[i].name)) {
      out.push_back(static_cast<int>(i));
    }
  }
  return out;
}

}  // namespace

std::span<const FunctionRef> CompileRegions::wrapped_by(FunctionRef wrapper) const {
  const auto it = wrapped_.find({wrapper.module, wrapper.function});
  if (it == wrapped_.end()) return {};
  return it->second;
}

void CompileRegions::close_over_calls() {
  while (!worklist_.empty()) {
    FunctionRef f = worklist_.back();
    worklist_.pop_back();
    const ir::Module& m = *f.module;
    const ir::Function& fn = m.functions[static_cast<size_t>(f.function)];
    const std::string why =
        shallow_disabled_.contains({f.module, f.function})
            ? fmt::format("called from {} (under torch.compiler.disable(recursive=False): Dynamo compiles what it calls)",
                          fn.qualname)
            : fmt::format("called from compiled {}", fn.qualname);
    std::optional<ClassRef> own_class;
    if (fn.klass >= 0) own_class = ClassRef{&m, fn.klass};
    // Wrapper closures of decorators defined in the analysed files: what `@d` (or, for
    // `@d(...)`, the decorator `d` returns) returns in place of the function, and only a closure
    // that calls the function it wraps. A decorator that edits and returns the function itself
    // (a docstring helper) runs at import time and adds nothing.
    for (ir::Node d : fn.decorators) {
      ir::Node callee = d.is(kind::call) ? d.field(field::function) : d;
      if (auto dec = project_.function_of_expr(m, callee)) {
        const ir::Module& dm = *dec->module;
        std::vector<int> layers{dec->function};
        if (d.is(kind::call)) {
          layers = returned_closures(dm, dec->function, false);
        } else {
          for (int applied : closures_applied_in_return(dm, dec->function)) layers.push_back(applied);
        }
        for (int layer : layers) {
          for (int wrapper : returned_closures(dm, layer, true)) {
            add({&dm, wrapper}, fmt::format("wrapper of decorator on {}", fn.qualname), false);
            std::vector<FunctionRef>& wrapped = wrapped_[{&dm, wrapper}];
            if (std::none_of(wrapped.begin(), wrapped.end(),
                             [&](const FunctionRef& w) { return w.module == f.module && w.function == f.function; })) {
              wrapped.push_back(f);
            }
          }
        }
      }
    }
    syntax::walk(fn.node.field(field::body), [&](ir::Node n) {
      if (n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
      if (!n.is(kind::call)) return true;
      ir::Node callee = ir::unparenthesize(n.field(field::function));
      const bool via_attribute = callee.is(kind::attribute);
      if (auto target = project_.function_of_expr(m, callee)) {
        add_call(f, n, *target, via_attribute, why);
        return true;
      }
      if (auto cls = project_.class_of_expr(m, callee)) {
        if (auto init = project_.find_method(*cls, "__init__")) add(*init, why, false);
        return true;
      }
      if (!callee.is(kind::attribute)) return true;
      ir::Node obj = ir::unparenthesize(callee.field(field::object));
      const auto attr = m.text(callee.field(field::attribute));
      if (obj.is(kind::identifier) && m.text(obj) == "self" && own_class) {
        if (auto meth = project_.find_method(*own_class, attr)) {
          add_call(f, n, *meth, true, why);
          return true;
        }
        // self.sub(...) where self.sub = SomeModule(...) somewhere in the class.
        for (ClassRef sub : stored_classes(*own_class, attr)) {
          if (auto fwd = project_.find_method(sub, "forward")) add_call(f, n, *fwd, true, why);
        }
        return true;
      }
      // self.sub.method(...), with self.sub's class known the same way.
      if (obj.is(kind::attribute) && own_class) {
        ir::Node owner = ir::unparenthesize(obj.field(field::object));
        if (owner.is(kind::identifier) && m.text(owner) == "self") {
          for (ClassRef sub : stored_classes(*own_class, m.text(obj.field(field::attribute)))) {
            if (auto meth = project_.find_method(sub, attr)) add_call(f, n, *meth, true, why);
          }
          return true;
        }
      }
      if (obj.is(kind::call) && m.text(obj.field(field::function)) == "super" && own_class) {
        for (ClassRef base : project_.bases_of(*own_class)) {
          if (auto meth = project_.find_method(base, attr)) {
            add_call(f, n, *meth, true, why);
            break;
          }
        }
      }
      return true;
    });
  }
}

}  // namespace graphmend::analysis
