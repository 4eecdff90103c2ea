#include "graphmend/analysis/summary.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/self_stores.h"
#include "graphmend/source/text.h"

namespace graphmend::analysis {

bool is_logger_factory(std::string_view q) {
  return q == "logging.getLogger" || q.ends_with(".get_logger") || q.ends_with(".getLogger");
}

bool is_torch_compile(const ir::Module& module, ir::Node expr) {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::call)) expr = expr.field(field::function);
  auto q = module.qualified_name(expr);
  return q && (*q == "torch.compile" || *q == "torch._dynamo.optimize" ||
               *q == "torch.compiler.compile");
}

namespace {

// A base class expression as class_of_expr reads it in the class's own module.
ModuleSummary::Base base_of(const ir::Module& m, ir::Node expr) {
  ModuleSummary::Base base;
  std::optional<std::string> q = m.qualified_name(expr);
  if (q) base.qualified = std::move(*q);
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::identifier)) {
    if (const ir::Binding* b = m.first_binding_at(expr, ir::BindingKind::ClassDef)) base.local_class = b->klass;
  }
  return base;
}

bool is_nested_definition(ir::Node n) {
  return n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda);
}

// Takes the facts of one module; strings are interned as they come.
class Summarizer {
 public:
  explicit Summarizer(const ir::Module& m) : m_(m) {}

  ModuleSummary take();

 private:
  int intern(std::string_view text) {
    auto [it, added] = interned_.try_emplace(std::string(text), static_cast<int>(out_.strings.size()));
    if (added) out_.strings.push_back(it->first);
    return it->second;
  }
  // As Project::function_of_expr and class_of_expr read `expr`.
  ModuleSummary::NameRef name_ref(ir::Node expr) {
    ModuleSummary::NameRef ref;
    expr = ir::unparenthesize(expr);
    if (expr.is(kind::identifier)) {
      if (const ir::Binding* b = m_.first_binding_at(expr, ir::BindingKind::FunctionDef)) ref.local_function = b->function;
      if (const ir::Binding* b = m_.first_binding_at(expr, ir::BindingKind::ClassDef)) ref.local_class = b->klass;
    }
    // The project resolves a name through a module it names first: an undotted one (`len`,
    // `super`) never resolves, and is not kept.
    std::optional<std::string> q = m_.qualified_name(expr);
    if (q && q->find('.') != std::string::npos) ref.qualified = intern(*q);
    return ref;
  }
  ModuleSummary::Instance instance(ir::Node expr);
  void take_calls(const ir::Function& f, ModuleSummary::FunctionFacts& facts);
  void take_returns(int outer, ModuleSummary::FunctionFacts& facts);
  void take_super_init_calls(const ir::Function& f, ModuleSummary::FunctionFacts& facts);
  void take_self_stores(const ir::Class& c, ModuleSummary::ClassFacts& facts);
  void take_compile_sites();
  void take_loggers();
  // The binding as a logger's, or nullopt when it binds none at any depth.
  std::optional<ModuleSummary::LoggerBinding> logger_binding(int binding, int depth);
  std::optional<int> logger_value(ir::Node expr, int depth);

  const ir::Module& m_;
  ModuleSummary out_;
  std::unordered_map<std::string, int> interned_;
};

