// A rule's static metadata. Every diagnostic points at its rule's RuleInfo, so a report reads the
// rule's code, name and family from the diagnostic itself, without a lookup.
#pragma once

#include <optional>
#include <string_view>

#include "graphmend/analysis/graph_breaks.h"

namespace graphmend::rules {

// The break table is a fact about Dynamo, below the rules (the table of API facts names breaks
// too); rules name its entries unqualified.
using analysis::cite;
using analysis::GraphBreak;
using analysis::graph_break_with_id;
using analysis::id_of;

enum class FixAvailability { None, Sometimes };

enum class RuleFamily { Where, Defer, Trap, Dense, Report, Meta };

struct RuleInfo {
  std::string_view code;                   // GM101
  std::string_view name;                   // kebab-case
  std::string_view summary;                // one line
  std::optional<GraphBreak> graph_break;   // the PyTorch break it reports (none for meta diagnostics)
  RuleFamily family;
  FixAvailability fix;
};

}  // namespace graphmend::rules
