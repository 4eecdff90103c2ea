// Edit / Fix value types (ruff-shaped): a fix is a set of byte-range edits applied all-or-nothing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphmend/source/text.h"

namespace graphmend::source {

// Replaces `range` with `replacement`. Insertion: empty range. Deletion: empty replacement.
struct Edit {
  TextRange range;
  std::string replacement;

  static Edit insertion(uint32_t at, std::string text) { return {{at, at}, std::move(text)}; }
  static Edit deletion(TextRange range) { return {range, {}}; }
  static Edit replace(TextRange range, std::string text) { return {range, std::move(text)}; }

  friend auto operator<=>(const Edit&, const Edit&) = default;
};

// Ordered so that `fix.applicability >= required` means "may be applied".
enum class Applicability { DisplayOnly, Unsafe, Safe };

std::string_view applicability_name(Applicability a);

// A top-level definition a fix needs (a runtime helper, a deferred call site). Helpers live in one
// generated block per module; the fix stage renders that block from the fixes it applies.
struct Helper {
  std::string name;  // the Python name the code binds; a block already binding it is left alone
  std::string code;  // top-level Python, '\n' newlines, 4-space indentation

  friend auto operator<=>(const Helper&, const Helper&) = default;
};

struct Fix {
  std::vector<Edit> edits;  // sorted by range, non-overlapping
  std::vector<Helper> helpers;  // in the order they must appear in the helper block
  Applicability applicability = Applicability::Safe;
  std::string title;
  std::string unsafe_code;  // why an unsafe fix is unsafe, by its stable name (rewrite/unsafe.h); else ""

  [[nodiscard]] uint32_t min_start() const;
  [[nodiscard]] bool applies(Applicability required) const { return applicability >= required; }
};

}  // namespace graphmend::source
