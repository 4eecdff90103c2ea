#include "graphmend/rewrite/compiled_code.h"

#include <algorithm>

#include "graphmend/rewrite/python_layout.h"
#include "graphmend/source/text.h"

namespace graphmend::rewrite {

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

}  // namespace graphmend::rewrite
