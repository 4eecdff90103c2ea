#include "graphmend/rules/tensor_size_argument.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// The torch functions (by qualified name) and tensor methods (by name, on a receiver known to be a
// tensor) that take a size are the table of API facts' TakesSize rows, with the argument that is
// the size: every positional one, or the one at a position. Each is probed in
// tests/e2e/programs/tensor_sizes.py.
namespace api = analysis::api;

// The size expressions a call passes: the selected positional arguments and a `size=` keyword,
// each element of a tuple or list display taken one by one.
std::vector<ir::Node> size_expressions(const ir::Module& m, ir::Node call, int size_argument) {
  std::vector<ir::Node> out;
  const auto add = [&](ir::Node a) {
    a = ir::unparenthesize(a);
    if (a.is(kind::tuple) || a.is(kind::list)) {
      for (ir::Node e : ir::children_without_comments(a)) out.push_back(ir::unparenthesize(e));
    } else {
      out.push_back(a);
    }
  };
  int position = 0;
  for (ir::Node a : ir::children_without_comments(call.field(field::arguments))) {
    if (a.is(kind::keyword_argument)) {
      if (m.text(a.field(field::name)) == "size") add(a.field(field::value));
      continue;
    }
    if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) break;
    if (size_argument == api::kEveryPositional || size_argument == position) add(a);
    ++position;
  }
  return out;
}

// The operators whose result needs data or has a data-dependent shape: each splits the graph.
bool splits(api::Space space, std::string_view name) {
  return api::has(space, name, api::Fact::DataDependent) || api::has(space, name, api::Fact::DynamicShape);
}

bool data_dependent(const RuleContext& ctx, const ir::Module& m, ir::Node e, int hops = 0);

// True when nothing in [from, to) of `function` can split the graph, so a tensor computed at
// `from` is still a value of the same graph at `to`: no branch on a tensor (an `if` on Python
// values is fine), no loop, `try`, `with` or `match`, and no call but torch functions, tensor
// methods that keep data in the graph and a few builtins.
bool same_graph_between(const RuleContext& ctx, const ir::Module& m, ir::Node function, uint32_t from, uint32_t to) {
  bool same = true;
  syntax::walk(function, [&](ir::Node n) {
    if (!same || n.end() <= from || n.start() >= to) return false;
    if (n.start() < from) return true;  // encloses the range: look inside
    if (n.is(kind::for_statement) || n.is(kind::while_statement) || n.is(kind::try_statement) ||
        n.is(kind::with_statement) || n.is(kind::match_statement)) {
      same = false;
      return false;
    }
    if (n.is(kind::if_statement) || n.is(kind::elif_clause) || n.is(kind::conditional_expression)) {
      const ir::Node condition =
          n.is(kind::conditional_expression) ? n.named_child(1) : n.field(field::condition);
      same = condition && classify_truth(ctx, condition).kind == TruthKind::Static;
      return same;
    }
    if (!n.is(kind::call)) return true;
    // A call around the size (`out.append(torch.arange(n))`) runs after its arguments: only what
    // they evaluate first comes between.
    if (n.end() > to) return true;
    ir::Node fn = ir::unparenthesize(n.field(field::function));
    if (fn.is(kind::attribute) && ctx.types.type_of(m, fn.field(field::object)).tensor_or_optional()) {
      const std::string_view method = m.text(fn.field(field::attribute));
      same = !api::has(api::Space::TensorMethod, method, api::Fact::MovesToPython) &&
             !splits(api::Space::TensorMethod, method);
      return same;
    }
    const auto q = callee_name(m, n);
    if (q && api::has(api::Space::Global, *q, api::Fact::TracedBuiltin)) return true;
    // Another size taken from data splits there (`meshgrid(torch.linspace(0, h, h), torch.linspace(0, w, w))`).
    if (q && api::has(api::Space::Global, *q, api::Fact::TakesSize)) {
      for (ir::Node size : size_expressions(m, n, api::size_argument(api::Space::Global, *q))) {
        if (size && data_dependent(ctx, m, size)) {
          same = false;
          return false;
        }
      }
    }
    same = q && q->starts_with("torch.") && !q->starts_with("torch._") && !splits(analysis::api::Space::Global, *q);
    return same;
  });
  return same;
}

