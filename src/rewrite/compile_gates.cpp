#include "graphmend/rewrite/compile_gates.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/python_layout.h"
#include "graphmend/source/text.h"

namespace graphmend::rewrite {

namespace {

bool is_newline_at(std::string_view text, uint32_t i) {
  return text[i] == '\n' || (text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'));
}

// `if <guard>:` as black and ruff would write it at `indent`: on one line when it fits the line
// length; else the guard in parentheses on a line of its own; else one operand a line, split at
// its top-level `or` (graphmend's "run the original when" chains) or else its `and` (its "the
// compiled code runs when" chains).
std::string gate_header(std::string_view guard, std::string_view indent, std::string_view inner,
                        std::string_view newline) {
  if (indent.size() + display_width(guard) + 4 <= generated_line_length()) return fmt::format("if {}:", guard);
  std::string out = fmt::format("if ({}{}", newline, inner);
  std::vector<std::string_view> operands{guard};
  std::string_view op;
  if (inner.size() + display_width(guard) > generated_line_length()) {
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
  const uint32_t starts_at = stmt.start() - static_cast<uint32_t>(l.indent.size());
  l.starts_line = starts_at == 0 || text[starts_at - 1] == '\n' || text[starts_at - 1] == '\r';
  l.newline = std::string(source::newline_text(m.file().newline));
  const ir::Node block = stmt.parent();
  const std::string_view header_indent = block ? source::indentation_at(text, block.parent().start()) : "";
  l.unit = l.indent.starts_with(header_indent) && l.indent.size() > header_indent.size()
               ? std::string(l.indent.substr(header_indent.size()))
               : std::string("    ");
  l.inner = std::string(l.indent) + l.unit;
  return l;
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
  // The columns after the callee, and the line's with the longer callee.
  const size_t rest = display_width(text.substr(function.end(), line_end - std::min<size_t>(function.end(), line_end)));
  const size_t width = display_width(text.substr(line_start, function.start() - line_start)) + display_width(callee) + rest;
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

}  // namespace graphmend::rewrite