// `Cls(...)`, or a name whose reaching bindings are each a call, `Cls(...).eval()` chains read
// through; what CompileRegions takes for an instance.
ModuleSummary::Instance Summarizer::instance(ir::Node expr) {
  expr = ir::unparenthesize(expr);
  if (expr.is(kind::call)) return {name_ref(expr.field(field::function))};
  if (!expr.is(kind::identifier)) return {};
  // Most names (parameters above all) are bound to no call at all: no need to ask which bindings
  // reach, which builds the function's control flow.
  const std::span<const int> all = m_.bindings_of(expr);
  if (std::none_of(all.begin(), all.end(), [&](int bi) {
        const ir::Node v = m_.bindings[static_cast<size_t>(bi)].value;
        return v && ir::unparenthesize(v).is(kind::call);
      })) {
    return {};
  }
  ModuleSummary::Instance out;
  for (int bi : m_.reaching_bindings(expr)) {
    const ir::Binding& b = m_.bindings[static_cast<size_t>(bi)];
    if (!b.value || !ir::unparenthesize(b.value).is(kind::call)) return {};
    ir::Node value = ir::unparenthesize(b.value);
    while (value.is(kind::call) && value.field(field::function).is(kind::attribute) &&
           value.field(field::function).field(field::object).is(kind::call)) {
      auto attr = m_.text(value.field(field::function).field(field::attribute));
      if (!api::has(api::Space::ModuleMethod, attr, api::Fact::ReturnsSelf)) break;
      value = value.field(field::function).field(field::object);
    }
    out.push_back(name_ref(value.field(field::function)));
  }
  return out;
}

void Summarizer::take_calls(const ir::Function& f, ModuleSummary::FunctionFacts& facts) {
  using Receiver = ModuleSummary::CallSite::Receiver;
  // A callee that names a parameter of the enclosing function (a wrapper calling what it wraps).
  const ir::Function* outer =
      f.enclosing_function >= 0 ? &m_.functions[static_cast<size_t>(f.enclosing_function)] : nullptr;
  const auto is_outer_parameter = [&](ir::Node callee) {
    const int sym = callee.is(kind::identifier) ? m_.lookup_at(callee) : -1;
    if (sym < 0 || m_.symbols[static_cast<size_t>(sym)].scope != outer->scope) return false;
    const auto& bindings = m_.symbols[static_cast<size_t>(sym)].bindings;
    return std::any_of(bindings.begin(), bindings.end(), [&](int b) {
      return m_.bindings[static_cast<size_t>(b)].kind == ir::BindingKind::Parameter;
    });
  };
  syntax::walk(f.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
    if (!n.is(kind::call)) return true;
    const ir::Node callee = ir::unparenthesize(n.field(field::function));
    if (outer && !facts.calls_enclosing_parameter) facts.calls_enclosing_parameter = is_outer_parameter(callee);
    ModuleSummary::CallSite site;
    site.call_index = n.index();
    site.callee = name_ref(callee);
    site.via_attribute = callee.is(kind::attribute);
    if (site.via_attribute && f.klass >= 0) {
      const ir::Node obj = ir::unparenthesize(callee.field(field::object));
      const std::string_view attr = m_.text(callee.field(field::attribute));
      if (obj.is(kind::identifier) && m_.text(obj) == "self") {
        site.receiver = Receiver::Self;
      } else if (obj.is(kind::attribute)) {
        const ir::Node owner = ir::unparenthesize(obj.field(field::object));
        if (owner.is(kind::identifier) && m_.text(owner) == "self") {
          site.receiver = Receiver::SelfMember;
          site.member = intern(m_.text(obj.field(field::attribute)));
        }
      } else if (obj.is(kind::call) && m_.text(obj.field(field::function)) == "super") {
        site.receiver = Receiver::Super;
      }
      if (site.receiver != Receiver::None) site.attribute = intern(attr);
    }
    if (!site.callee.empty() || site.receiver != Receiver::None) facts.calls.push_back(site);
    return true;
  });
}

