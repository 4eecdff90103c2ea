#include "graphmend/source/generated.h"

#include <fmt/format.h>

namespace graphmend::source {

namespace {

bool at_line_start(std::string_view text, size_t pos) {
  return pos == 0 || text[pos - 1] == '\n' || text[pos - 1] == '\r';
}

std::string_view line_at(std::string_view text, size_t pos) {
  const size_t end = text.find_first_of("\r\n", pos);
  return text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
}

// How marker lines begin; a line that begins so but is not an exact marker is an altered one.
struct MarkerShape {
  std::string_view prefix;
  std::string_view exact;
  bool begin;
  bool legacy;
};
constexpr MarkerShape kMarkerShapes[] = {
    {"# graphmend: begin generated", kGeneratedBegin, true, false},
    {"# graphmend: end generated", kGeneratedEnd, false, false},
    {"# --- graphmend: generated helpers (begin)", kLegacyGeneratedBegin, true, true},
    {"# --- graphmend: generated helpers (end)", kLegacyGeneratedEnd, false, true},
    {"# --- graphmend: generated helpers", {}, false, true},  // matches no exact marker
};

struct MarkerLine {
  size_t pos;
  std::string_view line;
  const MarkerShape* shape;
};

constexpr std::string_view kLegacySiteDecorator = "@_graphmend_site";

}  // namespace

GeneratedMarkers scan_generated_markers(std::string_view text) {
  // Every marker shape contains "graphmend: ", which is rare enough to search for directly.
  constexpr std::string_view kNeedle = "graphmend: ";
  std::vector<MarkerLine> markers;
  for (size_t hit = text.find(kNeedle); hit != std::string_view::npos; hit = text.find(kNeedle, hit + 1)) {
    for (const size_t back : {size_t{2}, size_t{6}}) {  // "# " or "# --- " before it
      if (hit < back || !at_line_start(text, hit - back)) continue;
      const std::string_view line = line_at(text, hit - back);
      for (const MarkerShape& shape : kMarkerShapes) {
        if (!line.starts_with(shape.prefix)) continue;
        markers.push_back({hit - back, line, &shape});
        break;
      }
    }
  }
  GeneratedMarkers out;
  if (markers.empty()) return out;
  for (const MarkerLine& m : markers) {
    if (m.line != m.shape->exact) {
      out.damage = "a marker line was altered";
      out.damage_at = static_cast<uint32_t>(m.pos);
      return out;
    }
  }
  const MarkerLine& first = markers.front();
  if (markers.size() != 2 || !first.shape->begin || markers[1].shape->begin ||
      first.shape->legacy != markers[1].shape->legacy) {
    size_t begins = 0;
    bool mixed = false;
    for (const MarkerLine& m : markers) {
      begins += m.shape->begin ? 1 : 0;
      mixed = mixed || m.shape->legacy != first.shape->legacy;
    }
    const size_t ends = markers.size() - begins;
    if (mixed) {
      out.damage = "it mixes graphmend 0.1's markers with the current ones";
    } else if (begins == 1 && ends == 1) {
      out.damage = "its end marker comes before its begin marker";
    } else {
      out.damage = fmt::format("it has {} begin and {} end markers, where one of each belongs", begins, ends);
    }
    out.damage_at = static_cast<uint32_t>(first.pos);
    return out;
  }
  out.block = GeneratedBlock{{static_cast<uint32_t>(first.pos), static_cast<uint32_t>(markers[1].pos + markers[1].line.size())},
                             first.shape->legacy};
  return out;
}

std::optional<GeneratedBlock> find_generated_block(std::string_view text) { return scan_generated_markers(text).block; }

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
