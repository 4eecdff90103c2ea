#include "graphmend/analysis/tensor_meta.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/init_modules.h"
#include "graphmend/analysis/totality.h"

namespace graphmend::analysis {

namespace {

using std::string_view;
using Dtype = TensorMeta::Dtype;

constexpr int kMaxDepth = 24;

// The canonical spelling of a dtype, or "" when `q` names none.
std::string dtype_name(string_view q) {
  static const std::pair<string_view, string_view> kAliases[] = {
      {"torch.bfloat16", "torch.bfloat16"}, {"torch.bool", "torch.bool"},       {"torch.double", "torch.float64"},
      {"torch.float", "torch.float32"},     {"torch.float16", "torch.float16"}, {"torch.float32", "torch.float32"},
      {"torch.float64", "torch.float64"},   {"torch.half", "torch.float16"},    {"torch.int", "torch.int32"},
      {"torch.int16", "torch.int16"},       {"torch.int32", "torch.int32"},     {"torch.int64", "torch.int64"},
      {"torch.int8", "torch.int8"},         {"torch.long", "torch.int64"},      {"torch.short", "torch.int16"},
      {"torch.uint8", "torch.uint8"},
  };
  for (const auto& [alias, name] : kAliases) {
    if (alias == q) return std::string(name);
  }
  return {};
}

ScalarCategory category_of_dtype(string_view dtype) {
  if (dtype == "torch.bool") return ScalarCategory::Bool;
  if (dtype.starts_with("torch.float") || dtype == "torch.bfloat16") return ScalarCategory::Float;
  if (dtype.starts_with("torch.int") || dtype == "torch.uint8") return ScalarCategory::Int;
  return ScalarCategory::Unknown;
}

TensorMeta unknown_tensor(std::string why) {
  TensorMeta t;
  t.tensor = true;
  t.why_not_grad_safe = std::move(why);
  return t;
}

class MetaWalker {
 public:
  MetaWalker(const ir::Module& m, TypeOracle& types, const MetaFacts& facts) : m_(m), types_(types), facts_(facts) {}

  TensorMeta visit(ir::Node e, int depth) {
    e = ir::unparenthesize(e);
    if (!e || depth > kMaxDepth) return unknown_tensor("the expression nests too deeply");
    if (e.is(kind::identifier)) {
      if (facts_.local_value) {
        if (const ir::Node value = facts_.local_value(e)) return visit(value, depth + 1);
      }
      return root(e, depth);
    }
    if (e.is(kind::attribute)) {
      if (attribute_chain(e)) return root(e, depth);
      return unknown_tensor(fmt::format("`{}` is not a tensor graphmend follows", ir::snippet(m_, e)));
    }
    if (e.is(kind::call)) return call(e, depth);
    if (e.is(kind::named_expression)) return visit(e.field(field::value), depth + 1);  // `(m := v)` is v
    if (e.is(kind::conditional_expression) && e.named_child_count() == 3) return conditional(e, depth);
    if (e.is(kind::binary_operator)) return binary(e, depth);
    if (e.is(kind::comparison_operator)) return comparison(e, depth);
    if (e.is(kind::unary_operator)) {
      TensorMeta t = visit(e.field(field::argument), depth + 1);
      if (!t.tensor) return t;
      const string_view op = m_.text(e.field(field::operator_));
      if (op == "~") t.zero_grad_safe = true;  // booleans and integers carry no gradient
      return t;  // `-x` and `+x` keep shape, dtype and device; the backward negates
    }
    TensorMeta none;
    if (types_.type_of(m_, e).tensor_like()) return unknown_tensor(fmt::format("`{}`", ir::snippet(m_, e)));
    return none;
  }

 private:
  // `a.b.c`: an attribute chain on a name, read as one root.
  static bool attribute_chain(ir::Node e) {
    while (e.is(kind::attribute)) e = ir::unparenthesize(e.field(field::object));
    return e.is(kind::identifier);
  }