// What a decorator `outer` gives in place of the function: the closures it returns by name, and
// those it applies to one of its parameters in a `return`.
void Summarizer::take_returns(int outer, ModuleSummary::FunctionFacts& facts) {
  const ir::Function& o = m_.functions[static_cast<size_t>(outer)];
  std::set<std::string_view> returned, applied;
  syntax::walk(o.node.field(field::body), [&](ir::Node n) {
    if (is_nested_definition(n)) return false;
    if (!n.is(kind::return_statement) || n.named_child_count() != 1) return true;
    const ir::Node value = ir::unparenthesize(n.named_child(0));
    if (value.is(kind::identifier)) returned.insert(m_.text(value));
    if (!value.is(kind::call)) return true;
    const ir::Node fn = ir::unparenthesize(value.field(field::function));
    const std::vector<ir::Node> args = ir::children_without_comments(value.field(field::arguments));
    const bool passes_parameter = args.size() == 1 && args[0].is(kind::identifier) &&
                                  std::any_of(o.params.begin(), o.params.end(),
                                              [&](const ir::Parameter& p) { return p.name == m_.text(args[0]); });
    if (fn.is(kind::identifier) && passes_parameter) applied.insert(m_.text(fn));
    return true;
  });
  if (returned.empty() && applied.empty()) return;
  for (size_t i = 0; i < m_.functions.size(); ++i) {
    if (m_.functions[i].enclosing_function != outer) continue;
    if (returned.contains(m_.functions[i].name)) facts.returned.push_back(static_cast<int>(i));
    if (applied.contains(m_.functions[i].name)) facts.applied_in_return.push_back(static_cast<int>(i));
  }
}

void Summarizer::take_super_init_calls(const ir::Function& f, ModuleSummary::FunctionFacts& facts) {
  using Kind = ModuleSummary::Argument::Kind;
  syntax::walk(f.node.field(field::body), [&](ir::Node n) {
    if (is_nested_definition(n)) return false;
    if (!n.is(kind::call)) return true;
    const ir::Node callee = ir::unparenthesize(n.field(field::function));
    if (!callee.is(kind::attribute) || m_.text(callee.field(field::attribute)) != "__init__") return true;
    const ir::Node obj = ir::unparenthesize(callee.field(field::object));
    if (!obj.is(kind::call) || m_.text(obj.field(field::function)) != "super") return true;
    std::vector<ModuleSummary::Argument> args;
    const ir::Node list = n.field(field::arguments);
    if (list && list.is(kind::argument_list)) {
      for (ir::Node a : list.named_children()) {
        if (a.is(kind::comment)) continue;
        ModuleSummary::Argument arg;
        ir::Node value = a;
        if (a.is(kind::list_splat)) {
          arg.kind = Kind::ListSplat;
        } else if (a.is(kind::dictionary_splat)) {
          arg.kind = Kind::DictSplat;
        } else if (a.is(kind::keyword_argument)) {
          arg.kind = Kind::Keyword;
          arg.keyword = intern(m_.text(a.field(field::name)));
          value = a.field(field::value);
        }
        if (arg.kind == Kind::Positional || arg.kind == Kind::Keyword) {
          value = ir::unparenthesize(value);
          arg.instance = instance(value);
          if (value.is(kind::identifier)) arg.identifier = intern(m_.text(value));
        }
        args.push_back(std::move(arg));
      }
    }
    facts.super_init_calls.push_back(std::move(args));
    return true;
  });
}

