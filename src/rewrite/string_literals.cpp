#include "graphmend/rewrite/string_literals.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "graphmend/rewrite/python_layout.h"

namespace graphmend::rewrite {

namespace {

// Where a single-quoted string literal starting at `at` may be cut into two adjacent literals of
// the same value: after a space that is not part of an escape sequence or an f-string field.
// Returns the literal's end (one past its closing quote) and the cut points, or nullopt when the
// literal is one graphmend does not cut (triple-quoted, `\N{...}`, a quote inside a field).
struct LiteralCuts {
  size_t end = 0;
  size_t body = 0;  // the first character after the opening quote
  std::vector<size_t> after_space;
};
std::optional<LiteralCuts> literal_cuts(std::string_view line, size_t at) {
  size_t i = at;
  bool raw = false, formatted = false;
  while (i < line.size() && i - at < 2 && std::string_view("rRbBuUfF").find(line[i]) != std::string_view::npos) {
    raw |= line[i] == 'r' || line[i] == 'R';
    formatted |= line[i] == 'f' || line[i] == 'F';
    ++i;
  }
  if (i >= line.size() || (line[i] != '"' && line[i] != '\'')) return std::nullopt;
  const char quote = line[i];
  if (line.substr(i, 3) == std::string(3, quote)) return std::nullopt;
  LiteralCuts cuts;
  cuts.body = ++i;
  int depth = 0;  // inside an f-string's replacement field
  while (i < line.size()) {
    const char c = line[i];
    if (c == '\\') {
      if (i + 1 < line.size() && line[i + 1] == 'N' && !raw) return std::nullopt;
      i += 2;
      continue;
    }
    if (formatted && (c == '{' || c == '}')) {
      if (depth == 0 && i + 1 < line.size() && line[i + 1] == c) {
        i += 2;  // a doubled brace is one literal brace
        continue;
      }
      if (c == '}' && depth == 0) return std::nullopt;
      depth += c == '{' ? 1 : -1;
      ++i;
      continue;
    }
    if (depth > 0 && (c == '"' || c == '\'')) return std::nullopt;
    if (c == quote && depth == 0) {
      cuts.end = i + 1;
      return cuts;
    }
    if (c == ' ' && depth == 0 && i + 1 < line.size() && line[i + 1] != quote) cuts.after_space.push_back(i + 1);
    ++i;
  }
  return std::nullopt;
}

// One piece of a cut literal: its prefix, unless the piece of an f-string has no field (ruff's
// F541), then without the `f` and with its doubled braces single.
std::string literal_piece(std::string_view prefix, char quote, std::string_view body) {
  std::string p(prefix);
  std::string b(body);
  if (p.find_first_of("fF") != std::string::npos) {
    bool field = false;
    std::string single;  // the body with each doubled brace single
    for (size_t i = 0; i < b.size(); ++i) {
      single += b[i];
      if ((b[i] == '{' || b[i] == '}') && i + 1 < b.size() && b[i + 1] == b[i]) {
        ++i;
      } else if (b[i] == '{') {
        field = true;
      }
    }
    if (!field) {
      p.erase(std::remove_if(p.begin(), p.end(), [](char c) { return c == 'f' || c == 'F'; }), p.end());
      b = std::move(single);
    }
  }
  return p + quote + b + quote;
}

// One string literal at `at` in `code`: its prefix (letters), quote and end; nullopt when none
// starts there or it is one graphmend does not join (triple-quoted, raw or bytes).
struct Literal {
  std::string_view prefix, body;
  char quote = '"';
  size_t end = 0;
};
std::optional<Literal> literal_at(std::string_view code, size_t at) {
  size_t q = at;
  while (q < code.size() && q - at < 2 && std::isalpha(static_cast<unsigned char>(code[q]))) ++q;
  if (q >= code.size() || (code[q] != '"' && code[q] != '\'')) return std::nullopt;
  const std::string_view prefix = code.substr(at, q - at);
  if (prefix.find_first_not_of("fF") != std::string_view::npos) return std::nullopt;
  const char quote = code[q];
  if (code.substr(q, 3) == std::string(3, quote)) return std::nullopt;
  for (size_t i = q + 1; i < code.size(); ++i) {
    if (code[i] == '\\') {
      ++i;
    } else if (code[i] == '\n' || code[i] == '\r') {
      return std::nullopt;
    } else if (code[i] == quote) {
      return Literal{prefix, code.substr(q + 1, i - q - 1), quote, i + 1};
    }
  }
  return std::nullopt;
}

}  // namespace

std::string split_long_literals(std::string_view code) {
  if (code.find("\"\"\"") != std::string_view::npos || code.find("'''") != std::string_view::npos) {
    return std::string(code);
  }
  std::string out;
  int brackets = 0;  // open at the start of the line
  for (size_t pos = 0; pos < code.size();) {
    const size_t nl = std::min(code.find('\n', pos), code.size());
    const std::string_view line = code.substr(pos, nl - pos);
    const size_t lead = line.find_first_not_of(' ');
    std::optional<LiteralCuts> cuts;
    std::string_view tail;
    if (brackets > 0 && display_width(line) > generated_line_length() && lead != std::string_view::npos) {
      cuts = literal_cuts(line, lead);
      if (cuts) {
        tail = line.substr(cuts->end);
        if (tail != "" && tail != "," && tail != ")" && tail != "),") cuts.reset();
      }
    }
    if (!cuts) {
      out += line;
    } else {
      const std::string_view indent = line.substr(0, lead);
      const std::string_view prefix = line.substr(lead, cuts->body - 1 - lead);
      const char quote = line[cuts->body - 1];
      const size_t close = cuts->end - 1;
      size_t from = cuts->body;
      bool first = true;
      for (;;) {
        // The last cut that keeps this piece within the line length; none: the rest stays whole.
        size_t cut = 0;
        for (size_t c : cuts->after_space) {
          if (c <= from) continue;
          if (lead + prefix.size() + 2 + display_width(line.substr(from, c - from)) > generated_line_length()) break;
          cut = c;
        }
        const bool rest_fits =
            lead + prefix.size() + 2 + display_width(line.substr(from, close - from)) + tail.size() <= generated_line_length();
        if (!first) out += '\n';
        first = false;
        out += indent;
        if (rest_fits || cut == 0) {
          out += literal_piece(prefix, quote, line.substr(from, close - from));
          out += tail;
          break;
        }
        out += literal_piece(prefix, quote, line.substr(from, cut - from));
        from = cut;
      }
    }
    // Brackets left open by this line (strings and comments skipped).
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '#') break;
      if (c == '"' || c == '\'') {
        for (++i; i < line.size() && line[i] != c; ++i) {
          if (line[i] == '\\') ++i;
        }
        continue;
      }
      brackets += (c == '(' || c == '[' || c == '{') ? 1 : (c == ')' || c == ']' || c == '}') ? -1 : 0;
    }
    if (nl == code.size()) break;
    out += '\n';
    pos = nl + 1;
  }
  return out;
}