  TensorMeta root(ir::Node e, int depth) {
    const ValueType t = types_.type_of(m_, e);
    TensorMeta out;
    // A proven tensor is a root; one the code only uses as a tensor (or an Optional one) is a
    // root once checked, and says so.
    if (!t.tensor_or_optional()) return out;
    std::string name;
    for (char c : m_.text(e)) {
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') name += c;
    }
    out.tensor = true;
    if (t.kind != ValueKind::Tensor) out.unproven_roots = {name};
    out.shape_known = true;
    out.shape_roots = {name};
    out.dtype = t.bool_tensor ? Dtype::Fixed : Dtype::OfRoot;
    if (t.bool_tensor) {
      out.fixed_dtype = "torch.bool";
    } else {
      out.dtype_root = name;
    }
    out.device_known = true;
    out.device_roots = {name};
    out.zero_grad_safe = true;
    out.cheap = true;
    if (!t.bool_tensor) out.grad_reads = {name};
    // The dtype its one reaching definition gives it (`x = x.float()`): shapes and devices stay
    // named by the root, which is what candidates compare.
    if (e.is(kind::identifier) && out.dtype == Dtype::OfRoot && !facts_.floating_roots.contains(name)) {
      const auto reaching = m_.ordered_reaching_bindings(e);
      if (reaching && reaching->size() == 1) {
        const ir::Binding& b = m_.bindings[static_cast<size_t>(reaching->front())];
        if (b.kind == ir::BindingKind::Assignment && b.value && !b.value.range().contains(e.range())) {
          const ir::Node value = ir::unparenthesize(b.value);
          const int fi = m_.function_of(e);
          if (value.is(kind::call) && fi >= 0 &&
              allocating_module_class(m_, m_.functions[static_cast<size_t>(fi)], value.field(field::function))) {
            out.floating = true;
          }
          const TensorMeta def = visit(b.value, depth + 1);
          if (def.tensor && def.dtype != Dtype::Unknown) {
            out.dtype = def.dtype;
            out.fixed_dtype = def.fixed_dtype;
            out.dtype_root = def.dtype_root;
            out.scalar = def.scalar;
          }
        }
      }
    }
    return out;
  }

  // Combines tensor operands elementwise: shapes and devices broadcast, dtypes by `rule` with the
  // Python scalars' category `scalar`.
  static TensorMeta elementwise(const std::vector<TensorMeta>& operands, api::OpMeta::Dtype rule, ScalarCategory scalar,
                                string_view fixed) {
    TensorMeta out;
    out.tensor = true;
    out.shape_known = true;
    out.device_known = true;
    out.zero_grad_safe = true;
    out.cheap = true;
    for (const TensorMeta& t : operands) {
      out.shape_known &= t.shape_known;
      out.shape_roots.insert(t.shape_roots.begin(), t.shape_roots.end());
      out.device_known &= t.device_known;
      out.device_roots.insert(t.device_roots.begin(), t.device_roots.end());
      out.zero_grad_safe &= t.zero_grad_safe;
      out.cheap &= t.cheap;
      out.grad_reads.insert(t.grad_reads.begin(), t.grad_reads.end());
      out.unproven_roots.insert(t.unproven_roots.begin(), t.unproven_roots.end());
      if (out.why_not_grad_safe.empty()) out.why_not_grad_safe = t.why_not_grad_safe;
    }
    if (!out.shape_known) out.shape_roots.clear();
    if (!out.device_known) out.device_roots.clear();
    using R = api::OpMeta::Dtype;
    switch (rule) {
      case R::Bool:
        out.dtype = Dtype::Fixed;
        out.fixed_dtype = "torch.bool";
        return out;
      case R::Fixed:
        out.dtype = Dtype::Fixed;
        out.fixed_dtype = std::string(fixed);
        return out;
      default:
        break;
    }
    if (operands.empty()) return out;
    // Same, FloatOrSame, SumLike: the first operand's; Promote: every operand's, when they agree.
    TensorMeta first = operands.front();
    for (size_t i = 1; rule == R::Promote && i < operands.size(); ++i) {
      const TensorMeta& t = operands[i];
      if (t.dtype != first.dtype || t.fixed_dtype != first.fixed_dtype || t.dtype_root != first.dtype_root) {
        first.dtype = Dtype::Unknown;
      } else {
        first.scalar = std::max(first.scalar, t.scalar);
      }
    }
    ScalarCategory promote = rule == R::FloatOrSame ? ScalarCategory::Float : rule == R::Promote ? scalar
                                                                                                 : ScalarCategory::None;
    out.dtype = first.dtype;
    out.fixed_dtype = first.fixed_dtype;
    out.dtype_root = first.dtype_root;
    out.scalar = std::max(first.scalar, promote);
    out.floating = first.floating || rule == R::FloatOrSame;
    if (out.dtype == Dtype::Fixed) {
      const ScalarCategory own = category_of_dtype(out.fixed_dtype);
      if (rule == R::SumLike && own != ScalarCategory::Float) {
        out.fixed_dtype = "torch.int64";
      } else if (out.scalar > own || own == ScalarCategory::Unknown) {
        // Promoted past its category: bool with an int is int64; to float, the default dtype,
        // which a program may change.
        if (own == ScalarCategory::Bool && out.scalar == ScalarCategory::Int) {
          out.fixed_dtype = "torch.int64";
        } else {
          out.dtype = Dtype::Unknown;
        }
      }
      out.scalar = ScalarCategory::None;
    } else if (out.dtype == Dtype::OfRoot && rule == R::SumLike) {
      out.scalar = std::max(out.scalar, ScalarCategory::Float);  // exact only for a floating root
    }
    if (out.scalar == ScalarCategory::Unknown) out.dtype = Dtype::Unknown;
    return out;
  }

