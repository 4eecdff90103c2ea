#include "graphmend/rewrite/python_layout.h"

#include <fmt/format.h>

#include <locale.h>
#include <wchar.h>

#include <algorithm>
#include <cctype>
#include <cwchar>

namespace graphmend::rewrite {

namespace {
// Generated lines longer than this are wrapped: see GeneratedLineLength.
thread_local size_t generated_line_length_now = 88;
}  // namespace

size_t generated_line_length() { return generated_line_length_now; }

namespace {

// One character's columns: glibc's, except where it has none to give. A control character takes
// none (a tab one, as on the ASCII path); one newer than glibc's tables takes ruff's: two in the
// ranges Unicode reserves for wide characters (emoji, CJK), else one.
size_t columns_of(wchar_t c) {
  if (const int w = wcwidth(c); w >= 0) return static_cast<size_t>(w);
  if (c == L'\t') return 1;
  if (c < 0x20 || (c >= 0x7f && c < 0xa0)) return 0;
  return (c >= 0x1f000 && c <= 0x1fffd) || (c >= 0x20000 && c <= 0x3fffd) ? 2 : 1;
}

}  // namespace

size_t display_width(std::string_view text) {
  if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return text.size();
  }
  // glibc's character widths, from Unicode's, for every thread alike whatever the process's locale.
  // Without that locale (a glibc before 2.35 lacks it), bytes: at worst a line wraps early.
  static const locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", locale_t{});
  if (utf8 == locale_t{}) return text.size();
  const locale_t previous = uselocale(utf8);
  size_t width = 0;
  std::mbstate_t state{};
  for (size_t i = 0; i < text.size();) {
    wchar_t c = 0;
    const size_t n = std::mbrtowc(&c, text.data() + i, text.size() - i, &state);
    if (n == 0 || n > text.size() - i) {  // a NUL, or a byte that does not start UTF-8
      ++width;
      ++i;
      state = {};
      continue;
    }
    width += columns_of(c);
    i += n;
  }
  uselocale(previous);
  return width;
}

GeneratedLineLength::GeneratedLineLength(size_t length) : previous_(generated_line_length_now) {
  generated_line_length_now = length;
}

GeneratedLineLength::~GeneratedLineLength() { generated_line_length_now = previous_; }

std::string LayoutExpr::flat() const {
  switch (kind) {
    case Kind::Atom:
      return text;
    case Kind::Call: {
      std::string out = text + "(";
      for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i].flat();
      return out + ")";
    }
    case Kind::Chain: {
      std::string out;
      for (size_t i = 0; i < parts.size(); ++i) out += (i ? " " + text + " " : "") + parts[i].flat();
      return out;
    }
  }
  return text;
}

