// What a golden fixture's input says it expects, as data the golden test checks (golden_test.cpp),
// in the spirit of clang-tidy's `// CHECK-MESSAGES:` lines. An annotation is a comment on the
// line a finding is reported at (the line its range starts on):
//
//   print("value", y)  # expect: GM201 fixed
//   y = y * 2; print(y)  # expect: GM201 declined shares-line -- the `;` shares the line
//   idx = torch.nonzero(m, as_tuple=True)[0].tolist()  # expect: GM402 reported, GM404 reported
//
// or, where a trailing comment cannot go (a line that ends inside a string) or would change the
// rewrite (a wrapped line grown past the line length), on a comment line of its own just above:
//
//   # expect-next-line: GM201 fixed
//
// One item per finding, `, ` between items: a rule code and what became of it, which is one of
//   fixed                 a safe fix (applied by the golden run)
//   unsafe <code>         an unsafe fix (applied in `*_unsafe.py` fixtures only); <code> is why,
//                         its name in kUnsafeTable (rewrite/unsafe.h)
//   declined <code>       no fix; <code> is the reason's name in kDeclineTable (rewrite/decline.h)
//   reported              no fix and no reason (a rule that only reports)
// and anything after ` -- ` is free text for the reader. The codes are checked: a rule code that
// graphmend does not report, or a decline or unsafe name that is not in its table, is an error.
//
// The check is strict both ways: every finding of the fixture must match an item on its line,
// and every item must match a finding. A line without an annotation therefore expects no finding.
// The text is read line by line, not parsed: keep `# expect` out of the fixtures' strings.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rewrite/decline.h"
#include "graphmend/rewrite/unsafe.h"
#include "graphmend/rules/registry.h"

namespace graphmend::testing::expect {

enum class Outcome { Fixed, Unsafe, Declined, Reported };

// One finding: what an annotation states, or what graphmend reported.
struct Finding {
  int line = 0;          // 1-based
  std::string code;      // "GM201"
  Outcome outcome = Outcome::Reported;
  std::string reason;    // the decline code's name (Declined) or the unsafe code's (Unsafe)

  bool operator==(const Finding&) const = default;
  auto operator<=>(const Finding&) const = default;
};

// "GM201 declined shares-line": an item as an annotation writes it.
inline std::string describe(const Finding& f) {
  switch (f.outcome) {
    case Outcome::Fixed: return f.code + " fixed";
    case Outcome::Unsafe: return f.code + " unsafe " + f.reason;
    case Outcome::Declined: return f.code + " declined " + f.reason;
    case Outcome::Reported: return f.code + " reported";
  }
  return f.code;
}

struct Annotations {
  std::vector<Finding> expected;   // in line order
  std::vector<std::string> errors;  // "line 12: ...": malformed annotations
};

namespace detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

inline std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  for (size_t at = 0;;) {
    const size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at));
    if (next == std::string_view::npos) return out;
    at = next + 1;
  }
}

inline bool is_rule_code(std::string_view code) { return rules::info_of_code(code) != nullptr; }

inline bool is_unsafe_code(std::string_view name) {
  return std::any_of(rewrite::kUnsafeTable.begin(), rewrite::kUnsafeTable.end(),
                     [&](const rewrite::UnsafeEntry& e) { return e.name == name; });
}

// "GM201 fixed, GM404 reported -- why": the items of one annotation, stated for `line`.
inline void parse_items(std::string_view body, int line, int at_line, Annotations& out) {
  if (const size_t dash = body.find(" -- "); dash != std::string_view::npos) body = body.substr(0, dash);
  for (std::string_view item : split(body, ',')) {
    std::vector<std::string_view> words;
    for (std::string_view w : split(trim(item), ' ')) {
      if (!w.empty()) words.push_back(w);
    }
    const auto error = [&](std::string_view why) {
      out.errors.push_back(fmt::format("line {}: `{}`: {}", at_line, trim(item), why));
    };
    if (words.empty()) {
      error("an empty item (write `CODE fixed|reported|unsafe <unsafe-code>|declined <decline-code>`)");
      continue;
    }
    Finding f{line, std::string(words[0]), Outcome::Reported, {}};
    if (!is_rule_code(words[0])) {
      error("not a code graphmend reports");
      continue;
    }
    const std::string_view outcome = words.size() > 1 ? words[1] : std::string_view{};
    size_t arity = 2;
    if (outcome == "fixed") {
      f.outcome = Outcome::Fixed;
    } else if (outcome == "unsafe") {
      f.outcome = Outcome::Unsafe;
      arity = 3;
      if (words.size() < 3) {
        error("`unsafe` needs the unsafe code (docs/declines.md, \"Why a fix is unsafe\")");
        continue;
      }
      if (!is_unsafe_code(words[2])) {
        error(fmt::format("`{}` is not an unsafe code of kUnsafeTable", words[2]));
        continue;
      }
      f.reason = std::string(words[2]);
    } else if (outcome == "reported") {
      f.outcome = Outcome::Reported;
    } else if (outcome == "declined") {
      f.outcome = Outcome::Declined;
      arity = 3;
      if (words.size() < 3) {
        error("`declined` needs the decline code (docs/declines.md)");
        continue;
      }
      if (!rewrite::code_named(words[2])) {
        error(fmt::format("`{}` is not a decline code of kDeclineTable", words[2]));
        continue;
      }
      f.reason = std::string(words[2]);
    } else {
      error("the outcome must be one of fixed, unsafe <unsafe-code>, reported, declined <decline-code>");
      continue;
    }
    if (words.size() != arity) {
      error("unexpected words after the outcome (free text goes after ` -- `)");
      continue;
    }
    out.expected.push_back(std::move(f));
  }
}

}  // namespace detail

