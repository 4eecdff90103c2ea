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

// True for a line that is exactly the binding of the package's runtime, at any package level.
bool is_runtime_binding(std::string_view line) {
  if (!line.starts_with(kRuntimeBindingStart) || !line.ends_with(kRuntimeBindingEnd)) return false;
  const std::string_view level =
      line.substr(kRuntimeBindingStart.size(), line.size() - kRuntimeBindingStart.size() - kRuntimeBindingEnd.size());
  return !level.empty() && level.find_first_not_of("0123456789") == std::string_view::npos;
}

GeneratedMarkers scan_marker_lines(std::string_view text) {
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
  for (const MarkerLine& m : markers) out.lines.push_back(static_cast<uint32_t>(m.pos));
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

}  // namespace

GeneratedMarkers scan_generated_markers(std::string_view text) {
  GeneratedMarkers out = scan_marker_lines(text);
  if (out.damage) return out;
  // Lines that begin like the runtime binding (up to its first argument), outside a marked block
  // (which holds one of its own).
  constexpr std::string_view kBindingNeedle = kRuntimeBindingStart.substr(0, kRuntimeBindingStart.find(','));
  std::vector<size_t> bindings;
  for (size_t hit = text.find(kBindingNeedle); hit != std::string_view::npos; hit = text.find(kBindingNeedle, hit + 1)) {
    if (!at_line_start(text, hit)) continue;
    if (out.block && out.block->range.start <= hit && hit < out.block->range.end) continue;
    bindings.push_back(hit);
  }
  if (bindings.empty()) return out;
  out.damage_at = static_cast<uint32_t>(bindings.front());
  if (out.block) {
    out.block.reset();
    out.damage = "a runtime binding line lies outside its block";
    return out;
  }
  if (bindings.size() > 1) {
    out.damage = fmt::format("the runtime binding line appears {} times, where one belongs", bindings.size());
    return out;
  }
  const std::string_view line = line_at(text, bindings.front());
  if (!is_runtime_binding(line)) {
    out.damage = "the runtime binding line was altered";
    return out;
  }
  out.damage_at = 0;
  out.block = GeneratedBlock{{static_cast<uint32_t>(bindings.front()), static_cast<uint32_t>(bindings.front() + line.size())},
                             false};
  return out;
}

std::optional<GeneratedBlock> find_generated_block(std::string_view text) { return scan_generated_markers(text).block; }

namespace {

// `def _graphmend_...`, after any decorator lines.
bool defines_helper(std::string_view code) {
  while (code.starts_with('@')) {
    const size_t eol = code.find('\n');
    if (eol == std::string_view::npos) return false;
    code.remove_prefix(eol + 1);
  }
  return code.starts_with("def _graphmend_");
}

}  // namespace

void extend_over_helpers(std::string_view text, GeneratedMarkers& markers, std::span<const TextRange> statements) {
  if (!markers.binding_line()) return;
  TextRange& range = markers.block->range;
  for (const TextRange& statement : statements) {
    if (statement.start < range.end) continue;
    const std::string_view gap = text.substr(range.end, statement.start - range.end);
    if (gap.find_first_not_of(" \t\r\n\f") != std::string_view::npos) break;
    if (!defines_helper(text.substr(statement.start, statement.length()))) break;
    range.end = statement.end;
  }
}

std::vector<Helper> generated_helpers(std::string_view text, const GeneratedBlock& block,
                                     std::span<const TextRange> statements) {
  std::vector<Helper> out;
  for (const TextRange& statement : statements) {
    if (!block.range.contains(statement)) continue;
    std::string code = with_lf_newlines(text.substr(statement.start, statement.length()));
    if (block.legacy) {
      // graphmend 0.1's blocks held the runtime too: only its `@_graphmend_site` functions count,
      // without the decorator.
      if (!code.starts_with(kLegacySiteDecorator)) continue;
      const size_t eol = code.find('\n');
      if (eol == std::string::npos) continue;
      code.erase(0, eol + 1);
    }
    // The `def` line, after any decorator lines.
    size_t def = 0;
    while (def < code.size() && code[def] == '@') {
      const size_t eol = code.find('\n', def);
      if (eol == std::string::npos) break;
      def = eol + 1;
    }
    if (code.compare(def, 15, "def _graphmend_") != 0) continue;
    const size_t paren = code.find('(', def);
    if (paren == std::string::npos) continue;
    std::string name = code.substr(def + 4, paren - def - 4);
    code += '\n';
    out.push_back({std::move(name), std::move(code)});
  }
  return out;
}

}  // namespace graphmend::source