namespace {

bool fits(std::string_view line) { return display_width(line) <= generated_line_length(); }

void append(std::vector<std::string>& out, std::vector<std::string> more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

std::vector<std::string> lay_out(std::string_view indent, std::string_view prefix, const LayoutExpr& expr,
                                 std::string_view suffix, std::string_view unit) {
  const std::string one = fmt::format("{}{}{}{}", indent, prefix, expr.flat(), suffix);
  if (fits(one) || expr.kind == LayoutExpr::Kind::Atom || expr.parts.empty()) return {one};
  const std::string inner = std::string(indent) + std::string(unit);
  if (expr.kind == LayoutExpr::Kind::Chain) {
    // Inside brackets (an argument), an operator chain breaks before each operator; elsewhere the
    // formatter would add parentheses around it first.
    std::vector<std::string> out;
    for (size_t i = 0; i < expr.parts.size(); ++i) {
      const std::string lead = i == 0 ? std::string(prefix) : expr.text + " ";
      append(out, lay_out(indent, lead, expr.parts[i], i + 1 == expr.parts.size() ? suffix : "", unit));
    }
    return out;
  }
  // A call: its arguments on one line between the brackets, else one per line with a trailing comma.
  std::vector<std::string> out{fmt::format("{}{}{}(", indent, prefix, expr.text)};
  std::string joined;
  for (size_t i = 0; i < expr.parts.size(); ++i) joined += (i ? ", " : "") + expr.parts[i].flat();
  if (fits(inner + joined)) {
    out.push_back(inner + joined);
  } else {
    for (const LayoutExpr& arg : expr.parts) append(out, lay_out(inner, "", arg, ",", unit));
  }
  out.push_back(fmt::format("{}){}", indent, suffix));
  return out;
}

std::vector<std::string> lay_out_header(std::string_view indent, std::string_view keyword, const LayoutExpr& expr,
                                        std::string_view colon, std::string_view unit) {
  const std::string one = fmt::format("{}{}{}{}", indent, keyword, expr.flat(), colon);
  if (fits(one)) return {one};
  const std::string inner = std::string(indent) + std::string(unit);
  std::vector<std::string> out{fmt::format("{}{}(", indent, keyword)};
  if (fits(inner + expr.flat()) || expr.kind != LayoutExpr::Kind::Chain) {
    append(out, lay_out(inner, "", expr, "", unit));
  } else {
    for (size_t i = 0; i < expr.parts.size(); ++i) {
      append(out, lay_out(inner, i == 0 ? "" : expr.text + " ", expr.parts[i], "", unit));
    }
  }
  out.push_back(fmt::format("{}){}", indent, colon));
  return out;
}

namespace {

bool is_leaf(ir::Node n) {
  return n.child_count() == 0 || n.is(kind::string) || n.is(kind::concatenated_string) || n.is(kind::comment);
}

void leaves(ir::Node n, std::vector<ir::Node>& out) {
  if (is_leaf(n)) {
    out.push_back(n);
    return;
  }
  for (ir::Node c : n.children()) leaves(c, out);
}

bool opening(std::string_view t) { return t == "(" || t == "[" || t == "{"; }
bool closing(std::string_view t) { return t == ")" || t == "]" || t == "}"; }

}  // namespace

std::optional<std::string> one_line_text(const ir::Module& m, ir::Node node, const Replacements& replacements) {
  const std::string_view text = m.text(node);
  const bool replaces = replacements.lower_bound(node.start()) != replacements.lower_bound(node.end());
  if (!replaces && text.find('\n') == std::string_view::npos && text.find('\r') == std::string_view::npos) {
    return std::string(text);
  }
  std::vector<ir::Node> tokens;
  leaves(node, tokens);
  std::string out;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const ir::Node t = tokens[i];
    const std::string_view token = m.text(t);
    if (t.is(kind::comment) || token.find('\n') != std::string_view::npos || token.find('\r') != std::string_view::npos) {
      return std::nullopt;
    }
    const auto replaced = t.is(kind::identifier) ? replacements.find(t.start()) : replacements.end();
    if (i > 0) {
      const ir::Node before = tokens[i - 1];
      const std::string_view gap = m.text().substr(before.end(), t.start() - before.end());
      const std::string_view previous = m.text(before);
      if (gap.find_first_of("\r\n\\") == std::string_view::npos) {
        out += gap;
      } else {
        // A magic trailing comma keeps the formatter's brackets open: joining would change the layout.
        if (previous == "," && closing(token)) return std::nullopt;
        if (!opening(previous) && !closing(token) && token != "," && token != "." && previous != ".") out += ' ';
      }
    }
    out += replaced != replacements.end() ? std::string_view(replaced->second) : token;
  }
  return out;
}

std::optional<LayoutExpr> layout_expr(const ir::Module& m, ir::Node node, const Replacements& replacements) {
  if (node.is(kind::call)) {
    const ir::Node args = node.field(field::arguments);
    const auto callee = one_line_text(m, node.field(field::function), replacements);
    if (callee && args && args.is(kind::argument_list)) {
      std::vector<LayoutExpr> parts;
      bool ok = true;
      for (ir::Node a : ir::children_without_comments(args)) {
        std::optional<LayoutExpr> part;
        if (a.is(kind::keyword_argument)) {
          const auto value = one_line_text(m, a, replacements);
          if (value) part = LayoutExpr::atom(*value);
        } else {
          part = layout_expr(m, a, replacements);
        }
        if (!part) {
          ok = false;
          break;
        }
        parts.push_back(std::move(*part));
      }
      // A trailing comma in the call keeps it exploded under the formatter, wherever it goes.
      const std::vector<ir::Node> children = args.children();
      if (children.size() >= 2 && m.text(children[children.size() - 2]) == ",") return std::nullopt;
      if (ok) return LayoutExpr::call(*callee, std::move(parts));
    }
  }
  const auto text = one_line_text(m, node, replacements);
  if (!text) return std::nullopt;
  return LayoutExpr::atom(*text);
}

std::vector<std::string_view> top_level_split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      if (text.substr(i, 3) == std::string(3, c)) return {};  // a triple-quoted string
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && text.substr(i, separator.size()) == separator) {
      out.push_back(text.substr(start, i - start));
      start = i + separator.size();
      i = start - 1;
    }
  }
  if (quote || depth != 0) return {};
  out.push_back(text.substr(start));
  return out;
}

