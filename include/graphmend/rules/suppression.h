// Suppression comments, read from a file's comment tokens (never from strings or code):
//   `# noqa` (every code on its line), `# noqa: GM101, GM2` (exact codes and prefixes),
//   `# graphmend: ignore[GM101]`, and `# graphmend: ignore-file` (the whole file).
// A directive is *used* once it has suppressed a finding; directives naming graphmend codes that
// suppressed nothing are what GM903 (unused-noqa) reports.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/source/text.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::rules {

struct SuppressionCode {
  std::string code;  // as written: GM101, GM2, E501
  source::TextRange range;
  bool used = false;
};

struct SuppressionDirective {
  uint32_t line = 0;          // 1-based line of the comment
  source::TextRange comment;  // the whole comment token
  source::TextRange range;    // the directive inside it: `# noqa: GM101` / `# graphmend: ignore[GM101]`
  bool blanket = false;       // `# noqa` with no codes
  bool bracket_form = false;  // `# graphmend: ignore[...]`
  std::vector<SuppressionCode> codes;
  bool used = false;          // a blanket directive that suppressed something
};

class Suppressions {
 public:
  // Reads the directives in `text`, whose syntax tree is `root` and line index `lines`. Only the
  // spots where the text says `noqa` or `graphmend:` are looked up in the tree, so the cost is one
  // search of the text.
  static Suppressions read(std::string_view text, syntax::Node root, const source::LineIndex& lines);

  [[nodiscard]] bool file_ignored() const { return file_ignored_; }
  // True if a directive on `line` (1-based) covers `code`; marks what covered it as used.
  bool suppresses(uint32_t line, std::string_view code);
  [[nodiscard]] const std::vector<SuppressionDirective>& directives() const { return directives_; }

 private:
  std::vector<SuppressionDirective> directives_;  // by line
  bool file_ignored_ = false;
};

// A code written in a directive that names a graphmend rule family but no rule: GM999, GM7.
bool is_unknown_graphmend_code(std::string_view code);

}  // namespace graphmend::rules
