#include "graphmend/rules/unused_noqa.h"

#include <fmt/format.h>

#include "graphmend/rules/registry.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {
namespace {

// Whether any rule `code` (a code or a prefix) covers ran, so that "suppressed nothing" means
// something.
bool judged(std::string_view code, const Selection& selection) {
  for (const RuleInfo* info : all_rule_infos()) {
    if (info->code.starts_with(code) && selection.enabled(info->code)) return true;
  }
  return false;
}

// The edit that removes the directive's unused codes, or the directive itself when none of its
// codes is left (with the spaces before it, and the comment when the directive was all of it).
source::Edit removal(const SuppressionDirective& d, const std::vector<bool>& drop, std::string_view text) {
  std::vector<std::string_view> kept;
  for (size_t i = 0; i < d.codes.size(); ++i) {
    if (!drop[i]) kept.push_back(d.codes[i].code);
  }
  if (!kept.empty()) {
    const source::TextRange list{d.codes.front().range.start, d.codes.back().range.end};
    return source::Edit::replace(list, fmt::format("{}", fmt::join(kept, ", ")));
  }
  uint32_t start = d.range.start;
  uint32_t end = d.range.end;
  while (start > 0 && source::is_inline_space(text[start - 1])) --start;
  const bool whole_comment = d.range.start == d.comment.start;
  if (whole_comment) {
    while (end < d.comment.end && source::is_inline_space(text[end])) ++end;
    if (end < d.comment.end) {  // `# noqa: GM201 # other`: keep the rest of the comment
      start = d.range.start;
    }
  }
  return source::Edit::deletion({start, end});
}

}  // namespace

std::vector<Diagnostic> unused_suppressions(const Suppressions& suppressions, std::string_view text,
                                            const Selection& selection) {
  std::vector<Diagnostic> out;
  for (const SuppressionDirective& d : suppressions.directives()) {
    std::vector<bool> drop(d.codes.size(), false);
    std::vector<std::string> unused, unknown;
    for (size_t i = 0; i < d.codes.size(); ++i) {
      const SuppressionCode& c = d.codes[i];
      if (!c.code.starts_with("GM") || c.used) continue;
      if (is_unknown_graphmend_code(c.code)) {
        unknown.push_back(c.code);
        drop[i] = true;
      } else if (judged(c.code, selection)) {
        unused.push_back(c.code);
        drop[i] = true;
      }
    }
    if (unused.empty() && unknown.empty()) continue;
    Diagnostic diag;
    diag.rule = &kUnusedNoqaInfo;
    diag.range = d.range;
    std::vector<std::string> parts;
    if (!unused.empty()) parts.push_back(fmt::format("unused: {}", fmt::join(unused, ", ")));
    if (!unknown.empty()) parts.push_back(fmt::format("unknown: {}", fmt::join(unknown, ", ")));
    diag.message = fmt::format("suppression comment with codes that suppress nothing ({})", fmt::join(parts, "; "));
    source::Fix fix;
    fix.title = "remove the codes that suppress nothing";
    fix.applicability = source::Applicability::Safe;
    fix.edits.push_back(removal(d, drop, text));
    diag.fix = std::make_shared<const source::Fix>(std::move(fix));
    out.push_back(std::move(diag));
  }
  return out;
}

}  // namespace graphmend::rules