  // A result no gradient flows through: booleans, integers, a detached tensor.
  static void no_grad_result(TensorMeta& t) {
    if (t.dtype == Dtype::Fixed && category_of_dtype(t.fixed_dtype) != ScalarCategory::Float) t.grad_reads.clear();
  }

  static void not_grad_safe(TensorMeta& t, std::string why) {
    if (t.zero_grad_safe) t.why_not_grad_safe = std::move(why);
    t.zero_grad_safe = false;
  }

  TensorMeta call(ir::Node e, int depth) {
    const ir::Node fn = ir::unparenthesize(e.field(field::function));
    const ir::Node arglist = e.field(field::arguments);
    if (!arglist || !arglist.is(kind::argument_list)) return opaque(e);
    std::vector<ir::Node> positional;
    std::vector<std::pair<string_view, ir::Node>> keywords;
    for (ir::Node a : ir::children_without_comments(arglist)) {
      if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) return opaque(e);
      if (a.is(kind::keyword_argument)) {
        keywords.emplace_back(m_.text(a.field(field::name)), a.field(field::value));
      } else {
        positional.push_back(a);
      }
    }
    std::string key;
    std::vector<ir::Node> operands;
    if (fn.is(kind::attribute) && types_.type_of(m_, fn.field(field::object)).tensor_or_optional()) {
      const string_view method = m_.text(fn.field(field::attribute));
      const ir::Node receiver = fn.field(field::object);
      if (method == "to" || method == "type") return cast(e, receiver, positional, keywords, depth);
      key = fmt::format("Tensor.{}", method);
      operands.push_back(receiver);
    } else if (const auto q = m_.qualified_name(fn)) {
      key = *q;
    } else {
      return opaque(e);
    }
    if (key == "torch.ones" || key == "torch.zeros") return factory(e, key, positional, keywords, depth);
    const api::OpMeta* op = api::op_meta(key);
    if (!op) return opaque(e);
    if (op->shape == api::OpMeta::Shape::FullReduction &&
        (operands.size() + positional.size() != 1 || !keywords.empty())) {
      return opaque(e);  // a dimension, a dtype, an `out=`: not the full reduction this knows
    }
    ScalarCategory scalar = ScalarCategory::None;
    std::vector<TensorMeta> metas;
    for (ir::Node a : operands) metas.push_back(visit(a, depth + 1));
    if (op->shape == api::OpMeta::Shape::FullReduction && (metas.empty() ? positional.size() : metas.size()) == 1) {
      // Whatever tensor it reduces (its call would raise on anything else), the result is 0-d.
      const TensorMeta operand = metas.empty() ? visit(positional[0], depth + 1) : metas[0];
      if (operand.tensor && !operand.shape_known) {
        TensorMeta out = unknown_tensor(operand.why_not_grad_safe);
        out.shape_known = true;
        if (op->dtype == api::OpMeta::Dtype::Bool) {
          out.dtype = Dtype::Fixed;
          out.fixed_dtype = "torch.bool";
        }
        return out;
      }
    }
    auto argument = [&](ir::Node a) -> bool {
      if (is_python_number(m_, a)) {
        scalar = std::max(scalar, python_scalar_category(m_, a));
        return true;
      }
      if (static_value(a)) {
        scalar = std::max(scalar, annotated_category(a));
        return true;
      }
      if (ir::unparenthesize(a).is(kind::none)) return true;  // `clamp(x, min=None)`
      TensorMeta t = visit(a, depth + 1);
      if (!t.tensor) return false;
      metas.push_back(std::move(t));
      return true;
    };
    for (ir::Node a : positional) {
      if (!argument(a)) return opaque(e);
    }
    for (const auto& [name, value] : keywords) {
      if (!argument(value)) return opaque(e);
    }
    if (metas.empty()) return opaque(e);
    if (key == "Tensor.type_as") {
      if (metas.size() != 2) return opaque(e);
      TensorMeta out = metas[0];
      out.dtype = metas[1].dtype;
      out.fixed_dtype = metas[1].fixed_dtype;
      out.dtype_root = metas[1].dtype_root;
      out.scalar = metas[1].scalar;
      no_grad_result(out);
      return out;
    }
    TensorMeta out = elementwise(metas, op->dtype, scalar, op->fixed_dtype);
    if (op->shape == api::OpMeta::Shape::FullReduction) out.shape_roots.clear();
    if (key == "Tensor.detach" || key.ends_with("_like")) out.grad_reads.clear();  // no gradient flows back
    no_grad_result(out);
    if (!op->zero_grad_safe) not_grad_safe(out, fmt::format("`{}`", key.starts_with("Tensor.") ? key.substr(7) : key));
    return out;
  }

