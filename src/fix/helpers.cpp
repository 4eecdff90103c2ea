#include "graphmend/fix/helpers.h"

#include <set>
#include <string>

#include "graphmend/source/text.h"

namespace graphmend::fix {

namespace {

bool at_line_start(std::string_view text, size_t pos) {
  return pos == 0 || text[pos - 1] == '\n' || text[pos - 1] == '\r';
}

// Offset just past the line terminator of the line containing `offset` (or the end of text).
uint32_t next_line_start(std::string_view text, uint32_t offset) {
  const size_t nl = text.find_first_of("\r\n", offset);
  if (nl == std::string_view::npos) return static_cast<uint32_t>(text.size());
  if (text[nl] == '\r' && nl + 1 < text.size() && text[nl + 1] == '\n') return static_cast<uint32_t>(nl + 2);
  return static_cast<uint32_t>(nl + 1);
}

// Where a new block goes: after the leading docstring, comments and imports (including
// `from __future__`, which must stay first), before the first other top-level statement.
uint32_t block_anchor(std::string_view text, const syntax::Tree& tree) {
  uint32_t anchor = 0;
  bool first = true;
  for (syntax::Node child : tree.root().children()) {
    const bool docstring = first && child.is("expression_statement") && child.named_child_count() == 1 &&
                           child.named_child(0).is("string");
    if (child.is("comment")) {
      if (anchor == 0) continue;  // a leading comment (shebang, licence) stays above the block
      continue;
    }
    if (docstring || child.is("import_statement") || child.is("import_from_statement") ||
        child.is("future_import_statement")) {
      anchor = next_line_start(text, child.end());
      first = false;
      continue;
    }
    break;
  }
  return anchor;
}

}  // namespace

std::optional<source::TextRange> find_helper_block(std::string_view text) {
  size_t begin = text.find(kHelperBlockBegin);
  while (begin != std::string_view::npos && !at_line_start(text, begin)) {
    begin = text.find(kHelperBlockBegin, begin + 1);
  }
  if (begin == std::string_view::npos) return std::nullopt;
  size_t end = text.find(kHelperBlockEnd, begin);
  while (end != std::string_view::npos && !at_line_start(text, end)) end = text.find(kHelperBlockEnd, end + 1);
  if (end == std::string_view::npos) return std::nullopt;
  return source::TextRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end + kHelperBlockEnd.size())};
}

bool block_defines(std::string_view block, std::string_view name) {
  for (const std::string& needle : {"def " + std::string(name) + "(", std::string(name) + " ="}) {
    for (size_t pos = block.find(needle); pos != std::string_view::npos; pos = block.find(needle, pos + 1)) {
      if (at_line_start(block, pos)) return true;
    }
  }
  return false;
}

std::optional<source::Edit> helper_block_edit(std::string_view text, const syntax::Tree& tree,
                                              const std::vector<const source::Helper*>& helpers) {
  const auto block = find_helper_block(text);
  const std::string_view existing = block ? text.substr(block->start, block->length()) : std::string_view{};
  std::set<std::string_view> seen;
  std::string body;  // each helper followed by two blank lines; '\n' newlines, converted below
  for (const source::Helper* h : helpers) {
    if (!seen.insert(h->name).second || block_defines(existing, h->name)) continue;
    body += h->code;
    if (!body.ends_with('\n')) body += '\n';
    body += "\n\n";
  }
  if (body.empty()) return std::nullopt;
  const source::NewlineStyle style = source::detect_newline(text);
  if (block) {
    // The end marker starts its own line, after the last helper's two blank lines.
    const uint32_t at = block->end - static_cast<uint32_t>(kHelperBlockEnd.size());
    return source::Edit::insertion(at, source::indent_block(body, "", "    ", style));
  }
  const uint32_t anchor = block_anchor(text, tree);
  std::string code;
  // Keep one blank line before the block unless it opens the file.
  if (anchor > 0 && !text.substr(0, anchor).ends_with("\n\n") && !text.substr(0, anchor).ends_with("\r\n\r\n")) {
    code += anchor == text.size() && !at_line_start(text, anchor) ? "\n\n" : "\n";
  }
  code += kHelperBlockBegin;
  code += "\n\n";
  code += body;
  code += kHelperBlockEnd;
  code += "\n";
  if (anchor < text.size() && text[anchor] != '\n' && text[anchor] != '\r') code += "\n";
  return source::Edit::insertion(anchor, source::indent_block(code, "", "    ", style));
}

}  // namespace graphmend::fix