// The value a binding assigns to the whole name (`n = v`, `n: T = v`, `(n := v)`), else null.
ir::Node assigned_value(const ir::Binding& binding) {
  const bool plain = binding.kind == ir::BindingKind::Assignment ||
                     binding.kind == ir::BindingKind::AnnotatedAssignment || binding.kind == ir::BindingKind::Walrus;
  return plain ? binding.value : ir::Node{};
}

// True when `e` is a tensor whose value Dynamo does not know while it traces: a tensor method's
// result (`x.max()`), a user function's, or arithmetic on one. A torch function of Python numbers
// only (`torch.div(x.size(1), 2, rounding_mode="trunc")`) is folded to a constant and is not.
// A name is followed through the assignments that reach it, at most kMaxHops deep.
constexpr int kMaxHops = 4;

bool data_dependent(const RuleContext& ctx, const ir::Module& m, ir::Node e, int hops) {
  e = ir::unparenthesize(e);
  // `a if c else b` on a Python condition: the size is data on the runs that take a data arm
  // (PaliGemma's `mask.shape[-1] if isinstance(mask, torch.Tensor) else cache_position[0] + n`).
  if (e && e.is(kind::conditional_expression) && hops < kMaxHops) {
    return data_dependent(ctx, m, e.named_child(0), hops + 1) || data_dependent(ctx, m, e.named_child(2), hops + 1);
  }
  if (!e) return false;
  if (e.is(kind::identifier)) {
    // `chunks = torch.div(n, w, rounding_mode="trunc") - 1` is as constant as its definition;
    // a parameter, a loop variable or anything else that is a tensor is data. A name with several
    // definitions is data when one of them is, on the runs that take it.
    const bool tensor = ctx.types.type_of(m, e).tensor_like();
    const std::optional<std::vector<int>> reaching = m.ordered_reaching_bindings(e);
    if (!reaching || reaching->empty() || hops >= kMaxHops) return tensor;
    return std::any_of(reaching->begin(), reaching->end(), [&](int b) {
      const ir::Node value = assigned_value(m.bindings[static_cast<size_t>(b)]);
      return value ? data_dependent(ctx, m, value, hops + 1) : tensor;
    });
  }
  if (!ctx.types.type_of(m, e).tensor_like()) return false;
  if (e.is(kind::binary_operator)) {
    return data_dependent(ctx, m, e.field(field::left), hops) || data_dependent(ctx, m, e.field(field::right), hops);
  }
  if (e.is(kind::unary_operator)) return data_dependent(ctx, m, e.field(field::argument), hops);
  if (e.is(kind::subscript)) return true;  // an element or a slice of a tensor: data
  if (e.is(kind::call)) {
    ir::Node fn = ir::unparenthesize(e.field(field::function));
    if (fn.is(kind::attribute) && ctx.types.type_of(m, fn.field(field::object)).tensor_like()) return true;
    const auto q = callee_name(m, e);
    if (!q || !q->starts_with("torch.")) return true;
    for (ir::Node a : ir::children_without_comments(e.field(field::arguments))) {
      if (a.is(kind::keyword_argument)) a = a.field(field::value);
      if (data_dependent(ctx, m, a, hops)) return true;
    }
    return false;
  }
  return true;
}

}  // namespace

