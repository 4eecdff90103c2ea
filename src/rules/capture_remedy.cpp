#include "graphmend/rules/capture_remedy.h"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "graphmend/analysis/api_facts.h"

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// How far a value is followed through assignments to names.
constexpr int kMaxHops = 4;
// Builtins whose result is the same number, or a number made from it.
constexpr std::array<std::string_view, 7> kNumberBuiltins{"int", "float", "bool", "abs", "min", "max", "round"};
// Tensor methods that, called without arguments, reduce a tensor to one element.
constexpr std::array<std::string_view, 11> kReductions{"sum", "mean", "prod", "max", "min", "amax", "amin",
                                                       "any", "all", "norm", "count_nonzero"};

// Where a value goes, worst last: only into tensor operations, sizes, bounds and indices; into
// code not followed (a call of another function, a return, a store); into Python control flow.
enum class Flow { Data, Elsewhere, ControlFlow };

struct Use {
  Flow flow = Flow::Data;
  ir::Node at;               // the condition, the `range` call, the `for` iterable, or where it goes
  std::string_view what;     // "if", "while", "if-else", "assert", "range", "for", "call", "return", "store",
                             // "other" (where this check does not follow it)
};

Use worse(Use a, Use b) { return b.flow > a.flow ? b : a; }

Use follow(const RuleContext& ctx, ir::Node e, CapturedValue value, int hops, bool unknown_length = false);

// True when `call` computes on tensors: a torch function or a method of a tensor.
bool tensor_call(const RuleContext& ctx, ir::Node call) {
  const ir::Module& m = ctx.module;
  const ir::Node fn = ir::unparenthesize(call.field(field::function));
  if (fn.is(kind::attribute) && ctx.types.type_of(m, fn.field(field::object)).tensor_like()) return true;
  const auto q = callee_name(m, call);
  return q && q->starts_with("torch.");
}

// The uses of the name bound at `target` that its binding reaches, in its own function.
Use uses_of(const RuleContext& ctx, ir::Node target, CapturedValue value, int hops, bool unknown_length) {
  const ir::Module& m = ctx.module;
  const std::span<const int> all = m.bindings_of(target);
  const auto binding = std::find_if(all.begin(), all.end(),
                                    [&](int b) { return m.bindings[static_cast<size_t>(b)].target == target; });
  const int function = m.function_of(target);
  if (binding == all.end() || function < 0) return {Flow::Elsewhere, target, "other"};
  const std::string_view name = m.text(target);
  Use found;
  syntax::walk(m.functions[static_cast<size_t>(function)].node, [&](ir::Node n) {
    if (found.flow == Flow::ControlFlow) return false;
    if (!n.is(kind::identifier) || n == target || m.text(n) != name) return true;
    const ir::Node parent = n.parent();
    if (parent.is(kind::attribute) && parent.field(field::attribute) == n) return true;  // `x.name`
    if (parent.is(kind::keyword_argument) && parent.field(field::name) == n) return true;  // `f(name=...)`
    const std::optional<std::vector<int>> reaching = m.ordered_reaching_bindings(n);
    if (!reaching || std::find(reaching->begin(), reaching->end(), *binding) == reaching->end()) return true;
    found = worse(found, follow(ctx, n, value, hops + 1, unknown_length));
    return true;
  });
  return found;
}

// The names an assignment's left side binds to the whole value or to its elements.
Use uses_of_targets(const RuleContext& ctx, ir::Node left, CapturedValue value, int hops, bool unknown_length) {
  left = ir::unparenthesize(left);
  if (left.is(kind::identifier)) return uses_of(ctx, left, value, hops, unknown_length);
  if (!left.is(kind::pattern_list) && !left.is(kind::tuple_pattern) && !left.is(kind::list_pattern)) {
    return {Flow::Elsewhere, left, "store"};  // `self.n = v`, `d[k] = v`
  }
  Use found;
  for (ir::Node t : ir::children_without_comments(left)) {
    found = worse(found, uses_of_targets(ctx, t, value, hops, unknown_length));
  }
  return found;
}

