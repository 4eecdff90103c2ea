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

}  // namespace

std::optional<GeneratedBlock> find_generated_block(std::string_view text) {
  if (auto r = find_between(text, kGeneratedBegin, kGeneratedEnd)) return GeneratedBlock{*r, false};
  if (auto r = find_between(text, kLegacyGeneratedBegin, kLegacyGeneratedEnd)) return GeneratedBlock{*r, true};
  return std::nullopt;
}

}  // namespace graphmend::source
