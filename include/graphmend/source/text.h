// Byte ranges over a file's text: the one coordinate system of graphmend.
// Line/column are derived only for printing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace graphmend::source {

// Half-open [start, end) byte offsets into the file's text (after any UTF-8 BOM).
struct TextRange {
  uint32_t start = 0;
  uint32_t end = 0;

  [[nodiscard]] uint32_t length() const { return end - start; }
  [[nodiscard]] bool empty() const { return start == end; }
  [[nodiscard]] bool contains(const TextRange& other) const {
    return start <= other.start && other.end <= end;
  }
  friend auto operator<=>(const TextRange&, const TextRange&) = default;
};

// 1-based line and 1-based column counted in Unicode code points.
struct LineColumn {
  uint32_t line = 1;
  uint32_t column = 1;
  friend auto operator<=>(const LineColumn&, const LineColumn&) = default;
};

// Maps byte offsets to lines; built once per file.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text);

  [[nodiscard]] LineColumn location(std::string_view text, uint32_t offset) const;
  [[nodiscard]] uint32_t line_of(uint32_t offset) const;  // 1-based
  [[nodiscard]] uint32_t line_start(uint32_t line) const;  // offset of the first byte of a 1-based line
  // The line's bytes without its terminator.
  [[nodiscard]] std::string_view line_text(std::string_view text, uint32_t line) const;
  [[nodiscard]] uint32_t line_count() const { return static_cast<uint32_t>(starts_.size()); }

 private:
  std::vector<uint32_t> starts_;
};

enum class NewlineStyle { Lf, CrLf, Cr };

// `text` with every line break ("\r\n", "\r") as "\n".
std::string with_lf_newlines(std::string_view text);

// The newline style a file uses most; new lines graphmend writes use it.
NewlineStyle detect_newline(std::string_view text);
std::string_view newline_text(NewlineStyle style);

// Renders generated code (written with '\n' and 4-space indentation steps) for insertion at a line
// indented with `indent`: every line after the first gets `indent`, each 4-space step becomes the
// file's own step (`unit`, e.g. "\t" or "  "), and newlines use the file's style.
std::string indent_block(std::string_view code, std::string_view indent, std::string_view unit,
                         NewlineStyle newline);

// A space or a tab: the whitespace inside one line of Python that comments and indentation use.
constexpr bool is_inline_space(char c) { return c == ' ' || c == '\t'; }

// The leading whitespace of the line containing `offset`.
std::string_view indentation_at(std::string_view text, uint32_t offset);

}  // namespace graphmend::source
