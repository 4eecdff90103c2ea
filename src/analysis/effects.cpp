#include "graphmend/analysis/effects.h"

#include <fmt/format.h>

#include <set>

namespace graphmend::analysis {
namespace {

using std::string_view;

const std::set<string_view> kPureTorch = {
    "abs", "acos", "add", "addcmul", "addcdiv", "all", "amax", "amin", "any", "arange",
    "argmax", "argmin", "as_tensor", "asin", "atan", "atan2", "bmm", "cat", "ceil", "clamp",
    "clamp_max", "clamp_min", "clip", "clone", "concat", "cos", "cosh", "cumsum", "cumprod",
    "div", "einsum", "empty", "empty_like", "eq", "equal", "erf", "exp", "expm1", "eye", "finfo", "flatten",
    "floor", "full", "full_like", "ge", "gt", "iinfo", "isfinite", "isinf", "isnan", "le",
    "lerp", "linspace", "log", "log10", "log1p", "log2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "lt", "masked_fill", "matmul", "max", "maximum", "mean", "min",
    "minimum", "mm", "mul", "ne", "neg", "ones", "ones_like", "outer", "permute", "pow", "prod",
    "reciprocal", "relu", "reshape", "round", "rsqrt", "sigmoid", "sign", "sin", "sinh",
    "softmax", "sqrt", "square", "squeeze", "stack", "std", "sub", "sum", "tanh", "tensor",
    "transpose", "tril", "triu", "trunc", "unsqueeze", "var", "where", "zeros", "zeros_like",
    "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu", "nn.functional.softmax",
    "nn.functional.log_softmax", "nn.functional.sigmoid", "nn.functional.tanh",
    "nn.functional.dropout", "nn.functional.linear", "nn.functional.layer_norm",
    "nn.functional.pad", "nn.functional.normalize"};

const std::set<string_view> kPureMethods = {
    "abs", "add", "all", "amax", "amin", "any", "argmax", "argmin", "bool", "ceil", "clamp",
    "clamp_max", "clamp_min", "clone", "contiguous", "cos", "cumsum", "detach", "div",
    "double", "eq", "exp", "expand", "expand_as", "flatten", "float", "floor", "ge", "gt",
    "half", "bfloat16", "int", "isinf", "isnan", "isfinite", "le", "log", "long", "lt",
    "masked_fill", "matmul", "max", "mean", "min", "mul", "ne", "neg", "new_ones", "new_zeros",
    "new_full", "new_empty", "permute", "pow", "reshape", "round", "rsqrt", "sigmoid", "sign",
    "sin", "size", "softmax", "sqrt", "square", "squeeze", "std", "sub", "sum", "tanh", "to",
    "transpose", "type_as", "unsqueeze", "var", "view", "view_as", "reshape_as", "dim", "numel",
    "logical_and", "logical_or", "logical_not", "norm", "prod", "reciprocal", "tril", "triu"};

const std::set<string_view> kPureBuiltins = {"len", "isinstance", "min", "max", "abs", "int",
                                             "float", "bool", "tuple", "list", "range", "getattr",
                                             "hasattr", "str", "sum", "dict", "set", "zip",
                                             "enumerate", "type", "round"};

const std::set<string_view> kIoBuiltins = {"print", "input", "open", "exec", "eval", "breakpoint"};

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
  return kPureTorch.contains(q.substr(6));
}

bool is_pure_tensor_method(std::string_view name) { return kPureMethods.contains(name); }

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
        if (kIoBuiltins.contains(*q)) {
          add(EffectKind::IO, n, fmt::format("calls `{}`", *q));
        } else if (!kPureBuiltins.contains(*q)) {
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