  // `t.to(dtype)`, `t.to(device)`, `t.to(device, dtype)`, `t.type(dtype)`.
  TensorMeta cast(ir::Node e, ir::Node receiver, const std::vector<ir::Node>& positional,
                  const std::vector<std::pair<string_view, ir::Node>>& keywords, int depth) {
    TensorMeta out = visit(receiver, depth + 1);
    if (!out.tensor) return opaque(e);
    std::string to_dtype;
    bool to_device = false;
    auto read = [&](ir::Node v, string_view name) {
      const auto q = m_.qualified_name(ir::unparenthesize(v));
      const std::string d = q ? dtype_name(*q) : "";
      if (!d.empty() && (name.empty() || name == "dtype")) {
        to_dtype = d;
      } else if (name == "non_blocking" || name == "copy") {
        return;
      } else {
        to_device = true;
      }
    };
    for (ir::Node a : positional) read(a, "");
    for (const auto& [name, value] : keywords) read(value, name);
    if (to_device) {
      out.device_known = false;
      out.device_roots.clear();
    }
    if (!to_dtype.empty()) {
      out.dtype = Dtype::Fixed;
      out.fixed_dtype = to_dtype;
      out.dtype_root.clear();
      out.scalar = ScalarCategory::None;
      no_grad_result(out);
    } else if (!to_device) {
      return opaque(e);
    }
    return out;
  }

  TensorMeta binary(ir::Node e, int depth) {
    const string_view op = m_.text(e.field(field::operator_));
    const ir::Node l = e.field(field::left);
    const ir::Node r = e.field(field::right);
    const bool lnum = is_python_number(m_, l);
    const bool rnum = is_python_number(m_, r);
    if (lnum && rnum) return TensorMeta{};
    if (op == "@") {
      TensorMeta t = unknown_tensor("`@`");
      return t;
    }
    std::vector<TensorMeta> metas;
    ScalarCategory scalar = ScalarCategory::None;
    ir::Node number;
    for (ir::Node side : {l, r}) {
      if (is_python_number(m_, side)) {
        scalar = std::max(scalar, python_scalar_category(m_, side));
        number = side;
        continue;
      }
      if (static_value(side)) {  // a Python value of a type graphmend does not follow (`limit: float`)
        scalar = std::max(scalar, annotated_category(side));
        continue;
      }
      TensorMeta t = visit(side, depth + 1);
      if (!t.tensor) return t.shape_known || t.dtype != Dtype::Unknown ? unknown_tensor("") : TensorMeta{};
      metas.push_back(std::move(t));
    }
    const bool bitwise = op == "&" || op == "|" || op == "^";
    if (op == "/") scalar = std::max(scalar, ScalarCategory::Float);  // true division
    TensorMeta out = elementwise(metas, bitwise ? api::OpMeta::Dtype::Same : api::OpMeta::Dtype::Promote, scalar, {});
    if (metas.size() == 2 && !bitwise) {
      // Two tensors: equal dtypes stay; anything else is a promotion this does not follow.
      const TensorMeta& a = metas[0];
      const TensorMeta& b = metas[1];
      if (a.dtype != b.dtype || a.fixed_dtype != b.fixed_dtype || a.dtype_root != b.dtype_root) out.dtype = Dtype::Unknown;
    }
    // Gradients: `+` and `-` pass the gradient on; `*` and `/` scale it by the other operand,
    // exact zero only when that cannot be inf or NaN (a finite Python number, a bool or integer
    // tensor); `**` multiplies it by a power of the input.
    if (op == "*" || op == "/") {
      bool finite_other = false;
      if (number) {
        finite_other = is_finite_python_number(m_, number) && !(op == "/" && m_.text(ir::unparenthesize(number)) == "0");
      } else if (metas.size() == 2) {
        for (const TensorMeta& t : metas) {
          finite_other |= t.dtype == Dtype::Fixed && category_of_dtype(t.fixed_dtype) != ScalarCategory::Float &&
                          category_of_dtype(t.fixed_dtype) != ScalarCategory::Unknown;
        }
        finite_other &= op == "*";
      }
      if (!finite_other) not_grad_safe(out, fmt::format("`{}`", ir::snippet(m_, e)));
    } else if (op == "**" || op == "//" || op == "%") {
      not_grad_safe(out, fmt::format("`{}`", ir::snippet(m_, e)));
    } else if (op != "+" && op != "-" && !bitwise) {
      not_grad_safe(out, fmt::format("`{}`", ir::snippet(m_, e)));
    }
    return out;
  }