std::optional<std::string> joined_string_runs(std::string_view code) {
  std::string out;
  bool joined = false;
  size_t i = 0;
  while (i < code.size()) {
    const char c = code[i];
    const bool starts = (i == 0 || !(std::isalnum(static_cast<unsigned char>(code[i - 1])) || code[i - 1] == '_'));
    std::optional<Literal> first = starts ? literal_at(code, i) : std::nullopt;
    if (!first) {
      if (c == '"' || c == '\'') return std::nullopt;  // a literal graphmend does not join: leave all as is
      out += c;
      ++i;
      continue;
    }
    std::vector<Literal> run = {*first};
    size_t next = first->end;
    while (true) {
      size_t j = next;
      while (j < code.size() && (code[j] == ' ' || code[j] == '\n' || code[j] == '\r' || code[j] == '\t')) ++j;
      if (j == next) break;
      std::optional<Literal> more = literal_at(code, j);
      if (!more || more->quote != first->quote) break;
      run.push_back(*more);
      next = more->end;
    }
    if (run.size() == 1) {
      out += code.substr(i, first->end - i);
      i = first->end;
      continue;
    }
    const bool formatted = std::any_of(run.begin(), run.end(), [](const Literal& l) { return !l.prefix.empty(); });
    out += formatted ? "f" : "";
    out += first->quote;
    for (const Literal& l : run) {
      if (!formatted || !l.prefix.empty()) {
        out += l.body;
        continue;
      }
      if (l.body.find("\\N{") != std::string_view::npos) return std::nullopt;  // a named escape's braces
      for (char b : l.body) out += (b == '{' || b == '}') ? std::string(2, b) : std::string(1, b);
    }
    out += first->quote;
    joined = true;
    i = next;
  }
  if (!joined) return std::nullopt;
  return out;
}

}  // namespace graphmend::rewrite
