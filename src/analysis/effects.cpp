#include "graphmend/analysis/effects.h"

#include <fmt/format.h>

#include <set>

#include "graphmend/analysis/api_facts.h"

namespace graphmend::analysis {
namespace {

using std::string_view;

}  // namespace

std::string_view effect_kind_name(EffectKind k) {
  switch (k) {
    case EffectKind::InPlaceMutation: return "in-place mutation";
    case EffectKind::AttributeStore: return "attribute store";
    case EffectKind::SubscriptStore: return "subscript store";
    case EffectKind::GlobalWrite: return "global write";
    case EffectKind::IO: return "I/O";
    case EffectKind::UnknownCall: return "unknown call";
    case EffectKind::MayRaise: return "may raise";
    case EffectKind::ControlTransfer: break;
  }
  return "control transfer";
}

bool is_pure_torch_function(std::string_view q) {
  if (!q.starts_with("torch.")) return false;
  return api::has(api::Space::Global, q, api::Fact::Pure);
}

bool is_pure_tensor_method(std::string_view name) {
  return api::has(api::Space::TensorMethod, name, api::Fact::Pure);
}

std::vector<Effect> effects_of(const ir::Module& m, TypeOracle& types, ir::Node node) {
  std::vector<Effect> out;
  auto add = [&](EffectKind k, ir::Node n, std::string what) { out.push_back({k, n, std::move(what)}); };
  auto store_target = [&](ir::Node target, ir::Node at) {
    target = ir::unparenthesize(target);
    if (target.is(kind::attribute)) {
      add(EffectKind::AttributeStore, at, fmt::format("stores to `{}`", m.text(target)));
    } else if (target.is(kind::subscript)) {
      add(EffectKind::SubscriptStore, at, fmt::format("stores to `{}`", m.text(target)));
    } else if (target.is(kind::identifier)) {
      const int sym = m.lookup_at(target);
      if (sym >= 0) {
        const auto& s = m.symbols[static_cast<size_t>(sym)];
        const auto& scope = m.scopes[static_cast<size_t>(s.scope)];
        const int f = m.function_of(target);
        if (scope.kind == ir::ScopeKind::Module ||
            (f >= 0 && scope.function != f && scope.kind == ir::ScopeKind::Function)) {
          add(EffectKind::GlobalWrite, at, fmt::format("rebinds non-local `{}`", m.text(target)));
        }
      }
    } else {
      for (ir::Node c : target.named_children()) {
        if (!c.is(kind::identifier) && !c.is(kind::attribute) && !c.is(kind::subscript)) continue;
        if (c.is(kind::identifier)) continue;
        add(c.is(kind::attribute) ? EffectKind::AttributeStore : EffectKind::SubscriptStore, at,
            fmt::format("stores to `{}`", m.text(c)));
      }
    }
  };
  syntax::walk(node, [&](ir::Node n) {
    const string_view t = n.type();
    if (t == "function_definition" || t == "class_definition" || t == "lambda") return false;
    if (t == "return_statement" || t == "break_statement" || t == "continue_statement" ||
        t == "yield" || t == "await") {
      add(EffectKind::ControlTransfer, n, fmt::format("`{}`", t.substr(0, t.find('_'))));
    } else if (t == "raise_statement") {
      add(EffectKind::ControlTransfer, n, "`raise`");
      add(EffectKind::MayRaise, n, "raises");
    } else if (t == "assert_statement") {
      add(EffectKind::MayRaise, n, "`assert` may raise");
    } else if (t == "delete_statement" || t == "global_statement" || t == "nonlocal_statement") {
      add(EffectKind::GlobalWrite, n, fmt::format("`{}`", t.substr(0, t.find('_'))));
    } else if (t == "assignment" || t == "augmented_assignment") {
      ir::Node left = n.field("left");
      store_target(left, n);
      if (t == "augmented_assignment" && types.type_of(m, left).tensor_like()) {
        add(EffectKind::InPlaceMutation, n, fmt::format("`{}` updates a tensor in place", m.text(n)));
      }
    } else if (t == "named_expression") {
      store_target(n.field("name"), n);
    } else if (t == "subscript") {
      if (!types.type_of(m, n.field("value")).tensor_like()) {
        add(EffectKind::MayRaise, n, fmt::format("`{}` may raise on a missing key/index", m.text(n)));
      }
    } else if (t == "call") {
      ir::Node fn = ir::unparenthesize(n.field("function"));
      ir::Node args = n.field("arguments");
      if (args) {
        for (ir::Node a : args.named_children()) {
          if (a.is(kind::keyword_argument) && m.text(a.field("name")) == "out") {
            add(EffectKind::InPlaceMutation, n, "writes through `out=`");
          }
        }
      }
      auto q = m.qualified_name(fn);
      if (q && q->find('.') == std::string::npos && m.lookup_at(fn) < 0) {
        if (api::has(api::Space::Global, *q, api::Fact::Io)) {
          add(EffectKind::IO, n, fmt::format("calls `{}`", *q));
        } else if (!api::has(api::Space::Global, *q, api::Fact::Pure)) {
          add(EffectKind::UnknownCall, n, fmt::format("calls `{}`", *q));
        }
        return true;
      }
      if (q && (q->starts_with("logging.") || q->starts_with("warnings.") || q->starts_with("sys.") ||
                q->starts_with("os."))) {
        add(EffectKind::IO, n, fmt::format("calls `{}`", *q));
        return true;
      }
      if (q && is_pure_torch_function(*q)) return true;
      if (fn.is(kind::attribute)) {
        const string_view method = m.text(fn.field("attribute"));
        const bool dunder = method.starts_with("__");
        if (method.ends_with("_") && !dunder) {
          add(EffectKind::InPlaceMutation, n, fmt::format("`{}` mutates in place", m.text(fn)));
          return true;
        }
        ValueType r = types.type_of(m, fn.field("object"));
        if ((r.tensor_like() || r.kind == ValueKind::OptionalTensor) && is_pure_tensor_method(method)) {
          return true;
        }
      }
      add(EffectKind::UnknownCall, n, fmt::format("calls `{}`", m.text(fn)));
    }
    return true;
  });
  return out;
}

}  // namespace graphmend::analysis
