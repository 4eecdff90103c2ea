#include "graphmend/fix/generated_block.h"

#include <fmt/format.h>

#include <cctype>
#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "graphmend/source/generated.h"
#include "graphmend/source/text.h"
#include "graphmend/syntax/python_rules.h"

namespace graphmend::fix {

namespace {

// graphmend 0.1 bound each runtime function to a module-level `_graphmend_<name>`; code it
// rewrote still calls them, so the block binds these aliases while such calls remain.
const std::map<std::string, std::string, std::less<>> kLegacyAliases = {
    {"_graphmend_compiling", "compiling"},     {"_graphmend_defer", "defer"},
    {"_graphmend_check", "check"},             {"_graphmend_equal", "equal"},
    {"_graphmend_assert_async", "assert_async"}, {"_graphmend_selectable", "selectable"},
    {"_graphmend_where", "where"},             {"_graphmend_buffer_slot", "buffer_slot"},
    {"_graphmend_unmoved", "unmoved"},         {"_graphmend_torch", "torch"}};

constexpr std::string_view kRuntimeName = "_graphmend";

uint32_t next_line_start(std::string_view text, uint32_t offset) {
  const size_t nl = text.find_first_of("\r\n", offset);
  if (nl == std::string_view::npos) return static_cast<uint32_t>(text.size());
  if (text[nl] == '\r' && nl + 1 < text.size() && text[nl + 1] == '\n') return static_cast<uint32_t>(nl + 2);
  return static_cast<uint32_t>(nl + 1);
}

bool is_blank_line_at(std::string_view text, size_t pos) {
  return pos < text.size() && (text[pos] == '\n' || text[pos] == '\r');
}

// True when the line that ends just before `line_start` is blank (or there is none).
bool previous_line_blank(std::string_view text, size_t line_start) {
  if (line_start == 0) return true;
  size_t p = line_start - 1;  // the previous line's line break
  if (text[p] == '\n' && p > 0 && text[p - 1] == '\r') --p;
  return p == 0 || text[p - 1] == '\n' || text[p - 1] == '\r';
}

// The start of the line before the one starting at `line_start` (> 0).
size_t previous_line_start(std::string_view text, size_t line_start) {
  size_t p = line_start - 1;  // the previous line's line break
  if (text[p] == '\n' && p > 0 && text[p - 1] == '\r') --p;
  while (p > 0 && text[p - 1] != '\n' && text[p - 1] != '\r') --p;
  return p;
}

// The lines a block occupies, with the blank line that separates it from the code around it.
source::TextRange block_lines(std::string_view text, source::TextRange block) {
  uint32_t end = next_line_start(text, block.end);
  if (is_blank_line_at(text, end) && previous_line_blank(text, block.start)) end = next_line_start(text, end);
  return {block.start, end};
}

bool contains_import(syntax::Node stmt) {
  bool found = false;
  syntax::walk(stmt, [&](syntax::Node n) {
    if (found || n.is(kind::function_definition) || n.is(kind::class_definition)) return false;
    found = n.is(kind::import_statement) || n.is(kind::import_from_statement) || n.is(kind::future_import_statement);
    return !found;
  });
  return found;
}

// Where a new block goes: after the module's last top-level import (an `if`/`try` holding
// imports counts) before its first definition, else after a leading docstring, else the top.
uint32_t block_anchor(std::string_view text, syntax::Node root, std::optional<source::TextRange> skip) {
  uint32_t anchor = 0;
  bool first = true;
  for (syntax::Node child : root.children()) {
    if (child.is(kind::comment) || (skip && skip->contains(child.range()))) continue;
    if (child.is(kind::function_definition) || child.is(kind::class_definition) || child.is(kind::decorated_definition)) break;
    const bool docstring = first && child.is(kind::expression_statement) && child.named_child_count() == 1 &&
                           child.named_child(0).is(kind::string);
    first = false;
    if (docstring || contains_import(child)) anchor = next_line_start(text, child.end());
  }
  return anchor;
}

// Where the binding line alone goes with no blank lines of its own: the start of the module's first
// statement after `anchor` when that is a simple statement (`logger = ...`) on the first non-blank
// line, `wanted` blank lines or more below the imports. The line then joins the statements already
// there, as a maintainer would add one; else (a definition, a comment, no statement) none.
std::optional<uint32_t> simple_statement_after(std::string_view text, syntax::Node root, uint32_t anchor,
                                               int wanted) {
  int blank = 0;
  uint32_t at = anchor;
  while (is_blank_line_at(text, at)) {
    at = next_line_start(text, at);
    ++blank;
  }
  if (at >= text.size() || (anchor > 0 && blank < wanted)) return std::nullopt;
  for (syntax::Node child : root.children()) {
    if (child.start() < at) continue;
    if (child.start() == at && child.is(kind::expression_statement)) return at;
    return std::nullopt;
  }
  return std::nullopt;
}

struct Uses {
  std::set<std::string> names;          // `_graphmend*` identifiers outside the block
  std::set<std::string> runtime_attrs;  // X of `_graphmend.X`
};

// The uses in `text` outside the block and outside the ranges `pending` edits replace.
Uses uses_outside(std::string_view text, syntax::Node root, std::optional<source::TextRange> block,
                  std::span<const source::Edit> pending) {
  Uses uses;
  const auto replaced = [&](const source::TextRange& r) {
    // `pending` is sorted: the first edit ending after r.start is the only one that can hold r.
    auto it = std::lower_bound(pending.begin(), pending.end(), r.start,
                               [](const source::Edit& e, uint32_t at) { return e.range.end <= at; });
    return it != pending.end() && !it->range.empty() && it->range.contains(r);
  };
  syntax::walk(root, [&](syntax::Node n) {
    if (block && block->contains(n.range())) return false;
    if (!pending.empty() && replaced(n.range())) return false;
    if (n.is(kind::attribute)) {
      syntax::Node object = n.field(field::object);
      if (object.is(kind::identifier) && object.text(text) == kRuntimeName) {
        uses.runtime_attrs.insert(std::string(n.field(field::attribute).text(text)));
      }
    } else if (n.is(kind::identifier)) {
      const std::string_view name = n.text(text);
      if (name.starts_with(kRuntimeName)) uses.names.insert(std::string(name));
    }
    return true;
  });
  return uses;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The `_graphmend*` names and `_graphmend.X` attributes spelt in code that is not parsed yet (an
// edit's replacement). Text in its strings and comments counts too: at worst a name too many.
void add_uses_in(std::string_view code, Uses& uses) {
  for (size_t at = code.find(kRuntimeName); at != std::string_view::npos; at = code.find(kRuntimeName, at + 1)) {
    if (at > 0 && is_name_char(code[at - 1])) continue;
    size_t end = at;
    while (end < code.size() && is_name_char(code[end])) ++end;
    const std::string_view name = code.substr(at, end - at);
    uses.names.insert(std::string(name));
    if (name == kRuntimeName && end < code.size() && code[end] == '.') {
      size_t attr_end = end + 1;
      while (attr_end < code.size() && is_name_char(code[attr_end])) ++attr_end;
      if (attr_end > end + 1) uses.runtime_attrs.insert(std::string(code.substr(end + 1, attr_end - end - 1)));
    }
  }
}

}  // namespace

std::vector<source::Edit> generated_block_edits(std::string_view text, syntax::Node root,
                                                const std::vector<const source::Helper*>& new_helpers,
                                                const RuntimeLink& link, std::span<const source::Edit> pending) {
  source::GeneratedMarkers markers = source::scan_generated_markers(text);
  // Damaged markers: the rewrites declined every fix that needs the block, and maintaining it
  // could cut user code, so it stays as it is.
  if (markers.damage || syntax::generated_line_misplaced(root, markers)) return {};
  const std::vector<source::TextRange> statements = syntax::top_level_statements(root);
  source::extend_over_helpers(text, markers, statements);
  const std::optional<source::GeneratedBlock>& block = markers.block;
  const std::optional<source::TextRange> range = block ? std::optional(block->range) : std::nullopt;
  Uses uses = uses_outside(text, root, range, pending);
  for (const source::Edit& e : pending) add_uses_in(e.replacement, uses);

  // The helpers still named outside the block: the block's own first, then the new ones.
  std::vector<source::Helper> helpers;
  std::set<std::string> kept;
  auto keep = [&](const source::Helper& h) {
    if (kLegacyAliases.contains(h.name) || !uses.names.contains(h.name) || !kept.insert(h.name).second) return;
    helpers.push_back(h);
  };
  if (block) {
    for (const source::Helper& h : source::generated_helpers(text, *block, statements)) keep(h);
  }
  for (const source::Helper* h : new_helpers) keep(*h);

  // Runtime names the kept helpers use themselves (a decorator), for an inline runtime's sections.
  for (const source::Helper& h : helpers) {
    if (h.code.find("@_graphmend.deferred\n") != std::string::npos) uses.runtime_attrs.insert("deferred");
  }
  std::vector<std::string> aliases;
  for (const auto& [alias, attr] : kLegacyAliases) {
    if (!uses.names.contains(alias)) continue;
    aliases.push_back(fmt::format("{} = {}.{}", alias, kRuntimeName, attr));
    uses.runtime_attrs.insert(attr);
  }
  const bool needed = uses.names.contains(std::string(kRuntimeName)) || !aliases.empty() || !helpers.empty();

  const source::NewlineStyle style = source::detect_newline(text);
  std::vector<source::Edit> edits;
  std::string rendered;
  const bool binding_alone = needed && link.package_level && aliases.empty() && helpers.empty();
  // A package's block has no markers: the binding line, then each helper two blank lines apart.
  const bool unmarked = needed && link.package_level && aliases.empty();
  if (binding_alone) {
    rendered = runtime_binding(link, uses.runtime_attrs);  // the binding line alone is the block
  } else if (unmarked) {
    std::string code = runtime_binding(link, uses.runtime_attrs) + "\n";
    for (const source::Helper& h : helpers) {
      code += "\n\n" + h.code;
      if (!code.ends_with('\n')) code += '\n';
    }
    code.pop_back();  // the block's range ends before its last newline
    rendered = source::indent_block(code, "", "    ", style);
  } else if (needed) {
    std::string code(source::kGeneratedBegin);
    code += "\n" + runtime_binding(link, uses.runtime_attrs) + "\n";
    for (const std::string& a : aliases) code += a + "\n";
    for (const source::Helper& h : helpers) {
      code += "\n\n" + h.code;
      if (!code.ends_with('\n')) code += '\n';
    }
    if (!helpers.empty()) code += "\n\n";
    code += source::kGeneratedEnd;
    rendered = source::indent_block(code, "", "    ", style);
  }

  // A helper at the block's end wants two blank lines before the code after it, as a formatter
  // puts them after a function.
  const auto blank_lines_to_add = [&](uint32_t line_end) {
    if (helpers.empty() || !unmarked) return 0;
    int blank = 0;
    uint32_t at = next_line_start(text, line_end);
    while (blank < 2 && is_blank_line_at(text, at)) {
      at = next_line_start(text, at);
      ++blank;
    }
    return at >= text.size() ? 0 : 2 - blank;
  };
  if (block && !block->legacy) {
    if (needed && binding_alone && text.substr(range->start, range->length()) != rendered) {
      // The block shrinks back to the binding line: the blank lines its helpers brought go too, so
      // the line joins a simple statement after it again, or stands two blank lines above a
      // definition, as a new binding line would.
      const uint32_t after = next_line_start(text, range->end);
      uint32_t at = after;
      while (is_blank_line_at(text, at)) at = next_line_start(text, at);
      if (at < text.size()) {
        bool simple = false;
        for (syntax::Node child : root.children()) {
          if (child.start() == at) simple = child.is(kind::expression_statement);
        }
        const std::string_view newline = source::newline_text(style);
        std::string code = rendered + std::string(newline);
        if (!simple) code += std::string(newline) + std::string(newline);
        edits.push_back(source::Edit::replace({range->start, at}, std::move(code)));
        return edits;
      }
    }
    if (needed) {
      for (int k = blank_lines_to_add(range->end); k > 0; --k) rendered += source::newline_text(style);
      if (text.substr(range->start, range->length()) != rendered) edits.push_back(source::Edit::replace(*range, rendered));
      return edits;
    }
    // Nothing uses the block: remove it with the blank line it brought.
    edits.push_back(source::Edit::deletion(block_lines(text, *range)));
    return edits;
  }
  // No block yet, or graphmend 0.1's (often among the imports): the current form goes after the
  // imports.
  uint32_t anchor = block_anchor(text, root, range);
  if (link.first_fixed_cell && !link.first_fixed_cell->contains({anchor, anchor})) anchor = link.first_fixed_cell->start;
  if (block) edits.push_back(source::Edit::deletion(block_lines(text, *range)));
  const int wanted = link.lines_after_imports >= 0 ? link.lines_after_imports : 1;
  const std::optional<uint32_t> beside =
      binding_alone && !block ? simple_statement_after(text, root, anchor, wanted) : std::nullopt;
  if (beside) {
    edits.push_back(source::Edit::insertion(*beside, rendered + std::string(source::newline_text(style))));
  } else if (needed) {
    const std::string_view newline = source::newline_text(style);
    std::string code;
    if (anchor == text.size() && anchor > 0 && text[anchor - 1] != '\n' && text[anchor - 1] != '\r') {
      code += newline;  // the file's last line had no line break
      code += newline;
    } else {
      // The blank lines isort wants after the imports (the project's setting, else one).
      int blank = 0;
      for (size_t at = anchor; blank < 2 && at > 0 && previous_line_blank(text, at); ++blank) {
        at = previous_line_start(text, at);
      }
      for (int k = blank; k < wanted; ++k) code += newline;
    }
    code += rendered;
    code += newline;
    if (anchor < text.size() && !is_blank_line_at(text, anchor)) code += newline;
    if (anchor < text.size() && helpers.size() > 0 && unmarked) {
      // Two blank lines between the last helper and the code after the anchor.
      int blank = code.ends_with(std::string(newline) + std::string(newline)) ? 1 : 0;
      for (uint32_t at = anchor; blank < 2 && is_blank_line_at(text, at); at = next_line_start(text, at)) ++blank;
      for (; blank < 2; ++blank) code += newline;
    }
    edits.push_back(source::Edit::insertion(anchor, std::move(code)));
  }
  std::sort(edits.begin(), edits.end());
  return edits;
}

}  // namespace graphmend::fix
