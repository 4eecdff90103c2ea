#include "graphmend/rewrite/site.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <unordered_set>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/totality.h"
#include "graphmend/source/generated.h"
#include "graphmend/source/text.h"

namespace graphmend::rewrite {

namespace {

// Builtin classes a helper may name directly: warning categories and exception classes.
bool is_builtin_class(std::string_view name) {
  using analysis::api::Fact;
  return analysis::api::has(analysis::api::Space::Global, name, Fact::ExceptionClass) ||
         analysis::api::has(analysis::api::Space::Global, name, Fact::WarningCategory);
}

// Displays and functions: values that can be neither carried nor named.
bool is_uncarriable(ir::Node n) {
  for (const syntax::Kind* k : {&kind::dictionary, &kind::set, &kind::list_comprehension,
                                &kind::dictionary_comprehension, &kind::set_comprehension,
                                &kind::generator_expression, &kind::lambda, &kind::await, &kind::yield}) {
    if (n.is(*k)) return true;
  }
  return false;
}

std::string readable_type(ir::Node n) {
  std::string t(n.type());
  std::replace(t.begin(), t.end(), '_', ' ');
  if (t == "dictionary") t = "dict";
  return t;
}

bool is_newline_at(std::string_view text, uint32_t i) {
  return text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'));
}

}  // namespace

bool is_plain_string(ir::Node n) {
  if (n.is(kind::concatenated_string)) {
    for (ir::Node part : n.named_children()) {
      if (!is_plain_string(part)) return false;
    }
    return true;
  }
  if (!n.is(kind::string)) return false;
  for (ir::Node c : n.named_children()) {
    if (c.is(kind::interpolation)) return false;
  }
  return true;
}

bool is_text_string(const ir::Module& m, ir::Node n) {
  if (n.is(kind::concatenated_string)) {
    for (ir::Node part : n.named_children()) {
      if (!is_text_string(m, part)) return false;
    }
    return true;
  }
  const std::string_view text = m.text(n);
  const size_t quote = text.find_first_of("\"'");
  return quote != std::string_view::npos && text.substr(0, quote).find_first_of("bB") == std::string_view::npos;
}

bool is_literal(ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is(kind::integer) || n.is(kind::float_) || n.is(kind::true_) || n.is(kind::false_) || n.is(kind::none)) return true;
  if (n.is(kind::unary_operator)) return is_literal(n.field(field::argument));
  return is_plain_string(n);
}

bool is_carried_literal(const ir::Module& m, ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is(kind::true_) || n.is(kind::false_) || n.is(kind::none)) return true;
  if (n.is(kind::unary_operator)) n = ir::unparenthesize(n.field(field::argument));
  if (n.is(kind::integer) || n.is(kind::float_)) return m.text(n).find_first_of("jJ") == std::string_view::npos;
  return is_plain_string(n) && is_text_string(m, n);
}

std::string SiteNamer::fresh(const std::string& prefix) {
  // Numbers only grow per prefix, so naming n sites costs O(n), not O(n^2).
  for (int& n = next_number_[prefix];; ++n) {
    std::string name = fmt::format("{}{}", prefix, n);
    if (taken_.contains(name) || module_.scopes[0].symbols.contains(name)) continue;
    taken_.insert(name);
    ++n;
    return name;
  }
}

namespace {

// FNV-1a of a helper's signature, 24 bits: a short name that the same text always gets.
uint32_t text_hash(const std::string& signature) {
  uint32_t hash = 2166136261u;
  for (const char c : signature) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return hash & 0xffffffu;
}

}  // namespace

std::string SiteNamer::own(std::string_view kind, const std::string& signature) {
  return fresh(fmt::format("_graphmend_{}_{:06x}_", kind, text_hash(signature)));
}

std::string SiteNamer::shared(std::string_view kind, const std::string& signature) {
  if (!block_read_) {
    block_read_ = true;
    if (const auto& block = module_.generated().block) {
      const std::vector<source::TextRange> statements = syntax::top_level_statements(module_.root());
      for (const source::Helper& h : source::generated_helpers(module_.text(), *block, statements)) {
        by_signature_.emplace(helper_signature(h), h.name);
      }
    }
  }
  if (auto it = by_signature_.find(signature); it != by_signature_.end()) return it->second;
  // Named from its text, not by a count in this file: code copied between files (transformers'
  // "Copied from") gets the same helper name in each copy.
  const std::string base = fmt::format("_graphmend_{}_{:06x}", kind, text_hash(signature));
  std::string name = base;
  if (taken_.contains(name) || module_.scopes[0].symbols.contains(name)) {
    name = fresh(base + "_");
  } else {
    taken_.insert(name);
  }
  by_signature_.emplace(signature, name);
  return name;
}

