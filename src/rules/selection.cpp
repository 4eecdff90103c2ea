#include "graphmend/rules/selection.h"

#include <algorithm>
#include <cctype>

#include "graphmend/rules/registry.h"

namespace graphmend::rules {

bool Selection::enabled(std::string_view code) const {
  auto matches = [&](const std::vector<std::string>& list) {
    for (const std::string& s : list) {
      if (s == "ALL" || code.starts_with(s)) return true;
      if (const Rule* r = find_rule(s); r && r->info().code == code) return true;
    }
    return false;
  };
  if (!select.empty() && !matches(select)) return false;
  return !matches(ignore);
}

bool suppressed(std::string_view line, std::string_view code) {
  const auto hash = line.find('#');
  if (hash == std::string_view::npos) return false;
  std::string comment(line.substr(hash));
  std::string lower = comment;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (auto pos = lower.find("graphmend: ignore["); pos != std::string::npos) {
    const auto end = comment.find(']', pos);
    const std::string codes = comment.substr(pos + 18, end == std::string::npos ? std::string::npos : end - pos - 18);
    if (codes.find(code) != std::string::npos) return true;
  }
  auto pos = lower.find("noqa");
  if (pos == std::string::npos) return false;
  std::string_view rest = std::string_view(comment).substr(pos + 4);
  if (!rest.starts_with(":")) return true;  // blanket noqa
  return rest.find(code) != std::string_view::npos;
}

}  // namespace graphmend::rules
