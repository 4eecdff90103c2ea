#include <dtl/dtl.hpp>
#include <fmt/format.h>

#include <sstream>
#include <vector>

#include "graphmend/report/report.h"

namespace graphmend::report {
namespace {

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      size_t end = i;
      if (end > start && text[end - 1] == '\r') --end;
      lines.emplace_back(text.substr(start, end - start));
      start = i + 1;
    }
  }
  if (start < text.size()) lines.emplace_back(text.substr(start));
  return lines;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view path) {
  if (before == after) return {};
  std::vector<std::string> a = split_lines(before);
  std::vector<std::string> b = split_lines(after);
  if (before.empty()) {  // a new file, as git and patch expect it
    std::string out = fmt::format("--- /dev/null\n+++ b/{}\n@@ -0,0 +1,{} @@\n", path, b.size());
    for (const std::string& line : b) out += "+" + line + "\n";
    return out;
  }
  dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
  diff.onHuge();
  diff.compose();
  diff.composeUnifiedHunks();
  std::ostringstream body;
  diff.printUnifiedFormat(body);
  return fmt::format("--- a/{}\n+++ b/{}\n{}", path, path, body.str());
}

}  // namespace graphmend::report