  TensorMeta comparison(ir::Node e, int depth) {
    const std::vector<ir::Node> operands = e.named_children();
    if (operands.size() != 2) return unknown_tensor("");
    const string_view between = m_.text().substr(operands[0].end(), operands[1].start() - operands[0].end());
    if (between.find(" is") != string_view::npos || between.find(" in") != string_view::npos) return TensorMeta{};
    std::vector<TensorMeta> metas;
    for (ir::Node side : operands) {
      if (is_python_number(m_, side) || static_value(side)) continue;
      TensorMeta t = visit(side, depth + 1);
      if (!t.tensor) return TensorMeta{};
      metas.push_back(std::move(t));
    }
    if (metas.empty()) return TensorMeta{};
    TensorMeta out = elementwise(metas, api::OpMeta::Dtype::Bool, ScalarCategory::None, {});
    out.grad_reads.clear();
    return out;
  }

  // `a if c else b` on a Python test (`m is None`): the metadata both sides share, when they do.
  TensorMeta conditional(ir::Node e, int depth) {
    const ir::Node test = ir::unparenthesize(e.named_child(1));
    const bool python_test = test.is(kind::comparison_operator)
                                 ? m_.text(test).find(" is ") != string_view::npos
                                 : types_.type_of(m_, test).kind == ValueKind::Static;
    if (!python_test) return opaque(e);
    TensorMeta a = visit(e.named_child(0), depth + 1);
    const TensorMeta b = visit(e.named_child(2), depth + 1);
    if (!a.tensor || !b.tensor) return opaque(e);
    const bool same = a.shape_known == b.shape_known && a.shape_roots == b.shape_roots && a.dtype == b.dtype &&
                      a.fixed_dtype == b.fixed_dtype && a.dtype_root == b.dtype_root && a.scalar == b.scalar &&
                      a.device_known == b.device_known && a.device_roots == b.device_roots;
    if (!same) return opaque(e);
    a.zero_grad_safe &= b.zero_grad_safe;
    a.cheap &= b.cheap;
    a.grad_reads.insert(b.grad_reads.begin(), b.grad_reads.end());
    a.unproven_roots.insert(b.unproven_roots.begin(), b.unproven_roots.end());
    return a;
  }

  // A Python value Dynamo treats as a constant (an int or float parameter, a shape): not a tensor.
  bool static_value(ir::Node e) { return types_.type_of(m_, e).kind == ValueKind::Static; }

  // The category a parameter's annotation gives it (`limit: float`), else unknown.
  ScalarCategory annotated_category(ir::Node e) {
    e = ir::unparenthesize(e);
    if (!e.is(kind::identifier)) return ScalarCategory::Unknown;
    const std::span<const int> bindings = m_.bindings_of(e);
    if (bindings.size() != 1) return ScalarCategory::Unknown;
    const ir::Binding& b = m_.bindings[static_cast<size_t>(bindings[0])];
    if (b.kind != ir::BindingKind::Parameter || !b.annotation) return ScalarCategory::Unknown;
    const string_view a = m_.text(b.annotation);
    return a == "float" ? ScalarCategory::Float : a == "int" ? ScalarCategory::Int : a == "bool" ? ScalarCategory::Bool
                                                                                       : ScalarCategory::Unknown;
  }

