#include "graphmend/rewrite/item_tensor.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/item_effect.h"
#include "graphmend/rewrite/python_layout.h"

namespace graphmend::rewrite {

namespace {

// The operations whose result is the same, bit for bit, with the number as a 0-d tensor of the
// other operand's dtype as with the Python number, in eager, aot_eager and inductor
// (bench/item_exactness.py; bench/RESULTS.md). `value_right`: the value is the right operand
// (`x * s`); false: the left one (`s * x`). Not in the table: `s + x`, where a tensor holding a
// NaN of other bits than the value's gives the value's NaN there and the number gives x's (the
// number is added to x, the tensor x to it); `s / x`, which rounds differently eagerly; and
// subtraction, where a bool tensor raises another exception class under compile.
struct ExactOperation {
  std::string_view op;
  bool value_right;
};
constexpr std::array<ExactOperation, 4> kExactOperations{{
    {"+", true},
    {"*", true},
    {"*", false},
    {"/", true},
}};

bool exact_operation(std::string_view op, bool value_right) {
  for (const ExactOperation& e : kExactOperations) {
    if (e.op == op && e.value_right == value_right) return true;
  }
  return false;
}

// `x` of `x.amax()`, `x.amin()` or of the same of `x.abs()`, all without arguments, where `x` is a
// name: a whole-tensor selection, whose result has x's dtype and is one of its elements (`max()`
// and `min()` are too, but give a NaN other bits than the number does under compile). Null for
// anything else.
ir::Node selected_from(const ir::Module& m, ir::Node reduction) {
  const auto method_of = [&](ir::Node call, std::initializer_list<std::string_view> names) -> ir::Node {
    if (!call.is(kind::call) || call.field(field::arguments).named_child_count() != 0) return {};
    const ir::Node fn = call.field(field::function);
    if (!fn.is(kind::attribute)) return {};
    const std::string_view method = m.text(fn.field(field::attribute));
    for (const std::string_view name : names) {
      if (method == name) return fn.field(field::object);
    }
    return {};
  };
  ir::Node x = method_of(reduction, {"amax", "amin"});
  if (const ir::Node inner = method_of(x, {"abs"})) x = inner;
  return x.is(kind::identifier) ? x : ir::Node{};
}

// The statement of `block` that holds `n`, or null when `n` is not inside `block`.
ir::Node statement_in(ir::Node block, ir::Node n) {
  while (n && n.parent() != block) n = n.parent();
  return n;
}


// `name = value`'s value as ruff and black lay it out when it follows `name = ` at the statement's
// indentation: on the line when the statement fits, with the `trailing` columns after it (a
// comment counts); else in parentheses on a line of its own (a
// value with two or more method calls after a bracket keeps them); else, in them, one call a line,
// the first with the name it is called on (the fluent style). Nullopt when a line still does not
// fit, or the statement does not start its line.
std::optional<std::string> laid_out(std::string_view name, std::string_view value, const StatementLayout& l,
                                    size_t trailing) {
  const size_t width = generated_line_length();
  if (l.indent.size() + display_width(name) + 3 + display_width(value) + trailing <= width) return std::string(value);
  if (!l.starts_line) return std::nullopt;
  if (l.inner.size() + display_width(value) <= width) {
    return "(" + l.newline + l.inner + std::string(value) + l.newline + std::string(l.indent) + ")";
  }
  std::vector<std::string_view> calls;  // split before each `.` that follows a closing bracket
  size_t from = 0;
  int depth = 0;
  for (size_t i = 0; i < value.size(); ++i) {
    const char c = value[i];
    depth += (c == '(' || c == '[') ? 1 : (c == ')' || c == ']') ? -1 : 0;
    if (c == '.' && depth == 0 && i > 0 && value[i - 1] == ')') {
      calls.push_back(value.substr(from, i - from));
      from = i;
    }
  }
  calls.push_back(value.substr(from));
  std::string out = "(";
  for (const std::string_view call : calls) {
    if (l.inner.size() + display_width(call) > width) return std::nullopt;
    out += l.newline + l.inner + std::string(call);
  }
  return out + l.newline + std::string(l.indent) + ")";
}

// True when `n` is inside a scope nested in the function `function` (a lambda, a comprehension or
// generator, a class body, a nested `def`): a name there may be another variable, or read later.
bool in_nested_scope(ir::Node n, ir::Node function) {
  for (ir::Node at = n.parent(); at && at != function; at = at.parent()) {
    if (at.is(kind::lambda) || at.is(kind::list_comprehension) || at.is(kind::set_comprehension) ||
        at.is(kind::dictionary_comprehension) || at.is(kind::generator_expression) ||
        at.is(kind::class_definition) || at.is(kind::function_definition)) {
      return true;
    }
  }
  return false;
}
}  // namespace

bool item_used_with_tensor(const analysis::FileContext& ctx, ir::Node item_call) {
  const ir::Module& m = ctx.module;
  const ir::Node assignment = item_call.parent();
  if (!assignment.is(kind::assignment) || assignment.field(field::right) != item_call ||
      !assignment.field(field::left).is(kind::identifier)) {
    return false;
  }
  const ir::Node target = assignment.field(field::left);
  const int fi = m.function_of(assignment);
  if (fi < 0) return false;
  const std::string_view name = m.text(target);
  bool found = false;
  syntax::walk(m.functions[static_cast<size_t>(fi)].node, [&](ir::Node n) {
    if (!n.is(kind::identifier) || n == target || m.text(n) != name) return true;
    // Up through arithmetic on the value (`x / (v * 2)`) to an operator with a tensor beside it.
    for (ir::Node at = n, up = n.parent(); !found && up; at = up, up = up.parent()) {
      if (up.is(kind::parenthesized_expression)) continue;
      if (!up.is(kind::binary_operator)) break;
      const ir::Node other = up.field(field::left) == at ? up.field(field::right) : up.field(field::left);
      found = ctx.types.type_of(m, other).tensor_like();
    }
    return !found;
  });
  return found;
}

std::variant<source::Fix, Declined> plan_item_tensor(const analysis::FileContext& ctx, ir::Node item_call,
                                                     FunctionIndex& index) {
  const ir::Module& m = ctx.module;

  // 1. `name = <reduction>.item()`, a statement of its own in a function.
  const ir::Node assignment = item_call.parent();
  const ir::Node statement = assignment ? assignment.parent() : ir::Node{};
  if (!assignment.is(kind::assignment) || assignment.field(field::right) != item_call ||
      assignment.field(field::type) || !assignment.field(field::left).is(kind::identifier) ||
      !statement.is(kind::expression_statement) || statement.named_child_count() != 1) {
    return Declined{decline<DeclineCode::ItemNotAssigned>()};
  }
  const ir::Node target = assignment.field(field::left);
  const std::string name(m.text(target));
  const int fi = m.function_of(statement);
  if (fi < 0) return Declined{decline<DeclineCode::NotInFunction>()};
  const ir::Function& fn = m.functions[static_cast<size_t>(fi)];

  // 2. The value is a max or min of the whole tensor `x`, a name proven to hold a tensor: the
  // value has x's dtype and is one of x's elements.
  const ir::Node item_attribute = item_call.field(field::function);
  const ir::Node x = selected_from(m, item_attribute.field(field::object));
  if (!x) return Declined{decline<DeclineCode::ItemTensorReduction>(name)};
  const std::string x_name(m.text(x));
  if (ctx.types.type_of(m, x).kind != analysis::ValueKind::Tensor) {
    return Declined{decline<DeclineCode::ItemTensorUnproven>(x_name)};
  }

  // 3. `name` is this function's own, bound here only.
  const int symbol = m.lookup_at(target);
  const ir::Symbol* sym = symbol >= 0 ? &m.symbols[static_cast<size_t>(symbol)] : nullptr;
  if (!sym || sym->scope != fn.scope || sym->declared_global || sym->declared_nonlocal) {
    return Declined{decline<DeclineCode::ItemNameNotLocal>(name)};
  }
  if (sym->bindings.size() != 1) return Declined{decline<DeclineCode::ItemNameUsedElsewhere>(name)};
  if (index.inspects_frame(fi)) return Declined{decline<DeclineCode::ItemFrameInspected>(name)};

  // 4. Every use is `x op name` (or `name op x`) with an operation of the measured table, in a
  // statement after this one in the same block.
  const ir::Node block = statement.parent();
  ir::Node last_statement = statement;
  std::optional<Declined> declined;
  size_t uses = 0;
  syntax::walk(fn.node, [&](ir::Node n) {
    if (declined) return false;
    if (!n.is(kind::identifier) || n == target || m.text(n) != name) return true;
    if (m.function_of(n) != fi || in_nested_scope(n, fn.node)) {
      declined = Declined{decline<DeclineCode::ItemNameUsedElsewhere>(name)};
      return false;
    }
    const ir::Node op = n.parent();
    if (!op.is(kind::binary_operator)) {
      declined = Declined{decline<DeclineCode::ItemValueUse>(name, ir::snippet(m, op ? op : n))};
      return false;
    }
    const bool value_right = op.field(field::right) == n;
    const ir::Node other = value_right ? op.field(field::left) : op.field(field::right);
    if (!other.is(kind::identifier) || m.text(other) != x_name) {
      if (ctx.types.type_of(m, other).tensor_like()) {
        declined = Declined{decline<DeclineCode::ItemOperandOtherTensor>(name, m.text(other), x_name)};
      } else {
        declined = Declined{decline<DeclineCode::ItemValueUse>(name, ir::snippet(m, op))};
      }
      return false;
    }
    if (!exact_operation(m.text(op.field(field::operator_)), value_right)) {
      declined = Declined{decline<DeclineCode::ItemValueUse>(name, ir::snippet(m, op))};
      return false;
    }
    const ir::Node holder = statement_in(block, n);
    if (!holder || holder.start() < statement.end()) {
      declined = Declined{decline<DeclineCode::ItemUseNotAfter>(name)};
      return false;
    }
    if (holder.end() > last_statement.end()) last_statement = holder;
    ++uses;
    return true;
  });
  if (declined) return std::move(*declined);
  if (uses == 0) return Declined{decline<DeclineCode::ItemValueUse>(name, name)};
  // Every use runs in a graph, where the number enters as the canonical NaN: a graph break in a
  // loop, `try`, `with` or `match` from here to the last use can make Dynamo run the rest
  // eagerly, and there the number carries the bits of the NaN the compiled amax gave it.
  for (ir::Node at = statement; at && at.start() <= last_statement.start(); at = at.next_named_sibling()) {
    if (at.is(kind::for_statement) || at.is(kind::while_statement) || at.is(kind::try_statement) ||
        at.is(kind::with_statement) || at.is(kind::match_statement)) {
      return Declined{decline<DeclineCode::ItemUseMayRunEagerly>(name)};
    }
  }

  // 5. `x` is the same tensor at every use: a local or parameter of this function, read by no
  // nested scope, not bound again or deleted from this statement to the last that uses the value
  // (statements after it run again only after this one in a loop), and its `.data` not replaced.
  const int x_symbol = m.lookup_at(x);
  const ir::Symbol* xs = x_symbol >= 0 ? &m.symbols[static_cast<size_t>(x_symbol)] : nullptr;
  if (!xs || xs->scope != fn.scope || xs->declared_global || xs->declared_nonlocal) {
    return Declined{decline<DeclineCode::ItemOperandRebound>(x_name)};
  }
  const source::TextRange span{statement.start(), last_statement.end()};
  for (const int b : xs->bindings) {
    const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
    if (binding.target.start() >= span.start && binding.target.start() < span.end) {
      return Declined{decline<DeclineCode::ItemOperandRebound>(x_name)};
    }
  }
  bool changed = false;
  syntax::walk(fn.node, [&](ir::Node n) {
    if (changed) return false;
    if (n.is(kind::identifier) && m.text(n) == x_name && (m.function_of(n) != fi || in_nested_scope(n, fn.node))) {
      changed = true;
    }
    // New data for any tensor of the function (`y.data = ...`, `setattr(y, ...)`, `y.set_(...)`,
    // `torch.Tensor.set_(y, ...)`): `y` may be another name for x.
    if (n.is(kind::attribute)) {
      const std::string_view attribute = m.text(n.field(field::attribute));
      if (attribute == "data" || attribute == "set_" || attribute == "__setattr__") changed = true;
    }
    if (n.is(kind::call) && m.text(n.field(field::function)) == "setattr") changed = true;
    return !changed;
  });
  if (changed) return Declined{decline<DeclineCode::ItemOperandRebound>(x_name)};

  // 6. The kept value's NaN as the number's. Under Inductor a whole-tensor amax or amin of a
  // floating tensor holding a NaN gives a NaN of other sign and payload bits (its vectorised
  // reduction), where the number enters the next graph as the canonical NaN; `nan_to_num` with
  // NaN and the infinities as their own replacements makes it that NaN, keeps every other value
  // and the dtype (an integer or bool tensor is returned as it is). Measured in
  // bench/item_exactness.py for every dtype, in eager, aot_eager and inductor.
  const std::optional<std::string> torch_name = ir::torch_name_at(m, statement);
  if (!torch_name) return Declined{decline<DeclineCode::NoTorchName>()};
  const std::string kept = fmt::format("detach().nan_to_num({0}.nan, {0}.inf, -{0}.inf)", *torch_name);
  const source::TextRange item_part{item_attribute.field(field::attribute).start(), item_call.end()};
  const std::string_view text = m.text();
  source::Fix fix;
  fix.title = "keep the value a tensor: `.detach()` in place of `.item()`, its NaN made the number's";
  const std::string_view call_text = text.substr(item_call.start(), item_call.end() - item_call.start());
  if (call_text.find_first_of("\r\n") != std::string_view::npos) {
    // Laid out over lines already: only `item()` changes, the rest keeps its layout.
    fix.edits.push_back(source::Edit::replace(item_part, kept));
    return fix;
  }
  const std::string value = std::string(text.substr(item_call.start(), item_part.start - item_call.start())) + kept;
  // What follows the statement on its line (a comment) counts toward its width.
  const size_t line_end = text.find_first_of("\r\n", statement.end());
  const size_t trailing =
      display_width(text.substr(statement.end(), (line_end == std::string_view::npos ? text.size() : line_end) - statement.end()));
  const std::optional<std::string> written = laid_out(m.text(target), value, layout_of(m, statement), trailing);
  if (!written) return Declined{decline<DeclineCode::ItemLineTooLong>(name)};
  fix.edits.push_back(source::Edit::replace(item_call.range(), *written));
  return fix;
}

}  // namespace graphmend::rewrite
