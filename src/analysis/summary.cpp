#include "graphmend/analysis/summary.h"

#include <algorithm>

namespace graphmend::analysis {

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

const std::vector<ModuleSummary::Definition>* ModuleSummary::definitions_of(std::string_view name) const {
  auto it = std::lower_bound(names.begin(), names.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != names.end() && it->first == name ? &it->second : nullptr;
}

int ModuleSummary::method_of(int klass, std::string_view name) const {
  const auto& methods = classes[static_cast<size_t>(klass)].methods;
  auto it = std::lower_bound(methods.begin(), methods.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return it != methods.end() && it->first == name ? it->second : -1;
}

ModuleSummary summarize(const ir::Module& m) {
  ModuleSummary out;
  if (!m.scopes.empty()) {
    // The module scope's table is sorted by name already.
    for (const auto& [name, sym] : m.scopes[0].symbols) {
      std::vector<ModuleSummary::Definition> defs;
      for (int bi : m.symbols[static_cast<size_t>(sym)].bindings) {
        const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
        using Kind = ModuleSummary::Definition::Kind;
        if (b.kind == ir::BindingKind::FunctionDef) defs.push_back({Kind::Function, b.function, {}});
        if (b.kind == ir::BindingKind::ClassDef) defs.push_back({Kind::Class, b.klass, {}});
        if (b.kind == ir::BindingKind::Import) defs.push_back({Kind::Import, -1, std::string(b.import_path)});
      }
      if (!defs.empty()) out.names.emplace_back(std::string(name), std::move(defs));
    }
  }
  out.classes.reserve(m.classes.size());
  for (const ir::Class& c : m.classes) {
    ModuleSummary::ClassFacts facts;
    for (ir::Node base : c.bases) facts.bases.push_back(base_of(m, base));
    facts.methods.assign(c.methods.begin(), c.methods.end());
    std::sort(facts.methods.begin(), facts.methods.end());
    out.classes.push_back(std::move(facts));
  }
  out.functions.reserve(m.functions.size());
  for (const ir::Function& f : m.functions) {
    ModuleSummary::FunctionFacts facts{f.qualname, f.klass, {}, trace_exclusion(m, f), false};
    for (const ir::Parameter& p : f.params) facts.params.push_back({p.name, p.kind});
    for (ir::Node d : f.decorators) facts.staticmethod |= m.text(d) == "staticmethod";
    out.functions.push_back(std::move(facts));
  }
  return out;
}

}  // namespace graphmend::analysis