  // `torch.ones(())`, `torch.zeros((), dtype=x.dtype, device=x.device)`: a 0-d tensor of a known
  // dtype and device (the CPU without `device=`).
  TensorMeta factory(ir::Node e, const std::string& key, const std::vector<ir::Node>& positional,
                     const std::vector<std::pair<string_view, ir::Node>>& keywords, int depth) {
    if (positional.size() != 1) return opaque(e);
    const ir::Node shape = ir::unparenthesize(positional[0]);
    const bool zero_d = (shape.is(kind::tuple) || shape.is(kind::list)) && ir::children_without_comments(shape).empty();
    if (!zero_d) return opaque(e);
    TensorMeta out;
    out.tensor = true;
    out.shape_known = true;
    out.device_known = true;
    out.device_roots = {"<cpu>"};
    out.zero_grad_safe = true;
    out.cheap = true;
    out.dtype = Dtype::Unknown;  // the default dtype, which a program may change
    for (const auto& [name, value] : keywords) {
      const ir::Node v = ir::unparenthesize(value);
      const bool of_tensor = v.is(kind::attribute) && types_.type_of(m_, v.field(field::object)).tensor_like();
      if (name == "dtype") {
        if (of_tensor && m_.text(v.field(field::attribute)) == "dtype") {
          const TensorMeta t = visit(v.field(field::object), depth + 1);
          out.dtype = t.dtype;
          out.fixed_dtype = t.fixed_dtype;
          out.dtype_root = t.dtype_root;
          out.scalar = t.scalar;
          out.floating = t.floating;
        } else if (const auto q = m_.qualified_name(v); q && !dtype_name(*q).empty()) {
          out.dtype = Dtype::Fixed;
          out.fixed_dtype = dtype_name(*q);
        } else {
          return opaque(e);
        }
      } else if (name == "device") {
        if (!of_tensor || m_.text(v.field(field::attribute)) != "device") return opaque(e);
        const TensorMeta t = visit(v.field(field::object), depth + 1);
        if (!t.device_known) return opaque(e);
        out.device_roots = t.device_roots;
      } else {
        return opaque(e);
      }
    }
    (void)key;
    return out;
  }

  TensorMeta opaque(ir::Node e) {
    if (!types_.type_of(m_, e).tensor_or_optional()) return TensorMeta{};
    return unknown_tensor(fmt::format("`{}`", ir::snippet(m_, e)));
  }

  const ir::Module& m_;
  TypeOracle& types_;
  const MetaFacts& facts_;
};

std::string shape_text(const std::set<std::string>& roots, string_view torch) {
  if (roots.empty()) return fmt::format("{}.Size([])", torch);
  if (roots.size() == 1) return *roots.begin() + ".shape";
  std::string out = fmt::format("{}.broadcast_shapes(", torch);
  bool first = true;
  for (const std::string& r : roots) {
    out += (first ? "" : ", ") + r + ".shape";
    first = false;
  }
  return out + ")";
}

bool floating_root(const MetaFacts& facts, const std::string& root) { return facts.floating_roots.contains(root); }

}  // namespace

TensorMeta tensor_meta(const ir::Module& module, TypeOracle& types, ir::Node expr, const MetaFacts& facts) {
  return MetaWalker(module, types, facts).visit(expr, 0);
}

