#include "graphmend/rewrite/item_effect.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rewrite {

namespace {

// Python's comparison of a float with the literal equals float64 tensor's comparison with it when
// the literal's value is a float64: a float literal, or an integer of at most 2**53.
bool exact_in_float64(const ir::Module& m, ir::Node literal) {
  if (literal.is(kind::unary_operator)) literal = literal.field(field::argument);  // a minus sign
  std::string text(m.text(literal));
  if (text.find_first_of("jJ") != std::string::npos) return false;  // imaginary
  if (literal.is(kind::float_)) return true;
  if (!literal.is(kind::integer)) return false;
  std::erase(text, '_');
  int base = 10;
  size_t skip = 0;
  if (text.size() > 2 && text[0] == '0' && std::string_view("xXoObB").find(text[1]) != std::string_view::npos) {
    base = (text[1] == 'x' || text[1] == 'X') ? 16 : (text[1] == 'o' || text[1] == 'O') ? 8 : 2;
    skip = 2;
  }
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data() + skip, text.data() + text.size(), value, base);
  return error == std::errc() && end == text.data() + text.size() && value <= (uint64_t{1} << 53);
}

}  // namespace

bool is_number_literal(const ir::Module& m, ir::Node n) {
  if (n.is(kind::unary_operator) && m.text(n.field(field::operator_)) == "-") n = n.field(field::argument);
  return n.is(kind::integer) || n.is(kind::float_);
}

bool is_tensor_item_call(const analysis::FileContext& ctx, ir::Node call) {
  const ir::Module& m = ctx.module;
  const ir::Node fn = call.is(kind::call) ? call.field(field::function) : ir::Node{};
  if (!fn.is(kind::attribute) || m.text(fn.field(field::attribute)) != "item") return false;
  if (call.field(field::arguments).named_child_count() != 0) return false;
  const auto t = ctx.types.type_of(m, fn.field(field::object));
  return t.kind != analysis::ValueKind::Static && t.kind != analysis::ValueKind::None &&
         t.kind != analysis::ValueKind::Module;
}