namespace {

// An argument or operand inside brackets (where a line break between tokens changes nothing):
// broken before its top-level `or`, then a piece still too long before its `and`, then before
// its comparison operators, every piece at the argument's indentation, as black splits an
// expression at its delimiters.
std::optional<std::string> split_at_delimiters(std::string_view line, std::string_view indent,
                                               std::string_view newline) {
  static const std::vector<std::vector<std::string_view>> kLevels{
      {" or "}, {" and "}, {" != ", " == ", " <= ", " >= ", " < ", " > "}};
  std::vector<std::string> pieces{std::string(line)};
  for (const auto& level : kLevels) {
    std::vector<std::string> next;
    for (const std::string& piece : pieces) {
      if (indent.size() + display_width(piece) <= generated_line_length()) {
        next.push_back(piece);
        continue;
      }
      // Cut before each operator of this level that lies outside brackets and strings.
      std::vector<std::string> cut{piece};
      for (std::string_view op : level) {
        std::vector<std::string> finer;
        for (const std::string& part : cut) {
          const std::vector<std::string_view> split = top_level_split(part, op);
          if (split.empty()) return std::nullopt;  // a bracket or string left open
          for (size_t i = 0; i < split.size(); ++i) {
            finer.push_back((i ? std::string(op.substr(1)) : std::string()) + std::string(split[i]));
          }
        }
        cut = std::move(finer);
      }
      next.insert(next.end(), cut.begin(), cut.end());
    }
    pieces = std::move(next);
  }
  if (pieces.size() < 2) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < pieces.size(); ++i) {
    if (i) out += newline;
    out += std::string(indent) + pieces[i];
  }
  return out;
}

}  // namespace