const RuleInfo& TensorSizeArgumentRule::info() const {
  static const RuleInfo kInfo{"GM411", "tensor-size-argument",
                              "a tensor computed in the graph used as a size needs its value as a Python int",
                              GraphBreak::DataDependentOperator, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorSizeArgumentRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> TensorSizeArgumentRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  // Bindings already used as a size: after the first use splits the graph, the value is an input
  // of the graph that resumes, and Dynamo reads an input's value (specialising on it) instead of
  // splitting again.
  return file_pass([this, &ctx, &sink, &m = ctx.module, used = std::unordered_set<int>()](ir::Node n) mutable {
    ir::Node fn = ir::unparenthesize(n.field(field::function));
    int size_argument = api::kNoSize;
    std::string callee;
    if (fn.is(kind::attribute)) {
      const std::string_view method = m.text(fn.field(field::attribute));
      if (api::has(api::Space::TensorMethod, method, api::Fact::TakesSize) &&
          ctx.types.type_of(m, fn.field(field::object)).tensor_like()) {
        size_argument = api::size_argument(api::Space::TensorMethod, method);
        callee = m.text(fn);
      }
    }
    if (size_argument == api::kNoSize) {
      const auto q = callee_name(m, n);
      if (!q || !q->starts_with("torch.") || !api::has(api::Space::Global, *q, api::Fact::TakesSize)) return true;
      size_argument = api::size_argument(api::Space::Global, *q);
      callee = *q;
    }
    for (ir::Node size : size_expressions(m, n, size_argument)) {
      if (!size || !data_dependent(ctx, m, size)) continue;
      // A buffer or attribute read (`self.n`) is an input of the graph, as is a parameter.
      if (size.is(kind::attribute)) continue;
      if (size.is(kind::identifier)) {
        std::optional<std::vector<int>> reaching = m.ordered_reaching_bindings(size);
        if (!reaching) {
          // A comprehension's own variable (`[f(size=(h, w)) for h, w in zip(hs, ws)]`): its
          // `for` clauses are its only definitions.
          const std::span<const int> all = m.bindings_of(size);
          if (!all.empty() && std::all_of(all.begin(), all.end(), [&](int b) {
                return m.bindings[static_cast<size_t>(b)].kind == ir::BindingKind::ComprehensionTarget;
              })) {
            reaching.emplace(all.begin(), all.end());
          }
        }
        if (!reaching || reaching->empty()) continue;
        // The definitions that make the size data: each computes a tensor from data (`n = mask.sum()`,
        // `n += 1` on one); a plain copy of another name or attribute (`n = lengths`) may be an
        // input, and a definition of a Python value (`n = cache.get_max_cache_shape()`) is none.
        std::vector<int> data_definitions;
        for (int b : *reaching) {
          const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
          // `n += 1` on a tensor, or an element of an iterated tensor (`for h, w in zip(hs, ws)`),
          // is computed in the graph.
          if (binding.kind == ir::BindingKind::AugmentedAssignment || binding.kind == ir::BindingKind::For ||
              binding.kind == ir::BindingKind::ComprehensionTarget) {
            if (ctx.types.type_of(m, binding.target).tensor_like()) data_definitions.push_back(b);
            continue;
          }
          const ir::Node value = ir::unparenthesize(assigned_value(binding));
          if (value && !value.is(kind::identifier) && !value.is(kind::attribute) &&
              data_dependent(ctx, m, value, 1)) {
            data_definitions.push_back(b);
          }
        }
        if (data_definitions.empty()) continue;
        const bool first_use = std::none_of(reaching->begin(), reaching->end(), [&](int b) { return used.contains(b); });
        used.insert(reaching->begin(), reaching->end());
        if (!first_use) continue;
        // A split between the definition and this use (a tensor branch, a print) makes the value
        // an input of the graph that resumes, which breaks nothing here. The size breaks on the
        // runs that take a data definition with no split after it (the code scanned is every
        // statement between the two, other branches' included: conservative).
        const int function = m.function_of(n);
        if (function < 0) continue;
        const ir::Node body = m.functions[static_cast<size_t>(function)].node;
        const bool unsplit = std::any_of(data_definitions.begin(), data_definitions.end(), [&](int b) {
          const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
          const ir::Node statement = binding.statement;
          if (!statement) return false;
          // Where the element is defined: after a loop's header, or (a comprehension's element
          // is evaluated after its `for` clauses) at the start of the comprehension.
          uint32_t defined = statement.end();
          if (binding.kind == ir::BindingKind::For) defined = statement.field(field::right).end();
          if (binding.kind == ir::BindingKind::ComprehensionTarget) defined = statement.parent().start();
          return defined <= size.start() && same_graph_between(ctx, m, body, defined, size.start());
        });
        if (!unsplit) continue;
      }
      sink.report(make_diagnostic(
          info(), n,
          fmt::format("`{}` takes the tensor `{}` as a size: Dynamo needs its value as a Python int and splits the "
                      "graph here ({})",
                      callee, m.text(size), cite(GraphBreak::DataDependentOperator)),
          capture_remedy(ctx, n, CapturedValue::Sized, kCaptureScalarOutputs,
                         "compute the size from shapes (x.shape, x.size()), or keep a static size and mask the "
                         "data-dependent part")));
      break;  // one finding for the call
    }
    return true;
  });
}

}  // namespace graphmend::rules
