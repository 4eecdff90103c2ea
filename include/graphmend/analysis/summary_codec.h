// A module's summary as bytes and back, so that it can be kept between runs (docs/incremental.md).
//
// The bytes are compact (integers as variable-length numbers, each string once in the summary's
// table) and read without trust: decode() checks every count against what the bytes left can hold,
// every enum against its values, and every index a fact holds against the table it points into,
// so damaged bytes give nullopt, never a summary that would send a reader out of the summary's
// tables. (Call sites index the module's tree, which only the module can check: analysis::fits.)
// Whoever stores them (driver/cache.h) adds a header with a checksum and the key.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "graphmend/analysis/summary.h"

namespace graphmend::analysis {

// The summary's facts as bytes, in field order. The layout changes whenever a field of
// ModuleSummary does; kSummaryFormat is bumped with it.
inline constexpr int kSummaryFormat = 1;
std::string encode(const ModuleSummary& summary);

// The summary that `bytes` encode, if they hold one summary and nothing more, and it is consistent;
// nullopt otherwise.
std::optional<ModuleSummary> decode(std::string_view bytes);

// True if every index in `summary` points into its table, each table that is looked up by name is
// sorted by name, a method call on the instance names its method, and the logger values form a
// forest (each named once, by a later value or the module's table): what a reader of a summary
// takes for granted.
bool is_consistent(const ModuleSummary& summary);

}  // namespace graphmend::analysis