std::optional<std::string> SiteRenderer::render(ir::Node value) {
  value = ir::unparenthesize(value);
  if (carry_strings_ && is_plain_string(value) && is_text_string(m_, value)) return hole(value);
  if (is_literal(value)) return source::with_lf_newlines(m_.text(value));
  if (value.is(kind::string) || value.is(kind::concatenated_string)) return render_fstring(value);
  if (is_uncarriable(value)) {
    return decline(rewrite::decline<DeclineCode::UncarriableValue>(snippet(m_, value), readable_type(value)));
  }
  if (is_stable_reference(value)) return source::with_lf_newlines(m_.text(value));
  if (value.is(kind::call)) {
    ir::Node fn = value.field(field::function);
    if (fn.is(kind::identifier) && m_.lookup_at(fn) < 0 && is_builtin_class(m_.text(fn))) {
      return decline(rewrite::decline<DeclineCode::ObjectArgument>(snippet(m_, value)));
    }
  }
  return hole(value);
}

bool SiteRenderer::is_stable_reference(ir::Node n) const {
  if (n.is(kind::identifier)) {
    if (m_.lookup_at(n) < 0) return is_builtin_class(m_.text(n));
    const ir::Symbol* sym = m_.module_symbol(n);
    return sym && m_.bound_only_by(*sym, {ir::BindingKind::ClassDef, ir::BindingKind::Import});
  }
  if (n.is(kind::attribute)) {
    ir::Node root = ir::dotted_root(n);
    if (!root) return false;
    const ir::Symbol* sym = m_.module_symbol(root);
    if (!sym || !m_.bound_only_by(*sym, {ir::BindingKind::Import})) return false;
    auto q = m_.qualified_name(n);
    return q && (*q == "sys.stdout" || *q == "sys.stderr" || analysis::api::has(analysis::api::Space::Global, *q, analysis::api::Fact::LoggingLevel));
  }
  return false;
}

std::optional<std::string> SiteRenderer::decline(Decline reason) {
  if (!declined_) declined_ = std::move(reason);
  return std::nullopt;
}

std::optional<std::string> SiteRenderer::hole(ir::Node value) {
  bool bad = false;
  syntax::walk(value, [&](ir::Node c) {
    if (c.is(kind::yield) || c.is(kind::await) || c.is(kind::lambda)) bad = true;
    return !bad;
  });
  if (bad) return decline(rewrite::decline<DeclineCode::YieldAwaitLambda>(snippet(m_, value)));
  holes_.push_back(value);
  return hole_marker(holes_.size() - 1);
}

// An f-string stays in the helper; each replacement field's expression becomes a hole.
std::optional<std::string> SiteRenderer::render_fstring(ir::Node value) {
  std::string out;
  uint32_t cursor = value.start();
  bool ok = true;
  syntax::walk(value, [&](ir::Node n) {
    if (!ok) return false;
    // Inside an expression already carried as a hole (a nested f-string, PEP 701): its own
    // fields are the hole's business.
    if (n.start() < cursor) return false;
    ir::Node expr;
    if (n.is(kind::interpolation)) {
      for (ir::Node c : n.children()) {
        if (!c.is_named() && m_.text(c) == "=") {
          ok = false;
          decline(rewrite::decline<DeclineCode::SelfDocumentingField>(snippet(m_, value)));
          return false;
        }
      }
      expr = n.named_child(0);
    } else if (n.is(kind::format_expression)) {
      expr = n.named_child(0);
    } else {
      return true;
    }
    if (!expr || expr.is(kind::type_conversion) || expr.is(kind::format_specifier)) return true;
    out += source::with_lf_newlines(m_.text().substr(cursor, expr.start() - cursor));
    auto h = hole(expr);
    if (!h) {
      ok = false;
      return false;
    }
    out += *h;
    cursor = expr.end();
    return true;  // a format specifier's nested fields come after the expression
  });
  if (!ok) return std::nullopt;
  out += source::with_lf_newlines(m_.text().substr(cursor, value.end() - cursor));
  return out;
}

void SiteRenderer::choose_names(std::string_view source_text) {
  for (std::string prefix : {"a", "_gm_a", "_graphmend_a"}) {
    prefix_ = prefix;
    bool clash = false;
    for (size_t i = 0; i < holes_.size() && !clash; ++i) {
      clash = source_text.find(param(i)) != std::string_view::npos;
    }
    if (!clash) return;
  }
}

std::string SiteRenderer::hole_marker(size_t i) {
  // NUL never occurs in a source graphmend analyses (source/source_file.cpp rejects it), so
  // markers cannot collide with the text around them.
  return fmt::format("{}{}{}", '\0', i, '\0');
}

std::string SiteRenderer::param(size_t i) const { return fmt::format("{}{}", prefix_, i); }