inline constexpr std::string_view kTrailing = "# expect: ";
inline constexpr std::string_view kNextLine = "# expect-next-line: ";

// The annotations of a fixture's text. Any comment that starts with `# expect` but is neither
// form, an own-line form not on a line of its own, or a trailing form on a line of its own, is an
// error rather than ignored: a misspelt annotation must not pass silently.
inline Annotations parse(std::string_view text) {
  Annotations out;
  const std::vector<std::string_view> lines = detail::split(text, '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    const int number = static_cast<int>(i) + 1;
    // The first `#` followed by (spaces and) `expect`, at the start of the line or after a blank.
    size_t at = std::string_view::npos;
    for (size_t hash = line.find('#'); hash != std::string_view::npos; hash = line.find('#', hash + 1)) {
      if (hash > 0 && line[hash - 1] != ' ' && line[hash - 1] != '\t') continue;
      std::string_view rest = line.substr(hash + 1);
      while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
      std::string word(rest.substr(0, 6));
      std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
      if (word == "expect") {
        at = hash;
        break;
      }
    }
    if (at == std::string_view::npos) continue;
    const std::string_view comment = detail::trim(line.substr(at));
    const bool own_line = detail::trim(line.substr(0, at)).empty();
    if (comment.starts_with(kTrailing)) {
      if (own_line) {
        out.errors.push_back(fmt::format(
            "line {}: `# expect:` stands on a line of its own; use `# expect-next-line:` for the line below",
            number));
        continue;
      }
      detail::parse_items(comment.substr(kTrailing.size()), number, number, out);
    } else if (comment.starts_with(kNextLine)) {
      if (!own_line) {
        out.errors.push_back(
            fmt::format("line {}: `# expect-next-line:` must stand on a line of its own", number));
        continue;
      }
      detail::parse_items(comment.substr(kNextLine.size()), number + 1, number, out);
    } else {
      out.errors.push_back(fmt::format(
          "line {}: `{}` is not an annotation: write `# expect: ` or `# expect-next-line: ` and the items",
          number, comment));
    }
  }
  std::stable_sort(out.expected.begin(), out.expected.end(),
                   [](const Finding& a, const Finding& b) { return a.line < b.line; });
  return out;
}

// The findings of `a` that `b` does not have, as multisets.
inline std::vector<Finding> minus(std::vector<Finding> a, std::vector<Finding> b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::vector<Finding> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

// Where what was found and what was expected differ, one message per difference, by line:
// "line 13: found GM201 fixed, expected GM201 declined shares-line"; "line 9: found GM201 fixed,
// which no annotation expects"; "line 4: expected GM404 reported, not found".
inline std::vector<std::string> compare(const std::vector<Finding>& expected, const std::vector<Finding>& found) {
  std::map<int, std::pair<std::vector<Finding>, std::vector<Finding>>> by_line;
  for (const Finding& f : expected) by_line[f.line].first.push_back(f);
  for (const Finding& f : found) by_line[f.line].second.push_back(f);
  std::vector<std::string> out;
  for (auto& [line, pair] : by_line) {
    // Take out what matches exactly; what is left differs.
    std::vector<Finding> missing = minus(pair.first, pair.second);
    std::vector<Finding> extra = minus(pair.second, pair.first);
    // Pair a leftover finding with a leftover expectation of the same rule: one message for both.
    for (auto g = extra.begin(); g != extra.end();) {
      auto w = std::find_if(missing.begin(), missing.end(), [&](const Finding& m) { return m.code == g->code; });
      if (w == missing.end()) {
        ++g;
        continue;
      }
      out.push_back(fmt::format("line {}: found {}, expected {}", line, describe(*g), describe(*w)));
      missing.erase(w);
      g = extra.erase(g);
    }
    for (const Finding& g : extra) {
      out.push_back(fmt::format("line {}: found {}, which no annotation expects", line, describe(g)));
    }
    for (const Finding& w : missing) out.push_back(fmt::format("line {}: expected {}, not found", line, describe(w)));
  }
  return out;
}

}  // namespace graphmend::testing::expect