namespace {

// The `.item()` statement, the `if` after it and the call it decides, once every check passed.
struct ItemEffect {
  ir::Node statement;  // name = <tensor>.item()
  ir::Node test;       // the `if`
  ir::Node number;     // the literal compared with
  std::string_view op;
  bool name_left = true;
  DeferredCall call_kind = DeferredCall::Print;
  DeferredCallText deferred;
};

std::variant<ItemEffect, Declined> match_item_effect(const analysis::FileContext& ctx, ir::Node item_call,
                                                     FunctionIndex& index) {
  const ir::Module& m = ctx.module;

  // 1. `name = <tensor>.item()`, a statement of its own in a function.
  if (!is_tensor_item_call(ctx, item_call)) return Declined{decline<DeclineCode::ItemNotAssigned>()};
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

  // 2. Right after it, `if name OP number:` (either side) with no `elif` or `else`.
  ir::Node test = statement.next_named_sibling();
  while (test && test.is(kind::comment)) test = test.next_named_sibling();
  const ir::Node condition =
      test.is(kind::if_statement) ? ir::unparenthesize(test.field(field::condition)) : ir::Node{};
  const std::vector<ir::Node> operands = condition.is(kind::comparison_operator)
                                             ? ir::children_without_comments(condition)
                                             : std::vector<ir::Node>{};
  const bool name_left = operands.size() == 2 && operands[0].is(kind::identifier) && m.text(operands[0]) == name &&
                         is_number_literal(m, operands[1]);
  const bool name_right = operands.size() == 2 && operands[1].is(kind::identifier) &&
                          m.text(operands[1]) == name && is_number_literal(m, operands[0]);
  const std::string_view op = operands.size() == 2 ? m.text(condition.child(1)) : std::string_view();
  const bool plain_comparison = condition.child_count() == 3 &&
                                (op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=");
  if (!test.is(kind::if_statement) || test.field(field::alternative) || !(name_left || name_right) ||
      !plain_comparison) {
    return Declined{decline<DeclineCode::ItemNoTestAfter>(name)};
  }
  const ir::Node number = name_left ? operands[1] : operands[0];
  if (!exact_in_float64(m, number)) return Declined{decline<DeclineCode::ItemNumberInexact>(m.text(number))};

  // 3. The `if` only prints or warns, with arguments the helper can evaluate itself: computing
  // them under compile whether or not the test passes must change nothing.
  const std::vector<ir::Node> body = ir::children_without_comments(test.field(field::consequence));
  const ir::Node call = body.size() == 1 ? ir::sole_expression(body[0]) : ir::Node{};
  std::optional<DeferredCall> call_kind;
  if (call.is(kind::call)) {
    if (is_builtin_print(m, call)) {
      call_kind = DeferredCall::Print;
    } else if (analysis::callee_name(m, call) == "warnings.warn") {
      call_kind = DeferredCall::WarningsWarn;
    }
  }
  if (!call_kind) return Declined{decline<DeclineCode::ItemBodyNotDeferrable>(name)};
  auto rendered = render_deferred_call(ctx, call, *call_kind, /*share=*/false);
  if (auto* d = std::get_if<Declined>(&rendered)) return std::move(*d);
  const DeferredCallText& deferred = std::get<DeferredCallText>(rendered);
  if (!deferred.params.empty()) return Declined{decline<DeclineCode::ItemBodyCarries>()};
  if (deferred.site_call.find("\"\"\"") != std::string::npos || deferred.site_call.find("'''") != std::string::npos) {
    return Declined{decline<DeclineCode::ItemBodyCarries>()};
  }

  // 4. `name` is this function's own, and nothing else reads or binds it: under compile it is
  // never bound (a tensor in its place would print and compare differently).
  const int symbol = m.lookup_at(target);
  const ir::Symbol* sym = symbol >= 0 ? &m.symbols[static_cast<size_t>(symbol)] : nullptr;
  if (!sym || sym->scope != fn.scope || sym->declared_global || sym->declared_nonlocal) {
    return Declined{decline<DeclineCode::ItemNameNotLocal>(name)};
  }
  const ir::Node tested = name_left ? operands[0] : operands[1];
  bool elsewhere = false;
  syntax::walk(fn.node, [&](ir::Node n) {
    if (n.is(kind::identifier) && n != target && n != tested && m.text(n) == name) elsewhere = true;
    return !elsewhere;
  });
  if (elsewhere) return Declined{decline<DeclineCode::ItemNameUsedElsewhere>(name)};
  if (index.inspects_frame(fi)) return Declined{decline<DeclineCode::ItemFrameInspected>(name)};

  return ItemEffect{statement, test, number, op, name_left, *call_kind, deferred};
}

}  // namespace

std::variant<source::Fix, Declined> plan_item_effect(const analysis::FileContext& ctx, ir::Node item_call,
                                                     SiteNamer& names, FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  auto matched = match_item_effect(ctx, item_call, index);
  if (auto* d = std::get_if<Declined>(&matched)) return std::move(*d);
  if (auto failing = tracing_may_fail(ctx, item_call)) return *failing;
  const ItemEffect& e = std::get<ItemEffect>(matched);

  source::Fix fix;
  fix.title = "keep the value a tensor and run the call inside the compiled graph when the test passes (eager "
              "path unchanged)";
  fix.applicability = source::Applicability::Safe;
  // The helper tests the carried result (a 0-d bool tensor, or a bool where the value stayed a
  // Python number) and makes the call as the `if` did.
  std::string call_lines;
  for (const char c : e.deferred.site_call) {
    call_lines += c;
    if (c == '\n') call_lines += "    ";
  }
  const std::string body = "if _graphmend_c:\n        " + call_lines;
  const std::string site =
      names.own(deferred_kind_tag(e.call_kind), helper_signature(site_helper("", "_graphmend_c", body)));
  const std::string value =
      fmt::format("_graphmend.scalar({})", copied(m, item_call.field(field::function).field(field::object)));
  const std::string tested_value =
      e.name_left ? fmt::format("{} {} {}", value, e.op, m.text(e.number))
                  : fmt::format("{} {} {}", m.text(e.number), e.op, value);
  if (auto declined = wrap_for_compile(m, e.statement, e.test, fmt::format("_graphmend.defer({}, {})", site, tested_value),
                                       fix)) {
    return *declined;
  }
  fix.helpers = {site_helper(site, "_graphmend_c", body)};
  return fix;
}

bool decided_by_item_effect(const analysis::FileContext& ctx, ir::Node call, FunctionIndex& index) {
  const ir::Node statement = call.parent();
  const ir::Node block = statement ? statement.parent() : ir::Node{};
  const ir::Node test = block ? block.parent() : ir::Node{};
  if (!statement.is(kind::expression_statement) || !test.is(kind::if_statement) ||
      test.field(field::consequence) != block) {
    return false;
  }
  const ir::Node before = ir::previous_statement(test);
  const ir::Node assignment = before.is(kind::expression_statement) ? before.named_child(0) : ir::Node{};
  const ir::Node value = assignment.is(kind::assignment) ? assignment.field(field::right) : ir::Node{};
  const auto matched = match_item_effect(ctx, value, index);
  return std::holds_alternative<ItemEffect>(matched) && std::get<ItemEffect>(matched).test == test;
}

}  // namespace graphmend::rewrite
