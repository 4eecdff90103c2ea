#include "graphmend/analysis/graph_breaks.h"

namespace graphmend::analysis {

std::string cite(GraphBreak graph_break) {
  const GraphBreakEntry& e = entry_of(graph_break);
  std::string out;
  out.reserve(e.id.size() + 2 + e.text.size());
  return out.append(e.id).append(": ").append(e.text);
}

}  // namespace graphmend::analysis
