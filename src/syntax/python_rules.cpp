#include "graphmend/syntax/python_rules.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "graphmend/syntax/kinds.h"

namespace graphmend::syntax {
namespace {

// A logical line's indentation as CPython measures it twice: tabs to multiples of 8 (`col`) and
// tabs as one column (`alt`). Where the two orders disagree, tabs and spaces are inconsistent.
struct Indent {
  uint32_t col = 0;
  uint32_t alt = 0;
};

// The indentation of the line `node` starts, or nullopt when something other than whitespace
// precedes it there (`a; b`, `if x: y`): then it does not start a logical line.
std::optional<Indent> indent_of(std::string_view text, Node node) {
  // Back over whitespace only: anything else before it on its line means no line start, and
  // the scan stays linear in the file however many statements share a line. Over a backslash
  // continuation, the logical line starts on the physical line before, whose leading whitespace
  // is the indentation.
  const auto is_blank = [](char c) { return c == ' ' || c == '\t' || c == '\f'; };
  size_t indent_end = node.start();
  size_t line = indent_end;
  while (true) {
    while (line > 0 && is_blank(text[line - 1])) --line;
    if (line > 0 && text[line - 1] != '\n' && text[line - 1] != '\r') return std::nullopt;
    if (line == 0) break;
    size_t newline = line - 1;
    if (text[newline] == '\n' && newline > 0 && text[newline - 1] == '\r') --newline;
    if (newline == 0 || text[newline - 1] != '\\') break;
    indent_end = newline - 1;  // the backslash
    line = indent_end;
  }
  Indent in;
  for (size_t i = line; i < indent_end; ++i) {
    switch (text[i]) {
      case ' ': ++in.col; ++in.alt; break;
      case '\t': in.col = (in.col / 8 + 1) * 8; ++in.alt; break;
      default: in.col = in.alt = 0; break;  // '\f' resets the count, as in CPython
    }
  }
  return in;
}

bool is_clause(Node n) {
  return n.is(kind::elif_clause) || n.is(kind::else_clause) || n.is(kind::except_clause) ||
         n.is(kind::except_group_clause) || n.is(kind::finally_clause);
}

constexpr std::string_view kTabError = "TabError: inconsistent use of tabs and spaces in indentation (CPython rejects the file)";

// Comments and line continuations are extras the grammar may hang anywhere; they are no statements.
bool is_extra(Node n) { return n.is(kind::comment) || n.is(kind::line_continuation); }

// `line` must sit at the same level as `level`.
std::optional<TokenizerError> same_level(Node n, Indent line, Indent level) {
  if (line.col != level.col) {
    return TokenizerError{n.start(), line.col > level.col
                                         ? "IndentationError: unexpected indent (CPython rejects the file)"
                                         : "IndentationError: unindent does not match any outer indentation level (CPython rejects the file)"};
  }
  if (line.alt != level.alt) return TokenizerError{n.start(), std::string(kTabError)};
  return std::nullopt;
}

// A replacement field inside the format spec of a field that is itself inside a format spec
// (f'{x:{y:{z}}}'): CPython 3.11 reads any `{` there as a third level and rejects the file
// ("expressions nested too deeply"); the grammar accepts it.
std::optional<TokenizerError> fstring_nesting_error(std::string_view text, Node root) {
  std::optional<TokenizerError> error;
  walk(root, [&](Node n) {
    if (error) return false;
    if (!n.is(kind::format_specifier)) return true;
    // A line break in the format spec of a single-quoted f-string: every CPython rejects it (3.11:
    // "unterminated string literal"; 3.12: "newlines are not allowed in format specifiers").
    if (const size_t nl = n.text(text).find_first_of("\r\n"); nl != std::string_view::npos) {
      Node string = n.parent();
      while (string && !string.is(kind::string)) string = string.parent();
      const std::string_view opening = string ? string.child(0).text(text) : std::string_view();
      if (!opening.ends_with("\"\"\"") && !opening.ends_with("'''")) {
        error = TokenizerError{n.start() + static_cast<uint32_t>(nl),
                               "SyntaxError: f-string: a line break in the format spec of a single-quoted "
                               "f-string (CPython rejects the file)"};
        return false;
      }
    }
    for (Node field : n.named_children()) {
      if (!field.is(kind::format_expression)) continue;  // a field inside a format spec
      for (Node spec : field.named_children()) {
        if (!spec.is(kind::format_specifier)) continue;
        if (const size_t brace = spec.text(text).find('{'); brace != std::string_view::npos) {
          error = TokenizerError{spec.start() + static_cast<uint32_t>(brace),
                                 "SyntaxError: f-string: expressions nested too deeply (CPython rejects the file)"};
          return false;
        }
      }
    }
    return true;
  });
  return error;
}

// A character the grammar skips as whitespace that CPython rejects as code ("invalid non-printable
// character"): a control character (a vertical tab), or a Unicode format or space character the
// grammar counts as whitespace (a second BOM U+FEFF, U+200B, U+2060, U+00A0). Whatever lies
// between the tree's tokens was skipped; text inside a string's content or a comment is text (an
// f-string's `{...}` field is code again). One pass over the array of nodes.
std::optional<TokenizerError> skipped_character(std::string_view text, Node root) {
  const std::vector<detail::NodeData>& nodes = root.tree_data()->nodes;
  // The literal text of format specs (`:>8` in f"{x:>8}") belongs to no token; rare, so a list.
  std::vector<std::pair<uint32_t, uint32_t>> spec_text;
  auto in_spec = [&](uint32_t i) {
    return std::any_of(spec_text.begin(), spec_text.end(), [&](const auto& r) { return i >= r.first && i < r.second; });
  };
  auto invalid_in = [&](uint32_t from, uint32_t to) -> std::optional<TokenizerError> {
    for (uint32_t i = from; i < to && i < text.size(); ++i) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\\') continue;
      if (in_spec(i)) continue;
      // The code point, for the message (UTF-8 is checked before parsing).
      uint32_t cp = c;
      int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
      if (more) cp = c & (0x3Fu >> more);
      for (uint32_t k = 1; k <= static_cast<uint32_t>(more) && i + k < text.size(); ++k) {
        cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3Fu);
      }
      return TokenizerError{i, fmt::format("SyntaxError: invalid non-printable character U+{:04X} (CPython rejects the file)", cp)};
    }
    return std::nullopt;
  };
  uint32_t covered = 0;  // the root starts at its first token, after any leading whitespace
  const uint32_t stop = nodes[root.index()].subtree_end;
  for (uint32_t i = root.index(); i < stop; ++i) {
    const detail::NodeData& d = nodes[i];
    const Node n(root.tree_data(), i);
    if (n.is(kind::format_specifier)) spec_text.emplace_back(d.start, d.end);
    const bool text_leaf = n.is(kind::string_content) || n.is(kind::comment);
    if (!text_leaf && d.subtree_end != i + 1) continue;  // not a token
    if (d.start > covered) {
      if (auto e = invalid_in(covered, d.start)) return e;
    }
    covered = std::max(covered, d.end);
    if (text_leaf) i = d.subtree_end - 1;  // escape sequences inside are text too
  }
  return invalid_in(covered, static_cast<uint32_t>(text.size()));
}

}  // namespace

