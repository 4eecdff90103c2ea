#include "graphmend/rules/suppression.h"

#include <algorithm>
#include <cctype>

#include "graphmend/rules/registry.h"
#include "graphmend/source/text.h"
#include "graphmend/syntax/kinds.h"

namespace graphmend::rules {
namespace {

// ASCII only, inline: Suppressions::read lowers every byte of every file, and std::tolower is
// a call into the C library for each (1.5% of `check`'s time over transformers).
char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

bool starts_with_ignoring_case(std::string_view text, size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (lower(text[at + i]) != word[i]) return false;
  }
  return true;
}

size_t skip_spaces(std::string_view s, size_t i) {
  while (i < s.size() && source::is_inline_space(s[i])) ++i;
  return i;
}

// Codes after `noqa:` or inside `ignore[...]`: letters then digits, separated by commas and
// spaces; reading stops at anything else. `base` is the comment's offset in the file.
size_t read_codes(std::string_view comment, size_t i, uint32_t base, std::vector<SuppressionCode>& out) {
  while (true) {
    size_t j = i;
    while (j < comment.size() && (source::is_inline_space(comment[j]) || comment[j] == ',')) ++j;
    size_t k = j;
    while (k < comment.size() && is_alpha(comment[k])) ++k;
    const size_t letters_end = k;
    while (k < comment.size() && is_digit(comment[k])) ++k;
    if (letters_end == j || (k < comment.size() && (is_alpha(comment[k]) || comment[k] == '_'))) return i;
    std::string code(comment.substr(j, k - j));
    for (char& c : code) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out.push_back({std::move(code), {base + static_cast<uint32_t>(j), base + static_cast<uint32_t>(k)}, false});
    i = k;
  }
}

// The directives in one comment token. `# graphmend: ignore-file` sets `file_ignored`.
void read_comment(std::string_view comment, uint32_t base, uint32_t line, std::vector<SuppressionDirective>& out,
                  bool& file_ignored) {
  for (size_t hash = comment.find('#'); hash != std::string_view::npos; hash = comment.find('#', hash + 1)) {
    size_t i = skip_spaces(comment, hash + 1);
    SuppressionDirective d;
    d.line = line;
    d.comment = {base, base + static_cast<uint32_t>(comment.size())};
    if (starts_with_ignoring_case(comment, i, "noqa")) {
      i += 4;
      const bool word_goes_on =
          i < comment.size() && !source::is_inline_space(comment[i]) && comment[i] != ':' && comment[i] != '#';
      if (word_goes_on) continue;  // `# noqafoo`: not a directive
      if (i < comment.size() && comment[i] == ':') {
        i = read_codes(comment, i + 1, base, d.codes);
      }
      d.blanket = d.codes.empty();
    } else if (starts_with_ignoring_case(comment, i, "graphmend:")) {
      i = skip_spaces(comment, i + 10);
      if (starts_with_ignoring_case(comment, i, "ignore-file")) {
        const size_t after = skip_spaces(comment, i + 11);
        if (after == comment.size() || comment[after] == '#') file_ignored = true;
        continue;
      }
      if (!starts_with_ignoring_case(comment, i, "ignore[")) continue;
      i = read_codes(comment, i + 7, base, d.codes);
      i = skip_spaces(comment, i);
      if (i >= comment.size() || comment[i] != ']' || d.codes.empty()) continue;
      ++i;
      d.bracket_form = true;
    } else {
      continue;
    }
    d.range = {base + static_cast<uint32_t>(hash), base + static_cast<uint32_t>(i)};
    out.push_back(std::move(d));
  }
}

}  // namespace

Suppressions Suppressions::read(std::string_view text, syntax::Node root, const source::LineIndex& lines) {
  Suppressions s;
  uint32_t done_until = 0;  // comments are read once, however many words they hold
  // A comment runs from a `#` to the end of its line, so only text after a `#` on its line is
  // searched for the words (memchr finds the `#`s).
  for (size_t hash = text.find('#'); hash != std::string_view::npos; hash = text.find('#', hash)) {
    const size_t line_end = std::min(text.find('\n', hash), text.size());
    for (size_t i = hash; i < line_end; ++i) {
      const char c = lower(text[i]);
      if (c != 'n' && c != 'g') continue;
      if (!starts_with_ignoring_case(text, i, c == 'n' ? "noqa" : "graphmend:")) continue;
      if (i < done_until) continue;
      const syntax::Node n = root.named_descendant_for_range(static_cast<uint32_t>(i), static_cast<uint32_t>(i + 1));
      if (!n.is(kind::comment)) continue;
      read_comment(n.text(text), n.start(), lines.line_of(n.start()), s.directives_, s.file_ignored_);
      done_until = n.end();
    }
    hash = line_end;
  }
  return s;
}

bool Suppressions::suppresses(uint32_t line, std::string_view code) {
  auto it = std::lower_bound(directives_.begin(), directives_.end(), line,
                             [](const SuppressionDirective& d, uint32_t l) { return d.line < l; });
  for (; it != directives_.end() && it->line == line; ++it) {
    if (it->blanket) {
      it->used = true;
      return true;
    }
    for (SuppressionCode& c : it->codes) {
      if (code.starts_with(c.code)) {
        c.used = true;
        return true;
      }
    }
  }
  return false;
}

bool is_unknown_graphmend_code(std::string_view code) { return code.starts_with("GM") && !is_code_or_prefix(code); }

}  // namespace graphmend::rules