// `unknown_length`: a list of numbers whose length depends on data (`.tolist()` of a tensor whose
// size does).
Use follow(const RuleContext& ctx, ir::Node e, CapturedValue value, int hops, bool unknown_length) {
  const ir::Module& m = ctx.module;
  if (hops > kMaxHops) return {Flow::Elsewhere, e, "other"};
  bool number = value == CapturedValue::Number;
  for (ir::Node child = e, p = e.parent(); p; child = p, p = p.parent()) {
    if ((p.is(kind::if_statement) || p.is(kind::elif_clause) || p.is(kind::while_statement)) &&
        child == p.field(field::condition)) {
      // A condition on the tensor itself is a branch on a tensor (GM101, GM301), flags or not.
      if (!number) return {};
      return {Flow::ControlFlow, child, p.is(kind::while_statement) ? "while" : "if"};
    }
    if (p.is(kind::conditional_expression)) {
      if (child == p.named_child(1)) return number ? Use{Flow::ControlFlow, child, "if-else"} : Use{};
      continue;  // an arm: the value goes on
    }
    if (p.is(kind::assert_statement)) return number ? Use{Flow::ControlFlow, child, "assert"} : Use{};
    if (p.is(kind::parenthesized_expression)) continue;
    if (p.is(kind::assignment) && child == p.field(field::right)) {
      return uses_of_targets(ctx, p.field(field::left), number ? CapturedValue::Number : CapturedValue::Sized, hops,
                             unknown_length);
    }
    // `t *= 2` binds `t` again, to the same tensor: its uses go on.
    if (p.is(kind::augmented_assignment) && child == p.field(field::left) && child.is(kind::identifier)) {
      return uses_of(ctx, child, number ? CapturedValue::Number : CapturedValue::Sized, hops, unknown_length);
    }
    // A store into it (`t[i] = v`, `t[:, a:b] = v`, `t[i] += v`): data.
    if ((p.is(kind::assignment) || p.is(kind::augmented_assignment)) && child == p.field(field::left)) return {};
    if (p.is(kind::return_statement) || p.is(kind::yield)) return {Flow::Elsewhere, p, "return"};
    if (p.is(kind::expression_statement)) return {};
    if (p.is(kind::subscript)) {
      // A number as an index picks one element; a tensor of data-dependent size as an index makes
      // a result of that size.
      if (child != p.field(field::value) && number) return {};
      continue;  // an element of a list of numbers or of a shape; a part of a tensor
    }
    if (p.is(kind::slice)) {  // a slice bound: the slice's size depends on the data
      number = false;
      p = p.parent();
      if (!p.is(kind::subscript)) return {};
      continue;
    }
    if (p.is(kind::for_statement) && child == p.field(field::right)) {
      // A loop over a list of numbers has the list's length; over a tensor whose size depends on
      // data, or its `.tolist()`, a length Dynamo does not know.
      return number && !unknown_length ? Use{} : Use{Flow::ControlFlow, child, "for"};
    }
    // Arithmetic with a tensor makes a tensor: the number is then an operand in the graph.
    if (number && (p.is(kind::binary_operator) || p.is(kind::comparison_operator)) &&
        ctx.types.type_of(m, p).tensor_like()) {
      return {};
    }
    if (number && (p.is(kind::binary_operator) || p.is(kind::unary_operator) || p.is(kind::comparison_operator) ||
                   p.is(kind::boolean_operator) || p.is(kind::not_operator) || p.is(kind::tuple) ||
                   p.is(kind::list) || p.is(kind::expression_list))) {
      continue;
    }
    // Elementwise work keeps the size; a list or tuple of tensors goes on to what takes it (torch.cat).
    if (!number && (p.is(kind::binary_operator) || p.is(kind::unary_operator) || p.is(kind::comparison_operator) ||
                    p.is(kind::tuple) || p.is(kind::list) || p.is(kind::expression_list) ||
                    p.is(kind::list_comprehension) || p.is(kind::generator_expression))) {
      continue;
    }
    if (!number && p.is(kind::attribute) && child == p.field(field::object)) {
      const std::string_view attribute = m.text(p.field(field::attribute));
      if (attribute == "shape") return follow(ctx, p, CapturedValue::Number, hops);
      const ir::Node call = p.parent();
      if (!call.is(kind::call) || call.field(field::function) != p) return {Flow::Elsewhere, p, "other"};
      if (attribute == "size" || attribute == "numel") return follow(ctx, call, CapturedValue::Number, hops);
      if (attribute == "tolist") return follow(ctx, call, CapturedValue::Number, hops, true);
      // A full reduction (`t.sum()`) has one element, whatever the size of `t`.
      const ir::Node arguments = call.field(field::arguments);
      if (std::find(kReductions.begin(), kReductions.end(), attribute) != kReductions.end() && arguments &&
          arguments.named_child_count() == 0) {
        return {};
      }
      p = call;  // another method's result: a tensor whose size may still depend on the data
      continue;
    }
    ir::Node arguments = p;
    if (p.is(kind::keyword_argument)) arguments = p.parent();
    if (arguments.is(kind::argument_list) && arguments.parent().is(kind::call)) {
      const ir::Node call = arguments.parent();
      const auto q = callee_name(m, call);
      if (number && q == "range") return {Flow::ControlFlow, call, "range"};
      if (!number && q == "len") return follow(ctx, call, CapturedValue::Number, hops);
      if (number && q && std::find(kNumberBuiltins.begin(), kNumberBuiltins.end(), *q) != kNumberBuiltins.end()) {
        p = call;
        continue;
      }
      if (!tensor_call(ctx, call)) return {Flow::Elsewhere, call.field(field::function), "call"};
      // A size, or a tensor of data-dependent size, given to a tensor operation: its result may
      // have a size that depends on the data in turn, followed as such.
      number = false;
      p = call;
      continue;
    }
    return {Flow::Elsewhere, p, "other"};
  }
  return {};
}