std::optional<TokenizerError> cpython_tokenizer_error(std::string_view text, Node root) {
  // CPython reads a lone CR as a line break, the grammar as a space: where the two are mixed with
  // other line endings the tree need not be the program CPython runs. (A file whose every line
  // ends with a lone CR is read with LF in their place: source/source_file.h.)
  for (size_t i = text.find('\r'); i != std::string_view::npos; i = text.find('\r', i + 1)) {
    if (i + 1 >= text.size() || text[i + 1] != '\n') {
      return TokenizerError{static_cast<uint32_t>(i),
                            "the file mixes lone CR line endings with LF or CRLF ones, which graphmend's parser reads "
                            "differently from CPython"};
    }
  }
  if (auto e = skipped_character(text, root)) return e;
  // A line continuation with nothing after it (CPython 3.11 lets one before a final CRLF pass).
  size_t end = text.size();
  const bool crlf_last = text.ends_with("\r\n");
  if (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  if (!crlf_last && end > 0 && text[end - 1] == '\\') {
    const Node at = root.named_descendant_for_range(static_cast<uint32_t>(end - 1), static_cast<uint32_t>(end));
    if (!at.is(kind::comment) && !at.is(kind::string) && !at.is(kind::string_content)) {
      return TokenizerError{static_cast<uint32_t>(end - 1),
                            "SyntaxError: unexpected EOF while parsing (a line continuation `\\` ends the file: CPython rejects the file)"};
    }
  }
  struct Frame {
    Node node;
    Indent header;  // the indentation of the line that opens it
  };
  std::vector<Frame> stack;
  for (Node statement : root.named_children()) {
    if (is_extra(statement)) continue;
    if (auto in = indent_of(text, statement)) {
      if (auto e = same_level(statement, *in, Indent{})) return e;
      stack.push_back({statement, *in});
    } else {
      stack.push_back({statement, Indent{}});
    }
  }
  while (!stack.empty()) {
    const Frame f = stack.back();
    stack.pop_back();
    const bool decorated = f.node.is(kind::decorated_definition);
    for (Node child : f.node.named_children()) {
      if (child.is(kind::block)) {
        std::optional<Indent> level;
        bool any = false;
        for (Node statement : child.named_children()) {
          if (is_extra(statement)) continue;
          any = true;
          const std::optional<Indent> in = indent_of(text, statement);
          if (in && !level) {
            if (in->col <= f.header.col) {
              return TokenizerError{statement.start(), "IndentationError: expected an indented block (CPython rejects the file)"};
            }
            if (in->alt <= f.header.alt) return TokenizerError{statement.start(), std::string(kTabError)};
            level = in;
          } else if (in) {
            if (auto e = same_level(statement, *in, *level)) return e;
          }
          stack.push_back({statement, in.value_or(level.value_or(f.header))});
        }
        // tree-sitter closes a body that never started with an empty block.
        if (!any) return TokenizerError{child.start(), "IndentationError: expected an indented block (CPython rejects the file)"};
      } else if (is_clause(child) || (decorated && (child.is(kind::decorator) || child.is(kind::function_definition) ||
                                                    child.is(kind::class_definition)))) {
        if (auto in = indent_of(text, child)) {
          if (auto e = same_level(child, *in, f.header)) return e;
        }
        stack.push_back({child, f.header});
      }
    }
  }
  return fstring_nesting_error(text, root);
}

std::optional<uint32_t> generated_line_misplaced(Node root, const source::GeneratedMarkers& markers) {
  const std::vector<source::TextRange> statements = top_level_statements(root);
  for (const uint32_t at : markers.lines) {
    const Node n = root.named_descendant_for_range(at, at + 1);
    if (!n.is(kind::comment) || n.start() != at) return at;
    // A statement that starts before the marker and goes on past its line: the marker comment
    // sits inside it, as in a helper whose body swallows the code after the end marker (an
    // indented line there). Maintaining that block would treat other code as the helper's.
    const auto straddles = [&](const source::TextRange& r) { return r.start < at && r.end > n.end(); };
    if (std::any_of(statements.begin(), statements.end(), straddles)) return at;
  }
  if (const std::optional<uint32_t> at = markers.binding_line()) {
    const Node n = root.named_descendant_for_range(*at, *at + 1);
    const Node statement = n ? n.parent() : n;  // the binding's target, in its assignment
    if (!n.is(kind::identifier) || n.start() != *at || !statement.is(kind::assignment) || !statement.parent() ||
        !statement.parent().is(kind::expression_statement) || statement.parent().parent() != root) {
      return at;
    }
  }
  return std::nullopt;
}

}  // namespace graphmend::syntax