std::string SiteRenderer::finish(std::string_view rendered) const {
  std::string out;
  for (size_t i = 0; i < rendered.size(); ++i) {
    if (rendered[i] != '\0') {
      out += rendered[i];
      continue;
    }
    const size_t close = rendered.find('\0', i + 1);
    out += param(static_cast<size_t>(std::stoul(std::string(rendered.substr(i + 1, close - i - 1)))));
    i = close;
  }
  return out;
}

std::string SiteRenderer::params() const {
  std::string out;
  for (size_t i = 0; i < holes_.size(); ++i) out += (i ? ", " : "") + param(i);
  return out;
}

std::string SiteRenderer::hole_args() const {
  std::string out;
  for (ir::Node h : holes_) {
    out += ", ";
    out += copied(m_, h);
  }
  return out;
}

namespace {

std::vector<source::TextRange> multiline_strings_in(const ir::Module& m, ir::Node node) {
  std::vector<source::TextRange> out;
  const std::string_view text = m.text();
  syntax::walk(node, [&](ir::Node n) {
    if (!n.is(kind::string)) return true;
    if (text.substr(n.start(), n.end() - n.start()).find_first_of("\r\n") != std::string_view::npos) {
      out.push_back(n.range());
    }
    return false;
  });
  return out;
}

bool inside_any(const std::vector<source::TextRange>& ranges, uint32_t offset) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const source::TextRange& r) { return r.start < offset && offset < r.end; });
}

}  // namespace

namespace {
// Generated lines longer than this are wrapped: see GeneratedLineLength.
thread_local size_t generated_line_length_now = 88;
}  // namespace

size_t generated_line_length() { return generated_line_length_now; }

GeneratedLineLength::GeneratedLineLength(size_t length) : previous_(generated_line_length_now) {
  generated_line_length_now = length;
}

GeneratedLineLength::~GeneratedLineLength() { generated_line_length_now = previous_; }