MetaEquality meta_equal(const TensorMeta& a, const TensorMeta& b, const MetaFacts& facts, string_view torch) {
  MetaEquality out;
  if (!a.tensor || !b.tensor) {
    out.why = "a candidate is not a tensor";
    return out;
  }
  std::vector<std::string> checks;
  // Shape.
  if (!a.shape_known || !b.shape_known) {
    out.why = "a candidate's shape is not known";
    return out;
  }
  if (a.shape_roots != b.shape_roots) checks.push_back(shape_text(a.shape_roots, torch) + " == " + shape_text(b.shape_roots, torch));
  // Dtype: each side as (fixed dtype | root promoted with a scalar category).
  if (a.dtype == Dtype::Unknown || b.dtype == Dtype::Unknown) {
    out.why = "a candidate's dtype is not known";
    return out;
  }
  auto needs_floating = [&](const std::string& root, ScalarCategory scalar) {
    // A root promoted with a Python scalar keeps its dtype when its category is at least the
    // scalar's: any non-bool dtype for an int, a floating one for a float.
    if (scalar == ScalarCategory::None || scalar == ScalarCategory::Bool || floating_root(facts, root)) return;
    if ((a.floating && a.dtype_root == root) || (b.floating && b.dtype_root == root)) return;
    checks.push_back(scalar == ScalarCategory::Int ? fmt::format("{}.dtype != {}.bool", root, torch)
                                                   : fmt::format("{}.is_floating_point()", root));
  };
  if (a.dtype == Dtype::Fixed && b.dtype == Dtype::Fixed) {
    if (a.fixed_dtype != b.fixed_dtype) {
      out.why = fmt::format("the candidates' dtypes differ ({} and {})", a.fixed_dtype, b.fixed_dtype);
      return out;
    }
  } else if (a.dtype == Dtype::OfRoot && b.dtype == Dtype::OfRoot) {
    // The same root promoted with the same category is the same dtype, whatever the root's.
    if (a.dtype_root != b.dtype_root || a.scalar != b.scalar) {
      needs_floating(a.dtype_root, a.scalar);
      needs_floating(b.dtype_root, b.scalar);
    }
    if (a.dtype_root != b.dtype_root) checks.push_back(fmt::format("{}.dtype == {}.dtype", a.dtype_root, b.dtype_root));
  } else {
    const TensorMeta& fixed = a.dtype == Dtype::Fixed ? a : b;
    const TensorMeta& rooted = a.dtype == Dtype::Fixed ? b : a;
    needs_floating(rooted.dtype_root, rooted.scalar);
    checks.push_back(fmt::format("{}.dtype == {}", rooted.dtype_root, fixed.fixed_dtype.empty()
                                                                          ? std::string("?")
                                                                          : std::string(torch) + fixed.fixed_dtype.substr(5)));
  }
  // Device.
  if (!a.device_known || !b.device_known) {
    out.why = "a candidate's device is not known";
    return out;
  }
  if (a.device_roots != b.device_roots) {
    std::set<std::string> all = a.device_roots;
    all.insert(b.device_roots.begin(), b.device_roots.end());
    if (all.size() < 2 || a.device_roots.empty() || b.device_roots.empty()) {
      out.why = "a candidate's device is not known";
      return out;
    }
    // "<cpu>" stands for a tensor made on the CPU (sorted first).
    const std::string& first = *all.begin();
    for (auto it = std::next(all.begin()); it != all.end(); ++it) {
      checks.push_back(first == "<cpu>" ? fmt::format("{}.device.type == \"cpu\"", *it)
                                        : fmt::format("{}.device == {}.device", first, *it));
    }
  }
  std::sort(checks.begin(), checks.end());
  checks.erase(std::unique(checks.begin(), checks.end()), checks.end());
  out.proven = checks.empty();
  out.checks = std::move(checks);
  return out;
}

namespace {
ScalarCategory scalar_category(const ir::Module& m, ir::Node e, int depth);
bool finite_number(const ir::Module& m, ir::Node e, int depth);
}  // namespace

ScalarCategory python_scalar_category(const ir::Module& m, ir::Node e) { return scalar_category(m, e, 0); }

bool proven_floating(const TensorMeta& t, const MetaFacts& facts) {
  if (!t.tensor) return false;
  if (t.floating) return true;
  if (t.dtype == Dtype::Fixed) return category_of_dtype(t.fixed_dtype) == ScalarCategory::Float;
  // A root promoted with a Python float is floating-point whatever the root's dtype.
  return t.dtype == Dtype::OfRoot && (t.scalar == ScalarCategory::Float || facts.floating_roots.contains(t.dtype_root));
}
bool is_finite_python_number(const ir::Module& m, ir::Node e) { return finite_number(m, e, 0); }

