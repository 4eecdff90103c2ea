#include "graphmend/analysis/init_modules.h"


#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/context.h"

namespace graphmend::analysis {

// The value a method's class assigns to `self.<attr>` in `__init__`, for the callee `self.<attr>`,
// when `__init__` assigns it exactly once; null otherwise. It names the class the selection's
// runtime check expects there (the attribute may have been replaced since: the check finds out).
ir::Node sole_init_value(const ir::Module& m, const ir::Function& fn, ir::Node callee) {
  callee = ir::unparenthesize(callee);
  if (!callee.is(kind::attribute) || fn.klass < 0 || fn.params.empty()) return {};
  ir::Node receiver = ir::unparenthesize(callee.field(field::object));
  if (!receiver.is(kind::identifier) || m.text(receiver) != fn.params[0].name) return {};
  const std::string_view attr = m.text(callee.field(field::attribute));
  const ir::Class& cls = m.classes[static_cast<size_t>(fn.klass)];
  const auto init = cls.methods.find("__init__");
  if (init == cls.methods.end()) return {};
  const ir::Function& ctor = m.functions[static_cast<size_t>(init->second)];
  if (ctor.params.empty()) return {};
  ir::Node found;
  bool ambiguous = false;
  walk_body(ctor, [&](ir::Node n) {
    if (!n.is(kind::assignment)) return true;
    ir::Node left = ir::unparenthesize(n.field(field::left));
    if (!left.is(kind::attribute) || m.text(left.field(field::attribute)) != attr) return true;
    ir::Node owner = ir::unparenthesize(left.field(field::object));
    if (!owner.is(kind::identifier) || m.text(owner) != ctor.params[0].name) return true;
    ambiguous |= bool(found);
    found = ir::unparenthesize(n.field(field::right));
    return true;
  });
  return ambiguous ? ir::Node{} : found;
}

// `self.norm` in a method of a class whose `__init__` assigns `self.norm = torch.nn.K(...)` once
// and nothing else to `self.norm`: K, when it is an allocating module class. The runtime checks
// the class again where it matters (the module may have been replaced since).
std::optional<std::string> allocating_module_class(const ir::Module& m, const ir::Function& fn, ir::Node callee) {
  ir::Node value = sole_init_value(m, fn, callee);
  const auto q = value.is(kind::call) ? m.qualified_name(value.field(field::function)) : std::nullopt;
  if (!q || !q->starts_with("torch.nn.") || !api::has(api::Space::Global, *q, api::Fact::AllocatingModule)) {
    return std::nullopt;
  }
  return q->substr(9);
}

}  // namespace graphmend::analysis