namespace {


// Splits `args` at each top-level `separator` (outside brackets and strings); empty when a string
// or bracket is left open (then the line is not wrapped).
std::vector<std::string_view> top_level_split(std::string_view args, std::string_view separator) {
  std::vector<std::string_view> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const char c = args[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      if (args.substr(i, 3) == std::string(3, c)) return {};  // a triple-quoted string
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      --depth;
    } else if (depth == 0 && args.substr(i, separator.size()) == separator) {
      out.push_back(args.substr(start, i - start));
      start = i + separator.size();
      i = start - 1;
    }
  }
  if (quote || depth != 0) return {};
  out.push_back(args.substr(start));
  return out;
}

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
      if (indent.size() + piece.size() <= generated_line_length()) {
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

// One generated line (without its indentation `indent`) as the file shows it: wrapped after the
// opening bracket of its first call when too long, one argument per line, the closing bracket
// on its own line ("if f(...):" keeps its colon). `inside_brackets`: the line continues an
// expression inside brackets (an argument, an operand), where it may break between any tokens.
std::string wrapped_line(std::string_view line, std::string_view indent, std::string_view unit,
                         std::string_view newline, bool inside_brackets = false) {
  const auto plain = [&] { return std::string(indent) + std::string(line); };
  if (indent.size() + line.size() <= generated_line_length()) return plain();
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
    if (indent.size() + unit.size() + value.size() > generated_line_length() || top_level_split(value, ",").empty()) {
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
        if (i == last && c == ')' && indent.size() + opened.back() + 1 <= generated_line_length()) open = opened.back();
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
  if (indent.size() + unit.size() + inside.size() <= generated_line_length() && !inside.ends_with(",")) {
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

}  // namespace

// Generated code into file text: '\n' starts a line at the compiled branch's indentation, each
// kIndentStep is one more level, kRawNewline is a line break copied from inside the original
// statement (indentation kept as it was). A generated line too long for 88 columns is wrapped
// (wrapped_line) at a call's arguments, at an operand's operators, or as `name = (<value>)`,
// unless it holds copied line breaks.
std::string render_code(std::string_view code, std::string_view newline, std::string_view inner,
                        std::string_view unit) {
  std::string out;
  size_t pos = 0;
  bool first = true;
  while (pos <= code.size()) {
    size_t end = code.find('\n', pos);
    if (end == std::string_view::npos) end = code.size();
    std::string_view line = code.substr(pos, end - pos);
    std::string indent = first ? std::string() : std::string(inner);
    while (line.starts_with(kIndentStep)) {
      indent += unit;
      line.remove_prefix(1);
    }
    // A copied line's own indentation (relative to its statement's first line) is indentation
    // too: a wrapped line's arguments go one level in from it.
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
      indent += line.front();
      line.remove_prefix(1);
    }
    if (!first) out += newline;
    if (line.find(kRawNewline) != std::string_view::npos || line.find(kIndentStep) != std::string_view::npos) {
      out += indent;
      for (char c : line) {
        if (c == kIndentStep) {
          out += unit;
        } else if (c == kRawNewline) {
          out += newline;
        } else {
          out += c;
        }
      }
    } else {
      // The first line follows text already on the line (`else:` + indentation), which is
      // `inner` wide.
      std::string full = wrapped_line(line, first ? std::string(inner) + indent : indent, unit, newline);
      out += first ? full.substr(inner.size()) : full;
    }
    first = false;
    if (end == code.size()) break;
    pos = end + 1;
  }
  return out;
}

std::string copied(const ir::Module& m, ir::Node node) { return with_raw_newlines(m.text(node)); }

std::string with_raw_newlines(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') continue;
    out += (text[i] == '\n' || text[i] == '\r') ? kRawNewline : text[i];
  }
  return out;
}

std::string reindented(const ir::Module& m, ir::Node node, int levels) {
  const std::string_view text = m.text();
  const auto strings = multiline_strings_in(m, node);
  const std::string_view base = source::indentation_at(text, node.start());
  std::string out;
  for (uint32_t i = node.start(); i < node.end(); ++i) {
    if (text[i] == '\r' && i + 1 < node.end() && text[i + 1] == '\n') continue;
    if (text[i] != '\n' && text[i] != '\r') {
      out += text[i];
      continue;
    }
    const uint32_t next = i + 1;
    if (inside_any(strings, next) || next >= node.end() || text[next] == '\n' || text[next] == '\r') {
      out += kRawNewline;
      continue;
    }
    out += '\n';
    out.append(static_cast<size_t>(levels), kIndentStep);
    // Keep the line's indentation relative to the node's first line.
    if (text.substr(next).starts_with(base)) i += static_cast<uint32_t>(base.size());
  }
  return out;
}

void CompiledCode::line(std::string_view code) {
  if (!text.empty()) text += '\n';
  text.append(static_cast<size_t>(level), kIndentStep);
  text += code;
}

std::optional<Declined> cannot_run(const ir::Module& m, ir::Node site) {
  ir::Node klass;
  for (ir::Node n = site, p = site.parent(); p; n = p, p = p.parent()) {
    const bool guarded_body = (p.is(kind::if_statement) && n == p.field(field::consequence)) ||
                              (p.is(kind::while_statement) && n == p.field(field::body));
    if (guarded_body && ir::unparenthesize(p.field(field::condition)).is(kind::false_)) {
      return Declined{decline<DeclineCode::NeverRuns>(fmt::format("{} False:", p.is(kind::if_statement) ? "if" : "while"))};
    }
    if (!klass && p.is(kind::class_definition)) klass = p;
  }
  if (!klass) return std::nullopt;
  const std::string_view class_name = m.text(klass.field(field::name));
  const size_t first = class_name.find_first_not_of('_');
  if (first == std::string_view::npos) return std::nullopt;  // a class named only `_`s mangles nothing
  std::optional<Declined> found;
  syntax::walk(site, [&](ir::Node n) {
    if (found) return false;
    if (!n.is(kind::identifier)) return true;
    const std::string_view name = m.text(n);
    if (!name.starts_with("__") || name.ends_with("__")) return true;
    const ir::Node parent = n.parent();
    if (parent && parent.is(kind::attribute) && parent.field(field::attribute) == n) return true;  // `x.__y`: mangled too, on an object
    if (parent && parent.is(kind::keyword_argument) && parent.field(field::name) == n) return true;
    const std::string mangled = fmt::format("_{}{}", class_name.substr(first), name);
    // Resolved to the module's binding (a local, mangled alike, would be found first).
    const int symbol = m.lookup_at(n);
    const bool module_level = symbol >= 0 && m.symbols[static_cast<size_t>(symbol)].scope == 0;
    if (module_level && !m.module_symbol_named(mangled)) {
      found = Declined{decline<DeclineCode::AlwaysNameError>(name, class_name, mangled)};
    }
    return !found;
  });
  return found;
}

std::optional<Declined> tracing_may_fail(const analysis::FileContext& ctx, ir::Node site) {
  const int fi = ctx.module.function_of(site);
  if (fi < 0) return std::nullopt;
  // The function and every compiled function that reaches it: Dynamo inlines them into one
  // frame, so a failure in a caller after the call loses what the callee's fix put in the graph.
  std::vector<analysis::FunctionRef> pending = {{&ctx.module, fi}};
  std::set<std::pair<const ir::Module*, int>> seen = {{&ctx.module, fi}};
  while (!pending.empty()) {
    const analysis::FunctionRef f = pending.back();
    pending.pop_back();
    const ir::Node body = f.module->functions[static_cast<size_t>(f.function)].node.field(field::body);
    if (const ir::Node n = analysis::python_arithmetic_may_crash_tracing(*f.module, ctx.types, body)) {
      return Declined{decline<DeclineCode::TracingMayFail>(snippet(*f.module, n))};
    }
    for (const analysis::FunctionRef& caller : ctx.regions.callers_of(f)) {
      if (seen.insert({caller.module, caller.function}).second) pending.push_back(caller);
    }
  }
  return std::nullopt;
}

std::optional<Declined> runtime_unavailable(const ir::Module& m) {
  if (const auto& damage = m.generated().damage) {
    return Declined{decline<DeclineCode::GeneratedBlockDamaged>(*damage)};
  }
  if (m.module_symbol_named("_graphmend") && !m.generated().block) {
    return Declined{decline<DeclineCode::RuntimeNameTaken>()};
  }
  return std::nullopt;
}

void call_through_runtime(const ir::Module& m, ir::Node function, source::Fix& fix) {
  const std::string_view text = m.text();
  // `print` becomes `_graphmend.call(print)`, `logger.info` `_graphmend.call(logger).info`: the
  // callee stays written as code.
  const std::string callee =
      function.is(kind::attribute)
          ? fmt::format("_graphmend.call({}).{}", m.text(function.field(field::object)),
                        m.text(function.field(field::attribute)))
          : fmt::format("_graphmend.call({})", m.text(function));
  const size_t before = text.substr(0, function.start()).find_last_of("\r\n");
  const size_t line_start = before == std::string_view::npos ? 0 : before + 1;
  const size_t line_end = std::min(text.find_first_of("\r\n", function.start()), text.size());
  const size_t rest = line_end - std::min<size_t>(function.end(), line_end);  // after the callee
  const size_t width = function.start() - line_start + callee.size() + rest;
  if (width <= generated_line_length() || m.text(function).find_first_of("\r\n") != std::string_view::npos) {
    fix.edits.push_back(source::Edit::replace(function.range(), callee));
    return;
  }
  // Too long with the longer callee: the arguments go on a line of their own, as ruff and black
  // split a call (`callee(` / `    arguments` / `)`, even where that line is still too long), when
  // the call starts its line, its arguments follow the callee there and carry no magic trailing
  // comma.
  const ir::Node call = function.parent();
  const ir::Node arguments = call && call.is(kind::call) ? call.field(field::arguments) : ir::Node{};
  const std::string_view indent = source::indentation_at(text, function.start());
  const std::string inner = std::string(indent) + (indent.find('\t') != std::string_view::npos ? "\t" : "    ");
  const bool starts_line =
      text.substr(line_start, function.start() - line_start).find_first_not_of(" \t") == std::string_view::npos;
  if (starts_line && arguments && arguments.is(kind::argument_list) && arguments.start() == function.end() &&
      arguments.end() <= line_end && arguments.end() - arguments.start() > 2) {
    const std::string_view inside = text.substr(arguments.start() + 1, arguments.end() - arguments.start() - 2);
    std::string_view trimmed = inside;
    while (!trimmed.empty() && trimmed.back() == ' ') trimmed.remove_suffix(1);
    if (!trimmed.ends_with(",")) {
      const std::string newline(source::newline_text(m.file().newline));
      fix.edits.push_back(source::Edit::replace(function.range(), callee));
      fix.edits.push_back(source::Edit::replace(arguments.range(), "(" + newline + inner + std::string(trimmed) +
                                                                       newline + std::string(indent) + ")"));
      return;
    }
  }
  // A call after `if c:` on its line, or one with a trailing comma: the callee alone goes in
  // parentheses over three lines, which keeps each line within the length (the formatter would
  // move such a statement anyway).
  const std::string newline(source::newline_text(m.file().newline));
  const bool wrap_fits = indent.size() + 1 + rest <= generated_line_length();
  if (!wrap_fits) {
    fix.edits.push_back(source::Edit::replace(function.range(), callee));
    return;
  }
  fix.edits.push_back(
      source::Edit::replace(function.range(), "(" + newline + inner + callee + newline + std::string(indent) + ")"));
}

namespace {

// `if <guard>:` as black and ruff would write it at `indent`: on one line when it fits in 88
// columns; else the guard in parentheses on a line of its own; else one operand a line, split at
// its top-level `or` (graphmend's "run the original when" chains) or else its `and` (its "the
// compiled code runs when" chains).
std::string gate_header(std::string_view guard, std::string_view indent, std::string_view inner,
                        std::string_view newline) {
  if (indent.size() + guard.size() + 4 <= generated_line_length()) return fmt::format("if {}:", guard);
  std::string out = fmt::format("if ({}{}", newline, inner);
  std::vector<std::string_view> operands{guard};
  std::string_view op;
  if (inner.size() + guard.size() > generated_line_length()) {
    for (std::string_view candidate : {std::string_view(" or "), std::string_view(" and ")}) {
      if (std::vector<std::string_view> split = top_level_split(guard, candidate); split.size() >= 2) {
        operands = std::move(split);
        op = candidate.substr(1);  // "or " / "and "
        break;
      }
    }
  }
  for (size_t i = 0; i < operands.size(); ++i) {
    if (i) out += fmt::format("{}{}{}", newline, inner, op);
    out += operands[i];
  }
  return out + fmt::format("{}{}):", newline, indent);
}

}  // namespace

uint32_t line_start(const ir::Module& m, ir::Node n) {
  return n.start() - static_cast<uint32_t>(source::indentation_at(m.text(), n.start()).size());
}

StatementLayout layout_of(const ir::Module& m, ir::Node stmt) {
  const std::string_view text = m.text();
  StatementLayout l;
  l.indent = source::indentation_at(text, stmt.start());
  const uint32_t line_start = stmt.start() - static_cast<uint32_t>(l.indent.size());
  l.starts_line = line_start == 0 || text[line_start - 1] == '\n' || text[line_start - 1] == '\r';
  l.newline = std::string(source::newline_text(m.file().newline));
  const ir::Node block = stmt.parent();
  const std::string_view header_indent = block ? source::indentation_at(text, block.parent().start()) : "";
  l.unit = l.indent.starts_with(header_indent) && l.indent.size() > header_indent.size()
               ? std::string(l.indent.substr(header_indent.size()))
               : std::string("    ");
  l.inner = std::string(l.indent) + l.unit;
  return l;
}


std::optional<Declined> wrap_for_compile(const ir::Module& m, ir::Node stmt, std::string_view compiled_code,
                                         source::Fix& fix, std::string_view guard) {
  return wrap_for_compile(m, stmt, stmt, compiled_code, fix, guard);
}

namespace {

// Moves the statements `first` to `last` of one block in by one level, under `head` (the lines put
// before them at their indentation, ending where the first of them now starts) and before `tail`
// (put after the last, on its line). Declines statements that share their lines with other code.
std::optional<Declined> move_into_branch(const ir::Module& m, ir::Node first, ir::Node last, source::Fix& fix,
                                         const std::function<std::string(const StatementLayout&)>& head,
                                         const std::function<std::string(const StatementLayout&)>& tail) {
  const std::string_view text = m.text();
  const ir::Node stmt = first;
  ir::Node block = stmt.parent();
  const StatementLayout layout = layout_of(m, stmt);
  uint32_t after = last.end();
  while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
  if (after < text.size() && text[after] == '#') {
    while (after < text.size() && text[after] != '\n' && text[after] != '\r') ++after;
  }
  const bool ends_line = after == text.size() || text[after] == '\n' || text[after] == '\r';
  if (!block.is(kind::block) || last.parent() != block || !layout.starts_line || !ends_line) {
    return Declined{decline<DeclineCode::SharesLine>()};
  }
  if (auto taken = runtime_unavailable(m)) return taken;

  fix.edits.push_back(source::Edit::insertion(stmt.start(), head(layout)));
  // The statement's other lines move in with it, except lines inside a multi-line string, whose
  // bytes are the string's value.
  std::vector<source::TextRange> strings;
  for (ir::Node s = first; s; s = s.next_named_sibling()) {
    for (const source::TextRange& r : multiline_strings_in(m, s)) strings.push_back(r);
    if (s == last) break;
  }
  for (uint32_t i = stmt.start(); i < last.end(); ++i) {
    if (!is_newline_at(text, i)) continue;
    const uint32_t next = i + 1;
    if (next >= last.end() || text[next] == '\n' || text[next] == '\r') continue;  // a blank line
    if (!inside_any(strings, next)) fix.edits.push_back(source::Edit::insertion(next, layout.unit));
  }
  if (std::string end = tail(layout); !end.empty()) fix.edits.push_back(source::Edit::insertion(after, std::move(end)));
  return std::nullopt;
}

}  // namespace

std::optional<Declined> wrap_for_compile(const ir::Module& m, ir::Node first, ir::Node last,
                                         std::string_view compiled_code, source::Fix& fix, std::string_view guard) {
  return move_into_branch(
      m, first, last, fix,
      [&](const StatementLayout& l) { return gate_header(guard, l.indent, l.inner, l.newline) + l.newline + l.inner; },
      [&](const StatementLayout& l) {
        return fmt::format("{nl}{ind}else:{nl}{inner}{code}", fmt::arg("nl", l.newline), fmt::arg("ind", l.indent),
                           fmt::arg("inner", l.inner), fmt::arg("code", render_code(compiled_code, l.newline, l.inner, l.unit)));
      });
}

std::optional<Declined> compile_before_statement(const ir::Module& m, ir::Node stmt, std::string_view compiled_guard,
                                                 std::string_view compiled_code, source::Fix& fix) {
  return move_into_branch(
      m, stmt, stmt, fix,
      [&](const StatementLayout& l) {
        return fmt::format("{gate}{nl}{inner}{code}{nl}{ind}else:{nl}{inner}",
                           fmt::arg("gate", gate_header(compiled_guard, l.indent, l.inner, l.newline)),
                           fmt::arg("nl", l.newline), fmt::arg("ind", l.indent), fmt::arg("inner", l.inner),
                           fmt::arg("code", render_code(compiled_code, l.newline, l.inner, l.unit)));
      },
      [](const StatementLayout&) { return std::string(); });
}

std::optional<Declined> compile_before_loop(const ir::Module& m, ir::Node first, ir::Node loop,
                                            std::string_view compiled_code, source::Fix& fix, std::string_view guard) {
  ir::Node iterable = loop.field(field::right);
  if (first != loop) {
    // The name the loop runs over, bound by `first`: the compiled branch binds it to no iterations.
    return wrap_for_compile(m, first, first,
                            fmt::format("{}\n{} = ()", compiled_code, m.text(ir::unparenthesize(iterable))), fix, guard);
  }
  const StatementLayout l = layout_of(m, loop);
  if (!loop.is(kind::for_statement) || !loop.parent().is(kind::block) || !l.starts_line) {
    return Declined{decline<DeclineCode::SharesLine>()};
  }
  if (auto taken = runtime_unavailable(m)) return taken;
  fix.edits.push_back(source::Edit::insertion(
      loop.start(),
      fmt::format("{gate}{nl}{inner}{bound}{nl}{ind}else:{nl}{inner}{code}{nl}{ind}",
                  fmt::arg("gate", gate_header(guard, l.indent, l.inner, l.newline)), fmt::arg("nl", l.newline),
                  fmt::arg("inner", l.inner), fmt::arg("ind", l.indent),
                  fmt::arg("bound", render_code(fmt::format("{} = {}", kIteratedName, copied(m, iterable)), l.newline,
                                                l.inner, l.unit)),
                  fmt::arg("code", render_code(fmt::format("{}\n{} = ()", compiled_code, kIteratedName), l.newline,
                                               l.inner, l.unit)))));
  fix.edits.push_back(source::Edit::replace(iterable.range(), std::string(kIteratedName)));
  return std::nullopt;
}

namespace {

// Inserts `head(indent, inner, unit, newline)` before `if_statement`'s `if` keyword, which the
// head's last text, "el", turns into `elif`: the statement's own lines stay where they are.
template <typename Head>
std::optional<Declined> insert_before_if(const ir::Module& m, ir::Node if_statement, source::Fix& fix, Head&& head) {
  const StatementLayout l = layout_of(m, if_statement);
  if (!if_statement.is(kind::if_statement) || !if_statement.parent().is(kind::block) || !l.starts_line) {
    return Declined{decline<DeclineCode::SharesLine>()};
  }
  if (auto taken = runtime_unavailable(m)) return taken;
  fix.edits.push_back(source::Edit::insertion(if_statement.start(), head(l.indent, l.inner, l.unit, l.newline) + "el"));
  return std::nullopt;
}

}  // namespace

std::optional<Declined> compile_before_if(const ir::Module& m, ir::Node if_statement, std::string_view compiled_guard,
                                          std::string_view compiled_code, source::Fix& fix) {
  return insert_before_if(m, if_statement, fix, [&](std::string_view indent, const std::string& inner,
                                                    const std::string& unit, const std::string& newline) {
    return fmt::format("{}{nl}{inner}{code}{nl}{ind}", gate_header(compiled_guard, indent, inner, newline),
                       fmt::arg("nl", newline), fmt::arg("inner", inner),
                       fmt::arg("code", render_code(compiled_code, newline, inner, unit)), fmt::arg("ind", indent));
  });
}

std::optional<Declined> select_before_if(const ir::Module& m, ir::Node if_statement, std::string_view compiled_code,
                                         source::Fix& fix, std::string_view compiled_condition) {
  return insert_before_if(m, if_statement, fix, [&](std::string_view indent, const std::string& inner,
                                                    const std::string& unit, const std::string& newline) {
    return fmt::format("{done} = False{nl}{ind}{}{nl}{inner}{code}{nl}{ind}if {done}:{nl}{inner}pass{nl}{ind}",
                       gate_header(compiled_condition, indent, inner, newline), fmt::arg("nl", newline),
                       fmt::arg("inner", inner), fmt::arg("done", kDoneFlag),
                       fmt::arg("code", render_code(compiled_code, newline, inner, unit)), fmt::arg("ind", indent));
  });
}

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

// Generated code whose lines pass 88 columns only because of a string literal inside brackets:
// each such line that is one literal (then nothing, or a closing `,` `)` `),`) becomes adjacent
// literals on lines of their own, cut at spaces; Python joins adjacent literals into one value,
// so the string is the same. Code with a triple-quoted string is left as it is.
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
    if (brackets > 0 && line.size() > generated_line_length() && lead != std::string_view::npos) {
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
        // The last cut that keeps this piece within 88 columns; none: the rest stays whole.
        size_t cut = 0;
        for (size_t c : cuts->after_space) {
          if (c <= from) continue;
          if (lead + prefix.size() + 2 + (c - from) > generated_line_length()) break;
          cut = c;
        }
        const bool rest_fits = lead + prefix.size() + 2 + (close - from) + tail.size() <= generated_line_length();
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

// `code` with each implicit concatenation of plain and f-string literals (same quotes, only
// white space between) joined into one literal, as ruff's formatter joins those that fit; the
// plain parts' braces doubled where the result is an f-string. nullopt when nothing was joined.
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

}  // namespace

std::string helper_call(const std::string& callee, const std::vector<std::string>& args, size_t lead) {
  std::string one_line = callee + "(";
  bool multiline = false;
  for (size_t i = 0; i < args.size(); ++i) {
    one_line += (i ? ", " : "") + args[i];
    multiline |= args[i].find('\n') != std::string::npos;
  }
  one_line += ")";
  if (!multiline && lead + one_line.size() <= generated_line_length()) return one_line;
  std::string out = callee + "(";
  for (const std::string& arg : args) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos <= arg.size();) {
      const size_t nl = std::min(arg.find('\n', pos), arg.size());
      lines.push_back(std::string_view(arg).substr(pos, nl - pos));
      pos = nl + 1;
    }
    const bool has_long_string = arg.find("\"\"\"") != std::string::npos || arg.find("'''") != std::string::npos;
    size_t common = std::string::npos;
    for (size_t i = 1; i < lines.size(); ++i) {
      const size_t first_column = lines[i].find_first_not_of(' ');
      if (first_column != std::string_view::npos) common = std::min(common, first_column);
    }
    out += "\n        ";
    out += lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      out += "\n";
      if (has_long_string || common == std::string::npos || lines[i].size() < common) {
        out += lines[i];
      } else {
        out += "        ";
        out += lines[i].substr(common);
      }
    }
    if (args.size() > 1) out += ",";  // one argument stays hugged by the parentheses, as ruff leaves it
  }
  out += "\n    )";
  return out;
}

