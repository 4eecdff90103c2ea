// Which rules run (--select / --ignore) and which findings a comment suppresses.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace graphmend::rules {

// Codes or prefixes ("GM1"), rule names, or ALL; empty `select` selects every rule.
struct Selection {
  std::vector<std::string> select;
  std::vector<std::string> ignore;

  [[nodiscard]] bool enabled(std::string_view code) const;
};

// True if a `# noqa` / `# noqa: GM101` / `# graphmend: ignore[GM101]` comment on `line` covers `code`.
bool suppressed(std::string_view line, std::string_view code);

}  // namespace graphmend::rules
