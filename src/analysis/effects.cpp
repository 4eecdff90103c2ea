#include "graphmend/analysis/effects.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/tensor_meta.h"
#include "graphmend/analysis/totality.h"

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

namespace {

// `return` for a return_statement, `yield` for a yield: the statement's keyword, as shown.
std::string keyword_of(ir::Node n) {
  const string_view t = n.type();
  return fmt::format("`{}`", t.substr(0, t.find('_')));
}

// The position of the `inplace` parameter of torch.nn.functional's functions that have one: with
// `inplace=True` they overwrite their input and return it.
std::optional<size_t> inplace_parameter(std::string_view q) {
  static const std::unordered_map<std::string_view, size_t> positions = {
      {"torch.nn.functional.relu", 1},         {"torch.nn.functional.relu6", 1},
      {"torch.nn.functional.selu", 1},         {"torch.nn.functional.silu", 1},
      {"torch.nn.functional.mish", 1},         {"torch.nn.functional.hardswish", 1},
      {"torch.nn.functional.hardsigmoid", 1},  {"torch.nn.functional.elu", 2},
      {"torch.nn.functional.celu", 2},         {"torch.nn.functional.leaky_relu", 2},
      {"torch.nn.functional.hardtanh", 3},     {"torch.nn.functional.threshold", 3},
      {"torch.nn.functional.rrelu", 4},        {"torch.nn.functional.dropout", 3},
      {"torch.nn.functional.alpha_dropout", 3}, {"torch.nn.functional.feature_alpha_dropout", 3},
      {"torch.nn.functional.dropout1d", 3},    {"torch.nn.functional.dropout2d", 3},
      {"torch.nn.functional.dropout3d", 3},
  };
  const auto it = positions.find(q);
  if (it == positions.end()) return std::nullopt;
  return it->second;
}

}  // namespace

