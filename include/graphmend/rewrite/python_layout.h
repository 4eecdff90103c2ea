// Python layout for generated statements: what `ruff format` (and black) would make of a statement
// graphmend writes, at the project's one line length (generated_line_length), so that a patched
// file still passes the project's formatter. A statement comes in one of two ways. Built as a
// LayoutExpr ([Where]'s selections): a prefix (`y = `, `return `), one expression and a suffix,
// the expression an atom (text that stays on one line), a call whose arguments may go one per
// line, or an operator chain (`a | b`) that may break before each operator. Or written as one
// line of text (wrapped_line: compiled code, site helper bodies), split at its brackets and
// operators. Either way wrapping follows the formatter's order: the whole statement on one line;
// else the outermost brackets split with the arguments on one line between them; else one
// argument per line with a trailing comma, each laid out the same way in turn.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::rewrite {

// The line length generated statements wrap at (88, ruff's and black's default, unless set): the
// project's formatter setting for the file being rewritten (driver/style.h). The driver sets it
// for one file's rules on the thread that runs them, so that the many layout helpers need no
// extra parameter; an object of this class sets it for its lifetime.
[[nodiscard]] size_t generated_line_length();
// The columns `text` takes where ruff and black measure a line against the line length: two for a
// wide or fullwidth character (CJK, most emoji), none for a combining mark, a zero-width or a
// control character, one for any other, a tab included (bytes that are not UTF-8: one each). A
// line of ASCII takes its length in bytes; "—" takes one column in three bytes, so a byte count
// would wrap lines the formatter joins again. The widths are the host glibc's tables (Unicode's,
// as ruff's are): a character newer than those counts as Unicode reserves its range, and without
// glibc's C.UTF-8 locale every byte counts one.
[[nodiscard]] size_t display_width(std::string_view text);
class GeneratedLineLength {
 public:
  explicit GeneratedLineLength(size_t length);
  ~GeneratedLineLength();
  GeneratedLineLength(const GeneratedLineLength&) = delete;
  GeneratedLineLength& operator=(const GeneratedLineLength&) = delete;

 private:
  size_t previous_;
};

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

// The lines of `prefix` + `expr` + `suffix` at indentation `indent` (without line breaks); a line
// one level in is indented by `indent` + `unit`.
std::vector<std::string> lay_out(std::string_view indent, std::string_view prefix, const LayoutExpr& expr,
                                 std::string_view suffix, std::string_view unit);

// The lines of a compound statement's header (`if <expr>:`): a condition that does not fit goes
// in parentheses, on one line between them or one operand per line, each after its operator.
std::vector<std::string> lay_out_header(std::string_view indent, std::string_view keyword, const LayoutExpr& expr,
                                        std::string_view colon, std::string_view unit);

// `node` as a layout expression: calls keep their structure (so that a long one splits as the
// formatter splits it), anything else is an atom. An expression that spans lines is joined onto
// one (the formatter would do the same once it fits); nullopt when that could change its meaning
// or its layout: a comment, a string spanning lines, or a magic trailing comma inside it.
// `replacements` replaces identifiers (by start offset) with text: a temporary inlined where it is read.
using Replacements = std::map<uint32_t, std::string>;
std::optional<LayoutExpr> layout_expr(const ir::Module& module, ir::Node node, const Replacements& replacements = {});
// `node`'s text on one line, under the same conditions.
std::optional<std::string> one_line_text(const ir::Module& module, ir::Node node, const Replacements& replacements = {});

// One generated line (without its indentation `indent`) as the file shows it: unchanged when it
// fits; else wrapped after the opening bracket of the call that closes the line, its arguments on
// one line of their own or one per line, the closing bracket on its own line ("if f(...):" keeps
// its colon); `if a and b:` and `name = a and b` one operand a line in parentheses; `name = value`
// as `name = (`, the value, `)`. Lines after the first are at `indent` plus `unit` per level, joined
// by `newline`. `inside_brackets`: the line continues an expression inside brackets (an argument,
// an operand), where it may break between any tokens, first before its `or`, `and` and comparisons.
std::string wrapped_line(std::string_view line, std::string_view indent, std::string_view unit,
                         std::string_view newline, bool inside_brackets = false);

// Splits `text` at each top-level `separator` (outside brackets and strings); empty when a string
// or bracket is left open, or the text holds a triple-quoted string (then a line is not wrapped).
std::vector<std::string_view> top_level_split(std::string_view text, std::string_view separator);

}  // namespace graphmend::rewrite
