#include "graphmend/rewrite/python_layout.h"

#include <fmt/format.h>

namespace graphmend::rewrite {

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

bool fits(std::string_view line, const LayoutStyle& style) { return line.size() <= style.line_length; }

void append(std::vector<std::string>& out, std::vector<std::string> more) {
  out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

std::vector<std::string> lay_out(std::string_view indent, std::string_view prefix, const LayoutExpr& expr,
                                 std::string_view suffix, const LayoutStyle& style) {
  const std::string one = fmt::format("{}{}{}{}", indent, prefix, expr.flat(), suffix);
  if (fits(one, style) || expr.kind == LayoutExpr::Kind::Atom || expr.parts.empty()) return {one};
  const std::string inner = std::string(indent) + style.indent_unit;
  if (expr.kind == LayoutExpr::Kind::Chain) {
    // Inside brackets (an argument), an operator chain breaks before each operator; elsewhere the
    // formatter would add parentheses around it first.
    std::vector<std::string> out;
    for (size_t i = 0; i < expr.parts.size(); ++i) {
      const std::string lead = i == 0 ? std::string(prefix) : expr.text + " ";
      append(out, lay_out(indent, lead, expr.parts[i], i + 1 == expr.parts.size() ? suffix : "", style));
    }
    return out;
  }
  // A call: its arguments on one line between the brackets, else one per line with a trailing comma.
  std::vector<std::string> out{fmt::format("{}{}{}(", indent, prefix, expr.text)};
  std::string joined;
  for (size_t i = 0; i < expr.parts.size(); ++i) joined += (i ? ", " : "") + expr.parts[i].flat();
  if (fits(inner + joined, style)) {
    out.push_back(inner + joined);
  } else {
    for (const LayoutExpr& arg : expr.parts) append(out, lay_out(inner, "", arg, ",", style));
  }
  out.push_back(fmt::format("{}){}", indent, suffix));
  return out;
}

std::vector<std::string> lay_out_header(std::string_view indent, std::string_view keyword, const LayoutExpr& expr,
                                        std::string_view colon, const LayoutStyle& style) {
  const std::string one = fmt::format("{}{}{}{}", indent, keyword, expr.flat(), colon);
  if (fits(one, style)) return {one};
  const std::string inner = std::string(indent) + style.indent_unit;
  std::vector<std::string> out{fmt::format("{}{}(", indent, keyword)};
  if (fits(inner + expr.flat(), style) || expr.kind != LayoutExpr::Kind::Chain) {
    append(out, lay_out(inner, "", expr, "", style));
  } else {
    for (size_t i = 0; i < expr.parts.size(); ++i) {
      append(out, lay_out(inner, i == 0 ? "" : expr.text + " ", expr.parts[i], "", style));
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

}  // namespace graphmend::rewrite
