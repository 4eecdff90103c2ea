// Python layout for generated statements: what `ruff format` (and black) would make of a statement
// graphmend writes, so that a patched file still passes the project's formatter. A statement is a
// prefix (`y = `, `return `), one expression and a suffix; the expression is an atom (text that
// stays on one line), a call whose arguments may go one per line, or an operator chain (`a | b`)
// that may break before each operator. Wrapping follows the formatter's order: the whole statement
// on one line; else the outermost brackets split with the arguments on one line between them; else
// one argument per line with a trailing comma, each laid out the same way in turn.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::rewrite {

struct LayoutExpr {
  enum class Kind { Atom, Call, Chain };
  Kind kind = Kind::Atom;
  std::string text;  // Atom: its one-line text; Call: the callee (`torch.where`); Chain: the operator (`|`)
  std::vector<LayoutExpr> parts;  // Call: the arguments; Chain: the operands

  static LayoutExpr atom(std::string text) { return {Kind::Atom, std::move(text), {}}; }
  static LayoutExpr call(std::string callee, std::vector<LayoutExpr> args) {
    return {Kind::Call, std::move(callee), std::move(args)};
  }
  static LayoutExpr chain(std::string op, std::vector<LayoutExpr> operands) {
    return {Kind::Chain, std::move(op), std::move(operands)};
  }
  // The expression on one line.
  [[nodiscard]] std::string flat() const;
};

struct LayoutStyle {
  size_t line_length = 88;
  std::string indent_unit = "    ";
};

// The lines of `prefix` + `expr` + `suffix` at indentation `indent` (without line breaks).
std::vector<std::string> lay_out(std::string_view indent, std::string_view prefix, const LayoutExpr& expr,
                                 std::string_view suffix, const LayoutStyle& style);

// The lines of a compound statement's header (`if <expr>:`): a condition that does not fit goes
// in parentheses, on one line between them or one operand per line, each after its operator.
std::vector<std::string> lay_out_header(std::string_view indent, std::string_view keyword, const LayoutExpr& expr,
                                        std::string_view colon, const LayoutStyle& style);

// `node` as a layout expression: calls keep their structure (so that a long one splits as the
// formatter splits it), anything else is an atom. An expression that spans lines is joined onto
// one (the formatter would do the same once it fits); nullopt when that could change its meaning
// or its layout: a comment, a string spanning lines, or a magic trailing comma inside it.
// `replacements` replaces identifiers (by start offset) with text: a temporary inlined where it is read.
using Replacements = std::map<uint32_t, std::string>;
std::optional<LayoutExpr> layout_expr(const ir::Module& module, ir::Node node, const Replacements& replacements = {});
// `node`'s text on one line, under the same conditions.
std::optional<std::string> one_line_text(const ir::Module& module, ir::Node node, const Replacements& replacements = {});

}  // namespace graphmend::rewrite