std::string wrapped_line(std::string_view line, std::string_view indent, std::string_view unit,
                         std::string_view newline, bool inside_brackets) {
  const auto plain = [&] { return std::string(indent) + std::string(line); };
  if (indent.size() + display_width(line) <= generated_line_length()) return plain();
  // `head (`, then one `and` operand a line (each wrapped in turn, as black does), then `close`;
  // nothing when `expr` is not an `and` chain.
  const auto operand_lines = [&](std::string_view head, std::string_view expr,
                                 std::string_view close) -> std::optional<std::string> {
    const std::vector<std::string_view> operands = top_level_split(expr, " and ");
    if (operands.size() < 2) return std::nullopt;
    std::string out = std::string(indent) + std::string(head) + "(";
    for (size_t i = 0; i < operands.size(); ++i) {
      out += newline;
      out += wrapped_line((i ? "and " : "") + std::string(operands[i]), std::string(indent) + std::string(unit), unit,
                          newline, true);
    }
    return out + std::string(newline) + std::string(indent) + std::string(close);
  };
  // `if a and b:` becomes `if (`, one operand per line, `):`.
  if (line.starts_with("if ") && line.ends_with(":")) {
    if (auto out = operand_lines("if ", line.substr(3, line.size() - 4), "):")) return *out;
  }
  // `name = a and b` (a flag graphmend sets) becomes `name = (`, one operand per line, `)`.
  const size_t eq = line.find(" = ");
  const bool assigns_name = eq != std::string_view::npos && eq > 0 &&
                            std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(eq), [](char c) {
                              return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                            });
  if (assigns_name) {
    if (auto out = operand_lines(line.substr(0, eq + 3), line.substr(eq + 3), ")")) return *out;
  }
  // `name = <value>` whose value fits on a line of its own, but not after the name, as black
  // formats it: `name = (`, the value one level in, `)`.
  const auto parenthesized = [&]() -> std::string {
    if (!assigns_name || line.ends_with(":")) return plain();
    const std::string_view value = line.substr(eq + 3);
    if (indent.size() + unit.size() + display_width(value) > generated_line_length() ||
        top_level_split(value, ",").empty()) {
      return plain();  // still too long, or a bracket or string left open
    }
    return std::string(indent) + std::string(line.substr(0, eq + 3)) + "(" + std::string(newline) + std::string(indent) +
           std::string(unit) + std::string(value) + std::string(newline) + std::string(indent) + ")";
  };
  if (inside_brackets) {
    if (auto split = split_at_delimiters(line, indent, newline)) return *split;  // black's first choice
  }
  // An argument of a call split one per line ends in `),`: its own call splits the same way.
  const std::string_view tail = line.ends_with("):")   ? "):"
                                : line.ends_with(")")  ? ")"
                                : line.ends_with("),") ? "),"
                                                       : "";
  if (tail.empty()) return parenthesized();
  // As black splits: at the bracket that closes the line (`f(a)(b)` splits `(b)`), unless what
  // comes before it does not fit; then at the first call's bracket.
  size_t open = line.find('(');
  {
    std::vector<size_t> opened;
    char quote = 0;
    const size_t last = line.size() - tail.size();
    for (size_t i = 0; i <= last; ++i) {
      const char c = line[i];
      if (quote) {
        if (c == '\\') {
          ++i;
        } else if (c == quote) {
          quote = 0;
        }
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '(' || c == '[' || c == '{') {
        opened.push_back(i);
      } else if (c == ')' || c == ']' || c == '}') {
        if (opened.empty()) break;
        if (i == last && c == ')' && indent.size() + display_width(line.substr(0, opened.back())) + 1 <= generated_line_length()) {
          open = opened.back();
        }
        opened.pop_back();
      }
    }
  }
  if (open == std::string_view::npos || open + tail.size() > line.size()) return parenthesized();
  const std::string_view inside = line.substr(open + 1, line.size() - tail.size() - open - 1);
  const std::vector<std::string_view> args = top_level_split(inside, ",");
  if (args.empty()) return parenthesized();
  // The bracket must close at the end of the line, not earlier.
  int depth = 0;
  for (char c : inside) {
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return parenthesized();
  }
  std::string out = std::string(indent) + std::string(line.substr(0, open + 1));
  // As black and ruff format: the arguments on one line of their own when they fit there, else
  // one per line.
  if (indent.size() + unit.size() + display_width(inside) <= generated_line_length() && !inside.ends_with(",")) {
    return out + std::string(newline) + std::string(indent) + std::string(unit) + std::string(inside) +
           std::string(newline) + std::string(indent) + std::string(tail);
  }
  // A single argument too long for its own line stays whole there (black adds no comma to split
  // at), its own brackets split in turn.
  if (args.size() == 1 && !inside.ends_with(",")) {
    std::string_view arg = inside;
    while (arg.starts_with(' ')) arg.remove_prefix(1);
    while (arg.ends_with(' ')) arg.remove_suffix(1);
    return out + std::string(newline) +
           wrapped_line(arg, std::string(indent) + std::string(unit), unit, newline, true) + std::string(newline) +
           std::string(indent) + std::string(tail);
  }
  for (std::string_view arg : args) {
    while (arg.starts_with(' ')) arg.remove_prefix(1);
    while (arg.ends_with(' ')) arg.remove_suffix(1);
    if (arg.empty()) continue;
    out += newline;
    out += wrapped_line(std::string(arg) + ",", std::string(indent) + std::string(unit), unit, newline, true);
  }
  out += newline;
  out += indent;
  out += tail;
  return out;
}

}  // namespace graphmend::rewrite