namespace {

ScalarCategory scalar_category(const ir::Module& m, ir::Node e, int depth) {
  e = ir::unparenthesize(e);
  if (!e || depth > kMaxDepth) return ScalarCategory::Unknown;
  if (e.is(kind::integer)) return ScalarCategory::Int;
  if (e.is(kind::float_)) return ScalarCategory::Float;
  if (e.is(kind::true_) || e.is(kind::false_)) return ScalarCategory::Bool;
  if (e.is(kind::unary_operator)) return scalar_category(m, e.field(field::argument), depth + 1);
  if (e.is(kind::binary_operator)) {
    const string_view op = m.text(e.field(field::operator_));
    if (op == "/") return ScalarCategory::Float;
    const ScalarCategory l = scalar_category(m, e.field(field::left), depth + 1);
    const ScalarCategory r = scalar_category(m, e.field(field::right), depth + 1);
    if (op == "**" && l == ScalarCategory::Int && r == ScalarCategory::Int) {
      const ir::Node exponent = ir::unparenthesize(e.field(field::right));
      if (exponent.is(kind::unary_operator)) return ScalarCategory::Float;  // 2 ** -1
    }
    return std::max(std::max(l, r), ScalarCategory::Int);
  }
  if (e.is(kind::call)) {
    const auto q = m.qualified_name(ir::unparenthesize(e.field(field::function)));
    if (q && *q == "float") return ScalarCategory::Float;
    if (q && *q == "int") return ScalarCategory::Int;
    return ScalarCategory::Unknown;
  }
  if (e.is(kind::attribute)) {
    const auto q = m.qualified_name(e);
    if (q && q->starts_with("math.")) return ScalarCategory::Float;
    const ir::Node object = ir::unparenthesize(e.field(field::object));
    const auto info = object.is(kind::call) ? m.qualified_name(ir::unparenthesize(object.field(field::function)))
                                            : std::nullopt;
    if (info && *info == "torch.finfo") return m.text(e.field(field::attribute)) == "bits" ? ScalarCategory::Int
                                                                                        : ScalarCategory::Float;
    if (info && *info == "torch.iinfo") return ScalarCategory::Int;
    return ScalarCategory::Unknown;
  }
  if (e.is(kind::identifier)) {
    const std::span<const int> bindings = m.bindings_of(e);
    ScalarCategory out = ScalarCategory::None;
    for (int b : bindings) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.kind != ir::BindingKind::Assignment || !binding.value || binding.value == e) return ScalarCategory::Unknown;
      const ScalarCategory c = scalar_category(m, binding.value, depth + 1);
      if (out != ScalarCategory::None && c != out) return ScalarCategory::Unknown;
      out = c;
    }
    return out == ScalarCategory::None ? ScalarCategory::Unknown : out;
  }
  return ScalarCategory::Unknown;
}

bool finite_number(const ir::Module& m, ir::Node e, int depth) {
  e = ir::unparenthesize(e);
  if (!e || depth > kMaxDepth) return false;
  if (e.is(kind::integer)) return true;
  if (e.is(kind::float_)) {
    // A literal past float's range reads as inf.
    const string_view text = m.text(e);
    const size_t exp = text.find_first_of("eE");
    if (exp == string_view::npos) return text.size() < 300;
    int exponent = 0;
    bool negative = false;
    for (size_t i = exp + 1; i < text.size(); ++i) {
      if (text[i] == '-') negative = true;
      if (text[i] >= '0' && text[i] <= '9') exponent = std::min(exponent * 10 + (text[i] - '0'), 9999);
    }
    return negative || exponent < 300;
  }
  if (e.is(kind::unary_operator)) return finite_number(m, e.field(field::argument), depth + 1);
  if (e.is(kind::binary_operator)) {
    const string_view op = m.text(e.field(field::operator_));
    return (op == "+" || op == "-") && finite_number(m, e.field(field::left), depth + 1) &&
           finite_number(m, e.field(field::right), depth + 1);
  }
  if (e.is(kind::attribute)) {
    const ir::Node object = ir::unparenthesize(e.field(field::object));
    const auto info = object.is(kind::call) ? m.qualified_name(ir::unparenthesize(object.field(field::function)))
                                            : std::nullopt;
    const string_view attr = m.text(e.field(field::attribute));
    return info && (*info == "torch.finfo" || *info == "torch.iinfo") &&
           (attr == "max" || attr == "min" || attr == "eps" || attr == "tiny" || attr == "smallest_normal" ||
            attr == "resolution");
  }
  if (e.is(kind::identifier)) {
    const std::span<const int> bindings = m.bindings_of(e);
    if (bindings.empty()) return false;
    for (int b : bindings) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.kind != ir::BindingKind::Assignment || !binding.value || binding.value == e) return false;
      if (!finite_number(m, binding.value, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

}  // namespace graphmend::analysis