namespace {

constexpr int kMaxCallDepth = 3;  // user functions summarised through at most this many calls

std::vector<Effect> shape_raises_within(const ir::Module& m, TypeOracle& types, ir::Node node, int depth);

// A call of a function of the analysed files whose body may raise on what it is given: every
// operation in it must be total, since the dtype checks a rewrite adds are made on the caller's
// names (nullopt when the callee is not one graphmend summarises; effects_of declines those).
std::optional<Effect> user_call_raises(const ir::Module& m, TypeOracle& types, ir::Node call, int depth) {
  const ir::Node fn = ir::unparenthesize(call.field(field::function));
  if (!fn.is(kind::identifier) && !fn.is(kind::attribute)) return std::nullopt;
  const auto callee = types.project().function_of_expr(m, fn);
  if (!callee) return std::nullopt;
  const ir::Module& cm = *callee->module;
  cm.ensure_built();
  const ir::Function& f = cm.functions[static_cast<size_t>(callee->function)];
  if (depth >= kMaxCallDepth) {
    return Effect{EffectKind::MayRaise, call, fmt::format("`{}` may raise (calls nested too deep to prove)", ir::snippet(m, call))};
  }
  const std::vector<Effect> inside = shape_raises_within(cm, types, f.node.field(field::body), depth + 1);
  if (inside.empty()) return std::nullopt;
  return Effect{EffectKind::MayRaise, call, fmt::format("calls `{}`; inside it, {}", m.text(fn), inside.front().what)};
}

std::vector<Effect> shape_raises_within(const ir::Module& m, TypeOracle& types, ir::Node node, int depth) {
  std::vector<Effect> out;
  auto tensor = [&](ir::Node e) {
    const ValueType t = types.type_of(m, e);
    return t.tensor_or_optional();
  };
  // A value that may hold a tensor: anything the oracle does not know as a non-tensor (it types
  // literals Static or None).
  auto maybe_tensor = [&](ir::Node e) {
    const ValueKind k = types.type_of(m, e).kind;
    return k != ValueKind::Static && k != ValueKind::None && k != ValueKind::Module && k != ValueKind::DataScalar;
  };
  // Two operands that may both be tensors, one of them surely.
  auto may_broadcast = [&](ir::Node a, ir::Node b) { return (tensor(a) && maybe_tensor(b)) || (tensor(b) && maybe_tensor(a)); };
  // Two tensors of one shape, or one of them 0-d: elementwise, they always broadcast. A 0-d
  // tensor (a full reduction, `h.norm()`) broadcasts with every shape, so the other operand's
  // shape need not be known: whatever it is, the shapes cannot make the operation raise (what
  // it is, a tensor or a number, is the dtype checks' business: totality_of).
  auto broadcast_total = [&](ir::Node a, ir::Node b) {
    const MetaFacts none;
    const TensorMeta ma = tensor_meta(m, types, a, none);
    const TensorMeta mb = tensor_meta(m, types, b, none);
    const auto zero_d = [](const TensorMeta& t) { return t.tensor && t.shape_known && t.shape_roots.empty(); };
    if (zero_d(ma) || zero_d(mb)) return true;
    return ma.tensor && mb.tensor && ma.shape_known && mb.shape_known && ma.shape_roots == mb.shape_roots;
  };
  auto broadcasting = [&](ir::Node n) {
    out.push_back({EffectKind::MayRaise, n, fmt::format("`{}` may raise on its operands' shapes (broadcasting)", ir::snippet(m, n))});
  };
  syntax::walk(node, [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    const size_t before = out.size();
    if (n.is(kind::binary_operator)) {
      const ir::Node l = ir::unparenthesize(n.field(field::left));
      const ir::Node r = ir::unparenthesize(n.field(field::right));
      const bool matmul = m.text(n.field(field::operator_)) == "@";
      // `h * h`: one value, one shape (`h @ h` still needs `h` square).
      if (!matmul && l.is(kind::identifier) && r.is(kind::identifier) && m.text(l) == m.text(r)) return true;
      if (matmul ? (tensor(l) || tensor(r)) : may_broadcast(l, r) && !broadcast_total(l, r)) broadcasting(n);
    } else if (n.is(kind::comparison_operator)) {
      const std::vector<ir::Node> operands = n.named_children();
      for (size_t i = 0; i + 1 < operands.size(); ++i) {
        if (may_broadcast(operands[i], operands[i + 1]) && !broadcast_total(operands[i], operands[i + 1])) {
          broadcasting(n);
          break;
        }
      }
    } else if (n.is(kind::call)) {
      // `torch.mul(a, b)`, `a.add(b)`, `torch.cat([a, b])`: a call that combines two values
      // that may be tensors, one of them surely, may raise on their shapes as `a * b` does.
      const ir::Node callee = ir::unparenthesize(n.field(field::function));
      std::vector<ir::Node> operands;
      if (callee.is(kind::attribute)) operands.push_back(ir::unparenthesize(callee.field(field::object)));
      bool splat = false;
      if (const ir::Node args = n.field(field::arguments); args && args.is(kind::argument_list)) {
        for (ir::Node a : args.named_children()) {
          if (a.is(kind::comment)) continue;
          if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
            splat = true;
            continue;
          }
          ir::Node value = ir::unparenthesize(a.is(kind::keyword_argument) ? a.field(field::value) : a);
          if (value.is(kind::list) || value.is(kind::tuple)) {
            for (ir::Node element : value.named_children()) {
              if (!element.is(kind::comment)) operands.push_back(ir::unparenthesize(element));
            }
          } else {
            operands.push_back(value);
          }
        }
      }
      // Unlike an operator's operand, an argument of unknown type counts only when it is
      // known to be tensor-like: calls take many Python values (dims, bounds, sizes) that the
      // oracle cannot type, where an operator's other operand is a tensor or a number.
      const bool sure = std::any_of(operands.begin(), operands.end(), [&](ir::Node o) { return tensor(o); });
      const auto tensors = std::count_if(operands.begin(), operands.end(), [&](ir::Node o) {
        const ValueType t = types.type_of(m, o);
        return t.tensor_or_optional() || t.kind == ValueKind::TensorTuple;
      });
      if (sure && (tensors >= 2 || splat)) {
        out.push_back({EffectKind::MayRaise, n,
                       fmt::format("`{}` may raise on its tensors' shapes (they must broadcast or match)",
                                   ir::snippet(m, n))});
      }
    } else if (n.is(kind::subscript) && tensor(n.field(field::value))) {
      out.push_back({EffectKind::MayRaise, n,
                     fmt::format("`{}` may raise on the tensor's shape (an index out of range or too many)", ir::snippet(m, n))});
    }
    if (out.size() != before) return true;
    // A function of the analysed files: every operation in its body must be total.
    if (n.is(kind::call)) {
      if (std::optional<Effect> inside = user_call_raises(m, types, n, depth)) {
        out.push_back(std::move(*inside));
        return true;
      }
    }
    // One tensor's operation. At the top, the rewrite's dtype_preconditions
    // (rewrite/where_parts.h) reports it, after the reasons that no selection applies, and checks
    // dtypes on the caller's names; inside a called function it must be total outright.
    if (depth == 0) return true;
    if (const std::optional<Totality> t = totality_of(m, types, n)) {
      if (t->kind == Totality::Kind::MayRaise) {
        out.push_back({EffectKind::MayRaise, n, t->why});
      } else if (!t->numbers.empty()) {
        out.push_back({EffectKind::MayRaise, n, number_demand(m, n, t->numbers.front())});
      } else if (t->kind != Totality::Kind::Total) {
        out.push_back({EffectKind::MayRaise, n, tensor_demand(m, n, *t)});
      }
    }
    return true;
  });
  return out;
}

}  // namespace

