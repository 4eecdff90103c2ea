#include "graphmend/source/text.h"

#include <algorithm>

namespace graphmend::source {

LineIndex::LineIndex(std::string_view text) {
  starts_.push_back(0);
  if (text.find('\r') == std::string_view::npos) {
    // Only `\n` ends a line: memchr finds each one.
    for (size_t i = text.find('\n'); i != std::string_view::npos; i = text.find('\n', i + 1)) {
      starts_.push_back(static_cast<uint32_t>(i + 1));
    }
    return;
  }
  for (uint32_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      starts_.push_back(i + 1);
    } else if (c == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n')) {
      starts_.push_back(i + 1);
    }
  }
}

uint32_t LineIndex::line_of(uint32_t offset) const {
  auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  return static_cast<uint32_t>(it - starts_.begin());
}

uint32_t LineIndex::line_start(uint32_t line) const {
  if (line == 0) return 0;
  if (line > starts_.size()) return starts_.back();
  return starts_[line - 1];
}

LineColumn LineIndex::location(std::string_view text, uint32_t offset) const {
  const uint32_t line = line_of(offset);
  const uint32_t start = starts_[line - 1];
  uint32_t column = 1;
  for (uint32_t i = start; i < offset && i < text.size(); ++i) {
    // Count code points: skip UTF-8 continuation bytes.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return {line, column};
}

std::string_view LineIndex::line_text(std::string_view text, uint32_t line) const {
  if (line == 0 || line > starts_.size()) return {};
  uint32_t start = starts_[line - 1];
  uint32_t end = line < starts_.size() ? starts_[line] : static_cast<uint32_t>(text.size());
  while (end > start && (text[end - 1] == '\n' || text[end - 1] == '\r')) --end;
  return text.substr(start, end - start);
}

NewlineStyle detect_newline(std::string_view text) {
  if (text.find('\r') == std::string_view::npos) return NewlineStyle::Lf;  // most files: no count needed
  size_t lf = 0, crlf = 0, cr = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') {
        ++crlf;
        ++i;
      } else {
        ++cr;
      }
    } else if (text[i] == '\n') {
      ++lf;
    }
  }
  if (crlf > lf && crlf >= cr) return NewlineStyle::CrLf;
  if (cr > lf && cr > crlf) return NewlineStyle::Cr;
  return NewlineStyle::Lf;
}

std::string_view newline_text(NewlineStyle style) {
  switch (style) {
    case NewlineStyle::CrLf: return "\r\n";
    case NewlineStyle::Cr: return "\r";
    case NewlineStyle::Lf: break;
  }
  return "\n";
}

std::string with_lf_newlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r') {
      if (i + 1 < text.size() && text[i + 1] == '\n') continue;
      out += '\n';
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string indent_block(std::string_view code, std::string_view indent, std::string_view unit,
                         NewlineStyle newline) {
  std::string out;
  size_t pos = 0;
  bool first = true;
  while (pos <= code.size()) {
    size_t end = code.find('\n', pos);
    if (end == std::string_view::npos) end = code.size();
    std::string_view line = code.substr(pos, end - pos);
    if (!first) out.append(newline_text(newline));
    if (!line.empty()) {
      if (!first) out.append(indent);
      size_t spaces = 0;
      while (spaces < line.size() && line[spaces] == ' ') ++spaces;
      for (size_t step = 0; step < spaces / 4; ++step) out.append(unit);
      out.append(line.substr(spaces - spaces % 4));
    }
    first = false;
    if (end == code.size()) break;
    pos = end + 1;
  }
  return out;
}

std::string_view indentation_at(std::string_view text, uint32_t offset) {
  size_t start = offset;
  while (start > 0 && text[start - 1] != '\n' && text[start - 1] != '\r') --start;
  size_t end = start;
  while (end < text.size() && (text[end] == ' ' || text[end] == '\t')) ++end;
  return text.substr(start, end - start);
}

}  // namespace graphmend::source