void Summarizer::take_self_stores(const ir::Class& c, ModuleSummary::ClassFacts& facts) {
  for (auto& [attr, stores] : index_self_stores(m_, c)) {
    std::vector<ModuleSummary::StoreFact> kept;
    for (const SelfStore& store : stores) {
      if (store.buffer) continue;
      const ir::Node right = ir::unparenthesize(store.value);
      if (right.is(kind::call)) {
        ModuleSummary::NameRef ref = name_ref(right.field(field::function));
        if (!ref.empty()) kept.push_back({ref, -1});
        continue;
      }
      // `self.attr = attr` in __init__, with `attr` one of its parameters.
      if (!right.is(kind::identifier)) continue;
      const int fi = m_.function_of(right);
      if (fi < 0 || m_.functions[static_cast<size_t>(fi)].name != "__init__") continue;
      // Bound only as a parameter where it is read. A name no parameter binds is not asked which
      // bindings reach it, which builds the function's control flow.
      const auto is_parameter = [&](int b) {
        return m_.bindings[static_cast<size_t>(b)].kind == ir::BindingKind::Parameter;
      };
      const std::span<const int> all = m_.bindings_of(right);
      if (std::none_of(all.begin(), all.end(), is_parameter)) continue;
      const std::vector<int> reached_by = m_.reaching_bindings(right);
      if (!reached_by.empty() && std::all_of(reached_by.begin(), reached_by.end(), is_parameter)) {
        kept.push_back({{}, intern(m_.text(right))});
      }
    }
    if (!kept.empty()) facts.self_stores.emplace_back(attr, std::move(kept));
  }
  std::sort(facts.self_stores.begin(), facts.self_stores.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
}

void Summarizer::take_compile_sites() {
  // A module whose text names neither `compile` nor `optimize` has none, and is not walked.
  if (m_.text().find("compile") == std::string_view::npos && m_.text().find("optimize") == std::string_view::npos) {
    return;
  }
  using Kind = ModuleSummary::CompileSite::Kind;
  const source::LineIndex lines(m_.text());
  syntax::walk(m_.root(), [&](ir::Node n) {
    if (!n.is(kind::call)) return true;
    const ir::Node fn = n.field(field::function);
    const ir::Node args = n.field(field::arguments);
    ModuleSummary::CompileSite site;
    site.line = static_cast<uint32_t>(lines.line_of(n.start()));
    if (is_torch_compile(m_, fn) && args && args.named_child_count() > 0) {
      const ir::Node target = ir::unparenthesize(args.named_child(0));
      if (target.is(kind::keyword_argument)) return true;
      site.kind = Kind::Target;
      site.function = name_ref(target);
      site.instance = instance(target);
      if (target.is(kind::attribute)) {
        const ir::Node obj = target.field(field::object);
        site.owner = instance(obj);
        site.attribute = intern(m_.text(target.field(field::attribute)));
        if (obj.is(kind::identifier) && m_.text(obj) == "self") {
          const int enclosing = m_.function_of(n);
          if (enclosing >= 0) site.self_class = m_.functions[static_cast<size_t>(enclosing)].klass;
        }
      }
      out_.compile_sites.push_back(std::move(site));
    } else if (fn.is(kind::attribute) && m_.text(fn.field(field::attribute)) == "compile") {
      site.kind = Kind::ObjectCompile;
      site.instance = instance(fn.field(field::object));
      if (!site.instance.empty()) out_.compile_sites.push_back(std::move(site));
    }
    return true;
  });
}


std::optional<ModuleSummary::LoggerBinding> Summarizer::logger_binding(int binding, int depth) {
  const ir::Binding& b = m_.bindings[static_cast<size_t>(binding)];
  if (b.kind == ir::BindingKind::Import) return ModuleSummary::LoggerBinding{intern(b.import_path), -1};
  if (!b.value) return std::nullopt;
  const std::optional<int> value = logger_value(b.value, depth + 1);
  if (!value) return std::nullopt;
  return ModuleSummary::LoggerBinding{-1, *value};
}

std::optional<int> Summarizer::logger_value(ir::Node expr, int depth) {
  expr = ir::unparenthesize(expr);
  if (depth > kMaxLoggerDepth) return std::nullopt;  // no reader follows it further
  ModuleSummary::LoggerValue value;
  if (expr.is(kind::call)) {
    const std::optional<std::string> q = m_.qualified_name(expr.field(field::function));
    if (!q || !is_logger_factory(*q)) return std::nullopt;
    value.factory = true;
  } else if (expr.is(kind::identifier)) {
    const std::vector<int> reached_by = m_.reaching_bindings(expr);
    if (reached_by.empty()) return std::nullopt;
    for (int bi : reached_by) {
      std::optional<ModuleSummary::LoggerBinding> b = logger_binding(bi, depth);
      if (!b) return std::nullopt;
      value.bound_by.push_back(*b);
    }
  } else {
    return std::nullopt;
  }
  out_.logger_values.push_back(std::move(value));
  return static_cast<int>(out_.logger_values.size() - 1);
}

void Summarizer::take_loggers() {
  if (m_.scopes.empty()) return;
  for (const auto& [name, sym] : m_.scopes[0].symbols) {
    const std::span<const int> bindings = m_.symbols[static_cast<size_t>(sym)].bindings;
    // Only a name with a value that may be a logger: a call or another name.
    const bool candidate = std::any_of(bindings.begin(), bindings.end(), [&](int bi) {
      const ir::Binding& b = m_.bindings[static_cast<size_t>(bi)];
      const ir::Node v = b.kind != ir::BindingKind::Import && b.value ? ir::unparenthesize(b.value) : ir::Node{};
      return v && (v.is(kind::call) || v.is(kind::identifier));
    });
    if (!candidate) continue;
    const size_t values = out_.logger_values.size();
    std::vector<ModuleSummary::LoggerBinding> kept;
    for (int bi : bindings) {
      std::optional<ModuleSummary::LoggerBinding> b = logger_binding(bi, 0);
      if (!b) {
        kept.clear();
        break;
      }
      kept.push_back(*b);
    }
    if (kept.empty()) {
      out_.logger_values.resize(values);  // what this name's bindings took, dropped with it
      continue;
    }
    out_.loggers.emplace_back(std::string(name), std::move(kept));
  }
}

}  // namespace