// At most this much of a quoted expression.
constexpr size_t kQuoted = 48;

std::string excerpt(const ir::Module& m, ir::Node n) {
  std::string text(m.text(n));
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.size() > kQuoted) text = text.substr(0, kQuoted - 3) + "...";
  return text;
}

// True when `e` computes a tensor whose size depends on data (an operator of the table of API
// facts' DynamicShape rows, as a function or a tensor method, inside it).
bool data_dependent_size(const ir::Module& m, ir::Node e) {
  bool found = false;
  syntax::walk(e, [&](ir::Node n) {
    if (found) return false;
    if (!n.is(kind::call)) return true;
    const ir::Node fn = ir::unparenthesize(n.field(field::function));
    const auto q = callee_name(m, n);
    found = (q && analysis::api::has(analysis::api::Space::Global, *q, analysis::api::Fact::DynamicShape)) ||
            (fn.is(kind::attribute) && analysis::api::has(analysis::api::Space::TensorMethod,
                                                          m.text(fn.field(field::attribute)),
                                                          analysis::api::Fact::DynamicShape));
    return !found;
  });
  return found;
}

Use use_of(const RuleContext& ctx, ir::Node site, CapturedValue value) {
  // `t.tolist()` of such a tensor is a list whose length depends on the data.
  const ir::Node fn = site.is(kind::call) ? ir::unparenthesize(site.field(field::function)) : ir::Node{};
  const bool unknown_length = fn.is(kind::attribute) && ctx.module.text(fn.field(field::attribute)) == "tolist" &&
                              data_dependent_size(ctx.module, fn.field(field::object));
  return follow(ctx, site, value, 0, unknown_length);
}

}  // namespace

ir::Node control_flow_use(const RuleContext& ctx, ir::Node site, CapturedValue value) {
  const Use use = use_of(ctx, site, value);
  return use.flow == Flow::ControlFlow ? use.at : ir::Node{};
}

std::string capture_remedy(const RuleContext& ctx, ir::Node site, CapturedValue value, std::string_view flag,
                           std::string_view alternative) {
  const ir::Module& m = ctx.module;
  const std::string_view noun = value == CapturedValue::Number ? "the value" : "the result's size";
  const Use use = use_of(ctx, site, value);
  switch (use.flow) {
    case Flow::Data:
      return fmt::format("set torch._dynamo.config.{} = True: it then stays in the graph, and this function uses {} "
                         "only as data, which needs nothing more; or {}",
                         flag, noun, alternative);
    case Flow::Elsewhere: {
      const std::string where = use.what == "call"     ? fmt::format("it is passed to `{}`", excerpt(m, use.at))
                                : use.what == "return" ? std::string("it is returned")
                                : use.what == "store"  ? std::string("it is stored")
                                                       : std::string("where it goes next is not followed");
      return fmt::format("set torch._dynamo.config.{} = True to keep it in the graph; {}, and a Python branch on it "
                         "there would still split it; or {}",
                         flag, where, alternative);
    }
    case Flow::ControlFlow: {
      const std::string where = use.what == "if"       ? fmt::format("`if {}`", excerpt(m, use.at))
                                : use.what == "while"  ? fmt::format("`while {}`", excerpt(m, use.at))
                                : use.what == "assert" ? fmt::format("`assert {}`", excerpt(m, use.at))
                                : use.what == "for"    ? fmt::format("the loop over `{}`", excerpt(m, use.at))
                                : use.what == "range"  ? fmt::format("the loop count `{}`", excerpt(m, use.at))
                                                       : fmt::format("the condition `{}`", excerpt(m, use.at));
      return fmt::format("torch._dynamo.config.{} = True does not help here: {} decides Python control flow on {}, "
                         "which Dynamo cannot trace; {}",
                         flag, where, noun, alternative);
    }
  }
  return {};
}

}  // namespace graphmend::rules