std::vector<Effect> shape_raises_of(const ir::Module& m, TypeOracle& types, ir::Node node) {
  return shape_raises_within(m, types, node, 0);
}

bool is_pure_torch_function(std::string_view q) {
  if (!q.starts_with("torch.")) return false;
  return api::has(api::Space::Global, q, api::Fact::Pure);
}

bool is_pure_tensor_method(std::string_view name) {
  return api::has(api::Space::TensorMethod, name, api::Fact::Pure);
}

namespace {

std::vector<Effect> effects_within(const ir::Module& m, TypeOracle& types, ir::Node node, int depth);


// The effects of calling a function of the analysed files, as its body shows them (issue 16,
// item 3): nullopt when they cannot be known. Only a module-level function bound once (by its
// `def`, or an import of one), undecorated, can be summarised: a method may be overridden and a
// decorator may wrap it. Its `return`s, and `break`s and `continue`s of its own loops, stay
// inside it. Its body was typed for every call at once (a parameter is a tensor if some compiled
// call passes one), so this call must pass what the body assumed: a proven tensor where it
// takes a tensor, a static value where it takes one.
std::optional<std::vector<Effect>> user_call_effects(const ir::Module& m, TypeOracle& types, ir::Node call, int depth) {
  if (depth >= kMaxCallDepth) return std::nullopt;
  ir::Node fn = ir::unparenthesize(call.field(field::function));
  if (!fn.is(kind::identifier) && !fn.is(kind::attribute)) return std::nullopt;
  if (fn.is(kind::identifier)) {
    const int sym = m.lookup_at(fn);
    if (sym < 0 || m.symbols[static_cast<size_t>(sym)].bindings.size() != 1) return std::nullopt;
  }
  const auto callee = types.project().function_of_expr(m, fn);
  if (!callee) return std::nullopt;
  const ir::Module& cm = *callee->module;
  cm.ensure_built();
  const ir::Function& f = cm.functions[static_cast<size_t>(callee->function)];
  if (f.klass >= 0 || f.enclosing_function >= 0 || !f.decorators.empty()) return std::nullopt;
  if (const auto it = cm.scopes[0].symbols.find(f.name);
      it == cm.scopes[0].symbols.end() || cm.symbols[static_cast<size_t>(it->second)].bindings.size() != 1) {
    return std::nullopt;
  }
  for (const ir::Parameter& p : f.params) {
    if (p.kind == ir::Parameter::Kind::VarArgs || p.kind == ir::Parameter::Kind::VarKeyword) return std::nullopt;
  }
  bool matches = true;
  const bool complete = for_each_argument(types.project(), m, call, *callee, false, [&](int i, ir::Node argument) {
    const ValueType assumed = types.parameter_type(cm, callee->function, static_cast<size_t>(i));
    const ValueType passed = types.type_of(m, argument);
    if (assumed.tensor_or_optional()) {
      matches &= passed.kind == ValueKind::Tensor;
    } else if (assumed.kind == ValueKind::Static) {
      matches &= passed.kind == ValueKind::Static;
    }
  });
  if (!complete || !matches) return std::nullopt;
  std::vector<Effect> inside;
  for (Effect& e : effects_within(cm, types, f.node.field(field::body), depth + 1)) {
    if (e.kind == EffectKind::ControlTransfer &&
        (e.node.is(kind::return_statement) || e.node.is(kind::break_statement) || e.node.is(kind::continue_statement))) {
      continue;
    }
    inside.push_back({e.kind, call, fmt::format("calls `{}`; inside it, {}", m.text(fn), e.what)});
  }
  return inside;
}

}  // namespace

