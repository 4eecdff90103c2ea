// GM903 unused-noqa: suppression comments naming graphmend codes that suppressed nothing, and
// codes that name no graphmend rule. Opt-in (as ruff's RUF100); codes of other tools are never
// judged, nor a blanket `# noqa`, which may serve another linter.
#pragma once

#include <string_view>
#include <vector>

#include "graphmend/rules/diagnostic.h"
#include "graphmend/rules/selection.h"
#include "graphmend/rules/suppression.h"

namespace graphmend::rules {

// One finding per directive with unused or unknown graphmend codes, with a safe fix that removes
// them (the whole comment when nothing else is left in it). Call after every finding of the file
// has been offered to `suppressions`.
std::vector<Diagnostic> unused_suppressions(const Suppressions& suppressions, std::string_view text,
                                            const Selection& selection);

}  // namespace graphmend::rules
