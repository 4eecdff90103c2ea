#include "graphmend/syntax/python_rules.h"

#include <fmt/format.h>

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
  // A control character in code: CPython rejects it ("invalid non-printable character"), the
  // grammar skips it as whitespace. Inside a string or a comment it is only text (an f-string's
  // `{...}` field is code again).
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != 0x7F) continue;
    if (c == '\t' || c == '\n' || c == '\r' || c == '\f') continue;
    bool is_text = false;
    for (Node n = root.named_descendant_for_range(static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1)); n;
         n = n.parent()) {
      if (n.is(kind::interpolation)) break;
      if (n.is(kind::string) || n.is(kind::comment)) {
        is_text = true;
        break;
      }
    }
    if (!is_text) {
      return TokenizerError{static_cast<uint32_t>(i),
                            fmt::format("SyntaxError: invalid non-printable character U+{:04X} (CPython rejects the file)", c)};
    }
  }
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

}  // namespace graphmend::syntax