TraceExclusion trace_exclusion(const ir::Module& module, const ir::Function& function) {
  for (ir::Node d : function.decorators) {
    ir::Node callee = d.is(kind::call) ? d.field(field::function) : d;
    const auto q = module.qualified_name(callee);
    if (!q) continue;
    if (*q == "torch.library.custom_op" || *q == "torch._library.custom_ops.custom_op" ||
        *q == "torch.compiler.allow_in_graph" || *q == "torch._dynamo.allow_in_graph" ||
        *q == "torch.compiler.assume_constant_result" || *q == "torch._dynamo.assume_constant_result") {
      return TraceExclusion::Opaque;
    }
    if (*q != "torch.compiler.disable" && *q != "torch._dynamo.disable") continue;
    if (!d.is(kind::call)) return TraceExclusion::Disabled;
    for (ir::Node arg : d.field(field::arguments).named_children()) {
      if (arg.is(kind::keyword_argument) && module.text(arg.field(field::name)) == "recursive" &&
          module.text(arg.field(field::value)) == "False") {
        return TraceExclusion::DisabledShallow;
      }
    }
    return TraceExclusion::Disabled;
  }
  return TraceExclusion::None;
}

namespace {

// The value of `name` in a table of (name, value) pairs sorted by name, or null.
template <typename Value>
const Value* find_by_name(const std::vector<std::pair<std::string, Value>>& table, std::string_view name) {
  auto it = std::lower_bound(table.begin(), table.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != table.end() && it->first == name ? &it->second : nullptr;
}

}  // namespace

const std::vector<ModuleSummary::Definition>* ModuleSummary::definitions_of(std::string_view name) const {
  return find_by_name(names, name);
}

int ModuleSummary::method_of(int klass, std::string_view name) const {
  const int* method = find_by_name(classes[static_cast<size_t>(klass)].methods, name);
  return method ? *method : -1;
}

const std::vector<ModuleSummary::LoggerBinding>* ModuleSummary::logger_bindings_of(std::string_view name) const {
  return find_by_name(loggers, name);
}

const std::vector<ModuleSummary::StoreFact>* ModuleSummary::self_stores_of(int klass, std::string_view attr) const {
  return find_by_name(classes[static_cast<size_t>(klass)].self_stores, attr);
}

ModuleSummary Summarizer::take() {
  const ir::Module& m = m_;
  out_.mentions_torch = m.mentions_torch();
  if (!m.scopes.empty()) {
    // The module scope's table is sorted by name already.
    for (const auto& [name, sym] : m.scopes[0].symbols) {
      std::vector<ModuleSummary::Definition> defs;
      bool defined = false;
      for (int bi : m.symbols[static_cast<size_t>(sym)].bindings) {
        const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
        using Kind = ModuleSummary::Definition::Kind;
        if (b.kind == ir::BindingKind::FunctionDef) {
          defs.push_back({Kind::Function, b.function, {}});
        } else if (b.kind == ir::BindingKind::ClassDef) {
          defs.push_back({Kind::Class, b.klass, {}});
        } else if (b.kind == ir::BindingKind::Import) {
          defs.push_back({Kind::Import, -1, std::string(b.import_path)});
        } else {
          defs.push_back({Kind::Other, -1, {}});
          continue;
        }
        defined = true;
      }
      if (defined) out_.names.emplace_back(std::string(name), std::move(defs));
    }
  }
  out_.classes.reserve(m.classes.size());
  for (const ir::Class& c : m.classes) {
    ModuleSummary::ClassFacts facts;
    facts.qualname = c.qualname;
    for (ir::Node base : c.bases) facts.bases.push_back(base_of(m, base));
    facts.methods.assign(c.methods.begin(), c.methods.end());
    std::sort(facts.methods.begin(), facts.methods.end());
    for (ir::Node d : c.decorators) facts.compiled |= is_torch_compile(m, d);
    take_self_stores(c, facts);
    out_.classes.push_back(std::move(facts));
  }
  std::vector<bool> encloses(m.functions.size(), false);
  for (const ir::Function& f : m.functions) {
    if (f.enclosing_function >= 0) encloses[static_cast<size_t>(f.enclosing_function)] = true;
  }
  out_.functions.reserve(m.functions.size());
  for (size_t fi = 0; fi < m.functions.size(); ++fi) {
    const ir::Function& f = m.functions[fi];
    ModuleSummary::FunctionFacts facts;
    facts.qualname = f.qualname;
    facts.klass = f.klass;
    facts.trace_exclusion = trace_exclusion(m, f);
    for (const ir::Parameter& p : f.params) facts.params.push_back({p.name, p.kind});
    for (ir::Node d : f.decorators) {
      facts.staticmethod |= m.text(d) == "staticmethod";
      facts.compiled |= is_torch_compile(m, d);
      const bool call = d.is(kind::call);
      ModuleSummary::NameRef ref = name_ref(call ? d.field(field::function) : d);
      if (!ref.empty()) facts.decorators.push_back({ref, call});
    }
    if (const ir::Node returns = f.node.field(field::return_type)) {
      const std::string_view text = m.text(returns);
      for (std::string_view container : {"dict", "list", "set", "Dict", "List", "Set"}) {
        facts.returns_container |= text == container ||
                                   (text.starts_with(container) && text.size() > container.size() &&
                                    text[container.size()] == '[' && text.back() == ']' &&
                                    text.find('|') == std::string_view::npos);
      }
    }
    take_calls(f, facts);
    if (encloses[fi]) take_returns(static_cast<int>(fi), facts);
    if (f.klass >= 0 && f.name == "__init__") take_super_init_calls(f, facts);
    out_.functions.push_back(std::move(facts));
  }
  if (m.mentions_torch()) take_compile_sites();
  take_loggers();
  return std::move(out_);
}

ModuleSummary summarize(const ir::Module& m) { return Summarizer(m).take(); }

bool fits(const ModuleSummary& summary, const ir::Module& module) {
  if (summary.functions.size() != module.functions.size() || summary.classes.size() != module.classes.size()) {
    return false;
  }
  for (size_t i = 0; i < summary.functions.size(); ++i) {
    if (summary.functions[i].params.size() != module.functions[i].params.size()) return false;
  }
  const syntax::detail::TreeData* tree = module.root().tree_data();
  return std::all_of(summary.functions.begin(), summary.functions.end(), [&](const ModuleSummary::FunctionFacts& f) {
    return std::all_of(f.calls.begin(), f.calls.end(), [&](const ModuleSummary::CallSite& c) {
      return c.call_index < tree->nodes.size() && ir::Node(tree, c.call_index).is(kind::call);
    });
  });
}

}  // namespace graphmend::analysis