std::vector<Effect> effects_of(const ir::Module& m, TypeOracle& types, ir::Node node) {
  return effects_within(m, types, node, 0);
}

namespace {

std::vector<Effect> effects_within(const ir::Module& m, TypeOracle& types, ir::Node node, int depth) {
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
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (n.is(kind::return_statement) || n.is(kind::break_statement) || n.is(kind::continue_statement) ||
        n.is(kind::yield) || n.is(kind::await)) {
      add(EffectKind::ControlTransfer, n, keyword_of(n));
    } else if (n.is(kind::raise_statement)) {
      add(EffectKind::ControlTransfer, n, "`raise`");
      add(EffectKind::MayRaise, n, "raises");
    } else if (n.is(kind::assert_statement)) {
      add(EffectKind::MayRaise, n, "`assert` may raise");
    } else if (n.is(kind::delete_statement) || n.is(kind::global_statement) || n.is(kind::nonlocal_statement)) {
      add(EffectKind::GlobalWrite, n, keyword_of(n));
    } else if (n.is(kind::assignment) || n.is(kind::augmented_assignment)) {
      ir::Node left = n.field(field::left);
      store_target(left, n);
      if (n.is(kind::augmented_assignment) && types.type_of(m, left).tensor_like()) {
        add(EffectKind::InPlaceMutation, n, fmt::format("`{}` updates a tensor in place", m.text(n)));
      }
    } else if (n.is(kind::named_expression)) {
      store_target(n.field(field::name), n);
    } else if (n.is(kind::subscript)) {
      if (!types.type_of(m, n.field(field::value)).tensor_like()) {
        add(EffectKind::MayRaise, n, fmt::format("`{}` may raise on a missing key/index", m.text(n)));
      }
    } else if (n.is(kind::call)) {
      ir::Node fn = ir::unparenthesize(n.field(field::function));
      ir::Node args = n.field(field::arguments);
      auto q = m.qualified_name(fn);
      const std::optional<size_t> inplace_position = q ? inplace_parameter(*q) : std::nullopt;
      if (args) {
        size_t positional = 0;
        bool splat = false;
        for (ir::Node a : args.named_children()) {
          if (a.is(kind::comment)) continue;
          splat |= a.is(kind::list_splat) || a.is(kind::dictionary_splat);
          if (!a.is(kind::keyword_argument)) {
            ++positional;
            continue;
          }
          const string_view name = m.text(a.field(field::name));
          if (name == "out") add(EffectKind::InPlaceMutation, n, "writes through `out=`");
          if (name == "inplace" && !ir::unparenthesize(a.field(field::value)).is(kind::false_)) {
            add(EffectKind::InPlaceMutation, n, fmt::format("`{}` may update its input in place (`inplace=`)", m.text(fn)));
          }
        }
        // `F.relu(h, True)`: the flag passed by position (or a splat that may hold it).
        if (inplace_position && (positional > *inplace_position || splat)) {
          add(EffectKind::InPlaceMutation, n, fmt::format("`{}` may update its input in place (`inplace` by position)", m.text(fn)));
        }
      }
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
        const string_view method = m.text(fn.field(field::attribute));
        const bool dunder = method.starts_with("__");
        if (method.ends_with("_") && !dunder) {
          add(EffectKind::InPlaceMutation, n, fmt::format("`{}` mutates in place", m.text(fn)));
          return true;
        }
        ValueType r = types.type_of(m, fn.field(field::object));
        if (r.tensor_or_optional() && is_pure_tensor_method(method)) {
          return true;
        }
      }
      if (auto summary = user_call_effects(m, types, n, depth)) {
        out.insert(out.end(), summary->begin(), summary->end());
        return true;
      }
      add(EffectKind::UnknownCall, n, fmt::format("calls `{}`", m.text(fn)));
    }
    return true;
  });
  return out;
}

}  // namespace

}  // namespace graphmend::analysis