source::Helper site_helper(const std::string& name, const std::string& params, const std::string& body) {
  // The body is one line unless it keeps a string's own line breaks; one line is wrapped at the
  // line length as black would (a helper's lines are graphmend's, and ruff checks them). Strings
  // the original concatenated over lines are joined where the joined line fits, as ruff would.
  auto lay_out = [](const std::string& code) {
    return code.find('\n') == std::string::npos ? wrapped_line(code, "    ", "    ", "\n") : "    " + code;
  };
  std::string line = lay_out(body);
  if (body.find('\n') != std::string::npos) {
    if (std::optional<std::string> joined = joined_string_runs(body)) {
      // `callee(` / one argument, now on one line / `)`: ruff puts it back on one line if it fits.
      const size_t open = joined->find("(\n"), close = joined->rfind("\n");
      if (open != std::string::npos && close > open && joined->ends_with(")")) {
        const std::string_view inside = std::string_view(*joined).substr(open + 2, close - open - 2);
        const size_t first = inside.find_first_not_of(" \t");
        if (first != std::string_view::npos && inside.find('\n') == std::string_view::npos &&
            std::string_view(*joined).substr(close + 1).find_first_not_of(" \t") == joined->size() - close - 2) {
          *joined = joined->substr(0, open + 1) + std::string(inside.substr(first)) + ")";
        }
      }
      const std::string candidate = lay_out(*joined);
      bool fits = true;
      for (size_t from = 0; from <= candidate.size();) {
        const size_t to = std::min(candidate.find('\n', from), candidate.size());
        fits = fits && to - from <= generated_line_length();
        from = to + 1;
      }
      if (fits) line = candidate;
    }
  }
  return {name, "def " + name + fmt::format("({}):\n{}\n", params, split_long_literals(line))};
}

std::string helper_signature(const source::Helper& helper) {
  std::string code = helper.code;
  const std::string def = "def " + helper.name + "(";
  if (const size_t at = code.find(def); at != std::string::npos) code.replace(at, def.size(), "def (");
  return code;
}

}  // namespace graphmend::rewrite
