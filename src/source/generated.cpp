#include "graphmend/source/generated.h"

namespace graphmend::source {

namespace {

bool at_line_start(std::string_view text, size_t pos) {
  return pos == 0 || text[pos - 1] == '\n' || text[pos - 1] == '\r';
}

size_t find_at_line_start(std::string_view text, std::string_view needle, size_t from) {
  size_t pos = text.find(needle, from);
  while (pos != std::string_view::npos && !at_line_start(text, pos)) pos = text.find(needle, pos + 1);
  return pos;
}

std::optional<TextRange> find_between(std::string_view text, std::string_view begin_marker,
                                      std::string_view end_marker) {
  const size_t begin = find_at_line_start(text, begin_marker, 0);
  if (begin == std::string_view::npos) return std::nullopt;
  const size_t end = find_at_line_start(text, end_marker, begin);
  if (end == std::string_view::npos) return std::nullopt;
  return TextRange{static_cast<uint32_t>(begin), static_cast<uint32_t>(end + end_marker.size())};
}

constexpr std::string_view kLegacySiteDecorator = "@_graphmend_site";

}  // namespace

std::optional<GeneratedBlock> find_generated_block(std::string_view text) {
  if (auto r = find_between(text, kGeneratedBegin, kGeneratedEnd)) return GeneratedBlock{*r, false};
  if (auto r = find_between(text, kLegacyGeneratedBegin, kLegacyGeneratedEnd)) return GeneratedBlock{*r, true};
  return std::nullopt;
}

std::vector<Helper> generated_helpers(std::string_view block, bool legacy) {
  std::vector<Helper> out;
  const std::string text = with_lf_newlines(block);
  size_t pos = 0;
  Helper* current = nullptr;
  bool legacy_site = false;
  std::string decorators;  // the current block's `@...` lines before a `def`
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    eol = eol == std::string::npos ? text.size() : eol + 1;
    const std::string_view line = std::string_view(text).substr(pos, eol - pos);
    pos = eol;
    const bool top_level = !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '\n';
    if (top_level) {
      current = nullptr;
      if (line.starts_with(kLegacySiteDecorator)) {
        legacy_site = true;
        continue;
      }
      if (line.starts_with("@")) {
        if (!legacy) decorators += line;
        continue;
      }
      const bool is_site = legacy ? legacy_site : true;
      legacy_site = false;
      if (is_site && line.starts_with("def _graphmend_")) {
        const size_t paren = line.find('(');
        out.push_back({std::string(line.substr(4, paren - 4)), decorators + std::string(line)});
        current = &out.back();
      }
      decorators.clear();
      continue;
    }
    if (current) current->code += line;
  }
  for (Helper& h : out) {
    while (h.code.ends_with("\n\n")) h.code.pop_back();
  }
  return out;
}

}  // namespace graphmend::source
